"""The agent's scaffold facts, in-process with the real torch (no interpreter started)."""

from __future__ import annotations

import pytest

from tests.lazy import torch  # noqa: E402  (imported on first use: fast tests here need none)
from torchparity.agent.api import resolve as agent_resolve  # noqa: E402
from torchparity.agent.facts import gather as sf  # noqa: E402


class Ctx:
    torch = torch
    device_type = "cpu"
    backend_module = ""


def facts(name: str, wants: list[str], **kw):
    return sf.facts_for(
        Ctx(), agent_resolve.resolve(name), wants, kw.get("dtypes"), kw.get("formula", "")
    )


_LITERALS = [
    ("None", "None"),
    ("True", "True"),
    ("3", "3"),
    ("1.5", "1.5"),
    ('float("nan")', 'float("nan")'),
    ('-float("inf")', '-float("inf")'),
    ("'cpu'", "'cpu'"),
    ("torch.float16", "torch.float16"),
    ("torch.Size([2, 3])", "torch.Size([2, 3])"),
    ('torch.device("cpu")', 'torch.device("cpu")'),
    ("(1,)", "(1,)"),
    ("[1, (2, 3)]", "[1, (2, 3)]"),
    ("torch.tensor([1.0, 2.5])", "torch.tensor([1.0, 2.5], dtype=torch.float32)"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("made_by", "source"), _LITERALS)
def test_literal_round_trips(made_by, source):
    value = eval(made_by, {"torch": torch})
    assert sf.literal(value, torch) == source
    again = eval(source, {"torch": torch})
    if isinstance(value, torch.Tensor):
        assert torch.equal(again, value)
    elif value == value:  # nan aside
        assert again == value


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [
        lambda: object(),
        lambda: torch.ones(100),
        lambda: torch.return_types.max((torch.ones(1), torch.ones(1))),
    ],
    ids=["object", "big-tensor", "return-type"],
)
def test_values_a_test_cannot_hold_literally(make):
    value = make()
    with pytest.raises(sf._NotLiteral):
        sf.literal(value, torch)


@pytest.mark.slow
def test_signatures_and_documented_types():
    assert sf._strip_sig("(type1, type2) -> dtype") == "type1, type2"
    assert sf._strip_sig("(input, *, out=None) -> Tensor") == "input, *, out=None"
    types = sf._doc_types(torch.can_cast.__doc__)
    assert types == {"from_": "dtype", "to": "dtype"}
    assert sf._pools_for("torch.device or int, optional") == ["int", "none", "device"]


@pytest.mark.slow
def test_context_facts_measure_every_start_value():
    ctx = facts("torch.set_grad_enabled.clone", ["context"])["context"]
    assert ctx["problem"] == "" and ctx["member"] == "clone" and ctx["mode_attrs"] == ["mode"]
    assert len(ctx["runs"]) == 4 and len(ctx["decorator_runs"]) == 4
    for run in ctx["runs"]:
        mode = run["args"][0]
        assert run["identity"] == {"is_not": True, "same_type": True, "attrs": {"mode": True}}
        assert run["inside"]["grad_mode"] is mode
    assert torch.is_grad_enabled()  # measuring left the state as it was


@pytest.mark.slow
def test_opinfo_facts_exclude_what_has_no_independent_reference():
    op = facts("torch.mul", ["opinfo"])["opinfo"]
    assert (
        op["found"]
        and op["reference"] == "float64"
        and op["dtypes"] == ["float32", "float16", "bfloat16"]
    )
    assert {e["dtype"] for e in op["excluded"]} == {"int64", "bool"}
    relu = facts("torch.nn.functional.relu", ["opinfo"], dtypes=["float16", "complex64", "nosuch"])[
        "opinfo"
    ]
    assert relu["reference"] == "numpy" and relu["dtypes"] == ["float16"]
    reasons = {e["dtype"]: e["reason"] for e in relu["excluded"]}
    assert reasons == {
        "complex64": "the OpInfo does not list it for cpu",
        "nosuch": "this torch has no torch.nosuch",
    }


@pytest.mark.slow
def test_call_facts_valid_and_invalid_and_restored_state():
    before = torch.get_default_dtype()
    calls = facts("torch.set_default_dtype", ["calls", "states"])["calls"]
    assert torch.get_default_dtype() == before
    assert any(c["states"] == [["default_dtype", "torch.float16"]] for c in calls["valid"])
    assert [c["raises"] for c in calls["invalid"]] == ["TypeError"]


@pytest.mark.slow
def test_calls_run_in_a_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sf.facts_for(Ctx(), agent_resolve.resolve("torch.save"), ["calls"])
    assert list(tmp_path.iterdir()) == []  # torch.save(0, "cpu") wrote into the scratch folder


@pytest.mark.slow
def test_a_failing_measurement_is_a_reason_not_a_crash(monkeypatch):
    def boom(*args):
        raise RuntimeError("measurement broke")

    monkeypatch.setattr(sf, "storage_facts", boom)
    out = facts("torch.BoolStorage", ["storage"])
    assert (
        out["storage"]["problem"]
        == "measuring the storage facts failed: RuntimeError: measurement broke"
    )


@pytest.mark.slow
def test_an_api_that_cannot_be_looked_up_fails_only_its_own_item():
    good = agent_resolve.resolve("torch.BoolStorage")
    gone = dict(good, path="torch.NoSuchStorage", canonical="torch.NoSuchStorage")
    out = sf.op_scaffold_facts(
        Ctx(),
        {
            "items": [
                {"resolution": gone, "wants": ["storage", "states"]},
                {"resolution": good, "wants": ["storage"]},
            ]
        },
    )
    bad, ok = out["items"]
    assert bad["problem"] == "looking up torch.NoSuchStorage failed: torch has no 'NoSuchStorage'"
    assert bad["storage"] == {"problem": bad["problem"], "found": False} and bad["states"] == []
    assert ok["storage"]["problem"] == "" and ok["storage"]["size"] == 3


@pytest.mark.slow
def test_a_global_state_an_apis_facts_leave_changed_is_restored():
    """``get_default_dtype``'s docstring example sets float64: every API measured after it in a batch
    got float64 tensors (the batch-norm facts failed with "mixed dtype")."""
    assert torch.get_default_dtype() == torch.float32
    out = facts("torch.get_default_dtype", ["doctest"])
    assert any(
        "set_default_dtype(torch.float64)" in e["source"] for e in out["doctest"]["examples"]
    )
    assert torch.get_default_dtype() == torch.float32
    assert torch.is_grad_enabled()


@pytest.mark.slow
def test_modes_an_api_enters_for_good_are_left_after_its_facts(capfd):
    # enable_cuda_sanitizer enters a dispatch mode it never leaves; every later CPU call in the
    # agent would then ask for CUDA (a batch's later operators measured no dtype at all)
    import torch.cuda._sanitizer  # noqa: F401

    before = (torch._C._len_torch_dispatch_stack(), torch._C._len_torch_function_stack())
    facts("torch.cuda._sanitizer.enable_cuda_sanitizer", ["runtime"])
    assert "left CUDASanitizerDispatchMode changed" in capfd.readouterr().err
    # left by its __exit__, which also resets the flag its __enter__ set
    assert not torch.utils._python_dispatch.is_in_torch_dispatch_mode()

    class Entered(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    orig = sf._facts_for
    try:
        sf._facts_for = lambda *a: (orig(*a), Entered().__enter__())[0]
        facts("torch.Tensor.sqrt_", ["tensor"])
    finally:
        sf._facts_for = orig
    assert "left Entered changed" in capfd.readouterr().err
    assert (torch._C._len_torch_dispatch_stack(), torch._C._len_torch_function_stack()) == before
    assert torch.ones(2).sqrt_().tolist() == [1.0, 1.0]
