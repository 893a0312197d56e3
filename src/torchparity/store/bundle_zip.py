"""Reading a bundle zip safely: limits checked before reading, enforced while streaming; names checked.

Before a byte of any entry is read, the zip's end record (entry count, size of the
central directory) and then every entry of the central directory (its name, its
stated size, the sum of the sizes) are checked against ``BundleLimits``. Headers can
lie, so every entry is then read as a stream of chunks that stops the moment it
passes its stated size or the limit. Memory stays bounded: entries are hashed or
copied chunk by chunk; only JSON documents (under ``max_json_bytes``) are held whole.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.sig"
BLOB_DIR = "blobs/"
CHUNK = 1 << 20
_BLOB = re.compile(r"blobs/[0-9a-f]{64}")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


class BundleInvalid(UsageError):
    """The file is not a bundle torchparity can read: malformed, over a limit, a path problem (exit 2)."""


class EntryDamaged(Exception):
    """An entry's bytes do not match its own zip header (CRC, length): a verification problem."""


def parse_size(text: str) -> int:
    """``512M``, ``2G``, ``1.5GiB``, ``1000`` -> bytes (binary units); bad input otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if not m:
        raise UsageError(f"size {text!r} is not a number of bytes; write e.g. 500M or 2G")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def human(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


@dataclass(frozen=True)
class BundleLimits:
    """What a bundle may hold; every figure is checked before reading and while streaming."""

    max_entries: int = 100_000
    max_entry_bytes: int = 256 << 20
    max_total_bytes: int = 2 << 30
    #: a JSON document (manifest, record, seal) is parsed in memory: at most this big
    max_json_bytes: int = 16 << 20
    max_directory_bytes: int = 64 << 20


def path_problem(name: str) -> str | None:
    """Why an entry name is unsafe to have in a bundle (None: it is a plain relative name)."""
    if not name:
        return "an empty name"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "an absolute path"
    parts = re.split(r"[/\\]", name.rstrip("/"))
    if ".." in parts:
        return "a path that climbs out of the bundle (..)"
    if "\\" in name:
        return "a backslash in the name"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "a control character in the name"
    if any(p in ("", ".") for p in parts):
        return "an empty or '.' part in the path"
    return None


def is_bundle_name(name: str) -> bool:
    return name in (MANIFEST, SIGNATURE) or _BLOB.fullmatch(name) is not None


def _end_record(path: Path, size: int) -> tuple[int, int]:
    """(entries, central directory bytes) from the zip's end record, read before zipfile parses anything."""
    with open(path, "rb") as fh:
        back = min(size, 22 + 0xFFFF)
        fh.seek(size - back)
        tail = fh.read(back)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) - at < 22:
            raise BundleInvalid(f"{path} is not a torchparity bundle (not a zip file)")
        _sig, _d, _cd, _n_disk, entries, cd_bytes, cd_offset, _c = struct.unpack(
            "<4s4H2LH", tail[at : at + 22]
        )
        if entries == 0xFFFF or cd_bytes == 0xFFFFFFFF or cd_offset == 0xFFFFFFFF:  # zip64
            loc_at = size - back + at - 20
            if loc_at < 0:
                raise BundleInvalid(
                    f"{path}: the zip64 end record is missing; the zip is malformed"
                )
            fh.seek(loc_at)
            sig, _disk, z64_offset, _disks = struct.unpack("<4sLQL", fh.read(20))
            if sig != b"PK\x06\x07":
                raise BundleInvalid(
                    f"{path}: the zip64 end record is missing; the zip is malformed"
                )
            fh.seek(z64_offset)
            rec = fh.read(56)
            if len(rec) < 56 or rec[:4] != b"PK\x06\x06":
                raise BundleInvalid(
                    f"{path}: the zip64 end record is damaged; the zip is malformed"
                )
            _s, _z, _v, _vn, _dk, _cdk, _nd, entries, cd_bytes, _off = struct.unpack(
                "<4sQ2H2L4Q", rec
            )
    return entries, cd_bytes


class SafeZip:
    """A bundle zip opened for reading under ``limits`` (``BundleInvalid`` for what breaks them)."""

    def __init__(self, path: Path, limits: BundleLimits) -> None:
        self.path, self.limits = path, limits
        if not path.is_file():
            raise UsageError(f"bundle not found: {path}")
        size = path.stat().st_size
        entries, cd_bytes = _end_record(path, size)
        if entries > limits.max_entries:
            raise BundleInvalid(
                f"bundle {path} has {entries} entries, over the limit of {limits.max_entries} "
                "(--max-entries); refused before reading it"
            )
        if cd_bytes > limits.max_directory_bytes:
            raise BundleInvalid(
                f"bundle {path}: its zip directory is {human(cd_bytes)}, over the limit of "
                f"{human(limits.max_directory_bytes)}; refused before reading it"
            )
        try:
            self.zf = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
            raise BundleInvalid(
                f"{path} is not a torchparity bundle (not a readable zip file: {exc})"
            ) from exc
        try:
            self.entries = self._check_directory()
        except BaseException:
            self.zf.close()
            raise

    def _check_directory(self) -> dict[str, zipfile.ZipInfo]:
        limits, where = self.limits, f"bundle {self.path}"
        infos = self.zf.infolist()
        if len(infos) > limits.max_entries:
            raise BundleInvalid(
                f"{where} has {len(infos)} entries, over the limit of {limits.max_entries} "
                "(--max-entries); refused before reading it"
            )
        out: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in infos:
            name = info.orig_filename
            problem = path_problem(name)
            if problem is not None:
                raise BundleInvalid(
                    f"{where}: entry {name!r} is a path problem: {problem}; a bundle holds only "
                    f"{MANIFEST}, {SIGNATURE} and {BLOB_DIR}<sha256>; refused"
                )
            if name in out:
                raise BundleInvalid(
                    f"{where}: entry {name!r} is a path problem: it appears twice; refused"
                )
            if info.flag_bits & 0x1:
                raise BundleInvalid(
                    f"{where}: entry {name!r} is encrypted; bundles are not; refused"
                )
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise BundleInvalid(
                    f"{where}: entry {name!r} uses compression method {info.compress_type}; "
                    "bundles are stored or deflated; refused"
                )
            if info.file_size > limits.max_entry_bytes:
                raise BundleInvalid(
                    f"{where}: entry {name!r} would expand to {human(info.file_size)}, over the "
                    f"limit of {human(limits.max_entry_bytes)} per entry (--max-entry-size); "
                    "refused before reading it"
                )
            total += info.file_size
            if total > limits.max_total_bytes:
                raise BundleInvalid(
                    f"{where}: its entries would expand to more than "
                    f"{human(limits.max_total_bytes)} in all (--max-total-size); "
                    "refused before reading it"
                )
            out[name] = info
        return out

    def close(self) -> None:
        self.zf.close()

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def chunks(self, name: str) -> Iterator[bytes]:
        """The bytes of entry ``name``, a chunk at a time, never past its stated size or the limit.

        Raises ``EntryDamaged`` when the bytes disagree with the entry's header (CRC, length)."""
        info = self.entries[name]
        cap = min(info.file_size, self.limits.max_entry_bytes)
        seen = 0
        try:
            with self.zf.open(info) as fh:
                while True:
                    chunk = fh.read(CHUNK)
                    if not chunk:
                        break
                    seen += len(chunk)
                    if seen > cap:
                        raise EntryDamaged(f"it expands past the {human(cap)} its header states")
                    yield chunk
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as exc:
            raise EntryDamaged(f"its bytes do not match its zip header ({exc})") from exc
        if seen != info.file_size:
            raise EntryDamaged(f"it holds {seen} bytes, its header states {info.file_size}")

    def read_json_bytes(self, name: str) -> bytes:
        """The whole of a JSON entry (manifest, record, seal): at most ``max_json_bytes``."""
        info = self.entries[name]
        if info.file_size > self.limits.max_json_bytes:
            raise BundleInvalid(
                f"bundle {self.path}: entry {name!r} is {human(info.file_size)}, larger than a "
                f"JSON document may be ({human(self.limits.max_json_bytes)}); refused"
            )
        return b"".join(self.chunks(name))
