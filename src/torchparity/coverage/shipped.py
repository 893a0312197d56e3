"""The tables shipped with torchparity (TOML files in this package), parsed once per content.

Parsing the two tables takes about 0.1 s, a good part of a warm ``coverage`` call; the parsed data
is kept as msgpack in the user's cache folder (``$XDG_CACHE_HOME/torchparity``, or
``~/.cache/torchparity``; ``TORCHPARITY_CACHE`` overrides it) under a digest of the text, so an
edited table is parsed again. A cache that cannot be read or written is passed by.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


def cache_folder() -> Path:
    given = os.environ.get("TORCHPARITY_CACHE")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "torchparity"


def shipped_toml(name: str) -> dict[str, Any]:
    """The parsed ``name`` (a TOML file of ``torchparity.coverage``)."""
    text = resources.files("torchparity.coverage").joinpath(name).read_text("utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    kept = cache_folder() / f"{Path(name).stem}-{digest}.msgpack"
    try:
        data: dict[str, Any] = msgspec.msgpack.decode(kept.read_bytes())
        return data
    except (OSError, msgspec.DecodeError):
        pass
    data = tomllib.loads(text)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=kept.parent, prefix=f".{kept.name}.")
        with os.fdopen(fd, "wb") as f:
            f.write(msgspec.msgpack.encode(data))
        os.replace(tmp, kept)  # whole or not at all: a reader never sees half of it
    except OSError:
        pass
    return data


__all__ = ["cache_folder", "shipped_toml"]
