"""A test file past the size limit is not parsed (nor read): it is skipped with a note naming its size and
the limit, so the memory ``coverage`` needs is bounded per file (a 35 MB file of 500k tests took 6.4 GB and
280 s). The limit is ``TORCHPARITY_COVERAGE_MAX_FILE`` (bytes, or with a K/M suffix); set low here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.coverage.conftest import RepoFactory
from torchparity.cli import main
from torchparity.coverage import Indexer, coverage_for, static_table
from torchparity.coverage import extract as extract_module
from torchparity.coverage import index as index_module
from torchparity.coverage.index import DEFAULT_MAX_FILE_BYTES, max_file_bytes
from torchparity.errors import UsageError
from torchparity.store import Store

LIMIT = 50_000
SMALL = "import torch\n\n\ndef test_small():\n    torch.zeros(2).ndimension()\n"


def _big(tests: int) -> str:
    """A generated test file: ``tests`` test methods, each calling the API (about 100 bytes a test)."""
    return "import torch\nimport unittest\n\n\nclass TestBig(unittest.TestCase):\n" + "".join(
        f"    def test_{i}(self):\n        self.assertEqual(torch.zeros({i}).ndimension(), 1)\n\n"
        for i in range(tests)
    )


@pytest.fixture
def repo(cov_repo: RepoFactory) -> Path:
    return cov_repo({"master": {"test/test_small.py": SMALL, "test/test_big.py": _big(3_000)}})


def _watch(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[str]]:
    """(sizes of the bytes parsed, blob ids read) for everything the index does in this process."""
    parsed: list[int] = []
    read: list[str] = []
    real_extract, real_read = extract_module.extract, index_module.read_blobs

    def extract(data: bytes) -> dict[str, object]:
        parsed.append(len(data))
        return real_extract(data)

    def read_blobs(root: object, blobs: list[str]) -> dict[str, bytes]:
        blobs = list(blobs)
        read.extend(blobs)
        return real_read(root, blobs)  # type: ignore[arg-type]

    monkeypatch.setattr(extract_module, "extract", extract)
    monkeypatch.setattr(index_module, "read_blobs", read_blobs)
    return parsed, read


def test_a_file_past_the_limit_is_skipped_unread_with_a_note(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the 300 KB file was read and parsed whole (a 35 MB one: 6.4 GB); now neither."""
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", str(LIMIT))
    parsed, read = _watch(monkeypatch)
    ix = Indexer(Store(tmp_path / "store"), static_table(), keep=False).index(
        repo, "master", ["test"]
    )
    big = dict(ix.files)["test/test_big.py"]
    assert big not in read  # its bytes never left git
    assert parsed and max(parsed) <= LIMIT
    (skipped,) = ix.skipped
    path, why = skipped
    size = len(_big(3_000).encode())
    assert path == "test/test_big.py"
    assert (
        f"{size:,} bytes" in why and f"{LIMIT:,}" in why and "TORCHPARITY_COVERAGE_MAX_FILE" in why
    )
    assert ix.tests == 1  # the small file's test is indexed as before


def test_the_note_is_in_the_answer_and_the_other_files_still_count(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", "50K")
    report = coverage_for(
        ["torch.Tensor.ndimension"], repo, None, Store(tmp_path / "s"), grep="off"
    )
    ref = report.to_json()[0]["refs"][0]
    assert [h["test"] for h in ref["direct"]] == ["test/test_small.py::test_small"]
    (note,) = ref["skipped_files"]
    assert note["path"] == "test/test_big.py" and "over the limit of 51,200 bytes" in note["why"]
    rc = main(
        [
            "coverage",
            "torch.Tensor.ndimension",
            "--repo",
            str(repo),
            "--grep",
            "off",
            "--store",
            str(tmp_path / "s2"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "skipped test/test_big.py: " in out and "over the limit" in out


def test_a_higher_limit_later_parses_the_file(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The skip is not cached as the file's facts, and a kept index is per limit: raised, the file counts."""
    store = Store(tmp_path / "store")
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", str(LIMIT))
    low = Indexer(store, static_table()).index(repo, "master", ["test"])
    assert [p for p, _ in low.skipped] == ["test/test_big.py"] and low.tests == 1
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", "1M")
    high = Indexer(store, static_table()).index(repo, "master", ["test"])
    assert high.skipped == [] and high.tests == 3_001


def test_a_file_at_the_limit_is_parsed(
    cov_repo: RepoFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _big(100)
    repo = cov_repo({"master": {"test/test_big.py": text}})
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", str(len(text.encode())))
    ix = Indexer(Store(tmp_path / "store"), static_table(), keep=False).index(
        repo, "master", ["test"]
    )
    assert ix.skipped == [] and ix.tests == 100


def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TORCHPARITY_COVERAGE_MAX_FILE", raising=False)
    assert max_file_bytes() == DEFAULT_MAX_FILE_BYTES == 4 * 1024 * 1024
    for raw, want in (("1000", 1000), ("64k", 65536), ("8M", 8 << 20), (" 2 MiB ", 2 << 20)):
        monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", raw)
        assert max_file_bytes() == want
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", "")
    assert max_file_bytes() == DEFAULT_MAX_FILE_BYTES  # set but empty: as if unset
    for bad in ("lots", "-5", "0", "1.5M"):
        monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", bad)
        with pytest.raises(UsageError, match="TORCHPARITY_COVERAGE_MAX_FILE"):
            max_file_bytes()


def test_a_bad_limit_is_one_line_exit_2(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TORCHPARITY_COVERAGE_MAX_FILE", "lots")
    rc = main(
        [
            "coverage",
            "torch.Tensor.ndimension",
            "--repo",
            str(repo),
            "--grep",
            "off",
            "--store",
            str(tmp_path / "s"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert (
        rc == 2
        and err.startswith("ERROR: ")
        and "\n" not in err
        and "TORCHPARITY_COVERAGE_MAX_FILE" in err
    )
