"""Who is at the other end of a TCP connection on this machine, and what its environment holds.

What an attacker on the machine can find out without help from the process: the connection's
socket inode from /proc/net/tcp, the process holding that socket from /proc/<pid>/fd, its
environment from /proc/<pid>/environ. The fake servers use it to show which process talked to them.
"""

from __future__ import annotations

import os
import socket
import struct
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Peer:
    """A process at the far end of a connection: its pid and environment (None when it could not be read)."""

    pid: int
    environ: dict[str, str] | None


def peer_of(client: tuple[str, int], server: tuple[str, int]) -> Peer | None:
    """The process that holds the client end of the connection `client` -> `server` (IPv4), if any."""
    inode = _socket_inode(client, server)
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    holders = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") == target for fd in os.listdir(f"/proc/{pid}/fd")):
                holders.append((_started(pid), pid))
        except OSError:  # gone, or not ours to read
            continue
    # the oldest holder: a child forked while the request was in flight holds a copy of the socket until it closes
    # its inherited descriptors and starts its program, and the process that opened the connection is older
    return Peer(min(holders)[1], read_environ(min(holders)[1])) if holders else None


def _started(pid: int) -> int:
    """When `pid` started, in clock ticks since boot (/proc/<pid>/stat's 22nd field)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[19])  # the fields after the command name, which may hold spaces


def read_environ(pid: int) -> dict[str, str] | None:
    """`pid`'s environment as the kernel shows it, or None when it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    pairs = (item.decode(errors="replace").partition("=") for item in raw.split(b"\0") if item)
    return {name: value for name, _, value in pairs}


def _socket_inode(local: tuple[str, int], remote: tuple[str, int]) -> int | None:
    wanted = (_hex_address(*local[:2]), _hex_address(*remote[:2]))
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (fields[1], fields[2]) == wanted:
            return int(fields[9])
    return None


def _hex_address(host: str, port: int) -> str:
    """An address as /proc/net/tcp writes it: the IPv4 address in host byte order, then the port, in hex."""
    packed = struct.unpack("=I", socket.inet_aton(host))[0]
    return f"{packed:08X}:{port:04X}"
