"""The shipped tables are parsed once per content and kept in the cache folder; a bad cache is passed by."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import tomllib

from torchparity.coverage.shipped import shipped_toml


def _parsed(name: str) -> dict:
    return tomllib.loads(resources.files("torchparity.coverage").joinpath(name).read_text("utf-8"))


@pytest.mark.parametrize("name", ["static_aliases.toml", "static_types.toml"])
def test_the_kept_copy_is_what_the_toml_says(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TORCHPARITY_CACHE", str(tmp_path / "cache"))
    first = shipped_toml(name)
    (kept,) = (tmp_path / "cache").iterdir()
    assert kept.name.startswith(Path(name).stem + "-") and first == _parsed(name)
    kept.write_bytes(b"\xc1 not msgpack")  # a damaged copy is parsed again, and replaced
    assert shipped_toml(name) == first
    assert shipped_toml(name) == first and kept.read_bytes() != b"\xc1 not msgpack"


def test_an_unwritable_cache_folder_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be")
    monkeypatch.setenv("TORCHPARITY_CACHE", str(blocker / "cache"))
    assert shipped_toml("static_types.toml") == _parsed("static_types.toml")
