"""The facts schema (agent/facts/schema*.py) and ``decode_facts``: a real answer is read as it came,
one of another shape is refused naming the key path, and every fact the agent sets is declared."""

from __future__ import annotations

import ast
import copy
import inspect
from pathlib import Path
from typing import Any, get_type_hints

import pytest

from torchparity.agent.facts import gather
from torchparity.agent.facts.schema import Facts
from torchparity.config import load_preset
from torchparity.errors import EnvironmentBroken, ExitCode
from torchparity.scaffold import scaffold_test
from torchparity.scaffold.facts import FactsUnreadable, decode_facts, decode_run
from torchparity.scaffold.families import REGISTRY, build_plan

from .scaffold_fixtures import api_info, resolution

#: an answer as the agent gives it for torch.random.seed (CPU, torch 2.13), with its candidates checked:
#: the signature family's test failed as written, the measured family's passed and caught the stand-in
SEED: dict[str, Any] = {
    "callable": True,
    "calls": {
        "invalid": [],
        "params": [],
        "problem": "",
        "states": [],
        "valid": [
            {
                "args": "",
                "literal": "6782420980268657118",
                "states": [],
                "tensor": False,
                "type": "int",
                "varies": "",
            }
        ],
    },
    "classes": {"api": [], "owner": []},
    "defined_on": "",
    "device_type": "cpu",
    "doctest": {"examples": [], "kept": 0, "problem": "its docstring has no >>> example"},
    "imports": {"torch": [], "torch.random": [], "torch.random.seed": [], "torch.seed": []},
    "kinds": {"found": False, "kinds": [], "problem": "no call asks for a sparse tensor"},
    "members": [],
    "opinfo": {"error": "", "found": False},
    "probe": {
        "imports": [],
        "invalid": [],
        "problem": "",
        "tried": 3,
        "valid": [
            {
                "call": "_API_()",
                "checks": [["eq", "torch.random.initial_seed()", "result"]],
                "context": False,
                "getters": [],
                "guessed": [],
                "listify": False,
                "prelude": [],
                "raises": None,
                "receiver": "",
                "remove_handle": False,
                "setup": [],
                "statement": False,
                "teardown": [],
                "varies": "",
            }
        ],
    },
    "python_version": "3.11",
    "states": [],
    "torch_version": "2.13.0+cpu",
    "checked": {
        "signature": {
            "clean": {
                "error": "",
                "outcomes": {
                    "test_seed": {"message": "AssertionError: not equal", "status": "fail"}
                },
                "standin": None,
            },
            "broken": {
                "error": "",
                "outcomes": {
                    "test_seed": {"message": "AssertionError: sentinel", "status": "fail"}
                },
                "standin": {"problem": "", "replaced": ["torch.random.seed", "torch.seed"]},
            },
            "on": "the CPU",
        },
        "measured": {
            "clean": {"error": "", "outcomes": {"test_seed": {"status": "pass"}}, "standin": None},
            "broken": {
                "error": "",
                "outcomes": {
                    "test_seed": {"message": "AssertionError: sentinel", "status": "fail"}
                },
                "standin": {"problem": "", "replaced": ["torch.random.seed", "torch.seed"]},
            },
            "on": "the CPU",
        },
    },
}

_TENSOR = {"tensor": [0.5, -1.0], "shape": [2], "dtype": "float32", "stride": [1]}

#: one answer per kind whose structure nests (values as the gatherers make them)
KINDS: dict[str, dict[str, Any]] = {
    "states": {
        "states": [{"name": "grad_mode", "available": True, "why": "", "values": [False, True]}]
    },
    "context": {
        "context": {
            "states": [
                {"name": "grad_mode", "available": True, "why": "", "values": [False, True]}
            ],
            "member": None,
            "runs": [
                {
                    "args": [False],
                    "outer": {"grad_mode": True},
                    "before": {"grad_mode": True},
                    "after_construct": {"grad_mode": True},
                    "inside": {"grad_mode": False},
                    "after_exit": {"grad_mode": True},
                    "identity": {"is_not": True, "same_type": True, "attrs": {"mode": True}},
                }
            ],
            "decorator_runs": [{"args": [False], "before": {"grad_mode": 1}, "inside": {"x": "a"}}],
            "decorator": True,
            "params": ["mode"],
            "mode_param": "mode",
            "mode_attrs": ["mode"],
            "problem": "",
        }
    },
    "opinfo": {
        "opinfo": {
            "found": True,
            "name": "abs",
            "variant_test_name": "",
            "matches": ["abs"],
            "error_inputs": {"count": 0, "problem": ""},
            "call": "function",
            "wrapper_args": "",
            "has_ref": True,
            "reference": "numpy",
            "cpu_reference": False,
            "cpu_dtypes": [],
            "supported": ["float32"],
            "dtypes": ["float32"],
            "excluded": [{"dtype": "bool", "reason": "the OpInfo does not list it"}],
            "samples": {"float32": 12},
            "tolerances": {"float16": [0.001, 0.001], "bfloat16": [0.016, 0.01]},
        }
    },
    "recorded": {
        "recorded": {
            "found": True,
            "own": False,
            "recorded": "aten::add.Tensor",
            "args": [
                {k: v for k, v in _TENSOR.items() if k != "stride"},
                {"list": [{"value": 2}, {"torch": "float32"}], "tuple": True},
            ],
            "kwargs": {"alpha": {"value": 1.5}, "device": {"device": "cpu"}},
            "result": {
                "sparse": {
                    "indices": {
                        "tensor": [0, 1],
                        "shape": [1, 2],
                        "dtype": "int64",
                        "stride": [2, 1],
                    },
                    "values": _TENSOR,
                    "shape": [3],
                    "coalesced": True,
                }
            },
            "cpu_args": [1],
            "changed": {"0": {"nested": [_TENSOR, {**_TENSOR, "tensor": [True, False]}]}},
            "kwchanged": {},
            "tolerance": [0.001, 0.0001],
        }
    },
    "module_db": {
        "module_db": {
            "found": True,
            "args": ["2", "3"],
            "kwargs": [["bias", "False"]],
            "inputs": [{"tuple": [{"tensor": "torch.tensor([1.0])"}], "list": True}],
            "forward_kwargs": [["need_weights", {"value": "False"}]],
            "outputs": [
                {"shape": [2, 3], "dtype": "torch.float32", "values": [0.5, 1, -2.0]},
                None,
                {"shape": [64, 64], "dtype": "torch.float32", "sum": 3.5, "abs_sum": 7.25},
            ],
            "parameters": 2,
            "rnn": "",
            "samples": 4,
        }
    },
    "overload": {
        "overload": {
            "found": True,
            "kind": "overload",
            "qualified": "aten::native_batch_norm",
            "overload": None,
            "name": "native_batch_norm",
            "schemas": ["aten::native_batch_norm(Tensor input) -> Tensor"],
            "norm": {
                "found": True,
                "arguments": ["input", "weight"],
                "flag": "training",
                "modes": [True, False],
                "returns": 3,
                "updates_running": True,
                "mutates": [],
            },
            "opinfo": {"found": False, "problem": "no OpInfo", "order": None},
        }
    },
    "switch": {
        "switch": {
            "found": True,
            "kind": "keyed",
            "key": "cpu",
            "getter": "torch.get_autocast_dtype",
            "setter": "torch.set_autocast_dtype",
            "saved": "torch.bfloat16",
            "accepted": ["torch.float16", "torch.bfloat16"],
        }
    },
    "pair": {
        "pair": {
            "found": True,
            "kind": "nesting",
            "up": "torch._C._enter",
            "down": "torch._C._exit",
            "args": "",
            "token": False,
            "readers": [["torch._C._depth()", "1", "0"]],
            "relation": [0, 1, 0, -1],
            "switch": {"found": True, "kind": "bool", "saved": True, "accepted": [True, False]},
        }
    },
    "jitgraph": {
        "jitgraph": {
            "found": True,
            "leaf": "_jit_pass_dce",
            "lines": ["g = torch.jit.script(f).graph", ["=", "len(list(g.nodes()))", "3", ""]],
            "restore": [],
        }
    },
    "kinds": {
        "kinds": {
            "found": True,
            "kinds": ["sparse_coo"],
            "scenarios": [
                {
                    "setup": ["x = torch.eye(2).to_sparse().to(DEVICE)"],
                    "call": "_API_(x)",
                    "checks": [["eq", "result.layout", "torch.sparse_coo"]],
                    "hand": {"x": ["[[1.0, 0.0], [0.0, 1.0]]", "sparse_coo"]},
                    "guessed": [],
                    "raises": ["_API_(y)", "RuntimeError"],
                    "counterpart": "torch.add(x.to_dense(), 1)",
                    "kind": "sparse_coo",
                }
            ],
        }
    },
    "runtime": {
        "runtime": {
            "callable": True,
            "is_class": True,
            "problem": "",
            "module": "torch.cuda",
            "leaf": "Event",
            "spelled": "torch.npu.Event",
            "module_members": ["Event"],
            "home": "torch.npu",
            "construct": "device",
            "methods": {
                "query": {"ok": True, "literal": "True"},
                "record": {"ok": False, "error": "x"},
            },
            "timing": True,
            "device": "npu:0",
        }
    },
    "storage": {
        "storage": {"untyped": True, "problem": "", "size": 4, "values": [7, 7, 7, 7], "nbytes": 4}
    },
    # a gatherer that raised answers its kind as only this record (``gather._guard``)
    "measurement failed": {
        "pinned_memory": {
            "problem": "measuring the pinned memory facts failed: RuntimeError: x",
            "found": False,
        },
        "calls": {"problem": "measuring the call facts failed: RuntimeError: x", "found": False},
    },
    "lookup failed": {
        "problem": "looking up torch.nope failed: torch has no 'nope'",
        "opinfo": {"problem": "looking up torch.nope failed", "found": False},
        "data": {"problem": "looking up torch.nope failed", "found": False},
        "states": [],
    },
}


def _lists(value: Any) -> Any:
    """``value`` with tuples as lists (a [name, spec] pair decodes as a tuple)."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def test_a_real_answer_decodes_as_it_came() -> None:
    decoded = decode_facts(copy.deepcopy(SEED))
    assert decoded == SEED
    assert list(decoded) == list(SEED)  # the keys in their order too


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_decodes_as_it_came(kind: str) -> None:
    doc = KINDS[kind]
    decoded = decode_facts(copy.deepcopy(doc))
    assert _lists(decoded) == doc
    assert type(_lists(decoded)) is dict


def test_the_family_plans_from_the_decoded_facts_what_it_planned_from_the_answer() -> None:
    info = api_info(resolution("torch.random.seed", "function", aliases=("torch.seed",)))
    raw = build_plan(info, copy.deepcopy(SEED), "DEVICE")  # type: ignore[arg-type]
    decoded = build_plan(info, decode_facts(copy.deepcopy(SEED)), "DEVICE")
    assert decoded.family == raw.family == "measured"
    assert decoded.methods == raw.methods and decoded.notes == raw.notes


def test_scaffold_test_reads_given_facts_as_the_agents(tmp_path: Path) -> None:
    info = api_info(resolution("torch.random.seed", "function", aliases=("torch.seed",)))
    kept = {**copy.deepcopy(SEED), "not_a_fact": {"x": 1}}  # a key no family reads: dropped
    result = scaffold_test(
        info, load_preset("default"), python="python", out_dir=tmp_path, facts=kept, write=False
    )
    assert result.family == "measured" and "_API_" not in result.content
    assert result.torch_version == "2.13.0+cpu"


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"opinfo": {"found": True, "samples": {"float32": "12"}}}, "$.opinfo.samples[...]"),
        ({"probe": {"valid": [{"call": "_API_()", "checks": "eq"}]}}, "$.probe.valid[0].checks"),
        ({"calls": {"valid": [{"args": "", "literal": None}]}}, "$.calls.valid[0].literal"),
        ({"states": {}}, "$.states"),
        ({"recorded": {"args": [{"list": [{"value": [1]}]}]}}, "$.recorded.args[0].list[0].value"),
        ({"checked": {"opinfo": {"clean": {"outcomes": []}}}}, "$.checked[...].clean.outcomes"),
    ],
)
def test_an_answer_of_another_shape_is_refused_naming_the_key_path(
    doc: dict[str, Any], path: str
) -> None:
    with pytest.raises(FactsUnreadable) as caught:
        decode_facts(doc, "the agent's facts for torch.x")
    message = str(caught.value)
    assert f"at `{path}`" in message and message.startswith("the agent's facts for torch.x")
    assert "\n" not in message
    assert isinstance(caught.value, EnvironmentBroken)
    assert caught.value.exit_code == ExitCode.ENVIRONMENT_ERROR


def test_scaffold_test_refuses_given_facts_of_another_shape(tmp_path: Path) -> None:
    info = api_info(resolution("torch.random.seed", "function"))
    with pytest.raises(FactsUnreadable, match=r"\$\.torch_version"):
        scaffold_test(
            info,
            load_preset("default"),
            python="python",
            out_dir=tmp_path,
            facts={"torch_version": 2.13},
            write=False,
        )


def test_a_check_run_is_decoded_and_one_of_another_shape_refused() -> None:
    run = SEED["checked"]["measured"]["broken"]
    assert decode_run(copy.deepcopy(run)) == run and decode_run(None) is None
    with pytest.raises(FactsUnreadable, match=r"\$\.standin\.replaced"):
        decode_run({"outcomes": {}, "standin": {"replaced": "torch.x"}, "error": ""})


def _set_keys(function: Any) -> set[str]:
    """The keys ``out["key"] = ...`` sets in ``function``'s source."""
    tree = ast.parse(inspect.getsource(function).lstrip())
    return {
        target.slice.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == "out"
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    }


def test_every_fact_the_agent_sets_and_every_family_wants_is_declared() -> None:
    declared = set(get_type_hints(Facts))
    set_here = (
        _set_keys(gather._facts_for)
        | _set_keys(gather._not_found)
        | {row.key for row in gather.FACTS.values()}
    )
    assert {"opinfo", "calls", "pinned_memory", "module_db", "problem", "imports"} <= set_here
    assert set_here - declared == set()
    wanted = {w for family in REGISTRY.families for w in family.wants}
    assert wanted - declared == set()
    assert "checked" in declared  # added by scaffold/check.py


def test_a_check_run_of_another_shape_keeps_its_family_out_and_says_why() -> None:
    from torchparity.scaffold.check import _attach

    info = api_info(resolution("torch.random.seed", "function"))
    good = SEED["checked"]["measured"]
    assert build_plan(info, decode_facts(copy.deepcopy(SEED)), "DEVICE").family == "measured"
    facts = decode_facts(copy.deepcopy(SEED))
    odd = {"outcomes": {}, "standin": {"replaced": "torch.x"}, "error": ""}
    _attach(facts, [{"key": "measured", "clean": good["clean"], "broken": odd}])
    clean = facts["checked"]["measured"]["clean"]
    assert clean is not None and "$.standin.replaced" in clean.get("error", "")
    assert build_plan(info, facts, "DEVICE").family != "measured"
