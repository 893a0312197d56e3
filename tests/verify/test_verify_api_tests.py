"""The verdict is about the API's tests: by id, with the disabled list; all skipped or disabled is not a
pass; a whole-file run's other tests are context (real agent, real interpreters: slow)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from torchparity.cli import main
from torchparity.store import Store, read_run

pytestmark = pytest.mark.slow

HEAD = """
import os
import unittest

import torch
from torch.testing._internal.common_utils import TestCase, run_tests
"""

MAIN = """

if __name__ == "__main__":
    run_tests()
"""

SKIPPED = (
    HEAD
    + """

class TestSeed(TestCase):
    @unittest.skipUnless(False, "needs a device this machine lacks")
    def test_generator_seed(self):
        torch.Generator().seed()


class TestSeedAgain(TestCase):
    @classmethod
    def setUpClass(cls):
        raise unittest.SkipTest("the whole class is skipped")

    def test_generator_seed_twice(self):
        torch.Generator().seed()
"""
    + MAIN
)

DISABLED = (
    HEAD
    + """

class TestSeed(TestCase):
    def test_generator_seed(self):
        g = torch.Generator()
        self.assertEqual(g.initial_seed(), g.seed() and g.initial_seed())
"""
    + MAIN
)

CRASHING = (
    HEAD
    + """

class TestSeed(TestCase):
    def test_generator_seed(self):
        g = torch.Generator()
        s = g.seed()
        self.assertEqual(g.initial_seed(), s)

    def test_z_unrelated_crash(self):
        os.abort()
"""
    + MAIN
)

FAILING_OTHER = CRASHING.replace("os.abort()", "raise RuntimeError('not the API')")


def _verify(repo: Path, tmp_path: Path, *more: str) -> tuple[int, list]:
    rc = main(
        [
            "verify",
            "torch.Generator.seed",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
            *more,
        ]
    )
    st = Store(tmp_path / "store")
    run = st.runs()[-1]
    return rc, [ev for ev in read_run(st, run.id).targets]


def test_a_target_whose_api_tests_are_all_skipped_is_not_a_pass(tmp_path, make_repo, capsys):
    repo = make_repo({"master": {"test/test_seed.py": SKIPPED}})
    rc, (ev,) = _verify(repo, tmp_path)
    rec = ev.record
    assert rec.result == "NONE_RAN"
    assert rc == 1
    assert [t.status for t in rec.api_tests] == ["skipped", "skipped"]
    assert "API_TESTS_COUNT=total:2,passed:0,failed:0,skipped:2,disabled:0,not_started:0" in ev.log
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    assert "该 API 的用例 0/2 通过" in comment
    assert "该 API 的用例均未运行：HEAD@" in comment
    assert "个验证目标通过，证据支持" not in comment
    assert "NONE_RAN (none of the API's 2 test(s) ran: 2 skipped)" in capsys.readouterr().out


def test_a_target_whose_api_tests_are_all_disabled_is_not_a_pass(tmp_path, make_repo):
    listing = {"test_generator_seed (__main__.TestSeed)": ["https://example.invalid/1", []]}
    repo = make_repo(
        {
            "master": {
                "test/test_seed.py": DISABLED,
                "test/disabled.json": json.dumps(listing),
                "torchparity.toml": 'preset = "default"\n[upstream]\nvendored = ["test/test_*.py"]\n'
                '[upstream.disabled]\nfile = "test/disabled.json"\n',
            }
        }
    )
    rc, (ev,) = _verify(repo, tmp_path)
    rec = ev.record
    assert rc == 1 and rec.result == "NONE_RAN"
    assert [(t.id, t.status) for t in rec.api_tests] == [
        ("__main__.TestSeed.test_generator_seed", "disabled")
    ]
    assert not rec.full  # nothing of the API's was left to run
    assert "API_TEST=__main__.TestSeed.test_generator_seed:disabled" in ev.log
    pr = (tmp_path / "out" / "pr.zh.md").read_text("utf-8")
    assert "被后端禁用列表禁用" in pr and "该 API 的用例均未运行" in pr


def test_the_tests_of_a_vendored_file_run_by_id_not_its_crashing_neighbours(tmp_path, make_repo):
    repo = make_repo({"master": {"test/test_seed.py": CRASHING}})
    rc, (ev,) = _verify(repo, tmp_path)
    rec = ev.record
    assert rec.result == "PASS", ev.log
    assert [(t.id, t.status) for t in rec.api_tests] == [
        ("__main__.TestSeed.test_generator_seed", "passed")
    ]
    (full,) = rec.full
    assert full.command.endswith("test/test_seed.py TestSeed.test_generator_seed -v")
    assert rc == 0


@pytest.mark.parametrize("body", [CRASHING, FAILING_OTHER], ids=["abort", "error"])
def test_a_whole_file_run_whose_other_tests_fail_lists_them_and_passes_on_the_api(
    tmp_path, make_repo, body
):
    repo = make_repo({"master": {"test/test_seed.py": body}})
    rc, (ev,) = _verify(repo, tmp_path, "--test-file", "test/test_seed.py")
    rec = ev.record
    assert rec.test_files[0].selection == "whole"
    assert rec.result == "PASS", ev.log
    assert [t.status for t in rec.api_tests] == ["passed"]
    assert rec.unrelated, ev.log
    assert "UNRELATED_FAILURE=" in ev.log
    if body is CRASHING:  # the whole run died before it answered: the API's test ran again by id
        assert [s.name for s in rec.full] == ["full", "rerun"]
        assert "SIGABRT" in rec.full[0].signal or rec.full[0].status != "OK"
    else:
        assert "test_z_unrelated_crash (error)" in rec.unrelated[0]
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    assert "同文件中与该 API 无关的失败（不影响该 API 的结论）" in comment
    assert rc == 0
