"""Capped output: keep the head and the tail of a stream, drop the middle, say how much was dropped.

Memory stays flat however much a command prints. The records a judged process streams as it goes (a line that
starts with `EVIDENCE_MARK`, sandbox/run_hooks.py) are kept apart, whatever is dropped around them, and follow
the kept output (sandbox/evidence.py takes them out again): once written, no later act of the run can take them back.
"""

from __future__ import annotations

import collections

MARKER = "\n[... {dropped} bytes of output truncated by the ensemble sandbox ...]\n"
MARKER_WORDS = "bytes of output truncated by the ensemble sandbox"
EVIDENCE_MARK = b"\x1eensemble-evidence\x1f"  # as sandbox/run_hooks.py writes it (that module imports nothing here)
MAX_RECORDS = 4096  # far more than any run streams (sandbox/run_hooks.py writes each finding once)
MAX_RECORD_BYTES = 4096  # a record is one write of at most this (PIPE_BUF: no other process's bytes inside it)
OVERFLOW = b"overflow"  # the record that stands for those beyond MAX_RECORDS


class CappedBuffer:
    """Collects bytes up to `limit`: the first half verbatim, the last half as a rolling tail."""

    def __init__(self, limit: int):
        self.limit = max(limit, 2)
        self.head = bytearray()
        self.tail: collections.deque[bytes] = collections.deque()
        self.tail_size = 0
        self.total = 0
        self.records: list[bytes] = []  # the streamed records, without their mark
        self.pending = bytearray()  # a record begun in one chunk and ended in the next

    def write(self, data: bytes) -> None:
        """Append a chunk: the streamed records in it (whole lines from `EVIDENCE_MARK` on) apart, the rest kept."""
        if self.pending:
            data, self.pending = bytes(self.pending) + data, bytearray()
        while data:
            at = data.find(EVIDENCE_MARK)
            if at < 0:
                part = _partial_mark(data)  # a record's first bytes, whose rest is in the next chunk
                self._keep(data[:len(data) - part])
                self.pending += data[len(data) - part:]
                return
            self._keep(data[:at])
            end = data.find(b"\n", at)
            if end < 0:
                if len(data) - at > MAX_RECORD_BYTES:  # no record is this long: output shaped like one, unmarked
                    self._keep(data[at + len(EVIDENCE_MARK):])
                else:
                    self.pending += data[at:]
                return
            self._record(data[at + len(EVIDENCE_MARK):end])
            data = data[end + 1:]

    def _record(self, line: bytes) -> None:
        if len(self.records) < MAX_RECORDS:
            self.records.append(line)
        else:
            self.records[-1] = OVERFLOW

    def _keep(self, data: bytes) -> None:
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
        """The kept output as text, with a marker where bytes were dropped; then each streamed record with its mark
        and a newline (`records_of` parts them again). A record the process's end cut off is output, unmarked."""
        tail = b"".join(self.tail)
        keep = self.limit - self.limit // 2
        unfinished = bytes(self.pending).replace(EVIDENCE_MARK, b"").decode("utf-8", "replace")
        records = b"".join(EVIDENCE_MARK + record + b"\n" for record in self.records).decode("utf-8", "replace")
        if self.dropped:
            tail = tail[-keep:]
            middle = MARKER.format(dropped=self.total - len(self.head) - len(tail))
            return self.head.decode("utf-8", "replace") + middle + tail.decode("utf-8", "replace") + unfinished + records
        return (bytes(self.head) + tail).decode("utf-8", "replace") + unfinished + records


def records_of(text: str) -> tuple[str, list[str]]:
    """The output `CappedBuffer.text` gave, parted into the output and the streamed records (without their mark)."""
    output, _, rest = text.partition(EVIDENCE_MARK.decode())
    return output, [record.removesuffix("\n") for record in rest.split(EVIDENCE_MARK.decode())] if rest else []


def _partial_mark(data: bytes) -> int:
    """How many of `data`'s last bytes are the first bytes of `EVIDENCE_MARK` (0 where none are)."""
    for size in range(min(len(EVIDENCE_MARK) - 1, len(data)), 0, -1):
        if data.endswith(EVIDENCE_MARK[:size]):
            return size
    return 0


def cap_text(text: str, limit: int) -> str:
    """Cap an already-collected string the same way."""
    buffer = CappedBuffer(limit)
    buffer.write(text.encode("utf-8", "replace"))
    return buffer.text()
