"""The report tests' fixture builders: a tiny backend repo (real git, fixed dates) and a store of records.

The record set is written by hand so the golden files are stable: two runs
(three Ascend environments, one of them failing a test and its isolation
probe), a resolve record, a coverage record and a docs check that lacks one
version's entry. The bare store holds the same runs and nothing else.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import git
from torchparity.checks import checklist_for_runs, evaluate_change
from torchparity.collect.evidence import render_log
from torchparity.config import Config, load_config
from torchparity.records import ApiCoverage, ApiInfo, DocsCheckRecord
from torchparity.records.target import RunnerReport, Step, TargetRecord, TestFile, TestOutcome
from torchparity.records.task import TaskRecord
from torchparity.report import ReportModel, build_report
from torchparity.store import Store, put, read_run, sha256_bytes

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
TEST_PATH = "test/npu/test_grad_mode_clone.py"
SOURCE_BRANCH = "pr/grad-mode-clone"
COPYRIGHT_2026 = """\
# Copyright (c) 2026 Huawei Technologies Co., Ltd
# All rights reserved.
#
# Licensed under the BSD 3-Clause License (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
# https://opensource.org/licenses/BSD-3-Clause
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""

GOOD_TEST = (
    COPYRIGHT_2026
    + '''
"""Checks torch.autograd.grad_mode.set_grad_enabled.clone on the NPU.

The clone keeps the mode, is a new object, and works as a decorator on NPU tensors.
"""

import torch
from torch_npu.testing.testcase import TestCase, run_tests


class TestGradModeClone(TestCase):
    def test_set_grad_enabled_clone(self):
        before = torch.is_grad_enabled()
        for mode in (False, True):
            ctx = torch.set_grad_enabled(mode)
            cloned = ctx.clone()
            self.assertIsNot(ctx, cloned)
            self.assertEqual(cloned.mode, mode)
        torch.set_grad_enabled(before)

    def test_set_grad_enabled_clone_decorator(self):
        x = torch.ones(2, device="npu:0", requires_grad=True)

        @torch.set_grad_enabled(False).clone()
        def double(t):
            return t * 2

        self.assertFalse(double(x).requires_grad)


if __name__ == "__main__":
    run_tests()
'''
)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dev One",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev One",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_AUTHOR_DATE": "2026-03-01T10:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-03-01T10:00:00+00:00",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def make_pr_repo(
    path: Path,
    files: dict[str, str],
    base_files: dict[str, str] | None = None,
    messages: tuple[str, ...] = ("test: add clone coverage for set_grad_enabled",),
    branch: str = SOURCE_BRANCH,
) -> Path:
    """A repo with a base commit on master and ``messages`` commits on ``branch`` writing ``files``."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "master", env=GIT_ENV)
    base = {"README.md": "backend\n", "test/__init__.py": "", **(base_files or {})}
    for rel, text in base.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    git(path, "add", "-A", env=GIT_ENV)
    git(path, "commit", "-q", "-m", "init", env=GIT_ENV)
    git(path, "checkout", "-q", "-b", branch, env=GIT_ENV)
    for i, msg in enumerate(messages):
        for rel, text in files.items():
            (path / rel).parent.mkdir(parents=True, exist_ok=True)
            (path / rel).write_text(text if i == len(messages) - 1 else text + f"# draft {i}\n")
        git(path, "add", "-A", env=GIT_ENV)
        git(path, "commit", "-q", "-m", msg, env=GIT_ENV)
    return path


CONFIG_TOML = """
preset = "torch_npu"

[envs.a2]
python = "/opt/envs/torch_npu_2.7.1/bin/python"
hardware = "Atlas A2"

[envs.a3]
python = "/opt/envs/torch_npu_2.7.1/bin/python"
hardware = "Atlas A3"

[envs.a5]
python = "/opt/envs/torch_npu_2.7.1/bin/python"
hardware = "Ascend 950"

[report]
source_type = "issue"
task_issue = "https://gitcode.example/ascend/pytorch/issues/101"
task_title = "API consistency task batch 2"
result_issue = "https://gitcode.example/ascend/pytorch/issues/202"
"""


def _facts(device_name: str, count: int) -> list[list[object]]:
    return [
        ["python_executable", "/opt/envs/torch_npu_2.7.1/bin/python"],
        ["python_version", "3.11.15"],
        ["platform", "Linux-5.10.0-aarch64-with-glibc2.35"],
        ["torch_version", "2.7.1+cpu"],
        ["torch_npu_version", "2.7.1.post2"],
        ["torch_file", "/opt/envs/torch_npu_2.7.1/lib/python3.11/site-packages/torch/__init__.py"],
        [
            "torch_npu_file",
            "/opt/envs/torch_npu_2.7.1/lib/python3.11/site-packages/torch_npu/__init__.py",
        ],
        ["device_type", "npu"],
        ["npu_available", True],
        ["npu_device_count", count],
        ["npu_device_name", device_name],
        ["initial_grad_enabled", True],
    ]


PASS_OUTPUT = """\
test_set_grad_enabled_clone (__main__.TestGradModeClone.test_set_grad_enabled_clone) ... ok
test_set_grad_enabled_clone_decorator (__main__.TestGradModeClone.test_set_grad_enabled_clone_decorator) ... ok

----------------------------------------------------------------------
Ran 2 tests in 0.214s

OK
"""

FAIL_OUTPUT = """\
test_set_grad_enabled_clone (__main__.TestGradModeClone.test_set_grad_enabled_clone) ... ok
test_set_grad_enabled_clone_decorator (__main__.TestGradModeClone.test_set_grad_enabled_clone_decorator) ... FAIL

======================================================================
FAIL: test_set_grad_enabled_clone_decorator (__main__.TestGradModeClone.test_set_grad_enabled_clone_decorator)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/tmp/torchparity-wt-fixture/v2.7.1/test/npu/test_grad_mode_clone.py", line 40, in test_set_grad_enabled_clone_decorator
    self.assertFalse(double(x).requires_grad)
AssertionError: True is not false

----------------------------------------------------------------------
Ran 2 tests in 0.301s

FAILED (failures=1)
"""


CLASS_ID = "__main__.TestGradModeClone"
DECORATOR_FAILURE = """\
Traceback (most recent call last):
  File "/tmp/torchparity-wt-fixture/v2.7.1/test/npu/test_grad_mode_clone.py", line 40, in test_set_grad_enabled_clone_decorator
    self.assertFalse(double(x).requires_grad)
AssertionError: True is not false"""


def _outcomes(failed: bool) -> list[TestOutcome]:
    """The runner's structured results for the fixture file (two tests; the second fails when ``failed``)."""
    return [
        TestOutcome(f"{CLASS_ID}.test_set_grad_enabled_clone", "passed"),
        TestOutcome(
            f"{CLASS_ID}.test_set_grad_enabled_clone_decorator",
            "failed" if failed else "passed",
            DECORATOR_FAILURE if failed else "",
        ),
    ]


def _isolation(passed: bool) -> Step:
    runs = [
        {"initial": False, "before": False, "after": False, "tests_run": 2, "successful": True},
        {
            "initial": True,
            "before": True,
            "after": True if passed else False,
            "tests_run": 2,
            "successful": passed,
        },
    ]
    body = (
        "test_set_grad_enabled_clone (test_grad_mode_clone.TestGradModeClone.test_set_grad_enabled_clone) ... ok\n"
        "\n----------------------------------------------------------------------\nRan 2 tests in 0.010s\n\nOK\n"
    )
    return Step(
        name="isolation:grad_mode",
        status="OK",
        exit_code=0,
        how="forked child of the warm worker (torch imported once in the worker)",
        duration=0.5,
        output=body * 2,
        test_file=TEST_PATH,
        result={
            "state": "grad_mode",
            "title": "GRAD MODE",
            "runs": runs,
            "original": True,
            "final": True,
            "passed": passed,
            "skipped": "",
            "exit_code": 0,
            "selection": {
                "pattern": "set_grad_enabled_clone",
                "tests": [
                    "test_grad_mode_clone.TestGradModeClone.test_set_grad_enabled_clone",
                    "test_grad_mode_clone.TestGradModeClone.test_set_grad_enabled_clone_decorator",
                ],
            },
        },
    )


def target_record(
    env: str,
    commit: str,
    sha: str,
    *,
    failed: bool = False,
    device_name: str = "Ascend910B3",
    count: int = 1,
) -> TargetRecord:
    abs_path = f"/tmp/torchparity-wt-fixture/v2.7.1/{TEST_PATH}"
    output = FAIL_OUTPUT if failed else PASS_OUTPUT
    full = Step(
        name="full",
        status="FAIL" if failed else "OK",
        exit_code=1 if failed else 0,
        command=f"env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1 /opt/envs/torch_npu_2.7.1/bin/python {abs_path} -v",
        how="forked child of the warm worker (torch imported once in the worker)",
        duration=1.2,
        output=output,
        test_file=TEST_PATH,
        result={"exit_code": 1 if failed else 0, "leaks": [], "tests_seen": 2},
        tests=_outcomes(failed),
        # what the agent's hook on the runner's result reported (the output above is the human record)
        runner=RunnerReport("unittest", sessions=1, finished=1, tests_run=2),
        verdict="FAIL" if failed else "PASS",
        verdict_reasons=[
            f"1 test(s) did not pass: {CLASS_ID}.test_set_grad_enabled_clone_decorator (failed)"
        ]
        if failed
        else [],
    )
    facts = _facts(device_name, count)
    probe = Step(
        name="probe",
        status="OK",
        exit_code=0,
        how="forked child of the warm worker",
        output="".join(f"{k}={v}\n" for k, v in facts),
        result={"device_type": "npu", "facts": facts},
    )
    return TargetRecord(
        label=f"v2.7.1@{env}",
        ref="v2.7.1",
        commit=commit,
        env=env,
        python="/opt/envs/torch_npu_2.7.1/bin/python",
        mode="warm",
        device="npu",
        source_branch=SOURCE_BRANCH,
        test_files=[TestFile(TEST_PATH, abs_path, sha, sha)],
        probe=probe,
        full=[full],
        isolation=[_isolation(not failed)],
        result="FAIL" if failed else "PASS",
        collector_exit_code=1 if failed else 0,
        worktree_remove_exit_code=0,
        started=1780000000.0,
        finished=1780000004.5,
        torchparity_version="0.1.0",
        hardware={"a2": "Atlas A2", "a3": "Atlas A3", "a5": "Ascend 950"}[env],
        commit_title="test: add clone coverage for set_grad_enabled",
    )


RESOLVE = {
    "query": API,
    "canonical": API,
    "aliases": ["torch.set_grad_enabled.clone", "torch.autograd.set_grad_enabled.clone"],
    "kind": "method",
    "signature": "clone(self) -> set_grad_enabled",
    "module": "torch.autograd.grad_mode",
    "source": "torch/autograd/grad_mode.py:214",
    "public": True,
    "public_reason": "listed in the torch.autograd docs",
    "docs_url": "https://docs.pytorch.example/autograd.html",
    "owner_class": "torch.autograd.grad_mode.set_grad_enabled",
    "classification": {
        "category": "python-state",
        "conclusion_zh": "上游实现位于 torch/autograd/grad_mode.py，只复制管理梯度模式的 Python 上下文对象，不创建设备张量，也不分发设备算子，无需 NPU 专用适配。",
        "conclusion_en": "Implemented upstream in torch/autograd/grad_mode.py; it copies a Python context object that manages grad mode, creates no device tensor and dispatches no device op, so no NPU-specific adaptation is needed.",
    },
    "trace": {
        "target": "torch.set_grad_enabled(False).clone()",
        "ops": [],
        "total_ops": 0,
        "device_tensors_created": 0,
        "devices": [],
    },
    "torch_version": "2.7.1+cpu",
}

COVERAGE = {
    "api": API,
    "canonical": API,
    "known": True,
    "alias_source": "static",
    "suggestions": [],
    "refs": [
        {
            "ref": "v2.7.1",
            "commit": "bacce7d835e779a6417047f18547f58fc0e37739",
            "repo": "pytorch",
            "upstream": True,
            "files": 12,
            "tests": 480,
            "related_total": 2,
            "weak_total": 0,
            "direct": [],
            "related": [
                {
                    "test": "test/test_autograd.py::TestAutograd::test_set_grad_enabled",
                    "path": "test/test_autograd.py",
                    "line": 1201,
                    "end_line": 1215,
                    "how": "calls torch.set_grad_enabled",
                    "at": 1203,
                },
                {
                    "test": "test/test_autograd.py::TestAutograd::test_set_grad_enabled_wraps",
                    "path": "test/test_autograd.py",
                    "line": 1217,
                    "end_line": 1240,
                    "how": "calls torch.set_grad_enabled",
                    "at": 1220,
                },
            ],
            "weak": [],
            "grep": {
                "command": "git grep -n -E 'set_grad_enabled.*clone|clone.*set_grad_enabled' -- test",
                "pattern": "set_grad_enabled.*clone|clone.*set_grad_enabled",
                "count": 0,
                "matches": [],
                "engine": "git grep",
            },
            "skipped_files": [],
        },
        {
            "ref": "v2.7.1",
            "commit": "1111111111111111111111111111111111111111",
            "repo": "backend",
            "upstream": False,
            "files": 3,
            "tests": 40,
            "related_total": 0,
            "weak_total": 0,
            "direct": [
                {
                    "test": f"{TEST_PATH}::TestGradModeClone::test_set_grad_enabled_clone",
                    "path": TEST_PATH,
                    "line": 25,
                    "end_line": 32,
                    "how": "calls torch.set_grad_enabled(...).clone()",
                    "at": 29,
                }
            ],
            "related": [],
            "weak": [],
            "grep": {
                "command": "git grep -n -E 'set_grad_enabled.*clone' -- test",
                "pattern": "set_grad_enabled.*clone",
                "count": 1,
                "matches": [f"{TEST_PATH}:29"],
                "engine": "git grep",
            },
            "skipped_files": [],
        },
    ],
    "justification_zh": "上游只有 set_grad_enabled 的基础用例，没有检查 clone 后对象的身份、类型和 mode，也没有在 NPU 张量上把 clone 后对象用作装饰器，因此需要新增用例。",
    "justification_en": "Upstream only has basic set_grad_enabled tests; none checks the identity, type and mode of the clone, nor uses the clone as a decorator on NPU tensors, so a new test is needed.",
}

DOCS_CHECK = {
    "api": API,
    "docs_dir": "docs/zh/api/native_api",
    "versions": [
        {
            "version": "2.7.1",
            "folder": "pytorch_2-7-1",
            "present": True,
            "page": "pytorch_2-7-1/torch.md",
            "line": 412,
            "kind": "method",
            "products": {
                "910b": {"name": "Atlas A2训练系列产品", "status": "支持", "supported": True},
                "A3": {"name": "Atlas A3训练系列产品", "status": "支持", "supported": True},
            },
            "restrictions": "",
            "link": "https://docs.pytorch.example/2.7/autograd.html",
            "link_ok": True,
            "link_problem": "",
        },
        {
            "version": "2.12.0",
            "folder": "pytorch_2-12-0",
            "present": False,
            "page": None,
            "line": None,
            "kind": None,
            "products": {},
            "restrictions": "",
            "link": None,
            "link_ok": False,
            "link_problem": "",
        },
    ],
}


@dataclass
class Fixture:
    root: Path
    repo: Path
    store: Store
    config: Config
    runs: list[int]
    base: str
    head: str


def _fill_store(
    store: Store, commit: str, sha: str, with_records: bool, config: Config
) -> list[int]:
    runs = []
    argv_base = [
        "run",
        TEST_PATH,
        "--repo",
        "backend",
        "--ref",
        "v2.7.1",
        "--isolation",
        "--api",
        API,
    ]
    plans = [
        (["--env", "a2", "--env", "a3"], [("a2", False, 1), ("a3", False, 2)]),
        (["--env", "a5"], [("a5", True, 1)]),
    ]
    for extra_argv, envs in plans:
        rid = store.new_run("run", argv_base + extra_argv, uid=f"{len(runs) + 1:02d}" * 16)
        put(store, config.task_record(API, None, repo=True), rid, API)
        if with_records and not runs:  # the stages' records belong to the first run
            put(store, ApiInfo.from_json(RESOLVE), rid, API)
            put(store, ApiCoverage.from_json(COVERAGE), rid, API)
            put(store, DocsCheckRecord.from_json(DOCS_CHECK), rid, API)
        records = []
        for env, failed, count in envs:
            rec = target_record(
                env,
                commit,
                sha,
                failed=failed,
                count=count,
                device_name="Ascend950PR"
                if env == "a5"
                else ("Ascend910_9391" if env == "a3" else "Ascend910B3"),
            )
            rec = rec.replace(run_id=rid)
            store.add_target(
                rid,
                label=rec.label,
                ref=rec.ref,
                env=rec.env,
                result=rec.result,
                log=render_log(rec).encode(),
                record=rec.to_json(),
            )
            records.append(rec)
        result = "FAIL" if any(r.result == "FAIL" for r in records) else "PASS"
        store.finish_run(
            rid,
            result,
            summary={"targets": [{"label": r.label, "result": r.result} for r in records]},
        )
        runs.append(rid)
    return runs


def build_fixture(root: Path, with_records: bool = True) -> Fixture:
    repo = make_pr_repo(root / "backend", {TEST_PATH: GOOD_TEST})
    head = git(repo, "rev-parse", "HEAD")
    base = git(repo, "rev-parse", "master")
    sha = sha256_bytes(GOOD_TEST.encode())
    store = Store(root / "store")
    (root / "torchparity.toml").write_text(CONFIG_TOML)
    config = load_config(root / "torchparity.toml")
    runs = _fill_store(store, head, sha, with_records, config)
    return Fixture(root, repo, store, config, runs, base, head)


def model_of(
    fx: Fixture, *, change: bool = False, title: str | None = None, **fields: object
) -> ReportModel:
    """The report model of the fixture's runs, as ``torchparity report`` builds it (``change``: with
    ``--repo --range``; ``fields``: PR fields given as flags)."""
    runs = [read_run(fx.store, r) for r in fx.runs]
    the_change = the_checklist = None
    if change:
        resolve = next((r.resolve for r in runs if r.resolve is not None), None)
        the_change = evaluate_change(fx.repo, f"master..{fx.head}", fx.config, API, resolve)
        the_checklist = checklist_for_runs(the_change, runs, fx.config, API, resolve, title)
    given = TaskRecord(**{"api": None, **fields, "title": title}) if (title or fields) else None  # type: ignore[arg-type]
    return build_report(runs, task=given, change=the_change, checklist=the_checklist)
