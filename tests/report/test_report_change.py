"""The PR's change section (修改方案) states only what a commit range or the run's own writing shows.

Without ``--range`` the PR's commits and the files they change are not collected: a target's commit
is the tip of the branch it ran on (its title can be any other commit's), and the files it ran are
the API's tests wherever they already are. The section then says so and names ``--range``; the
files it may list are only those the run wrote into the worktree itself.
"""

from __future__ import annotations

from dataclasses import replace

from tests.report.report_fixtures import TEST_PATH, Fixture
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
            rec = replace(ev.record)
            for key, value in target_changes.items():
                setattr(rec, key, value)
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
        ("zh", f"| `{TEST_PATH}` | 新增 | 本次运行写入工作树（未提交） |"),
        (
            "en",
            f"| `{TEST_PATH}` | added | written into the worktree by this run (not committed) |",
        ),
    ):
        section = change_section(render(model, "pr", lang), lang)
        assert row in section
        assert fixture_bare.head not in section and TIP_TITLE not in section
        assert "--range" in section
