"""The report model: a pure function of the runs' records, and what it says is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import git
from tests.report.report_fixtures import (
    API,
    COVERAGE,
    GOOD_TEST,
    TEST_PATH,
    Fixture,
    build_fixture,
    make_pr_repo,
    model_of,
)
from torchparity.checks import checklist_for_runs, evaluate_change
from torchparity.errors import StoreCorrupt, UsageError
from torchparity.records import ApiCoverage
from torchparity.records.target import TestOutcome
from torchparity.records.task import TaskRecord
from torchparity.report import build_report, render
from torchparity.report.model import (
    TestId,
    _test_result,
    failure_message,
    overall_result,
    parse_test_id,
)
from torchparity.store import keep, put, read_run


def test_bare_runs_name_every_missing_part(fixture_bare: Fixture) -> None:
    m = model_of(fixture_bare)
    assert m.api == API  # the runs' own task record
    assert {"resolve", "coverage", "docs", "checklist", "repo"} <= set(m.missing)
    assert m.coverage is None and m.resolve is None and m.docs == {"check": None, "add": None}
    # no range: the PR's commits and files are not collected; the file the targets ran was verified
    assert m.change["from"] == "runs" and m.change["files"] == [] and m.change["commits"] == []
    assert m.tested_files == ({"path": TEST_PATH},)
    assert m.interface["changed"] is None and m.upstream_patch["involved"] is None
    # the config's [report] defaults were written into the task record when the run started
    assert m.source["task_issue"] == "https://gitcode.example/ascend/pytorch/issues/101"


def test_full_model_reads_the_records_and_the_change(fixture_full: Fixture) -> None:
    fx = fixture_full
    m = model_of(fx, change=True)
    assert not ({"resolve", "coverage", "docs", "checklist", "repo"} & set(m.missing))
    assert [t.label for t in m.targets] == ["v2.7.1@a2", "v2.7.1@a3", "v2.7.1@a5"]
    assert [t.hardware for t in m.targets] == ["Atlas A2", "Atlas A3", "Ascend 950"]
    assert m.result == "FAIL" and m.conclusion["failed"] == ["v2.7.1@a5"]
    assert m.conclusion["docs_missing"] == ["2.12.0"]
    a5 = m.targets[2]
    assert (a5.counts["passed"], a5.counts["failed"], a5.isolation_passed) == (1, 1, False)
    assert a5.tests[1].message == "AssertionError: True is not false"
    assert m.change["head_title"] == "test: add clone coverage for set_grad_enabled"
    assert m.change["source_branch"] == "pr/grad-mode-clone"
    assert m.change["files"][0]["copyright"]["status"] == "pass"
    assert m.interface == {"changed": False, "basis": "only-tests", "files": [], "text": None}
    assert m.checklist is not None and m.checklist["counts"]["fail"] == 1  # the a5 isolation probe
    assert m.branches["maintenance"] == ["v2.9.0", "v2.10.0"] and m.branches["target"] == "v2.7.1"
    # the log in the model is the stored evidence, byte for byte
    row = fx.store.targets(fx.runs[0])[0]
    assert m.targets[0].log == fx.store.blobs.read(row.log_sha).decode()
    assert m.targets[0].log_sha256 == row.log_sha


def test_upstream_tests_say_whether_the_runs_executed_them(fixture_full: Fixture) -> None:
    m = model_of(fixture_full)
    assert m.upstream is not None
    upstream_ref, backend_ref = m.upstream["refs"]
    assert upstream_ref["tests"] == []
    (test,) = backend_ref["tests"]
    assert test["status"] == "ran" and test["outcome"] == "passed" and len(test["targets"]) == 3


def test_a_run_is_rendered_from_its_own_records_only(fixture_full: Fixture) -> None:
    fx = fixture_full
    # the second run holds no coverage record: the first run's is not borrowed
    only_a5 = build_report([read_run(fx.store, fx.runs[1])])
    assert only_a5.coverage is None and "coverage" in only_a5.missing
    before = render(only_a5, "pr", "zh")
    # another verb writes a coverage record of the same API into the same store
    keep(
        fx.store,
        "coverage",
        ["coverage", API],
        [(API, ApiCoverage.from_json(dict(COVERAGE, justification_zh="别的")))],
    )
    assert render(build_report([read_run(fx.store, fx.runs[1])]), "pr", "zh") == before


def test_a_direct_test_outside_the_runs_is_not_run_with_the_note(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=False)
    coverage = dict(
        COVERAGE,
        refs=[
            dict(
                COVERAGE["refs"][0],
                direct=[
                    {
                        "test": "test/test_autograd.py::TestAutograd::test_clone_modes",
                        "path": "test/test_autograd.py",
                        "line": 5,
                        "end_line": 9,
                        "how": "calls",
                        "at": 6,
                    }
                ],
            )
        ],
    )
    fx.store.reopen_run(
        fx.runs[0]
    )  # a record joins a run only while it runs (it is sealed when it ends)
    put(fx.store, ApiCoverage.from_json(coverage), fx.runs[0], API)
    fx.store.finish_run(fx.runs[0], "PASS")
    m = model_of(fx, upstream_note="the trimmed source lacks test/test_autograd.py")
    (test,) = m.upstream["refs"][0]["tests"]
    assert test["status"] == "not run" and test["outcome"] is None
    assert "trimmed source" in render(m, "comment", "en")
    assert "trimmed source" in render(m, "pr", "en")


def test_an_alias_query_keeps_the_name_asked_and_the_canonical_one(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=True)
    m = model_of(fx, api="torch.set_grad_enabled.clone")
    assert m.api == "torch.set_grad_enabled.clone" and m.canonical == API
    assert m.coverage is not None and m.resolve is not None


def test_a_record_of_another_schema_is_refused(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=False)
    fx.store.reopen_run(fx.runs[0])
    fx.store.put_record(
        "coverage", API, {"refs": [{"ref": "master"}]}, run_id=fx.runs[0]
    )  # no envelope
    fx.store.finish_run(fx.runs[0], "PASS")
    with pytest.raises(StoreCorrupt, match="expected a torchparity.coverage/2 record"):
        read_run(fx.store, fx.runs[0])


def test_changes_beyond_tests_are_flagged(tmp_path: Path) -> None:
    repo = make_pr_repo(
        tmp_path / "repo",
        {
            TEST_PATH: GOOD_TEST,
            "test_upstream/patches/p.patch": "diff\n",
            "torch_npu/csrc/op.cpp": "int y;\n",
        },
    )
    fx = build_fixture(tmp_path / "fx", with_records=False)
    runs = [read_run(fx.store, r) for r in fx.runs]
    change = evaluate_change(repo, "master..HEAD", fx.config, API)
    m = build_report(
        runs, change=change, checklist=checklist_for_runs(change, runs, fx.config, API, None)
    )
    assert m.interface["changed"] is None and m.interface["basis"] == "other-files"
    assert "torch_npu/csrc/op.cpp" in m.interface["files"]
    assert m.upstream_patch == {
        "involved": True,
        "files": ["test_upstream/patches/p.patch"],
        "text": None,
    }
    assert m.checklist["items"][7]["status"] == "fail"  # only_target_files
    text = render(m, "pr", "en")
    assert "To be stated: the change also touches non-test files" in text
    assert "Involved: test_upstream/patches/p.patch." in text


def test_bad_input(fixture_bare: Fixture) -> None:
    runs = [read_run(fixture_bare.store, r) for r in fixture_bare.runs]
    with pytest.raises(UsageError, match="no run 99"):
        read_run(fixture_bare.store, 99)
    with pytest.raises(UsageError, match="twice"):
        build_report([runs[0], runs[0]])
    with pytest.raises(UsageError, match="no run given"):
        build_report([])
    with pytest.raises(UsageError, match="unknown source type 'feature'"):
        build_report(runs[:1], task=TaskRecord(api=None, source_types=("feature",)))


def test_source_types_and_links(fixture_bare: Fixture) -> None:
    runs = [read_run(fixture_bare.store, fixture_bare.runs[0])]
    m = build_report(
        runs, task=TaskRecord(api=None, source_types=("issue", "docs"), task_issue="https://x/1")
    )
    assert [t["id"] for t in m.source["types"] if t["checked"]] == ["issue", "docs"]
    assert m.source["task_issue"] == "https://x/1" and "task_issue" not in m.missing
    text = render(m, "pr", "zh")
    assert "- [x] issue/工单" in text and "- [x] 资料更新" in text and "- [ ] 需求" in text


def test_overall_result_and_failure_message() -> None:
    assert overall_result(["PASS", "PASS"]) == "PASS"
    assert overall_result(["PASS", "FAIL"]) == "FAIL"
    assert overall_result(["FAIL", "ERROR"]) == "ERROR"
    assert overall_result(["ERROR", "INCOMPLETE"]) == "INCOMPLETE"
    assert overall_result([]) == "INCOMPLETE"
    tb = 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: npu gone\n\nTo execute this test, run ...'
    assert failure_message(tb) == "RuntimeError: npu gone"
    assert failure_message("just text\nlast line") == "last line"


def test_test_ids_are_split_in_one_place() -> None:
    assert parse_test_id("__main__.TestX.test_y") == TestId("", "__main__", "TestX", "test_y")
    assert parse_test_id("test/npu/test_x.py::TestX::test_y") == TestId(
        "test/npu/test_x.py", "", "TestX", "test_y"
    )
    assert parse_test_id("t.py::Outer::Inner::test_y").klass == "Outer.Inner"
    assert parse_test_id("t.py::test_y") == TestId("t.py", "", "", "test_y")
    assert parse_test_id("test/npu/test_x.py") == TestId("test/npu/test_x.py", "", "", "")
    assert parse_test_id("test_y") == TestId("", "", "", "test_y")
    # the runner's ids become JUnit classnames under the file's module path
    unittest = _test_result(TestOutcome("__main__.TestX.test_y", "passed"), "test/npu/test_x.py")
    assert (unittest.classname, unittest.name) == ("test.npu.test_x.TestX", "test_y")
    node = _test_result(TestOutcome("test/a.py::TestX::test_y", "failed"), "")
    assert (node.classname, node.name) == ("test.a.TestX", "test_y")
    bare = _test_result(TestOutcome("TestX.test_y", "passed"), "")
    assert (bare.classname, bare.name) == ("__main__.TestX", "test_y")


def test_a_fixture_commit_is_deterministic(tmp_path: Path) -> None:
    a = make_pr_repo(tmp_path / "a", {TEST_PATH: GOOD_TEST})
    b = make_pr_repo(tmp_path / "b", {TEST_PATH: GOOD_TEST})
    assert git(a, "rev-parse", "HEAD") == git(b, "rev-parse", "HEAD")  # goldens rely on it


def test_run_files_missing_at_the_pr_head_leave_the_checklist_out(tmp_path: Path) -> None:
    repo = make_pr_repo(tmp_path / "repo", {"test/other_test.py": "x = 1\n"})
    fx = build_fixture(tmp_path / "fx", with_records=False)
    runs = [read_run(fx.store, r) for r in fx.runs]
    change = evaluate_change(repo, "master..HEAD", fx.config, API)
    assert checklist_for_runs(change, runs, fx.config, API, None) is None
    m = build_report(runs, change=change)
    assert m.checklist is None and "checklist" in m.missing
    assert [f["path"] for f in m.change["files"]] == ["test/other_test.py"]


def test_docs_products_keep_the_configured_order() -> None:
    from torchparity.report.model import normalise_docs_check

    stored = {
        "versions": [
            {
                "version": "2.7.1",
                "present": True,
                "products": {
                    "910b": {"name": "A2", "status": "支持"},
                    "950": {"name": "950", "status": "不支持"},
                    "A3": {"name": "A3", "status": "支持"},
                },
            }
        ]
    }  # as the store writes it: keys sorted
    (v,) = normalise_docs_check(stored, ["910b", "A3", "950"])["versions"]
    assert list(v["products"]) == ["910b", "A3", "950"]
    (v,) = normalise_docs_check(stored)["versions"]
    assert list(v["products"]) == ["910b", "950", "A3"]
