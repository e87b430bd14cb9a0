"""Capped output: keep the head and the tail of a stream, drop the middle, say how much was dropped.

Memory stays flat however much a command prints.
"""

from __future__ import annotations

import collections

MARKER = "\n[... {dropped} bytes of output truncated by the ensemble sandbox ...]\n"
MARKER_WORDS = "bytes of output truncated by the ensemble sandbox"


class CappedBuffer:
    """Collects bytes up to `limit`: the first half verbatim, the last half as a rolling tail."""

    def __init__(self, limit: int):
        self.limit = max(limit, 2)
        self.head = bytearray()
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_size = 0
        self.total = 0

    def write(self, data: bytes) -> None:
        """Append a chunk."""
        if not data:
            return
        self.total += len(data)
        room = self.limit // 2 - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        keep = self.limit - self.limit // 2
        data = data[-keep:]
        self.tail.append(data)
        self.tail_size += len(data)
        while self.tail_size - len(self.tail[0]) >= keep:
            self.tail_size -= len(self.tail.popleft())

    @property
    def dropped(self) -> int:
        """How many bytes were not kept."""
        return max(0, self.total - self.limit)

    def text(self) -> str:
        """The kept output as text, with a marker where bytes were dropped."""
        tail = b"".join(self.tail)
        keep = self.limit - self.limit // 2
        if self.dropped:
            tail = tail[-keep:]
            middle = MARKER.format(dropped=self.total - len(self.head) - len(tail))
            return self.head.decode("utf-8", "replace") + middle + tail.decode("utf-8", "replace")
        return (bytes(self.head) + tail).decode("utf-8", "replace")


def cap_text(text: str, limit: int) -> str:
    """Cap an already-collected string the same way."""
    buffer = CappedBuffer(limit)
    buffer.write(text.encode("utf-8", "replace"))
    return buffer.text()
