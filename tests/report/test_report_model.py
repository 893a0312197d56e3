"""The report model: what it reads from the store, the repo and the config, and what it says is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.report_fixtures import (
    API,
    COVERAGE,
    GOOD_TEST,
    TEST_PATH,
    Fixture,
    build_fixture,
    git,
    make_repo,
)
from torchparity.collect.record import TestOutcome
from torchparity.errors import UsageError
from torchparity.report import build_report, render
from torchparity.report.model import (
    TestId,
    _test_result,
    failure_message,
    overall_result,
    parse_test_id,
)


def test_bare_runs_name_every_missing_part(fixture_bare: Fixture) -> None:
    m = build_report(fixture_bare.store, fixture_bare.runs)
    assert m.api == API  # taken from the runs' own --api
    assert {"resolve", "coverage", "docs", "checklist", "repo", "task_issue", "result_issue",
            "source_type"} <= set(m.missing)
    assert m.coverage is None and m.resolve is None and m.docs == {"check": None, "add": None}
    assert m.change["from"] == "runs" and m.change["files"][0]["path"] == TEST_PATH
    assert m.interface["changed"] is None and m.upstream_patch["involved"] is None


def test_full_model_reads_records_repo_and_config(fixture_full: Fixture) -> None:
    fx = fixture_full
    m = build_report(fx.store, fx.runs, config=fx.config, extra={"repo": fx.repo, "range": f"master..{fx.head}"})
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
    m = build_report(fixture_full.store, fixture_full.runs, config=fixture_full.config)
    assert m.upstream is not None
    upstream_ref, backend_ref = m.upstream["refs"]
    assert upstream_ref["tests"] == []
    (test,) = backend_ref["tests"]
    assert test["status"] == "ran" and test["outcome"] == "passed" and len(test["targets"]) == 3
    only_a5 = build_report(fixture_full.store, [fixture_full.runs[1]], config=fixture_full.config)
    assert only_a5.upstream["refs"][1]["tests"][0]["targets"] == [{"label": "v2.7.1@a5", "outcome": "passed"}]


def test_a_direct_test_outside_the_runs_is_not_run_with_the_note(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=False)
    coverage = {"api": API, "refs": [{"ref": "upstream/v2.7.1", "commit": "abc", "direct": [
        {"test": "test/test_autograd.py::TestAutograd::test_clone_modes", "path": "test/test_autograd.py"}]}]}
    fx.store.put_record("coverage", API, coverage)
    m = build_report(fx.store, fx.runs, extra={"upstream_note": "the trimmed source lacks test/test_autograd.py"})
    (test,) = m.upstream["refs"][0]["tests"]
    assert test["status"] == "not run" and test["outcome"] is None
    assert "trimmed source" in render(m, "comment", "en")


def test_records_attached_to_the_runs_win_over_newer_ones(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=False)
    mine = dict(COVERAGE, justification_en="attached to run 1")
    fx.store.put_record("coverage", API, mine, run_id=fx.runs[0])
    fx.store.put_record("coverage", API, dict(COVERAGE, justification_en="newer, unattached"))
    m = build_report(fx.store, fx.runs)
    assert m.coverage["justification_en"] == "attached to run 1"


def test_an_alias_query_finds_records_under_the_canonical_name(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=True)
    m = build_report(fx.store, fx.runs, api="torch.set_grad_enabled.clone")
    assert m.api == "torch.set_grad_enabled.clone" and m.canonical == API
    assert m.coverage is not None and m.resolve is not None


def test_partial_foreign_records_are_filled_with_defaults(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=False)
    fx.store.put_record("coverage", API, {"refs": [{"ref": "master"}]})
    fx.store.put_record("resolve", API, {"canonical": API, "classification": {"category": "operator"}})
    fx.store.put_record("docs-check", API, {"versions": [{"version": "2.7.1", "present": False}]})
    m = build_report(fx.store, fx.runs)
    assert m.coverage["refs"][0]["direct"] == [] and m.coverage["refs"][0]["grep"] is None
    assert m.classification == {"category": "operator", "conclusion_zh": None, "conclusion_en": None}
    assert m.docs["check"]["missing_versions"] == ["2.7.1"]
    for kind in ("pr", "comment"):
        for lang in ("zh", "en"):
            assert render(m, kind, lang)  # every template tolerates the gaps


def test_changes_beyond_tests_are_flagged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {TEST_PATH: GOOD_TEST, "test_upstream/patches/p.patch": "diff\n",
                                         "torch_npu/csrc/op.cpp": "int y;\n"})
    fx = build_fixture(tmp_path / "fx", with_records=False)
    m = build_report(fx.store, fx.runs, config=fx.config, extra={"repo": repo, "range": "master..HEAD"})
    assert m.interface["changed"] is None and m.interface["basis"] == "other-files"
    assert "torch_npu/csrc/op.cpp" in m.interface["files"]
    assert m.upstream_patch == {"involved": True, "files": ["test_upstream/patches/p.patch"], "text": None}
    assert m.checklist["items"][7]["status"] == "fail"  # only_target_files
    text = render(m, "pr", "en")
    assert "To be stated: the change also touches non-test files" in text
    assert "Involved: test_upstream/patches/p.patch." in text


def test_bad_input(fixture_bare: Fixture) -> None:
    with pytest.raises(UsageError, match="no run 99"):
        build_report(fixture_bare.store, [99])
    with pytest.raises(UsageError, match="twice"):
        build_report(fixture_bare.store, [1, "#1"])
    with pytest.raises(UsageError, match="no run given"):
        build_report(fixture_bare.store, [])
    with pytest.raises(UsageError, match="unknown source type 'feature'"):
        build_report(fixture_bare.store, [1], extra={"source_type": "feature"})


def test_source_types_and_links(fixture_bare: Fixture) -> None:
    m = build_report(fixture_bare.store, [1], extra={"source_type": ["issue", "docs"], "task_issue": "https://x/1"})
    assert [t["id"] for t in m.source["types"] if t["checked"]] == ["issue", "docs"]
    assert "task_issue" not in m.missing and "result_issue" in m.missing
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
    assert parse_test_id("test/npu/test_x.py::TestX::test_y") == TestId("test/npu/test_x.py", "", "TestX", "test_y")
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
    a = make_repo(tmp_path / "a", {TEST_PATH: GOOD_TEST})
    b = make_repo(tmp_path / "b", {TEST_PATH: GOOD_TEST})
    assert git(a, "rev-parse", "HEAD") == git(b, "rev-parse", "HEAD")  # goldens rely on it


def test_run_files_missing_at_the_pr_head_leave_the_checklist_out(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"test/other_test.py": "x = 1\n"})
    fx = build_fixture(tmp_path / "fx", with_records=False)
    m = build_report(fx.store, fx.runs, extra={"repo": repo, "range": "master..HEAD"})
    assert m.checklist is None and "checklist" in m.missing
    assert [f["path"] for f in m.change["files"]] == ["test/other_test.py"]


def test_docs_products_keep_the_configured_order() -> None:
    from torchparity.report.model import normalise_docs_check

    stored = {"versions": [{"version": "2.7.1", "present": True, "products": {
        "910b": {"name": "A2", "status": "支持"}, "950": {"name": "950", "status": "不支持"},
        "A3": {"name": "A3", "status": "支持"}}}]}  # as the store writes it: keys sorted
    (v,) = normalise_docs_check(stored, ["910b", "A3", "950"])["versions"]
    assert list(v["products"]) == ["910b", "A3", "950"]
    (v,) = normalise_docs_check(stored)["versions"]
    assert list(v["products"]) == ["910b", "950", "A3"]
