"""Hand-made zips for the limit tests: a zip bomb in a second, and headers that lie.

``bomb_entry`` deflates ``size`` zero bytes without running zlib over all of them:
after a full flush deflate's state is reset, so every further MiB of zeros compresses
to the same bytes, which are repeated. ``write_raw_zip`` writes the local headers,
central directory and end record itself, so a test can state any size it likes.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


@dataclass(frozen=True)
class RawEntry:
    name: str
    data: bytes  # as stored (deflated when method is 8)
    crc: int
    size: int  # the size the headers state
    method: int = 8


def bomb_entry(name: str, size: int, stated: int | None = None) -> RawEntry:
    """``size`` zero bytes deflated (about 1 KiB per MiB); headers state ``stated`` (default: the truth)."""
    assert size % MIB == 0
    zero = bytes(MIB)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    assert again == c.compress(zero) + c.flush(zlib.Z_FULL_FLUSH)
    stream = first + again * (size // MIB - 1) + c.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(size // MIB):
        crc = zlib.crc32(zero, crc)
    return RawEntry(name, stream, crc, size if stated is None else stated)


def write_raw_zip(path: Path, entries: list[RawEntry]) -> Path:
    body = b""
    directory = b""
    for e in entries:
        name = e.name.encode("utf-8")
        offset = len(body)
        body += (
            struct.pack(
                "<4s5H3L2H",
                b"PK\x03\x04",
                20,
                0,
                e.method,
                0,
                0x21,
                e.crc,
                len(e.data),
                e.size,
                len(name),
                0,
            )
            + name
            + e.data
        )
        directory += (
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                20,
                20,
                0,
                e.method,
                0,
                0x21,
                e.crc,
                len(e.data),
                e.size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + name
        )
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), len(body), 0
    )
    path.write_bytes(body + directory + end)
    return path
