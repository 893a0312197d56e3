"""A check that did not run is never reported as passed (real torch, real git, real subprocesses).

The file here imports a backend that is not installed, as a backend repo's test does on a host
without it: the file fails at import and no test method runs.
"""

from __future__ import annotations

import pytest

from tests.collect.test_collector import _keys, _logs, _records, _run
from torchparity.collect import CollectOptions, Collector, EnvSpec
from torchparity.store import Store

# the real end-to-end tests here are marked slow; the others answer the agent from recordings of the
# real one (the `agent` fixture, tests/fakeagent.py)

BROKEN = "test/test_needs_backend.py"
BROKEN_TEXT = """
import unittest

import torch
import torchparity_tests_backend_that_is_not_installed  # noqa: F401


class TestClone(unittest.TestCase):
    def test_set_grad_enabled_clone(self):
        self.assertFalse(torch.set_grad_enabled(False).clone().mode)


if __name__ == "__main__":
    unittest.main()
"""
GOOD = "test/test_fine.py"
GOOD_TEXT = """
import unittest

import torch



class TestClone(unittest.TestCase):
    def test_set_grad_enabled_clone(self):
        self.assertTrue(isinstance(torch.is_grad_enabled(), bool))


if __name__ == "__main__":
    unittest.main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_leak_check_of_a_file_that_fails_at_import_is_not_run(
    tmp_path, make_repo, python_with_torch, mode
):
    repo = make_repo({"master": {BROKEN: BROKEN_TEXT}})
    extra = ["--fresh"] if mode == "fresh" else []
    assert _run(tmp_path, BROKEN, "--repo", str(repo), "--python", python_with_torch, *extra) == 1
    log = next(iter(_logs(tmp_path).values()))
    keys = _keys(log)
    assert "No module named 'torchparity_tests_backend_that_is_not_installed'" in log
    assert keys["STATE_LEAK_CHECK"] == "NOT_RUN"
    assert keys["STATE_LEAK_CHECK_REASON"] == f"{BROKEN}: no test method ran (FAIL, exit code 1)"
    rec = next(iter(_records(tmp_path).values()))
    assert (rec["leak_status"], rec["leak_tests_watched"]) == ("NOT_RUN", 0)
    assert "no test method ran" in rec["leak_reason"]


def test_leak_check_over_a_running_and_a_broken_file_is_partial(
    agent, tmp_path, make_repo, python_with_torch
):
    repo = make_repo({"master": {BROKEN: BROKEN_TEXT, GOOD: GOOD_TEXT}})
    assert _run(tmp_path, GOOD, BROKEN, "--repo", str(repo), "--python", python_with_torch) == 1
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["STATE_LEAK_CHECK"] == "PARTIAL"
    assert keys["STATE_LEAK_CHECK_REASON"].startswith(f"{BROKEN}: no test method ran")
    rec = next(iter(_records(tmp_path).values()))
    assert (rec["leak_status"], rec["leak_tests_watched"]) == ("PARTIAL", 1)


def test_leak_check_of_a_file_whose_tests_ran_passes_with_the_count(
    agent, tmp_path, make_repo, python_with_torch
):
    repo = make_repo({"master": {GOOD: GOOD_TEXT}})
    assert _run(tmp_path, GOOD, "--repo", str(repo), "--python", python_with_torch) == 0
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["STATE_LEAK_CHECK"] == "PASS" and "STATE_LEAK_CHECK_REASON" not in keys
    rec = next(iter(_records(tmp_path).values()))
    assert (rec["leak_status"], rec["leak_reason"], rec["leak_tests_watched"]) == ("PASS", "", 1)


def test_an_errored_dispatch_trace_has_a_non_zero_exit_code(
    agent, tmp_path, make_repo, python_with_torch
):
    repo = make_repo({"master": {BROKEN: BROKEN_TEXT, GOOD: GOOD_TEXT}})
    opts = CollectOptions(
        files=[BROKEN, GOOD], repo=repo, envs=[EnvSpec("py", python_with_torch)], trace=True
    )
    outcome = Collector(Store(tmp_path / "store"), opts).run(["test"])
    (rec,) = outcome.records
    broken, fine = rec.trace
    assert (
        broken.result["trace"]["status"] == "error"
        and broken.exit_code == 1
        and broken.status == "FAIL"
    )
    assert fine.result["trace"]["status"] == "ok" and fine.exit_code == 0 and fine.status == "OK"
    log = next(iter(_logs(tmp_path).values()))
    sections = log.split("===== DISPATCH TRACE =====")[1:]
    assert len(sections) == 2
    first, second = (_keys(s) for s in sections)
    assert first["TRACE_STATUS"] == "error" and first["DISPATCH_TRACE_EXIT_CODE"] == "1"
    assert "torchparity_tests_backend_that_is_not_installed" in first["TRACE_ERROR"]
    assert second["TRACE_STATUS"] == "ok" and second["DISPATCH_TRACE_EXIT_CODE"] == "0"
    # the trace is evidence, not a verdict on the tests: only the broken file's own run fails the target
    assert rec.result == "FAIL" and [s.status for s in rec.full] == ["FAIL", "OK"]
