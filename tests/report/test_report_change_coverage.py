"""The existing coverage a PR states is the coverage before its change (issue 35).

Found on Ascend/pytorch (seed 000's task with ``--range``): the search ran at the PR's head, so the PR's
own new tests were counted as direct tests that already existed (``直接用例数：4`` where the base had 2)
and the paragraph said the branch 已有直接调用 the API. Tests in files the change adds are now listed as
the PR's own; the paragraph and the count are the base's.
"""

from __future__ import annotations

from pathlib import Path

from tests.report.report_fixtures import TEST_PATH, build_fixture, model_of
from torchparity.report import render


def test_tests_in_a_file_the_change_adds_are_the_prs_own(tmp_path: Path) -> None:
    fx = build_fixture(tmp_path, with_records=True)
    plain = model_of(fx).coverage
    assert plain is not None
    backend = [r for r in plain["refs"] if not r["upstream"]]
    assert [d["path"] for r in backend for d in r["direct"]] == [TEST_PATH]
    model = model_of(fx, change=True)  # the range adds TEST_PATH
    assert model.change["files"][0]["status"] == "A"
    cov = model.coverage
    assert cov is not None
    backend = [r for r in cov["refs"] if not r["upstream"]]
    assert [r["direct"] for r in backend] == [[]]
    assert [d["path"] for r in backend for d in r["direct_added"]] == [TEST_PATH]
    assert "已有直接调用" not in cov["justification_zh"]
    assert "already has tests" not in cov["justification_en"]
    zh = render(model, "pr", "zh")
    assert (
        "直接用例数：0" in zh
        and "本 PR 新增的直接用例（在本 PR 新增的文件中，不计入已有用例）：1" in zh
    )
    # the tests that ran are still shown as run, the PR's own included
    comment = render(model, "comment", "en")
    assert "1 direct test" in comment and "v2.7.1@a2 passed" in comment
