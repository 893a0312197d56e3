"""Blobs are opened only as regular files, and read no further than their size: nothing at a blob's path
can hang a reader.

A FIFO at a log's or a record's path (opening it would wait for a writer forever), a symlink to
``/dev/zero`` (endless bytes) or to a folder: ``runs``, ``show``, ``report`` and ``bundle export`` each
exit 3 at once with one line naming the blob's path and what is there. A symlink to a regular file with
the right bytes is still read (a store may be laid out with links).
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.evidence import fill
from torchparity.cli import main
from torchparity.store import Store


@pytest.fixture
def store_contents():
    return fill


class Hung(Exception):
    pass


@pytest.fixture
def deadline() -> Iterator[None]:
    """A verb that hangs fails the test after 5 s instead of hanging it (SIGALRM interrupts the wait)."""

    def hung(signum: int, frame: object) -> None:
        raise Hung("the verb hung reading a blob")

    old = signal.signal(signal.SIGALRM, hung)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _verbs(store: Store, tmp_path: Path) -> list[list[str]]:
    st = str(store.root)
    return [
        ["runs", "--store", st],
        ["show", "2", "--store", st],
        ["report", "2", "--kind", "json", "--store", st],
        ["bundle", "export", "2", "-o", str(tmp_path / "b.zip"), "--store", st],
    ]


def _replace(path: Path, kind: str, tmp_path: Path) -> str:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
        return "a FIFO"
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
        return "a character device"
    (tmp_path / "a-folder").mkdir(exist_ok=True)
    path.symlink_to(tmp_path / "a-folder")
    return "a folder"


# (not /dev/zero as a record: a torchparity without the check reads a record whole, and would fill the
# memory before the deadline could stop it; the log case shows the check, which is the same for both)
@pytest.mark.parametrize(
    ("blob", "kind"),
    [
        ("log", "fifo"),
        ("log", "dev-zero"),
        ("log", "folder"),
        ("record", "fifo"),
        ("record", "folder"),
    ],
)
def test_a_blob_that_is_not_a_regular_file_is_exit_3_at_once(
    store: Store,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    deadline: None,
    blob: str,
    kind: str,
) -> None:
    (target,) = store.targets(2)
    sha = target.log_sha if blob == "log" else target.record_sha
    assert sha
    path = store.blobs.path(sha)
    what = _replace(path, kind, tmp_path)
    for argv in _verbs(store, tmp_path):
        signal.setitimer(signal.ITIMER_REAL, 5)
        try:
            code = main(argv)
        except Hung:
            pytest.fail(f"torchparity {argv[0]} hung on a blob that is {what}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        err = capsys.readouterr().err.strip()
        assert code == 3, (argv, err)
        assert err.count("\n") == 0, err
        assert str(path) in err and f"is {what}, not a regular file" in err, err
    assert not (tmp_path / "b.zip").exists()


def test_a_blob_linked_to_a_regular_file_with_its_bytes_is_read(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (target,) = store.targets(2)
    path = store.blobs.path(target.log_sha or "")
    elsewhere = tmp_path / "elsewhere.log"
    shutil.copyfile(path, elsewhere)
    path.unlink()
    path.symlink_to(elsewhere)
    assert main(["show", "2", "--store", str(store.root)]) == 0
    assert "RESULT=FAIL" in capsys.readouterr().out
