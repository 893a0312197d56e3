"""The warm worker's preloads and lanes, with real interpreters: what a job sees is what ``python FILE`` sees.

* torch's test framework and compiler are imported once, before the fork; a TestCase-based file
  still finds its own tests (``run_tests`` reads ``__main__``), and the flags the framework freezes
  are frozen for it, not for a plain unittest file;
* a backend testing module whose import initialises the device is dropped (and said so), so that
  no job is forked from a worker with its device initialised;
* lanes run jobs side by side, and a lane's cleanup never touches another lane's job.
"""

from __future__ import annotations

import json
import site
import threading
import time
import venv
from pathlib import Path

import pytest

from tests.conftest import write
from torchparity.exec import Job, WarmWorker
from torchparity.exec.runners import DEFAULT_PRELOAD

pytestmark = pytest.mark.slow

TESTCASE_FILE = """
import sys
import torch
WAS_PRELOADED = "torch._dynamo" in sys.modules
from torch.testing._internal.common_utils import TestCase, run_tests


class TestFramework(TestCase):
    def test_compiler_was_imported_before_the_file(self):
        self.assertTrue(WAS_PRELOADED)

    def test_flags_are_frozen_as_the_framework_freezes_them(self):
        self.assertTrue(torch.backends.flags_frozen())
        with self.assertRaises(RuntimeError):
            torch.backends.cudnn.enabled = torch.backends.cudnn.enabled


if __name__ == "__main__":
    run_tests()
"""

PLAIN_FILE = """
import unittest
import torch


class TestPlain(unittest.TestCase):
    def test_flags_are_free(self):
        self.assertFalse(torch.backends.flags_frozen())
        torch.backends.cudnn.enabled = torch.backends.cudnn.enabled


if __name__ == "__main__":
    unittest.main()
"""


def _run(worker: WarmWorker, path: Path, logs: Path, op: str = "run_file", **args: object):
    return worker.run(
        Job(
            op,
            {"path": str(path), "argv": ["-v"], **args},
            logs / f"{path.stem}-{op}.log",
            timeout=120,
            cwd=str(path.parent),
        )
    )


def _outcomes(res) -> dict[str, str]:
    return {t["id"].rsplit(".", 1)[-1]: t["outcome"] for t in res.result.get("tests", [])}


def test_a_testcase_file_finds_its_tests_and_a_plain_file_sees_no_framework(
    tmp_path, python_with_torch
):
    testcase = write(tmp_path / "tests" / "test_framework.py", TESTCASE_FILE)
    plain = write(tmp_path / "tests" / "test_plain.py", PLAIN_FILE)
    worker = WarmWorker(python_with_torch, "", "cpu", tmp_path / "logs")
    try:
        worker.start()
        assert [e["module"] for e in worker.preloaded if e["status"] == "imported"] == list(
            DEFAULT_PRELOAD
        )
        # each twice, in turns: every job starts as the first one did
        for _ in range(2):
            res = _run(worker, testcase, tmp_path / "logs")
            assert res.status == "OK", res.output
            assert _outcomes(res) == {
                "test_compiler_was_imported_before_the_file": "passed",
                "test_flags_are_frozen_as_the_framework_freezes_them": "passed",
            }
            assert (
                "imported before the fork: torch.testing._internal.common_utils, torch._dynamo"
                in res.how
            )
            res = _run(worker, plain, tmp_path / "logs")
            assert res.status == "OK", res.output
            assert _outcomes(res) == {"test_flags_are_free": "passed"}
        iso = _run(
            worker,
            testcase,
            tmp_path / "logs",
            op="isolation",
            state="grad_mode",
            patterns=["frozen"],
        )
        assert iso.status == "OK" and iso.result["passed"], iso.output
    finally:
        worker.close()


MIXED_FILE = """
import unittest
from torch.testing._internal.common_utils import TestCase, run_tests


class TestGood(TestCase):
    def test_ok(self):
        pass


class TestNotFromTheFramework(unittest.TestCase):
    def test_ok(self):
        pass


if __name__ == "__main__":
    run_tests()
"""


def test_run_tests_checks_the_file_that_runs_as_it_does_in_a_fresh_interpreter(
    tmp_path, python_with_torch
):
    """torch's run_tests refuses a test class that is not its TestCase, looking at ``__main__`` as the
    framework bound it at import: the file that runs, not the worker's launcher."""
    mixed = write(tmp_path / "tests" / "test_mixed.py", MIXED_FILE)
    import subprocess

    fresh = subprocess.run([python_with_torch, str(mixed)], capture_output=True, text=True)
    assert fresh.returncode == 1 and "TestNotFromTheFramework - failed" in fresh.stdout
    worker = WarmWorker(python_with_torch, "", "cpu", tmp_path / "logs")
    try:
        res = _run(worker, mixed, tmp_path / "logs")
        assert res.exit_code == 1 and "TestNotFromTheFramework - failed" in res.output, res.output
    finally:
        worker.close()


def test_without_preloads_the_same_files_pass_too(tmp_path, python_with_torch):
    testcase = write(
        tmp_path / "tests" / "test_framework.py",
        TESTCASE_FILE.replace("self.assertTrue(WAS_PRELOADED)", "self.assertFalse(WAS_PRELOADED)"),
    )
    worker = WarmWorker(python_with_torch, "", "cpu", tmp_path / "logs", preload=())
    try:
        res = _run(worker, testcase, tmp_path / "logs")
        assert res.status == "OK" and set(_outcomes(res).values()) == {"passed"}, res.output
        assert "imported before the fork" not in res.how
    finally:
        worker.close()


FAKE_BACKEND = '''
"""A device backend for tests: it counts, in a file, every process that initialises its device."""
import os
import torch

COUNT_FILE = os.path.join(os.path.dirname(__file__), "inits.txt")


class _Device:
    _initialized = False

    def is_available(self):
        return True

    def device_count(self):
        return 1

    def is_initialized(self):
        return self._initialized

    def init(self):
        if not self._initialized:
            self._initialized = True
            with open(COUNT_FILE, "a") as fh:
                fh.write("%d\\n" % os.getpid())

    def get_device_name(self, index=0):
        return "fakedev"


device = _Device()
torch.utils.rename_privateuse1_backend("fakedev")
torch._register_device_module("fakedev", device)
'''


@pytest.fixture(scope="module")
def fake_backend_python(tmp_path_factory) -> tuple[str, Path]:
    """A venv seeing this interpreter's torch and a ``fakedev`` backend package."""
    home = tmp_path_factory.mktemp("fakedev")
    pkg = home / "pkgs" / "fakedev"
    write(pkg / "__init__.py", FAKE_BACKEND)
    # a testing module that initialises the device when imported: a fork after it is unusable
    write(pkg / "bad_testing.py", "import fakedev\nfakedev.device.init()\n")
    # a testing module as backends write them: torch's framework underneath, the device untouched
    write(
        pkg / "testing.py",
        "from torch.testing._internal.common_utils import TestCase, run_tests  # noqa\n",
    )
    venv.EnvBuilder(with_pip=False).create(home / "venv")
    purelib = next((home / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "fakedev.pth").write_text(
        "\n".join([*site.getsitepackages(), str(home / "pkgs")]) + "\n"
    )
    return str(home / "venv" / "bin" / "python"), pkg / "inits.txt"


def test_a_preload_that_initialises_the_device_is_dropped_and_said(tmp_path, fake_backend_python):
    python, inits = fake_backend_python
    inits.unlink(missing_ok=True)
    worker = WarmWorker(
        python,
        "fakedev",
        "fakedev",
        tmp_path / "logs",
        preload=("fakedev.bad_testing", "fakedev.testing", *DEFAULT_PRELOAD),
    )
    try:
        worker.start()
        first = inits.read_text().split()  # the worker that imported it, and no job
        assert worker.preload_dropped == ["fakedev.bad_testing"]
        assert [e["module"] for e in worker.preloaded if e["status"] == "imported"] == [
            "fakedev.testing",
            *DEFAULT_PRELOAD,
        ]
        probe = worker.run(Job("probe", {}, tmp_path / "logs" / "probe.log", timeout=120))
        facts = dict(probe.result["facts"])
        assert probe.status == "OK" and facts["device_type"] == "fakedev"
        assert facts["device_initialized_at_import"] is False  # the worker the jobs are forked from
        assert (
            "not preloaded, as importing it initialised the device: fakedev.bad_testing"
            in probe.how
        )
        assert str(worker.worker_pid) not in inits.read_text().split()
        assert len(inits.read_text().split()) == len(first) + 1  # the probe's own child, once
    finally:
        worker.close()


def test_a_backend_testing_module_brings_the_framework_state_with_it(tmp_path, fake_backend_python):
    python, _ = fake_backend_python
    test = write(
        tmp_path / "tests" / "test_backend.py",
        """
import torch
from fakedev.testing import TestCase, run_tests


class TestBackend(TestCase):
    def test_frozen(self):
        self.assertTrue(torch.backends.flags_frozen())


if __name__ == "__main__":
    run_tests()
""",
    )
    plain = write(tmp_path / "tests" / "test_plain.py", PLAIN_FILE)
    worker = WarmWorker(
        python,
        "fakedev",
        "fakedev",
        tmp_path / "logs",
        preload=("fakedev.testing", *DEFAULT_PRELOAD),
    )
    try:
        res = _run(worker, test, tmp_path / "logs")
        assert res.status == "OK" and _outcomes(res) == {"test_frozen": "passed"}, res.output
        res = _run(worker, plain, tmp_path / "logs")
        assert res.status == "OK" and _outcomes(res) == {"test_flags_are_free": "passed"}, (
            res.output
        )
    finally:
        worker.close()


RENDEZVOUS = """
import os
import time
import unittest


class TestMeet(unittest.TestCase):
    def test_meet(self):
        open(os.path.join({folder!r}, "{me}"), "w").close()
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join({folder!r}, "{other}")):
            self.assertLess(time.monotonic(), deadline, "the other job never ran beside this one")
            time.sleep(0.01)


if __name__ == "__main__":
    unittest.main()
"""

DAEMON = """
import os
import subprocess
import sys
import time
import unittest


class TestDaemon(unittest.TestCase):
    def test_daemon_lives_while_this_job_runs(self):
        child = subprocess.Popen([sys.executable, "-c", "import os, time\\nif os.fork(): os._exit(0)\\n"
                                  "os.setsid()\\nopen({pidfile!r}, 'w').write(str(os.getpid()))\\ntime.sleep(600)"])
        child.wait()  # its parent has exited: the daemon is an orphan now, re-parented to the lane
        deadline = time.monotonic() + 60
        while not os.path.exists({pidfile!r}) or not os.path.exists({go!r}):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        pid = int(open({pidfile!r}).read())
        os.kill(pid, 0)  # still alive after the other lane's job ended and was cleaned up


if __name__ == "__main__":
    unittest.main()
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_lanes_run_jobs_side_by_side_and_clean_up_only_their_own(tmp_path, python_with_torch):
    meet = tmp_path / "meet"
    meet.mkdir()
    a = write(
        tmp_path / "tests" / "test_a.py", RENDEZVOUS.format(folder=str(meet), me="a", other="b")
    )
    b = write(
        tmp_path / "tests" / "test_b.py", RENDEZVOUS.format(folder=str(meet), me="b", other="a")
    )
    pidfile, go = tmp_path / "daemon.pid", tmp_path / "go"
    daemon = write(
        tmp_path / "tests" / "test_daemon.py", DAEMON.format(pidfile=str(pidfile), go=str(go))
    )
    quick = write(tmp_path / "tests" / "test_plain.py", PLAIN_FILE)
    worker = WarmWorker(python_with_torch, "", "cpu", tmp_path / "logs", lanes=2, preload=())
    results: dict[str, object] = {}

    def job(name: str, path: Path) -> None:
        results[name] = _run(worker, path, tmp_path / "logs")

    try:
        worker.start()
        threads = [threading.Thread(target=job, args=(n, p)) for n, p in (("a", a), ("b", b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        lanes = set()
        for name in ("a", "b"):
            res = results[name]
            assert res.status == "OK" and _outcomes(res) == {"test_meet": "passed"}, res.output  # type: ignore[attr-defined]
            lanes.add(res.how.split("of lane pid ")[1].split()[0])  # type: ignore[attr-defined]
        assert len(lanes) == 2
        # one lane's job leaves a daemon and waits; the other lane runs a job and cleans up after it
        t = threading.Thread(target=job, args=("daemon", daemon))
        t.start()
        deadline = time.monotonic() + 60
        while not pidfile.exists():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        quick_res = _run(worker, quick, tmp_path / "logs")
        assert quick_res.status == "OK"
        go.touch()
        t.join(120)
        res = results["daemon"]
        assert res.status == "OK" and _outcomes(res) == {
            "test_daemon_lives_while_this_job_runs": "passed"
        }, res.output  # type: ignore[attr-defined]
        assert not _alive(int(pidfile.read_text()))  # and it went with its own job
    finally:
        worker.close()
    assert json.dumps(worker.preloaded) == "[]"
