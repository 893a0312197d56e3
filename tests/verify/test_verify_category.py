"""An API's category is one fact: every place verify states it (the stage lines, the summary, the
comment, report.json) words the same category from one table, ``phrases.CATEGORY_WORDS``.

Resolve classifies from its call sample's dispatch trace; without one, verify classifies again from
the dispatch trace of the API's tests. The resolve line then says that no trace decided it yet, and
a classify line states the category the texts state.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.verify.test_verify_e2e import GENERATOR_TEST
from torchparity.api import CATEGORIES
from torchparity.cli import main
from torchparity.phrases import CATEGORY_WORDS, category_words

# the run answers the agent from a recording of the real one (the `agent` fixture, tests/fakeagent.py)


def test_every_category_has_its_words_in_both_languages() -> None:
    assert set(CATEGORY_WORDS) == set(CATEGORIES)
    for category in CATEGORIES:
        en, zh = CATEGORY_WORDS[category]
        assert (category_words(category), category_words(category, "zh")) == (en, zh)
        assert not re.search(r"[\u4e00-\u9fff]", en) and re.search(r"[\u4e00-\u9fff]", zh)


def test_verify_states_one_category_everywhere(
    agent: object, tmp_path: Path, make_repo, capsys: pytest.CaptureFixture[str]
) -> None:
    """torch.Generator.seed: its call sample gives no trace (a C binding, untraced: operator); the
    trace of its test dispatches nothing (c-binding). No line says operator as if it were decided."""
    repo = make_repo({"master": {"test/test_gen.py": GENERATOR_TEST}})
    out = tmp_path / "out"
    rc = main(
        [
            *("verify", "torch.Generator.seed", "--repo", str(repo)),
            *("--python", sys.executable, "--store", str(tmp_path / "store"), "--out", str(out)),
        ]
    )
    said = capsys.readouterr()
    assert rc == 0, said.out + said.err
    category = json.loads((out / "report.json").read_text())["classification"]["category"]
    en, zh = CATEGORY_WORDS[category]
    terminal = said.out + said.err
    stated = [ln for ln in terminal.splitlines() if "(method, " in ln]
    assert len(stated) == 3, terminal  # resolve, classify, the summary
    for line in stated:
        # a category stated before the tests' trace decided it says so; every other is the texts'
        assert f"(method, {en})" in line or "; no dispatch trace yet)" in line, line
    assert f"classify: torch._C.Generator.seed (method, {en})" in terminal
    assert f"(method, {en})" in said.out  # the summary
    assert f"- 类别：{zh}" in (out / "comment.zh.md").read_text()
