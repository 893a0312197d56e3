"""Golden files: pr and comment in both languages (full record set and a bare one), summary, JUnit, JSON.

Regenerate after an intended change with ``TORCHPARITY_UPDATE_GOLDENS=1`` and
read the diff before committing it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.report.report_fixtures import Fixture, model_of
from torchparity.report import render

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("TORCHPARITY_UPDATE_GOLDENS") == "1"


TITLE = "test: add clone coverage for set_grad_enabled"


def _mask(text: str, fx: Fixture) -> str:
    text = text.replace(str(fx.root), "<tmp>")
    return re.sub(r'("(?:created|finished)": )[0-9.]+', r"\1<time>", text)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(
                f"golden file {path} is missing; run with TORCHPARITY_UPDATE_GOLDENS=1 to write it"
            )
        path.write_text(text, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"{name} differs from its golden file (TORCHPARITY_UPDATE_GOLDENS=1 rewrites it)"
    )


@pytest.mark.parametrize("kind", ["pr", "comment"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_full_record_set(fixture_full: Fixture, kind: str, lang: str) -> None:
    model = model_of(fixture_full, change=True, title=TITLE)
    text = render(model, kind, lang)
    assert str(fixture_full.root) not in text  # nothing volatile leaks into the text
    check_golden(f"{kind}_{lang}_full.md", text)


@pytest.mark.parametrize("kind", ["pr", "comment"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bare_runs_say_not_collected(fixture_bare: Fixture, kind: str, lang: str) -> None:
    model = model_of(fixture_bare)
    text = render(model, kind, lang)
    assert ("未采集" if lang == "zh" else "Not collected") in text
    check_golden(f"{kind}_{lang}_bare.md", text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_markdown_summary(fixture_full: Fixture, lang: str) -> None:
    model = model_of(fixture_full)
    check_golden(f"summary_{lang}.md", render(model, "markdown-summary", lang))


def test_junit(fixture_full: Fixture) -> None:
    model = model_of(fixture_full)
    check_golden("junit.xml", render(model, "junit"))


def test_json_model(fixture_full: Fixture) -> None:
    model = model_of(fixture_full, change=True, title=TITLE)
    text = render(model, "json")
    assert json.loads(text) == json.loads(json.dumps(model.to_json()))
    check_golden("model.json", _mask(text, fixture_full))
