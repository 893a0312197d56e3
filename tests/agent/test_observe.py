"""``agent/facts/observe.py``: what the probe's observation of a value checks, in this interpreter.

* a code object is checked by its type only (its file name is where it was measured);
* a future is observed by what it completes with, and one not done is not waited on;
* a str enum's member is held as its text, any enum member by its class and name;
* a dict larger than the keys it lists is compared on those first keys only.
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # imported on first use, not at collection

pytestmark = pytest.mark.slow


@pytest.mark.slow
def test_a_code_object_is_checked_by_its_type_only() -> None:
    from torchparity.agent.facts.observe import observe

    class Holder:
        def __init__(self) -> None:
            self.code = compile("x + 1", "<measured here>", "eval")
            self.name = "kept"

    checks = observe(torch, Holder(), "result")
    assert not any("<measured here>" in str(c) or "co_filename" in c[1] for c in checks), checks
    assert ["eq", "result.name", "'kept'"] in checks or ["eq", "result.name", '"kept"'] in checks, (
        checks
    )


@pytest.mark.slow
def test_a_future_is_observed_by_what_it_completes_with() -> None:
    from torchparity.agent.facts.observe import observe

    fut = torch.futures.Future()
    fut.set_result(torch.tensor([1.0, 2.0]))
    assert observe(torch, fut, "result")[1] == [
        "tensor",
        "result.wait()",
        "torch.tensor([1.0, 2.0], dtype=torch.float32)",
    ]


@pytest.mark.slow
def test_a_future_not_done_is_not_waited_on() -> None:
    from torchparity.agent.facts.observe import observe

    checks = observe(torch, torch.futures.Future(), "result")
    assert not [c for c in checks if "wait" in c[1]], checks


@pytest.mark.slow
def test_a_str_enum_member_is_spelled_as_its_text() -> None:
    import importlib

    from torchparity.agent.facts.literal import literal
    from torchparity.agent.facts.observe import observe

    source = importlib.import_module("torch.distributed.elastic.events.api").EventSource.AGENT
    importlib.import_module("torch.distributed.rpc")
    assert literal(source) == "'AGENT'"
    assert observe(torch, torch.distributed.rpc.BackendType.TENSORPIPE, "r") == [
        ["type", "r", "torch.distributed.rpc.backend_registry.BackendType"],
        ["eq", "r.name", "'TENSORPIPE'"],
    ]


def test_a_large_dict_is_checked_by_its_first_keys_and_every_check_holds():
    torch = pytest.importorskip("torch")
    from torchparity.agent.facts.observe import observe

    value = {f"k{i:02d}": i for i in range(25)}
    checks = observe(torch, value, "result")
    assert ["eq", "len(result)", "25"] in checks
    keys = [c for c in checks if c[1].startswith("list(result)")]
    assert keys == [["eq", "list(result)[:10]", repr([f"k{i:02d}" for i in range(10)])]]
    for (
        kind,
        expr,
        payload,
    ) in checks:  # what a generated test would assert, evaluated on the value itself
        if kind == "eq":
            assert eval(expr, {"result": value}) == eval(payload), expr
    small = observe(torch, {"a": 1, "b": 2}, "result")
    assert ["eq", "list(result)", "['a', 'b']"] in small
