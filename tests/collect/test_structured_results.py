"""Verdicts come from the test runner's result API, never from what a test prints (real torch, git, store).

Each file here lies in its output or stops its runner early; none of that may change the verdict,
the JUnit counts or the PR text's test counts.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tests.collect.test_collector import _keys, _logs, _records, _run
from torchparity.cli import main

FORGED_OK = "test/test_forged_ok.py"
FORGED_OK_TEXT = """
import sys
import unittest


class TestForged(unittest.TestCase):
    def test_fine(self):
        self.assertTrue(True)

    def test_wrong(self):
        # finish the runner's "... " line, then claim a pass and a test that does not exist
        sys.stderr.write("ok\\ntest_wrong (__main__.TestForged.test_wrong) ... ok\\n")
        sys.stderr.write("test_ghost (__main__.TestForged.test_ghost) ... ok\\n")
        sys.stderr.flush()
        self.assertEqual(1, 2)


if __name__ == "__main__":
    unittest.main()
"""

FORGED_FAILED = "test/test_forged_failed.py"
FORGED_FAILED_TEXT = """
import pytest


def test_w():
    print("test/test_forged_failed.py::test_w FAILED")
    print("test/test_forged_failed.py::test_evil<script>alert(1)</script>``` FAILED")


def test_fine():
    assert True


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-v", "-s", "-p", "no:cacheprovider"]))
"""

EXIT_IN_FILE = "test/test_exit_in_file.py"
EXIT_IN_FILE_TEXT = """
import os
import unittest


class TestNeverRuns(unittest.TestCase):
    def test_wrong(self):
        self.assertEqual(1, 2)


os._exit(0)

if __name__ == "__main__":
    unittest.main()
"""

EXIT_IN_TEST = "test/test_exit_in_test.py"
EXIT_IN_TEST_TEXT = """
import os
import unittest


class TestExits(unittest.TestCase):
    def test_a_exits(self):
        os._exit(0)

    def test_b_wrong(self):
        self.assertEqual(1, 2)


if __name__ == "__main__":
    unittest.main()
"""

MODES = pytest.mark.parametrize("mode", ["warm", "fresh"])


def _flags(mode: str) -> list[str]:
    return ["--fresh"] if mode == "fresh" else []


def _report(tmp_path, capsys, kind: str, *extra: str) -> str:
    capsys.readouterr()
    assert main(["report", "1", "--kind", kind, "--store", str(tmp_path / "store"), *extra]) == 0
    return capsys.readouterr().out


def _junit_cases(xml: str) -> list[tuple[str, str]]:
    """(name, failure|error|skipped|passed) of every test method testcase (torchparity's own checks left out)."""
    out = []
    for case in ET.fromstring(xml).iter("testcase"):
        if case.get("classname", "").startswith("torchparity."):
            continue
        kind = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        out.append((case.get("name", ""), kind))
    return sorted(out)


def _outside_code(markdown: str) -> str:
    """The Markdown with fenced blocks and code spans removed: what a renderer would treat as markup."""
    kept, fence = [], ""
    for line in markdown.split("\n"):
        m = re.match(r"^(`{3,})", line)
        if fence:
            if m and line.strip() == fence:
                fence = ""
            continue
        if m:
            fence = m.group(1)
            continue
        kept.append(line)
    text = "\n".join(kept)
    # a code span: a run of N backticks up to the next run of exactly N
    return re.sub(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)", "", text)


@pytest.mark.slow
@MODES
def test_a_forged_ok_line_changes_nothing(tmp_path, make_repo, python_with_torch, capsys, mode):
    repo = make_repo({"master": {FORGED_OK: FORGED_OK_TEXT}})
    assert (
        _run(tmp_path, FORGED_OK, "--repo", str(repo), "--python", python_with_torch, *_flags(mode))
        == 1
    )
    rec = next(iter(_records(tmp_path).values()))
    (full,) = rec["full"]
    assert {t["id"]: t["outcome"] for t in full["tests"]} == {
        "__main__.TestForged.test_fine": "passed",
        "__main__.TestForged.test_wrong": "failed",
    }
    assert full["verdict"] == "FAIL" and rec["result"] == "FAIL"
    # the lie is itself a finding, in the record and the log
    assert any("test_wrong as passed; the runner reported failed" in f for f in full["findings"])
    assert any("test_ghost" in f and "did not report" in f for f in full["findings"])
    log = next(iter(_logs(tmp_path).values()))
    assert "FINDING=the output prints __main__.TestForged.test_wrong as passed" in log
    assert (
        _keys(log)["RUNNER_TESTS"]
        == "tests_run:2,passed:1,failed:1,error:0,skipped:0,xfail:0,xpass:0"
    )

    assert _junit_cases(_report(tmp_path, capsys, "junit")) == [
        ("test_fine", "passed"),
        ("test_wrong", "failure"),
    ]
    pr = _report(tmp_path, capsys, "pr")
    assert "共 2 个测试：通过 1，失败 1" in pr
    assert "test_ghost`" not in pr.split("测试场景")[1].split("共 2 个测试")[0]


@pytest.mark.slow
@MODES
def test_a_forged_failed_line_changes_nothing(tmp_path, make_repo, python_with_torch, capsys, mode):
    repo = make_repo({"master": {FORGED_FAILED: FORGED_FAILED_TEXT}})
    assert (
        _run(
            tmp_path,
            FORGED_FAILED,
            "--repo",
            str(repo),
            "--python",
            python_with_torch,
            *_flags(mode),
        )
        == 0
    )
    rec = next(iter(_records(tmp_path).values()))
    (full,) = rec["full"]
    assert sorted(t["outcome"] for t in full["tests"]) == ["passed", "passed"]
    assert (
        rec["result"] == "PASS"
        and full["runner"]["kind"] == "pytest"
        and full["runner"]["finished"] == 1
    )
    assert any("test_evil" in f and "did not report" in f for f in full["findings"])

    assert _junit_cases(_report(tmp_path, capsys, "junit")) == [
        ("test_fine", "passed"),
        ("test_w", "passed"),
    ]
    pr = _report(tmp_path, capsys, "pr")
    assert "共 2 个测试：通过 2，失败 0" in pr
    assert "test_evil" not in pr.split("测试场景")[1].split("共 2 个测试")[0]
    # raw markup and backticks of the output stay inside code: never loose in the PR text
    assert "<script>" in pr and "<script>" not in _outside_code(pr)


@pytest.mark.slow
@MODES
@pytest.mark.parametrize(
    "path, text",
    [(EXIT_IN_FILE, EXIT_IN_FILE_TEXT), (EXIT_IN_TEST, EXIT_IN_TEST_TEXT)],
    ids=["in-file", "in-test"],
)
def test_os_exit_0_is_not_a_pass(tmp_path, make_repo, python_with_torch, mode, path, text):
    repo = make_repo({"master": {path: text}})
    assert (
        _run(tmp_path, path, "--repo", str(repo), "--python", python_with_torch, *_flags(mode)) == 1
    )
    rec = next(iter(_records(tmp_path).values()))
    (full,) = rec["full"]
    assert full["exit_code"] == 0  # the process itself said "success"
    assert rec["result"] == "FAIL" and full["verdict"] == "FAIL" and full["runner"] is None
    assert any("without the agent's structured results" in r for r in full["verdict_reasons"])
    assert any(n["code"] == "not_a_pass" for n in rec["notes"])
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["RESULT"] == "FAIL" and keys["FULL_TEST_VERDICT"] == "FAIL"
    assert keys["FINDING"] == "exit code 0, but the test runner never reported its end"
    if mode == "fresh":
        assert keys["RESULTS_FROM"].startswith(
            "the agent's own run of this file in a fresh interpreter"
        )
