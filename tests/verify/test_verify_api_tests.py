"""The verdict is about the API's tests: by id, with the disabled list; all skipped or disabled is not a
pass; a whole-file run's other tests are context (real agent, real interpreters: slow)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import git
from torchparity.cli import main
from torchparity.collect import CollectOptions, Collector, EnvSpec, Target
from torchparity.collect.api_tests import FileTests
from torchparity.config import load_config
from torchparity.store import Store, read_run
from torchparity.upstream.settings import upstream_settings

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
    run = max(st.runs(), key=lambda r: r.id)
    return rc, [ev for ev in read_run(st, run.id).targets]


def test_a_target_whose_api_tests_are_all_skipped_is_not_a_pass(tmp_path, make_repo, capsys):
    repo = make_repo({"master": {"test/test_seed.py": SKIPPED}})
    # the task's own file: it runs whole, and all of its tests are skipped
    rc, (ev,) = _verify(repo, tmp_path, "--test-file", "test/test_seed.py")
    rec = ev.record
    assert rec.result == "NONE_RAN"
    assert rc == 1
    assert [t.status for t in rec.api_tests] == ["skipped", "skipped"]
    assert "API_TESTS_COUNT=total:2,passed:0,failed:0,skipped:2,disabled:0,not_started:0" in ev.log
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    assert "该 API 的用例运行 0 个、通过 0 个，另有 2 个未运行" in comment
    assert "该 API 的用例均未运行：HEAD@" in comment
    assert "个验证目标通过，证据支持" not in comment
    junit = (tmp_path / "out" / "junit.xml").read_text("utf-8")
    assert 'type="NONE_RAN"' in junit  # a CI reading the JUnit is not green either
    assert "NONE_RAN (none of the API's 2 test(s) ran: 2 skipped)" in capsys.readouterr().out


def test_where_no_direct_test_runs_verify_goes_on_with_a_scaffolded_test(tmp_path, make_repo):
    repo = make_repo({"master": {"test/test_seed.py": SKIPPED}})
    rc, (ev,) = _verify(repo, tmp_path)
    rec = ev.record
    direct = [t for t in rec.api_tests if t.file == "test/test_seed.py"]
    assert [t.status for t in direct] == ["skipped", "skipped"]
    written = [tf for tf in rec.test_files if tf.added]
    assert len(written) == 1 and written[0].selection == "whole"
    assert any(n.code == "api_fallback_scaffold" for n in rec.notes)
    mine = [t for t in rec.api_tests if t.file == written[0].path]
    assert mine and {t.status for t in mine} == {"passed"}, ev.log
    assert rec.result == "PASS"
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    assert "按没有用例的 API 处理，改为运行生成的用例" in comment
    # what blocks now is the checklist on the written test (its own items), not the API's verdict
    assert rc in (0, 1)


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
    commit = git(repo, "rev-parse", "HEAD")
    env = EnvSpec("here", sys.executable)
    opts = CollectOptions(
        files=["test/test_seed.py"],
        repo=repo,
        envs=[env],
        upstream=upstream_settings(load_config(None, repo)),
    )
    api = (
        FileTests(
            "test/test_seed.py", ("test/test_seed.py::TestSeed::test_generator_seed",), False
        ),
    )
    target = Target("master", commit, env, files=("test/test_seed.py",), api=api)
    outcome = Collector(Store(tmp_path / "store"), opts).run(["collect"], [target])
    (rec,) = outcome.records
    assert rec.result == "NONE_RAN" and rec.collector_exit_code == 1
    assert [(t.id, t.status) for t in rec.api_tests] == [
        ("__main__.TestSeed.test_generator_seed", "disabled")
    ]
    assert not rec.full  # nothing of the API's was left to run
    # verify says so, and goes on with a test written for the API
    rc, (ev,) = _verify(repo, tmp_path)
    assert "API_TEST=__main__.TestSeed.test_generator_seed:disabled" in ev.log
    note = next(n for n in ev.record.notes if n.code == "api_fallback_scaffold")
    assert note.args["disabled"] == "1"
    junit = (tmp_path / "out" / "junit.xml").read_text("utf-8")
    assert 'name="__main__.TestSeed.test_generator_seed"' in junit
    assert (
        "disabled by the backend&apos;s list" in junit or "disabled by the backend's list" in junit
    )


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
