"""A job's processes and output stay within bounds, with real processes.

* every descendant of a step goes with it, also a double-forked ``setsid()`` grandchild whose parent
  already exited (warm, and ``--fresh``'s literal ``python FILE -v``): at the timeout, on SIGTERM and
  when the file ends;
* what a step prints is kept within a cap (its head and its tail, with a line saying what was cut), on
  disk and in the controller's memory;
* an interpreter that hangs at start is given up after the step's timeout, not after 300 s;
* a TMPDIR that fills up is a broken environment (exit 3) naming the path, not a failing test.

The fast tests drive the output capture through a real pipe (no interpreter).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from tests.conftest import write
from tests.exec.test_interrupts import _alive, _leftovers, _repo, _start, _stop, _wait_for
from torchparity.errors import EnvironmentBroken
from torchparity.exec.capture import MAX_OUTPUT, OutputCapture, read_text
from torchparity.store import Store

MIB = 1024 * 1024

# -- 10: a double-forked setsid() grandchild ---------------------------------------------------

DOUBLE_FORK = """
import os
import sys
import time
import unittest

PIDS = {pids!r}
HANG = {hang!r}


def _lines():
    try:
        with open(PIDS) as fh:
            return fh.read().split()
    except FileNotFoundError:
        return []


class TestEscape(unittest.TestCase):
    def test_double_fork(self):
        before = len(_lines())
        sys.stdout.flush()
        sys.stderr.flush()
        middle = os.fork()
        if middle == 0:  # a session of its own, then a grandchild, then gone: the grandchild is an orphan
            os.setsid()
            middle = os.getpid()
            if os.fork() == 0:
                while os.getppid() == middle:  # written once it is an orphan
                    time.sleep(0.01)
                with open(PIDS, "a") as fh:
                    fh.write("%d\\n" % os.getpid())
                time.sleep(600)
            os._exit(0)
        os.waitpid(middle, 0)
        while len(_lines()) == before:
            time.sleep(0.02)
        if HANG:
            time.sleep(600)


if __name__ == "__main__":
    unittest.main()
"""


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _all_dead(pids: list[int], seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


@pytest.fixture
def grandchildren(tmp_path):
    """The file the grandchildren write their pids to; whatever a failing run left alive is killed."""
    path = tmp_path / "grandchildren.pid"
    yield path
    for pid in _pids(path):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.mark.slow
@pytest.mark.parametrize("end", ["timeout", "sigterm", "finished"])
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_double_forked_setsid_grandchild_is_killed_with_its_step(
    tmp_path, make_repo, python_with_torch, grandchildren, mode, end
):
    """Its parent is gone before the step ends: the /proc tree below the step no longer holds it."""
    repo = _repo(
        make_repo,
        {
            "test/test_escape.py": DOUBLE_FORK.format(
                pids=str(grandchildren), hang=end != "finished"
            )
        },
    )
    store = tmp_path / "store"
    proc = _start(
        tmp_path,
        "run",
        "test/test_escape.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--timeout",
        "12",
        "--store",
        str(store),
        *(["--fresh"] if mode == "fresh" else []),
    )
    _wait_for(grandchildren, proc)  # an orphan by then, in a session of its own
    if end == "sigterm":
        took, err = _stop(proc, signal.SIGTERM)
        assert proc.returncode == 130 and took < 5, err
    else:
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == (1 if end == "timeout" else 0), err
    pids = _pids(grandchildren)
    assert len(pids) == (
        1 if mode == "warm" or end == "sigterm" else 2
    )  # fresh: the literal run, the agent's
    assert _all_dead(pids) == []
    assert _leftovers(tmp_path) == ([], [])
    if end == "timeout":
        st = Store(store)
        log = st.blobs.read(st.targets(1)[0].log_sha).decode()
        assert "FULL_TEST_STATUS=TIMEOUT signal=SIGKILL" in log


# -- 13: output capped, head and tail kept -----------------------------------------------------


def _feed(write_fd: int, total: int, block: bytes) -> None:
    with os.fdopen(write_fd, "wb", buffering=0) as fh:
        fh.write(b"FIRST-LINE\n")
        left = total
        while left > 0:
            n = min(left, len(block))
            fh.write(block[:n])
            left -= n
        fh.write(b"LAST-LINE\n")


def _captured(tmp_path: Path, total: int, cap: int | None) -> tuple[OutputCapture, bytes]:
    out = tmp_path / "out.log"
    capture, write_fd = OutputCapture.pipe(out, cap)
    feeder = threading.Thread(target=_feed, args=(write_fd, total, b"x" * 1023 + b"\n"))
    feeder.start()
    feeder.join(timeout=120)
    capture.finish()
    return capture, out.read_bytes()


def test_the_capture_keeps_the_head_and_the_tail_and_says_what_was_cut(tmp_path):
    capture, kept = _captured(tmp_path, 10 * MIB, MIB)
    stream = b"FIRST-LINE\n" + (b"x" * 1023 + b"\n") * (10 * 1024) + b"LAST-LINE\n"
    total, half = len(stream), MIB // 2
    assert (capture.total, capture.cut) == (total, total - MIB)
    assert kept[:half] == stream[:half] and kept[-half:] == stream[-half:]
    # the head ends inside a line: the line saying what was cut starts a line of its own
    assert kept[half:-half].decode() == (
        f"\n[torchparity: {total - MIB} bytes of output left out here (kept the first {half} and the last "
        f"{half} of {total} bytes; max_output is {MIB} bytes per step: --max-output, [run] max_output)]\n"
    )


def test_output_under_the_cap_is_kept_byte_for_byte_and_zero_keeps_everything(tmp_path):
    capture, kept = _captured(tmp_path, 100_000, MIB)
    assert (
        capture.cut == 0
        and kept == b"FIRST-LINE\n" + (b"x" * 1023 + b"\n") * 97 + b"x" * 672 + b"LAST-LINE\n"
    )
    capture, kept = _captured(tmp_path, 3 * MIB, 0)
    assert capture.cut == 0 and len(kept) == 3 * MIB + 21
    assert MAX_OUTPUT == 16 * MIB


def test_the_capture_holds_at_most_the_tail_in_memory(tmp_path):
    tracemalloc.start()
    try:
        capture, kept = _captured(tmp_path, 64 * MIB, MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert capture.cut > 62 * MIB
    assert peak < 2 * MIB, f"{peak / MIB:.1f} MiB held for a 1 MiB cap"


def test_reading_a_file_bigger_than_the_cap_reads_only_its_head_and_tail(tmp_path):
    """Where no pipe could be put in between (a folder that holds no FIFO), the reading is bounded."""
    big = tmp_path / "big.log"
    with open(big, "wb") as fh:
        fh.write(b"FIRST\n" + b"z" * (8 * MIB) + b"\nLAST\n")
    tracemalloc.start()
    try:
        text = read_text(big, MIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (
        text.startswith("FIRST\n")
        and text.endswith("\nLAST\n")
        and "bytes of output left out here" in text
    )
    assert len(text) < MIB + 300 and peak < 4 * MIB


def test_a_full_disk_under_the_capture_is_a_broken_environment_naming_the_path(tmp_path):
    """/dev/full answers every write with ENOSPC; the writer is not blocked, the error names the file."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    capture, write_fd = OutputCapture.pipe(Path("/dev/full"), MIB)
    feeder = threading.Thread(target=_feed, args=(write_fd, 4 * MIB, b"y" * 4096))
    feeder.start()
    feeder.join(timeout=60)
    assert not feeder.is_alive()
    capture.finish()
    with pytest.raises(
        EnvironmentBroken, match=r"^no space left writing /dev/full \(No space left on device\)"
    ):
        capture.check()


FLOOD = """
import sys
import unittest


class TestFlood(unittest.TestCase):
    def test_flood(self):
        out = sys.stdout
        out.write("FLOOD-FIRST-LINE\\n")
        block = ("y" * 1023 + "\\n") * 1024
        for _ in range({mib}):
            out.write(block)
        out.write("FLOOD-LAST-LINE\\n")
        out.flush()


if __name__ == "__main__":
    unittest.main()
"""

#: a controller that runs a command and says how much memory it held at most (its own, not its children's)
_MEASURED = """
import json, resource, sys
from torchparity.cli import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_flood_of_output_is_capped_on_disk_and_in_memory(
    tmp_path, make_repo, python_with_torch, mode
):
    """256 MiB printed: the log keeps 16 MiB of it (head, tail, what was cut); the old controller held it
    several times over (more than a GiB) and stored it twice (log and record)."""
    repo = _repo(make_repo, {"test/test_flood.py": FLOOD.format(mib=256)})
    store = tmp_path / "store"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEASURED,
            "run",
            "test/test_flood.py",
            "--repo",
            str(repo),
            "--python",
            python_with_torch,
            "--store",
            str(store),
            "--timeout",
            "300",
            *(["--fresh"] if mode == "fresh" else []),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, TMPDIR=str(tmp)),
        cwd=tmp_path,
    )
    measured = json.loads(proc.stdout.strip().splitlines()[-1])
    assert measured["rc"] == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    st = Store(store)
    target = st.targets(1)[0]
    log = st.blobs.read(target.log_sha)
    assert len(log) < MAX_OUTPUT + MIB
    assert len(json.dumps(st.read_json(target.record_sha))) < MAX_OUTPUT + 2 * MIB
    text = log.decode()
    assert "FLOOD-FIRST-LINE" in text and "FLOOD-LAST-LINE" in text
    cut = [int(n) for n in re.findall(r"\[torchparity: (\d+) bytes of output left out here", text)]
    assert len(cut) == 1 and cut[0] > 240 * MIB
    assert measured["maxrss_mib"] < 600, measured


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_step_keeps_at_most_its_max_output(tmp_path, python_with_torch, mode):
    from torchparity.exec import Job, make_runner

    test = write(tmp_path / "t" / "test_flood.py", FLOOD.format(mib=8))
    runner = make_runner(mode, python_with_torch, "", "cpu", tmp_path / "logs")
    try:
        literal = [python_with_torch, str(test), "-v"] if mode == "fresh" else None
        res = runner.run(
            Job(
                "run_file",
                {"path": str(test), "argv": ["-v"]},
                tmp_path / "logs" / "full.log",
                timeout=120,
                cwd=str(test.parent),
                literal=literal,
                max_output=64 * 1024,
            )
        )
    finally:
        runner.close()
    assert res.status == "OK", res.output[-2000:]
    assert len(res.output) < 64 * 1024 + 300
    assert "FLOOD-FIRST-LINE\n" in res.output[:200] and "FLOOD-LAST-LINE" in res.output[-1000:]
    assert "bytes of output left out here" in res.output


# -- 15: a hang at start is bounded by the step's timeout -------------------------------------


def _python_hanging_at_start(tmp_path: Path, python: str, pidfile: Path) -> str:
    site = tmp_path / "hang_site"
    write(
        site / "sitecustomize.py",
        f"""
        import os, time
        with open({str(pidfile)!r}, "a") as fh:
            fh.write("%d\\n" % os.getpid())
        time.sleep(600)
    """,
    )
    wrapper = tmp_path / "hanging-python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={site} exec {python} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


PASSING = """
import unittest


class TestOk(unittest.TestCase):
    def test_ok(self):
        pass


if __name__ == "__main__":
    unittest.main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_an_interpreter_hanging_at_start_is_given_up_after_the_steps_timeout(
    tmp_path, make_repo, python_with_torch, mode
):
    pidfile = tmp_path / "starting.pid"
    python = _python_hanging_at_start(tmp_path, python_with_torch, pidfile)
    repo = _repo(make_repo, {"test/test_ok.py": PASSING})
    proc = _start(
        tmp_path,
        "run",
        "test/test_ok.py",
        "--repo",
        str(repo),
        "--python",
        python,
        "--timeout",
        "6",
        "--store",
        str(tmp_path / "store"),
        *(["--fresh"] if mode == "fresh" else []),
    )
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=60)  # the old wait: 300 s
    except subprocess.TimeoutExpired:
        _stop(proc, signal.SIGTERM)
        raise AssertionError("still waiting for the interpreter after 60 s (--timeout 6)") from None
    took = time.monotonic() - started
    assert proc.returncode == 3, out + err
    assert took < 6 + 20, f"{took:.1f}s"
    if mode == "warm":
        assert "did not start within 6 s (the step's timeout)" in out + err, out + err
    assert _all_dead(_pids(pidfile)) == []
    assert _leftovers(tmp_path) == ([], [])


# -- 16: a full TMPDIR ------------------------------------------------------------------------

FILLS_TMPDIR = """
import os
import sys
import unittest

#: the 48 MiB tmpfs that TMPDIR names, never anything else (tempfile.gettempdir() falls back to /tmp once
#: TMPDIR is full); at most 64 MiB are written
FOLDER = {folder!r}
THEN = {then!r}


class TestFill(unittest.TestCase):
    def test_fills_the_temporary_folder(self):
        written = 0
        with open(os.path.join(FOLDER, "filler-%d" % os.getpid()), "wb", buffering=0) as fh:
            try:
                while written < 64 * 1024 * 1024:
                    written += fh.write(b"f" * 65536)
            except OSError:
                pass
        if THEN == "exits":  # no answer, nothing more printed: the folder is full
            os._exit(1)
        # what it prints now needs room that TMPDIR no longer has
        sys.stdout.write(("printed once the temporary folder is full " * 30 + "\\n") * 256)
        sys.stdout.flush()


if __name__ == "__main__":
    unittest.main()
"""


def _namespaces() -> bool:
    if shutil.which("unshare") is None:
        return False
    return (
        subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0
    )


@pytest.mark.slow
@pytest.mark.skipif(
    not _namespaces(), reason="needs unshare (user and mount namespaces) for a small tmpfs"
)
@pytest.mark.parametrize("then", ["prints", "exits"])
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_a_full_tmpdir_is_exit_3_naming_the_path(
    tmp_path, make_repo, python_with_torch, mode, then
):
    """TMPDIR is a 48 MiB tmpfs that the test fills, then prints (its output cannot be kept there) or
    exits without an answer (the folder has no room left)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    repo = _repo(make_repo, {"test/test_fill.py": FILLS_TMPDIR.format(folder=str(tmp), then=then)})
    store = tmp_path / "store"
    cmd = " ".join(
        [
            f"mount -t tmpfs -o size=48m tmpfs {tmp} &&",
            f"exec {sys.executable} -m torchparity run test/test_fill.py --repo {repo} --python {python_with_torch}",
            f"--store {store} --timeout 120",
            "--fresh" if mode == "fresh" else "",
        ]
    )
    res = subprocess.run(
        ["unshare", "-rm", "sh", "-c", cmd],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, TMPDIR=str(tmp)),
        cwd=tmp_path,
    )
    assert res.returncode == 3, res.stdout[-3000:] + res.stderr[-3000:]
    said = res.stdout + res.stderr
    assert "os._exit, a kill or a crash" not in said
    m = re.search(
        r"ERROR: the environment is broken: no space left writing (\S+) \(No space left on device\)",
        said,
    )
    assert m, said[-3000:]
    assert m[1].startswith(str(tmp) + "/"), m[1]
    assert f"TMPDIR {tmp}" in said
    st = Store(store)
    assert st.targets(1)[0].result == "ERROR"
