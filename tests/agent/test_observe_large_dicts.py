"""The probe's observation of a dict larger than the keys it lists compares only those first keys."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_a_large_dict_is_checked_by_its_first_keys_and_every_check_holds():
    torch = pytest.importorskip("torch")
    from torchparity.agent.observe import observe

    value = {f"k{i:02d}": i for i in range(25)}
    checks = observe(torch, value, "result")
    assert ["eq", "len(result)", "25"] in checks
    keys = [c for c in checks if c[1].startswith("list(result)")]
    assert keys == [["eq", "list(result)[:10]", repr([f"k{i:02d}" for i in range(10)])]]
    for kind, expr, payload in checks:  # what a generated test would assert, evaluated on the value itself
        if kind == "eq":
            assert eval(expr, {"result": value}) == eval(payload), expr
    small = observe(torch, {"a": 1, "b": 2}, "result")
    assert ["eq", "list(result)", "['a', 'b']"] in small
