"""Every generated text passes a check of its every claim against the run's records (issue 35, item 2).

The texts are read back with ``review``'s own claim extraction, and each claim is held against the report
model they were rendered from. Over a matrix of run outcomes (every target state × one or three
environments × docs present, missing or added × with or without a range × official tests none, partial
or not started) × zh/en × PR, comment and summary, no claim is contradicted; a planted false sentence is
caught, and the writers (``report``, ``verify``) then write nothing and exit 4.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.report.outcome_matrix import STATES, matrix, outcome, outcome_names
from tests.report.report_fixtures import API, Fixture, build_fixture
from torchparity.cli import main
from torchparity.report import (
    TextContradicted,
    build_report,
    ensure_true,
    render,
    self_review,
)
from torchparity.review import CONTRADICTED, VERIFIED

TEXTS = ("pr", "comment", "markdown-summary")


@pytest.fixture(scope="module")
def fx(tmp_path_factory: pytest.TempPathFactory) -> Fixture:
    return build_fixture(tmp_path_factory.mktemp("matrix"), with_records=True)


def test_the_matrix_has_at_least_forty_outcomes() -> None:
    names = outcome_names()
    assert len(names) == len(set(names)) >= 40
    for axis in (
        "1env",
        "3env",
        "docs_present",
        "docs_missing",
        "docs_added",
        "-range-",
        "norange",
    ):
        assert any(axis in n for n in names), axis
    for official in ("official_none", "official_partial", "official_not_started"):
        assert any(official in n for n in names), official


@pytest.mark.parametrize("state", STATES)
def test_every_text_of_every_outcome_passes_the_self_review(fx: Fixture, state: str) -> None:
    subjects: Counter[str] = Counter()
    checked = 0
    for name, runs in matrix(fx, only=state):
        model = build_report(runs)
        for kind in TEXTS:
            for lang in ("zh", "en"):
                review = self_review(model, render(model, kind, lang), f"{name} {kind} {lang}")
                bad = [f"{v.line}: {v.text} -> {v.detail}" for v in review.contradicted]
                assert bad == [], f"{name} {kind} {lang}: {bad}"
                # not vacuous: each text states outcomes that were checked and found true
                outcomes = [v for v in review.verdicts if v.kind == "outcome"]
                assert outcomes and all(v.verdict == VERIFIED for v in outcomes), (name, kind)
                subjects.update(v.text.split("：")[0][:12] for v in outcomes)
                checked += 1
    assert checked == 12 * len(TEXTS) * 2


def _one(fx: Fixture, state: str, **kw: object) -> tuple:  # type: ignore[type-arg]
    args = {"envs": 1, "docs": "present", "with_range": False, "official": "none", **kw}
    model = build_report(outcome(fx, state, **args))  # type: ignore[arg-type]
    return model


PLANTED = [
    # (outcome, kind, lang, the true sentence, the planted false one)
    (
        "fail",
        "comment",
        "zh",
        None,
        "全部 1 个验证目标通过，证据支持 `X` 在各环境上的行为与上游一致。",
    ),
    (
        "fail",
        "comment",
        "en",
        None,
        "All 3 targets passed; the evidence supports that `X` behaves as upstream.",
    ),
    ("fail", "comment", "zh", "- 结果：未通过", "- 结果：通过"),
    ("pass", "comment", "zh", "测试 2/2 通过", "测试 0/1 通过"),
    ("pass", "pr", "zh", "共 2 个测试：通过 2", "共 2 个测试：通过 1"),
    (
        "none_ran",
        "pr",
        "en",
        "2 of the API's tests: 0 passed, 0 failed, 2 skipped",
        "2 of the API's tests: 2 passed, 0 failed, 0 skipped",
    ),
    (
        "mismatch",
        "comment",
        "zh",
        None,
        "全部 1 个验证目标通过，证据支持 `X` 在各环境上的行为与上游一致。",
    ),
]


@pytest.mark.parametrize(
    "case", PLANTED, ids=[f"{c[0]}-{c[1]}-{c[2]}-{i}" for i, c in enumerate(PLANTED)]
)
def test_a_planted_false_sentence_is_caught(fx: Fixture, case: tuple) -> None:  # type: ignore[type-arg]
    state, kind, lang, true, false = case
    envs = 3 if "All 3" in false else 1
    model = _one(fx, state, envs=envs)
    text = render(model, kind, lang)
    assert not self_review(model, text).contradicted
    if true is None:
        planted = text + "\n" + false + "\n"
    else:
        assert true in text, true
        planted = text.replace(true, false, 1)
    with pytest.raises(TextContradicted) as caught:
        ensure_true(model, planted, f"{kind}.{lang}.md")
    msg = str(caught.value)
    line = next(i for i, ln in enumerate(planted.splitlines(), 1) if false.split("，")[0] in ln)
    assert msg.startswith(f"{kind}.{lang}.md:{line}: the text says ")
    assert "the run's records say" in msg and "\n" not in msg


def test_a_docs_change_said_as_none_is_caught(fx: Fixture) -> None:
    """The seen bug: after --docs-add, 【资料变更】 said 不涉及 and the 资料更新 box was not ticked."""
    model = _one(fx, "pass", docs="added")
    text = render(model, "pr", "zh")
    assert "- [x] 资料更新" in text and "涉及：本次运行为 2.12.0 补齐了条目" in text
    for true, false in (
        ("- [x] 资料更新", "- [ ] 资料更新"),
        (text.split("涉及：本次运行为", 1)[1].split("\n", 1)[0], None),
    ):
        planted = (
            text.replace(true, false, 1)
            if false
            else text.replace(
                "涉及：本次运行为" + true, "不涉及：各版本资料均已有条目，无需补充资料。", 1
            )
        )
        review = self_review(model, planted)
        assert [v.kind for v in review.contradicted] == ["outcome"], review.contradicted


def test_a_stale_entry_from_an_emulated_device_is_caught(fx: Fixture) -> None:
    model = _one(fx, "emulated", official="partial")
    text = render(model, "pr", "en")
    assert "Stale disabled entry" not in text
    planted = text + "\n- Stale disabled entry (v2.7.1@a2): delete the key `k` from `f`\n"
    (bad,) = self_review(model, planted).contradicted
    assert "emulated device only" in bad.detail


def test_a_forged_runner_output_is_caught(fx: Fixture) -> None:
    model = _one(fx, "fail")
    text = render(model, "pr", "zh")
    forged = text.replace("FAILED (failures=1)", "OK", 1)
    kinds = {v.kind for v in self_review(model, forged).contradicted}
    assert "test.result" in kinds


def test_the_report_verb_writes_nothing_and_exits_4_on_a_false_text(
    fx: Fixture, tmp_path: Path
) -> None:
    """A team template that says every target passed, over runs where one failed: exit 4, no file."""
    template = tmp_path / "comment.md.j2"
    template.write_text(
        "## {{ m.api }}\n\n全部 {{ m.targets | length }} 个验证目标通过，证据支持 `{{ m.api }}` 一致。\n"
    )
    out = tmp_path / "comment.md"
    args = ["report", *map(str, fx.runs), "--kind", "comment", "--store", str(fx.store.root)]
    assert main([*args, "--template", str(template), "--out", str(out)]) == 4
    assert not out.exists()
    # the built-in template over the same runs says what happened, and is written
    assert main([*args, "--out", str(out)]) == 0
    assert "1/3 个验证目标通过" in out.read_text() or "2/3 个验证目标通过" in out.read_text()


def test_review_holds_an_all_passed_sentence_against_the_output_it_quotes() -> None:
    from torchparity.review import parse_text

    text = (
        "## 测试结果\n\n```\ntest_a (__main__.T.test_a) ... FAIL\n\n"
        "----------------------------------------------------------------------\n"
        "Ran 1 test in 0.1s\n\nFAILED (failures=1)\n```\n\n全部 1 个验证目标通过。\n"
    )
    claims = parse_text(text)
    assert [c.subject for c in claims.outcomes] == ["all_targets"]
    from torchparity.config import Config
    from torchparity.review.checks.facts import Facts
    from torchparity.review.checks.outcomes import check_outcomes

    facts = Facts(view=None, config=Config(), claims=claims)  # type: ignore[arg-type]
    (v,) = check_outcomes(facts)
    assert v.verdict == CONTRADICTED and "line 9" in v.detail


def test_api_of_fixture_is_what_the_texts_name(fx: Fixture) -> None:
    assert API in render(_one(fx, "pass"), "comment", "en")


@pytest.mark.parametrize("state", ["fail", "emulated", "allowed", "none_ran"])
def test_the_pr_states_the_verdict_in_the_comments_words(fx: Fixture, state: str) -> None:
    """Seen on Ascend/pytorch: the PR's target heading said 通过 while the run failed (official tests,
    version mismatch, emulation), and no sentence of the PR said so; only the comment did."""
    model = _one(fx, state, official="partial")
    for lang, pr_head, comment_head in (
        ("zh", "## 本次验证结论\n", "### 结论\n"),
        ("en", "## Verdict of this verification\n", "### Conclusion\n"),
    ):
        pr = render(model, "pr", lang).split(pr_head, 1)[1].split("\n# ", 1)[0].strip()
        comment = render(model, "comment", lang).split(comment_head, 1)[1].strip()
        assert pr == comment and pr
        assert ("证据支持" in pr or "the evidence supports" in pr) is False
