"""Bad input is exit 2 and a broken environment exit 3, in one line naming what is wrong, everywhere."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from torchparity.cli import main
from torchparity.store import Store

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"
LATIN1 = "préfixe = 1\n".encode("latin-1")


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("ERROR: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("value", ["0", "-5", "1e12", "nan", "inf"])
@pytest.mark.parametrize("verb", ["run", "verify"])
def test_a_timeout_that_is_not_positive_or_beyond_a_day_is_bad_input(tmp_path, capsys, verb, value):
    first = ["test_x.py"] if verb == "run" else ["torch.add"]
    rc = main(
        [
            verb,
            *first,
            "--python",
            sys.executable,
            "--timeout",
            value,
            "--store",
            str(tmp_path / "store"),
        ]
    )
    line = _one_error_line(capsys)
    assert rc == 2
    assert "--timeout" in line and "more than 0 and at most 86400" in line


def _store_with_a_run(tmp_path: Path) -> str:
    st = Store(tmp_path / "store")
    st.finish_run(st.new_run("run", ["run", "t.py"]), "PASS")
    return str(tmp_path / "store")


@pytest.mark.parametrize(
    "data, says",
    [(BINARY, "is a binary file"), (LATIN1, "is not UTF-8 text")],
    ids=["binary", "latin-1"],
)
@pytest.mark.parametrize("flag", ["--config", "--template", "--from", "--into"])
def test_a_binary_or_undecodable_file_is_bad_input_naming_it(tmp_path, capsys, flag, data, says):
    bad = tmp_path / "bad.file"
    bad.write_bytes(data)
    if flag == "--config":
        args = ["report", "1", "--store", _store_with_a_run(tmp_path), "--config", str(bad)]
    elif flag == "--template":
        args = ["report", "1", "--store", _store_with_a_run(tmp_path), "--template", str(bad)]
    elif flag == "--from":
        args = ["coverage", "--from", str(bad), "--repo", str(tmp_path)]
    else:
        args = [
            "scaffold",
            "torch.add",
            "--into",
            str(bad),
            "--dry-run",
            "--python",
            sys.executable,
        ]
    rc = main(args)
    line = _one_error_line(capsys)
    assert rc == 2
    assert f"{flag} {bad} {says}" in line


@pytest.mark.slow
def test_verify_with_a_missing_test_file_is_bad_input_and_leaves_no_run(
    tmp_path, make_repo, capsys
):
    repo = make_repo({"master": {"test/test_a.py": "import unittest\n"}})
    store = tmp_path / "store"
    rc = main(
        [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--test-file",
            "test/missing.py",
            "--python",
            sys.executable,
            "--store",
            str(store),
        ]
    )
    line = _one_error_line(capsys)
    assert rc == 2 and "--test-file test/missing.py does not exist at" in line
    assert not (store / "store.sqlite").exists() or Store(store).runs() == []
    assert git(repo, "worktree", "list").count("\n") == 0


@pytest.mark.slow
def test_verify_with_a_binary_into_file_is_bad_input_before_any_work(tmp_path, make_repo, capsys):
    repo = make_repo({"master": {"test/test_a.py": "import unittest\n"}})
    (repo / "test" / "blob.py").write_bytes(BINARY)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a binary file")
    store = tmp_path / "store"
    rc = main(
        [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--into",
            "test/blob.py",
            "--python",
            sys.executable,
            "--store",
            str(store),
        ]
    )
    line = _one_error_line(capsys)
    assert rc == 2 and "--into test/blob.py at HEAD is a binary file" in line
    assert not (store / "store.sqlite").exists() or Store(store).runs() == []


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True
    )
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(
    not _unshare_works(), reason="needs unshare (user and mount namespaces) for a small tmpfs"
)
def test_a_full_disk_is_exit_3_naming_the_path(tmp_path):
    store = _store_with_a_run(tmp_path)
    full = tmp_path / "full"
    full.mkdir()
    out = full / "pr.md"
    script = (
        f"mount -t tmpfs -o size=8k tmpfs {full} && "
        f"(dd if=/dev/zero of={full}/filler bs=1k count=64 2>/dev/null; true) && "
        f"{sys.executable} -m torchparity report 1 --kind pr --store {store} --out {out}"
    )
    res = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 3, res.stderr
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: no space left writing {out}"), (
        res.stderr
    )
