"""A plan summary JSON (``--plan``): the documented shape is read, other keys ignored, bad counts refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.dashboard.conftest import PLAN
from torchparity.dashboard import plan_summary, read_plan
from torchparity.dashboard.plan import APIS
from torchparity.errors import UsageError


def test_the_documented_shape_is_read_and_other_keys_ignored() -> None:
    plan = plan_summary(PLAN, "plan.json")
    assert plan.states == (("documented", 3300), ("missing", 6500), ("unsupported", 2150))
    assert plan.total == 11950
    assert plan.modules == (
        ("torch", (("documented", 900), ("missing", 1200), ("unsupported", 400))),
        ("torch.nn", (("documented", 120), ("missing", 40))),
        ("torch.fft", ((APIS, 12),)),
    )
    assert plan.module_states == ("documented", "missing", "unsupported", APIS)


def test_a_summary_without_modules_or_states_is_empty_counts() -> None:
    plan = plan_summary({"tasks": "tasks.toml"}, "plan.json")
    assert plan.states == () and plan.modules == () and plan.total == 0


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([1, 2], "not a JSON object"),
        ({"states": [1]}, '"states" is list'),
        ({"states": {"missing": -1}}, "'missing'] = -1: a count is a whole number"),
        ({"states": {"missing": True}}, "a count is a whole number"),
        ({"states": {"missing": 1.5}}, "a count is a whole number"),
        ({"modules": []}, '"modules" is list'),
        ({"modules": {"torch": "many"}}, "'torch'] is str"),
        ({"modules": {"torch": {"states": {"x": "1"}}}}, "a count is a whole number"),
    ],
)
def test_a_bad_summary_is_bad_input_naming_the_key(doc: object, message: str) -> None:
    with pytest.raises(UsageError, match="--plan plan.json") as exc:
        plan_summary(doc, "plan.json")
    assert message in str(exc.value)


def test_a_file_that_is_not_json_is_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text("{states: 1}")
    with pytest.raises(UsageError, match=r"not JSON .* at line 1"):
        read_plan(bad)
    with pytest.raises(UsageError, match="no such file"):
        read_plan(tmp_path / "missing.json")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(PLAN))
    assert read_plan(good).total == 11950
