"""The checklist engine: every item has a passing and a failing fixture (tiny real git repos)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.report.report_fixtures import (
    API,
    COPYRIGHT_2026,
    GOOD_TEST,
    TEST_PATH,
    make_pr_repo,
    target_record,
)
from torchparity.checks import checklist_from_json, evaluate_checklist
from torchparity.checks.checklist import alias_table, failing_tests, resolve_aliases
from torchparity.cli import main
from torchparity.config import load_preset
from torchparity.errors import UsageError
from torchparity.store import Store

NPU = load_preset("torch_npu")
RANGE = "master..HEAD"


def run_checklist(
    tmp_path: Path,
    text: str = GOOD_TEST,
    *,
    extra_files: dict[str, str] | None = None,
    messages: tuple[str, ...] = ("test: add clone coverage",),
    api: str | None = API,
    config=NPU,
    records=None,
    title: str | None = None,
    aliases=(),
):
    files = {TEST_PATH: text, **(extra_files or {})}
    repo = make_pr_repo(tmp_path / "repo", files, messages=messages)
    return evaluate_checklist(
        repo,
        RANGE,
        [TEST_PATH],
        api=api,
        config=config,
        run_records=records,
        title=title,
        aliases=aliases,
    )


def status(result, item: str) -> str:
    return result.item(item).status


def test_good_file_passes_every_file_item(tmp_path: Path) -> None:
    result = run_checklist(tmp_path)
    for item in (
        "copyright",
        "docstring_api",
        "calls_api",
        "no_noqa_import",
        "testcase",
        "single_commit",
        "only_target_files",
        "type_tag",
    ):
        assert status(result, item) == "pass", (item, result.item(item).reason)
    assert status(result, "state_restored") == "n.a."  # no run records given
    assert result.passed


# -- copyright -----------------------------------------------------------------------------
def test_copyright_missing_fails_with_the_first_differing_line(tmp_path: Path) -> None:
    result = run_checklist(tmp_path, GOOD_TEST.replace(COPYRIGHT_2026, ""))
    item = result.item("copyright")
    assert item.status == "fail"
    assert f"{TEST_PATH}:2:" in item.reason and "Copyright (c) {year} Huawei" in item.reason


def test_copyright_other_holder_fails_and_any_year_passes(tmp_path: Path) -> None:
    bad = run_checklist(tmp_path / "a", GOOD_TEST.replace("Huawei Technologies", "Someone Else"))
    assert status(bad, "copyright") == "fail"
    other_year = run_checklist(tmp_path / "b", GOOD_TEST.replace("(c) 2026", "(c) 2024-2026"))
    assert status(other_year, "copyright") == "pass"


def test_copyright_is_na_without_a_template(tmp_path: Path) -> None:
    result = run_checklist(tmp_path, config=load_preset("default"))
    assert status(result, "copyright") == "n.a."


# -- docstring -------------------------------------------------------------------------------
def test_docstring_naming_only_the_parent_api_fails(tmp_path: Path) -> None:
    text = GOOD_TEST.replace(
        "Checks torch.autograd.grad_mode.set_grad_enabled.clone on",
        "Checks torch.autograd.grad_mode.set_grad_enabled on",
    )
    result = run_checklist(tmp_path, text)
    assert status(result, "docstring_api") == "fail"
    assert "does not name" in result.item("docstring_api").reason


def test_docstring_missing_fails_and_alias_spelling_passes(tmp_path: Path) -> None:
    no_doc = GOOD_TEST.replace('"""Checks torch.autograd', "# Checks torch.autograd").replace(
        'on NPU tensors.\n"""', "on NPU tensors.\n"
    )
    no_doc = no_doc.replace("\nThe clone keeps", "\n# The clone keeps")
    missing = run_checklist(tmp_path / "a", no_doc)
    assert status(missing, "docstring_api") == "fail"
    assert "no module docstring" in missing.item("docstring_api").reason
    alias = run_checklist(
        tmp_path / "b",
        GOOD_TEST.replace(
            "torch.autograd.grad_mode.set_grad_enabled.clone on", "torch.set_grad_enabled.clone on"
        ),
    )
    assert status(alias, "docstring_api") == "pass"


# -- explicit call -----------------------------------------------------------------------------
CALL_ONLY_PARENT = GOOD_TEST.replace("cloned = ctx.clone()", "cloned = ctx").replace(
    "@torch.set_grad_enabled(False).clone()", "@torch.set_grad_enabled(False)"
)


def test_calling_only_the_parent_fails(tmp_path: Path) -> None:
    result = run_checklist(tmp_path, CALL_ONLY_PARENT)
    assert status(result, "calls_api") == "fail"
    assert "no call of" in result.item("calls_api").reason


def test_imported_alias_and_chained_call_pass(tmp_path: Path) -> None:
    text = CALL_ONLY_PARENT.replace(
        "import torch\n",
        "import torch\nfrom torch.autograd.grad_mode import set_grad_enabled as sge\n",
    ).replace("cloned = ctx\n", "cloned = sge(mode).clone()\n")
    result = run_checklist(tmp_path, text)
    item = result.item("calls_api")
    assert item.status == "pass" and "sge(mode).clone()" in item.reason


def test_a_call_outside_the_tests_does_not_count(tmp_path: Path) -> None:
    helper = CALL_ONLY_PARENT.replace(
        "\n\nclass TestGradModeClone",
        "\n\ndef _unused():\n    return torch.set_grad_enabled(True).clone()\n\n\nclass TestGradModeClone",
    )
    item = run_checklist(tmp_path / "a", helper).item("calls_api")
    assert item.status == "fail"
    assert "only outside test methods" in item.reason and ":26:" in item.reason
    assert "torch.set_grad_enabled(True).clone()" in item.reason
    module_level = CALL_ONLY_PARENT.replace(
        "\n\nclass TestGradModeClone",
        "\n\n_C = torch.set_grad_enabled(True).clone()\n\n\nclass TestGradModeClone",
    )
    assert status(run_checklist(tmp_path / "b", module_level), "calls_api") == "fail"


def test_a_helper_or_setup_the_test_uses_counts(tmp_path: Path) -> None:
    helper = CALL_ONLY_PARENT.replace(
        "\n\nclass TestGradModeClone",
        "\n\ndef _cloned(mode):\n    return torch.set_grad_enabled(mode).clone()\n\n\nclass TestGradModeClone",
    ).replace("cloned = ctx\n", "cloned = _cloned(mode)\n")
    item = run_checklist(tmp_path / "a", helper).item("calls_api")
    assert item.status == "pass", item.reason
    assert (
        ":34 in TestGradModeClone.test_set_grad_enabled_clone: cloned = _cloned(mode)"
        in item.reason
    )
    assert "via helper _cloned()" in item.reason
    setup = CALL_ONLY_PARENT.replace(
        "class TestGradModeClone(TestCase):\n",
        "class TestGradModeClone(TestCase):\n    def setUp(self):\n        self.ctx = torch.set_grad_enabled(False)\n\n",
    ).replace("cloned = ctx\n", "cloned = self.ctx.clone()\n")
    item = run_checklist(tmp_path / "b", setup).item("calls_api")
    assert item.status == "pass" and "self.ctx.clone()" in item.reason, item.reason


def test_naming_a_class_is_not_using_it() -> None:
    from torchparity.checks.checklist import alias_table, check_calls
    from torchparity.checks.pysource import SourceFile

    parent = "torch.autograd.grad_mode.set_grad_enabled"
    head = "import torch\n\n\nclass T:\n    def test_mode(self):\n"
    named = SourceFile(
        "t.py", head + "        assert not isinstance(object(), torch.set_grad_enabled)\n"
    )
    assert check_calls(named, parent, alias_table(parent)).status == "fail"
    called = SourceFile(
        "t.py", head + "        with torch.set_grad_enabled(False):\n            pass\n"
    )
    item = check_calls(called, parent, alias_table(parent))
    assert (
        item.status == "pass" and item.en == "t.py:6 in T.test_mode: torch.set_grad_enabled(False)"
    )


def test_aliases_from_the_resolve_record_count(tmp_path: Path) -> None:
    text = CALL_ONLY_PARENT.replace("cloned = ctx\n", "cloned = torch.my_alias.clone()\n")
    plain = run_checklist(tmp_path / "a", text)
    assert status(plain, "calls_api") == "fail"
    with_alias = run_checklist(tmp_path / "b", text, aliases=["torch.my_alias.clone"])
    assert status(with_alias, "calls_api") == "pass"


# -- noqa imports ------------------------------------------------------------------------------
def test_unused_noqa_backend_import_fails(tmp_path: Path) -> None:
    text = GOOD_TEST.replace("import torch\n", "import torch\nimport torch_npu  # noqa: F401\n")
    result = run_checklist(tmp_path, text)
    item = result.item("no_noqa_import")
    assert item.status == "fail" and "torch_npu" in item.reason and ":22:" in item.reason


def test_a_used_noqa_import_passes(tmp_path: Path) -> None:
    text = GOOD_TEST.replace(
        "import torch\n", "import torch\nimport torch_npu  # noqa: F401\n"
    ).replace(
        "before = torch.is_grad_enabled()",
        "before = torch.is_grad_enabled()\n        torch_npu.npu.synchronize()",
    )
    assert status(run_checklist(tmp_path, text), "no_noqa_import") == "pass"


# -- TestCase / run_tests / unittest ------------------------------------------------------------------
def test_unittest_testcase_fails(tmp_path: Path) -> None:
    text = (
        GOOD_TEST.replace(
            "from torch_npu.testing.testcase import TestCase, run_tests\n", "import unittest\n"
        )
        .replace("(TestCase)", "(unittest.TestCase)")
        .replace("run_tests()", "unittest.main()")
    )
    item = run_checklist(tmp_path, text).item("testcase")
    assert item.status == "fail"
    assert "imports unittest directly" in item.reason and "unittest.TestCase" in item.reason
    assert "run_tests() is never called" in item.reason


def test_missing_run_tests_fails(tmp_path: Path) -> None:
    text = GOOD_TEST.replace('if __name__ == "__main__":\n    run_tests()\n', "")
    item = run_checklist(tmp_path, text).item("testcase")
    assert item.status == "fail" and "never called" in item.reason


def test_unittest_mock_is_allowed(tmp_path: Path) -> None:
    text = GOOD_TEST.replace("import torch\n", "import torch\nfrom unittest import mock\n")
    assert status(run_checklist(tmp_path, text), "testcase") == "pass"


# -- state restored (run records) ---------------------------------------------------------------------
def test_state_restored_from_isolation_records(tmp_path: Path) -> None:
    good = [target_record("a2", "c" * 40, "s" * 64)]
    bad = [
        target_record("a2", "c" * 40, "s" * 64),
        target_record("a5", "c" * 40, "s" * 64, failed=True),
    ]
    ok = run_checklist(tmp_path / "a", records=good).item("state_restored")
    assert ok.status == "pass" and "GRAD MODE" in ok.reason
    fail = run_checklist(tmp_path / "b", records=[r.to_json() for r in bad]).item("state_restored")
    assert fail.status == "fail" and "v2.7.1@a5" in fail.reason and "after:False" in fail.reason


def test_a_state_leak_fails_the_item(tmp_path: Path) -> None:
    rec = target_record("a2", "c" * 40, "s" * 64).replace(
        isolation=[],
        leaks=[{"test": "__main__.T.test_x", "state": "grad_mode", "before": True, "after": False}],
    )
    item = run_checklist(tmp_path, records=[rec]).item("state_restored")
    assert item.status == "fail" and "grad_mode" in item.reason


def test_no_isolation_probe_is_not_a_pass_even_when_the_leak_check_found_nothing(
    tmp_path: Path,
) -> None:
    rec = target_record("a2", "c" * 40, "s" * 64).replace(isolation=[])
    item = run_checklist(tmp_path, records=[rec]).item("state_restored")
    assert item.status == "n.a.", item.reason
    assert (
        item.reason
        == "no isolation probe was run; the state-leak check watched 2 test(s) and found no leak"
    )


def test_a_skipped_isolation_probe_is_not_a_pass(tmp_path: Path) -> None:
    rec = target_record("a2", "c" * 40, "s" * 64)
    skipped = rec.isolation[0]
    skipped.result = {
        "state": "autocast_device",
        "title": "AUTOCAST DEVICE",
        "runs": [],
        "passed": True,
        "skipped": "no autocast_device state when the device is cpu",
        "exit_code": 0,
    }
    item = run_checklist(tmp_path, records=[rec]).item("state_restored")
    assert item.status == "n.a."
    assert (
        "no isolation probe ran (skipped: no autocast_device state when the device is cpu)"
        in item.reason
    )


def test_a_full_run_with_no_test_method_is_not_a_pass(tmp_path: Path) -> None:
    rec = target_record("a2", "c" * 40, "s" * 64).replace(isolation=[])
    full = rec.full[0]
    full.status, full.exit_code, full.tests = "FAIL", 1, []
    full.result = {"exit_code": 1, "leaks": [], "tests_seen": 0}
    item = run_checklist(tmp_path, records=[rec]).item("state_restored")
    assert item.status == "n.a."
    assert "the state-leak check is NOT_RUN" in item.reason and "no test method ran" in item.reason
    assert "未运行隔离验证" in item.reason_zh


# -- commits --------------------------------------------------------------------------------------------
def test_two_commits_fail_single_commit(tmp_path: Path) -> None:
    result = run_checklist(tmp_path, messages=("test: draft", "test: add clone coverage"))
    item = result.item("single_commit")
    assert item.status == "fail" and "2 commits" in item.reason


def test_other_files_fail_only_target_files(tmp_path: Path) -> None:
    result = run_checklist(tmp_path, extra_files={"torch_npu/csrc/op.cpp": "int x;\n"})
    item = result.item("only_target_files")
    assert item.status == "fail" and "torch_npu/csrc/op.cpp" in item.reason


def test_titles_without_a_type_tag_fail(tmp_path: Path) -> None:
    result = run_checklist(tmp_path / "a", messages=("add clone coverage",))
    assert status(result, "type_tag") == "fail"
    pr_title = run_checklist(tmp_path / "b", title="Add clone coverage")
    item = pr_title.item("type_tag")
    assert item.status == "fail" and "PR title" in item.reason
    scoped = run_checklist(
        tmp_path / "c", messages=("test(autograd): add clone coverage",), title="test：补充用例"
    )
    assert status(scoped, "type_tag") == "pass"


# -- the engine and the verb ----------------------------------------------------------------------------
def test_items_without_a_range_are_na(tmp_path: Path) -> None:
    repo = make_pr_repo(tmp_path / "repo", {TEST_PATH: GOOD_TEST})
    result = evaluate_checklist(repo, None, [TEST_PATH], api=API, config=NPU)
    for item in ("single_commit", "only_target_files", "type_tag"):
        assert status(result, item) == "n.a."
    assert status(result, "copyright") == "pass"  # read from the work tree


def test_bad_input_is_one_clear_error(tmp_path: Path) -> None:
    repo = make_pr_repo(tmp_path / "repo", {TEST_PATH: GOOD_TEST})
    with pytest.raises(UsageError, match="does not exist at"):
        evaluate_checklist(repo, RANGE, ["test/nope.py"], api=API)
    with pytest.raises(UsageError, match="not a range"):
        evaluate_checklist(repo, "master", [TEST_PATH], api=API)
    with pytest.raises(UsageError, match="unknown ref"):
        evaluate_checklist(repo, "nope..HEAD", [TEST_PATH], api=API)


def test_json_round_trip(tmp_path: Path) -> None:
    result = run_checklist(tmp_path)
    again = checklist_from_json(result.to_json())
    assert again.items == result.items
    # no run records: the isolation item and the hardware-evidence item are n.a.
    assert result.to_json()["counts"] == {"pass": 8, "fail": 0, "n.a.": 2}


def test_checklist_verb_exit_codes_and_stored_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = make_pr_repo(tmp_path / "good", {TEST_PATH: GOOD_TEST})
    bad = make_pr_repo(tmp_path / "bad", {TEST_PATH: GOOD_TEST}, messages=("wip", "test: add"))
    (tmp_path / "torchparity.toml").write_text('preset = "torch_npu"\n')
    store = tmp_path / "store"
    common = [
        "--range",
        RANGE,
        "--file",
        TEST_PATH,
        "--api",
        API,
        "--store",
        str(store),
        "--config",
        str(tmp_path / "torchparity.toml"),
        "--lang",
        "en",
    ]
    assert main(["checklist", "--repo", str(good), *common]) == 0
    text = capsys.readouterr().out
    assert "PASS A single commit" in text and "8 pass, 0 fail, 2 n.a." in text
    assert main(["checklist", "--repo", str(bad), *common]) == 1
    assert "FAIL A single commit" in capsys.readouterr().out
    stored = Store(store).latest_record("checklist", API)
    assert (
        stored is not None
        and stored["schema"] == "torchparity.checklist/2"
        and stored["body"]["passed"] is False
    )
    assert (
        main(
            [
                "checklist",
                "--repo",
                str(good),
                "--range",
                RANGE,
                "--file",
                "nope.py",
                "--store",
                str(store),
            ]
        )
        == 2
    )
    assert "ERROR: file nope.py does not exist" in capsys.readouterr().err


def test_a_file_that_does_not_parse_fails_the_source_items(tmp_path: Path) -> None:
    result = run_checklist(
        tmp_path, GOOD_TEST.replace("def test_set_grad_enabled_clone(self):", "def broken(:")
    )
    for item in ("docstring_api", "calls_api", "no_noqa_import", "testcase"):
        assert status(result, item) == "fail" and "does not parse" in result.item(item).reason
    assert status(result, "copyright") == "pass"  # a text check still answers


def test_calls_api_counts_a_property_read_for_a_tensor_property():
    from torchparity.checks.checklist import alias_table, check_calls
    from torchparity.checks.pysource import SourceFile

    table = alias_table("torch.Tensor.ndim")
    reads = SourceFile(
        "t.py",
        "import torch\n\n\nclass T:\n    def test_ndim(self):\n"
        "        x = torch.zeros(2, 3)\n        assert x.ndim == 2\n",
    )
    item = check_calls(reads, "torch.Tensor.ndim", table)
    assert item.status == "pass" and item.en == "t.py:7 in T.test_ndim: x.ndim"
    other = SourceFile(
        "t.py",
        "import torch\n\n\nclass T:\n    def test_shape(self):\n"
        "        x = torch.zeros(2, 3)\n        assert x.shape == (2, 3)\n",
    )
    assert check_calls(other, "torch.Tensor.ndim", table).status == "fail"


def test_a_tensor_member_on_an_unknown_receiver_passes_with_a_note():
    from torchparity.checks.checklist import alias_table, check_calls
    from torchparity.checks.pysource import SourceFile

    src = SourceFile("t.py", "class T:\n    def test_add_(self, x):\n        x.add_(1)\n")
    item = check_calls(src, "torch.Tensor.add_", alias_table("torch.Tensor.add_"))
    assert (
        item.status == "pass"
        and item.en == "t.py:3 in T.test_add_: x.add_(1); receiver type not checked"
    )


def test_the_alias_table_is_coverages_with_the_resolve_spellings_on_top():
    from torchparity.coverage import static_table

    assert alias_table(None) is static_table()
    assert alias_table("torch.Tensor").canonical("torch.Tensor.add_")[0] == "torch.Tensor.add_"
    record = {
        "query": "torch._C.is_grad_enabled",
        "canonical": "torch.is_grad_enabled",
        "aliases": ["torch._C.is_grad_enabled", None],
    }
    assert resolve_aliases(record) == ("torch._C.is_grad_enabled",)
    assert resolve_aliases(None) == ()
    table = alias_table("torch.is_grad_enabled", resolve_aliases(record))
    assert table.canonical("torch._C.is_grad_enabled")[0] == "torch.is_grad_enabled"
    assert static_table().canonical("torch._C.is_grad_enabled")[0] == "torch._C.is_grad_enabled"


def test_resolve_record_spellings_reach_the_checklist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = CALL_ONLY_PARENT.replace("cloned = ctx\n", "cloned = torch.my_alias.clone()\n")
    record = {
        "query": "torch.my_alias.clone",
        "canonical": API,
        "aliases": ["torch.set_grad_enabled.clone"],
        "kind": "method",
    }
    assert status(run_checklist(tmp_path / "a", text), "calls_api") == "fail"
    repo = make_pr_repo(tmp_path / "b" / "repo", {TEST_PATH: text})
    direct = evaluate_checklist(repo, RANGE, [TEST_PATH], api=API, config=NPU, resolve=record)
    assert status(direct, "calls_api") == "pass"
    store = Store(tmp_path / "store")
    rid = store.new_run("resolve", ["resolve", API])
    store.put_record(
        "resolve",
        API,
        {"schema": "torchparity.resolve/2", "run": "", "task": API, "body": record},
        run_id=rid,
    )
    store.finish_run(rid, "RECORDED")
    common = [
        "checklist",
        "--repo",
        str(repo),
        "--range",
        RANGE,
        "--file",
        TEST_PATH,
        "--api",
        API,
        "--store",
        str(tmp_path / "store"),
        "--json",
    ]
    # a resolve record is read from the run given, never picked up from the store by its key
    capsys.readouterr()
    main(common)
    items = {i["id"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    assert items["calls_api"]["status"] == "fail"
    main([*common, "--run", str(rid)])
    items = {i["id"]: i for i in json.loads(capsys.readouterr().out)["items"]}
    assert items["calls_api"]["status"] == "pass", items["calls_api"]
    assert "torch.my_alias.clone()" in items["calls_api"]["reason"]


def test_a_private_spelling_matches_through_the_resolve_records_canonical_name() -> None:
    from torchparity.checks.checklist import alias_table, check_calls, check_docstring
    from torchparity.checks.pysource import SourceFile

    src = SourceFile(
        "t.py",
        '"""Checks torch.Tensor.add_."""\nimport torch\n\n\nclass T:\n'
        "    def test_add_(self):\n        x = torch.ones(2)\n        x.add_(1)\n",
    )
    api = "torch._tensor.Tensor.add_"
    record = {"query": api, "canonical": "torch.Tensor.add_", "aliases": []}
    table = alias_table(api, resolve_aliases(record), record["canonical"])
    item = check_calls(src, api, table)
    assert item.status == "pass" and item.en == "t.py:8 in T.test_add_: x.add_(1)"
    assert check_docstring(src, api, table).status == "pass"


# -- placeholders fail the calls item -----------------------------------------------------------------
def test_tests_that_fail_unconditionally_are_placeholders():
    tree = ast.parse(
        "class TestA:\n"
        "    def test_fill(self):\n        self.assertIsNotNone(torch.x)\n        self.fail('write me')\n"
        "    def test_real(self):\n        if torch.x() != 1:\n            self.fail('wrong')\n"
    )
    assert failing_tests(tree) == {"TestA.test_fill"}


@pytest.mark.parametrize(
    "title, ok",
    [
        # the forms the backend merges (its history on v2.7.1, v2.11.0 and master)
        ("[v2.7.1] test: add test cases for torch.is_conj", True),
        ("[v2.7.1]test: add test cases for torch.is_conj", True),
        ("[master] test: add NPU coverage", True),
        ("【API一致性任务】test: add NPU coverage for torch._utils._get_device_index", True),
        ("[test][v2.7.1] add NPU validation cases for torch.Tensor.map_", True),
        ("[fix] fix the profiler", True),
        ("test(npu): add cases", True),
        # no type tag anywhere
        ("[v2.7.1] add test cases", False),
        ("add test cases for torch.is_conj", False),
        ("[sync] PR #123", False),
        ("[test]", False),
    ],
)
def test_the_type_tag_forms_the_backend_merges(title: str, ok: bool) -> None:
    from torchparity.checks.checklist import DEFAULT_TYPE_TAGS, has_type_tag

    assert has_type_tag(title, DEFAULT_TYPE_TAGS) is ok
