"""The PR's change section (修改方案) states only what a commit range or the run's own writing shows.

Without ``--range`` the PR's commits and the files they change are not collected: a target's commit
is the tip of the branch it ran on (its title can be any other commit's), and the files it ran are
the API's tests wherever they already are. The section then says so and names ``--range``; the
files it may list are only those the run wrote into the worktree itself.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.report.report_fixtures import (
    API,
    COPYRIGHT_2026,
    GOOD_TEST,
    TEST_PATH,
    Fixture,
    make_pr_repo,
)
from torchparity.checks import evaluate_change, evaluate_checklist
from torchparity.records import RunRecords, TargetEvidence
from torchparity.report import build_report, render
from torchparity.store import read_run

#: the tip of the branch the targets ran on: a commit the task never made
TIP_TITLE = "[inductor] fuse pointwise reductions across graph breaks"


def change_section(text: str, lang: str) -> str:
    """The 修改方案 / Change section of a PR text."""
    start, end = ("# 【修改方案】", "\n# 【") if lang == "zh" else ("# Change", "\n# Existing")
    body = text.split(start, 1)[1]
    return body.split(end, 1)[0]


def runs_of(fx: Fixture, **target_changes: object) -> list[RunRecords]:
    """The fixture's runs with every target record changed as given."""
    out = []
    for r in (read_run(fx.store, i) for i in fx.runs):
        targets = []
        for ev in r.targets:
            rec = ev.record.replace(**target_changes)
            targets.append(TargetEvidence(rec, ev.log, ev.log_sha256, ev.record_sha256))
        out.append(replace(r, targets=tuple(targets)))
    return out


def test_without_a_range_the_pr_names_no_commit_and_no_file_of_the_branch_tip(
    fixture_bare: Fixture,
) -> None:
    runs = runs_of(fixture_bare, commit_title=TIP_TITLE)
    model = build_report(runs)
    assert model.change["commits"] == [] and model.change["files"] == []
    for lang, said in (
        ("zh", "本 PR 的提交和它修改的文件未采集"),
        ("en", "The PR's commits and the files they change were not collected"),
    ):
        section = change_section(render(model, "pr", lang), lang)
        assert fixture_bare.head not in section, section
        assert TIP_TITLE not in section
        assert TEST_PATH not in section  # an existing test the run ran is no change of the PR
        assert said in section and "--range" in section


def test_without_a_range_only_a_test_file_the_run_wrote_is_a_change(
    fixture_bare: Fixture,
) -> None:
    runs = runs_of(fixture_bare, commit_title=TIP_TITLE)
    for r in runs:
        for ev in r.targets:
            ev.record.test_files[0].added = True  # written into the worktree (scaffolded)
            ev.record.test_files[0].blob_sha256 = None
    model = build_report(runs)
    (f,) = model.change["files"]
    assert (f["path"], f["status"], f["origin"]) == (TEST_PATH, "A", "written")
    for lang, row in (
        ("zh", f"| `{TEST_PATH}` | 新增 | 本次运行写入工作树（未提交）；本次已运行（全部目标） |"),
        (
            "en",
            f"| `{TEST_PATH}` | added | written into the worktree by this run (not committed); "
            "ran here (every target) |",
        ),
    ):
        section = change_section(render(model, "pr", lang), lang)
        assert row in section
        assert fixture_bare.head not in section and TIP_TITLE not in section
        assert "--range" in section


def test_each_changed_file_says_whether_the_range_changed_it_and_whether_it_ran(
    fixture_full: Fixture, tmp_path: Path
) -> None:
    """A range changes the task's test file and a helper no target ran: the row of each says which."""
    helper = "test/npu/helper_grad_mode.py"
    repo = make_pr_repo(tmp_path / "pr", {TEST_PATH: GOOD_TEST, helper: "MODES = (False, True)\n"})
    runs = [read_run(fixture_full.store, i) for i in fixture_full.runs]
    change = evaluate_change(repo, "master..HEAD", fixture_full.config, API, runs[0].resolve)
    model = build_report(runs, change=change)
    assert {f["path"]: f["ran"] for f in model.change["files"]} == {
        TEST_PATH: ["v2.7.1@a2", "v2.7.1@a3", "v2.7.1@a5"],
        helper: [],
    }
    for lang, ran, not_run in (
        ("zh", "| 提交范围；本次已运行（全部目标） |", "| 提交范围；本次未运行 |"),
        (
            "en",
            "| the commit range; ran here (every target) |",
            "| the commit range; not run here |",
        ),
    ):
        rows = {
            ln.split("`")[1]: ln
            for ln in change_section(render(model, "pr", lang), lang).splitlines()
            if ln.startswith("| `")
        }
        assert ran in rows[TEST_PATH] and not_run in rows[helper]


def test_without_a_range_a_written_file_no_target_ran_is_no_change(fixture_bare: Fixture) -> None:
    """The run wrote the file, then every target's probe failed: nothing of it ran, nothing is listed."""
    runs = runs_of(fixture_bare, full=[], result="ERROR")
    for r in runs:
        for ev in r.targets:
            ev.record.test_files[0].added = True
    model = build_report(runs)
    assert model.change["files"] == []
    for lang in ("zh", "en"):
        assert TEST_PATH not in change_section(render(model, "pr", lang), lang)


def test_a_file_the_checklist_checked_states_its_result_not_not_collected(
    fixture_bare: Fixture, tmp_path: Path
) -> None:
    """No range: the change record checked no file, the checklist did (the scaffolded test, read from
    its copy and named by its path in the repo). The file's row states the checklist's result."""
    runs = runs_of(fixture_bare)
    for r in runs:
        for ev in r.targets:
            ev.record.test_files[0].added = True  # the scaffolded test, written for the run
    copy = tmp_path / "out" / "test_grad_mode_clone.py"
    copy.parent.mkdir()
    copy.write_text(GOOD_TEST.replace(COPYRIGHT_2026, ""))  # the file lacks the header
    checklist = evaluate_checklist(
        None,
        None,
        [str(copy)],
        API,
        fixture_bare.config,
        [ev.record for r in runs for ev in r.targets],
        shown_as=[TEST_PATH],
    )
    assert checklist.files == (TEST_PATH,) and str(copy) not in checklist.item("copyright").reason
    assert [checklist.item(i).status for i in ("copyright", "docstring_api")] == ["fail", "pass"]
    model = build_report(runs, checklist=checklist)
    for lang, cells, reason in (
        ("zh", "| 缺失 | 有 |", f"- `{TEST_PATH}` copyright 文件头缺失：{TEST_PATH}:2"),
        ("en", "| missing | present |", f"- `{TEST_PATH}` copyright header missing: {TEST_PATH}:2"),
    ):
        section = change_section(render(model, "pr", lang), lang)
        (row,) = [ln for ln in section.splitlines() if ln.startswith(f"| `{TEST_PATH}`")]
        assert row.endswith(cells) and ("未采集" not in row and "not collected" not in row)
        assert reason in section
