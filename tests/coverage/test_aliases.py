"""The alias table: canonical names, classes and owners of members; resolve's answers plug in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from torchparity.coverage.aliases import (
    AliasTable,
    MappingSource,
    Normalizer,
    StaticSource,
    static_table,
    table_for,
)


def _names(
    chain: str, kind: str = "c", table: AliasTable | None = None
) -> list[tuple[str, str, str]]:
    n = Normalizer(table or static_table())
    return [(e.name, e.role, e.inherited_via) for e in n.emissions(chain, kind)]


def test_a_call_of_a_class_gives_an_instance_whose_members_are_the_class_members() -> None:
    assert _names("torch.set_grad_enabled().clone()") == [
        ("torch.autograd.grad_mode.set_grad_enabled", "c", ""),
        ("torch.autograd.grad_mode.set_grad_enabled.clone", "c", ""),
    ]


def test_a_call_of_a_function_with_no_known_result_ends_the_chain() -> None:
    assert _names("torch.is_grad_enabled().clone()") == [("torch.is_grad_enabled", "c", "")]


def test_known_return_types_and_self_returning_methods_continue_the_chain() -> None:
    assert _names("torch.randn().add_()")[-1] == ("torch.Tensor.add_", "c", "")
    assert _names("torch.nn.Linear().to().forward()")[-1] == (
        "torch.nn.modules.linear.Linear.forward",
        "c",
        "",
    )


def test_inherited_members_count_for_the_class_that_defines_them() -> None:
    assert _names("torch.optim.SGD().zero_grad()")[1:] == [
        ("torch.optim.sgd.SGD.zero_grad", "c", ""),
        ("torch.optim.optimizer.Optimizer.zero_grad", "c", "torch.optim.sgd.SGD"),
    ]
    # SGD defines step itself: nothing is inherited
    assert _names("torch.optim.SGD().step()")[1:] == [("torch.optim.sgd.SGD.step", "c", "")]
    # no_grad inherits clone from the decorator base class
    assert _names("torch.no_grad().clone()")[-1] == (
        "torch.utils._contextlib._DecoratorContextManager.clone",
        "c",
        "torch.autograd.grad_mode.no_grad",
    )


def test_roles_of_the_last_name_follow_the_context() -> None:
    assert _names("torch.no_grad", "d") == [("torch.autograd.grad_mode.no_grad", "d", "")]
    assert _names("torch.set_grad_enabled()", "w") == [
        ("torch.autograd.grad_mode.set_grad_enabled", "w", "")
    ]
    assert _names("torch.autograd.grad_mode.set_grad_enabled", "a") == [
        ("torch.autograd.grad_mode.set_grad_enabled", "a", "")
    ]
    # module paths on the way are not names a test uses
    assert _names("torch.nn.functional.relu()") == [("torch.nn.functional.relu", "c", "")]


def test_canonical_names_and_what_the_table_knows() -> None:
    t = static_table()
    assert t.canonical("torch.set_grad_enabled.clone") == (
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        True,
    )
    assert t.canonical("torch.optim.Optimizer.zero_grad") == (
        "torch.optim.optimizer.Optimizer.zero_grad",
        True,
    )
    assert t.canonical("torch.add") == ("torch.add", False)
    assert t.known("torch.autograd.grad_mode.set_grad_enabled.clone")
    assert t.known("torch.autograd.grad_mode.set_multithreading_enabled.clone")
    assert not t.known("torch.autograd.grad_mode.set_grad_enabled.no_such_member")
    assert not t.known("torch_npu.npu.custom_op")
    assert t.known("torch.nn.functional.relu") and t.known("torch.Tensor.add_")
    assert not t.known("torch.Tensor.no_such_method")
    assert t.is_class("torch.optim.sgd.SGD") and not t.is_class("torch.randn")


def test_resolve_answers_win_over_the_static_table() -> None:
    over = AliasTable.from_mappings(
        {"torch.set_grad_enabled": "somewhere.else.set_grad_enabled"},
        {"somewhere.else.set_grad_enabled": ["torch.utils._contextlib._DecoratorContextManager"]},
        {"torch.is_grad_enabled": False, "mylib.Thing": True},
        defines={"somewhere.else.set_grad_enabled": ["__init__"]},
    )
    t = table_for(over)
    assert t.source == "static+resolve"
    assert t.canonical("torch.set_grad_enabled.clone")[0] == "somewhere.else.set_grad_enabled.clone"
    assert t.is_class("mylib.Thing") and not t.is_class("torch.is_grad_enabled")
    # the class does not define clone: it is inherited from the base the static table knows
    assert _names("torch.set_grad_enabled().clone()", table=t)[-1] == (
        "torch.utils._contextlib._DecoratorContextManager.clone",
        "c",
        "somewhere.else.set_grad_enabled",
    )
    # members unknown: the class the test used is taken to define it
    bare = table_for(AliasTable.from_mappings({}, {"mylib.Thing": ["mylib.Base"]}))
    assert _names("mylib.Thing().run()", table=bare) == [
        ("mylib.Thing", "c", ""),
        ("mylib.Thing.run", "c", ""),
    ]
    # a plain mapping and a MappingSource are the same thing
    assert table_for({"a.B": "a.b.B"}).aliases["a.B"] == "a.b.B"
    assert table_for(MappingSource({"a.B": "a.b.B"})).aliases["a.B"] == "a.b.B"
    assert table_for(StaticSource()) is static_table()
    assert table_for(None) is static_table()


_CHECK = r"""
import importlib, json, sys
import torch

def obj(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            o = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            o = getattr(o, p)
        return o
    raise ImportError(name)

table = json.load(sys.stdin)
bad = []
for spelled, canonical in table["aliases"].items():
    if obj(spelled) is not obj(canonical):
        bad.append(f"alias {spelled} -> {canonical}")
for cls, info in table["classes"].items():
    c = obj(cls)
    if not isinstance(c, type):
        bad.append(f"{cls} is not a class")
        continue
    for b in info["bases"]:
        if not issubclass(c, obj(b)):
            bad.append(f"{cls} is not a subclass of {b}")
    for m in info["defines"] or ():
        if m not in vars(c):
            bad.append(f"{cls} does not define {m}")
for name in table["functions"]:
    o = obj(name)
    if isinstance(o, type):
        bad.append(f"{name} is a class, listed as a function")
print(json.dumps(bad))
"""


@pytest.mark.slow
def test_the_static_table_says_what_the_installed_torch_says() -> None:
    """Every alias is the same object, every base a base, every member defined (real torch, subprocess)."""
    t = static_table()
    doc = {
        "aliases": dict(t.aliases),
        "classes": {
            c: {
                "bases": list(i.bases),
                "defines": sorted(i.defines) if i.defines is not None else None,
            }
            for c, i in t.classes.items()
        },
        "functions": sorted(t.functions),
    }
    proc = subprocess.run(
        [sys.executable, "-c", _CHECK],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == []
    assert t.aliases["torch.set_grad_enabled"] == "torch.autograd.grad_mode.set_grad_enabled"
    assert t.aliases["torch.optim.Optimizer"] == "torch.optim.optimizer.Optimizer"
    assert t.classes["torch.optim.sgd.SGD"].bases == ("torch.optim.optimizer.Optimizer",)
    assert {
        "torch.add",
        "torch.Tensor.add_",
        "torch.Tensor.grad",
        "torch.nn.functional.relu",
    } <= t.functions


@pytest.mark.slow
def test_the_generator_reads_the_table_in_the_agent_and_reproduces_the_shipped_one(
    tmp_path,
) -> None:
    """``tablegen --python PY`` runs the agent job there; from this torch it writes the shipped file."""
    from torchparity.coverage import tablegen

    here = Path(tablegen.__file__).parent
    shipped = (here / "static_aliases.toml").read_text("utf-8")
    shipped_types = (here / "static_types.toml").read_text("utf-8")
    out, types = tmp_path / "table.toml", tmp_path / "types.toml"
    assert (
        tablegen.main(["--python", sys.executable, "--out", str(out), "--types-out", str(types)])
        == 0
    )
    made = out.read_text("utf-8")
    version = made.splitlines()[1].split("with torch ", 1)[1].rstrip(";")
    if f"with torch {version}" not in shipped.splitlines()[1]:
        pytest.skip(f"the shipped table is from another torch than {version}")
    assert made == shipped
    assert types.read_text("utf-8") == shipped_types
    assert f'torch_version = "{version}"' in shipped_types


@pytest.mark.slow
def test_the_type_facts_come_from_torch_s_own_metadata() -> None:
    """Annotations, stubs, docstrings and native schemas, read in the agent from the real torch."""
    from torchparity.agent.api import alias_facts, type_facts

    torch = pytest.importorskip("torch")

    _, classes = alias_facts.collect_classes(torch)
    facts = type_facts.build(torch, classes, devices=True)
    r, a = facts["returns"], facts["attributes"]
    assert r["torch.randn"] == "torch.Tensor"  # the stub of torch's C functions
    assert r["torch.Tensor.untyped_storage"] == "torch.storage.UntypedStorage"  # TensorBase's stub
    assert r["torch.Tensor.storage"] == "torch.storage.TypedStorage"  # its docstring
    assert r["torch.nn.modules.module.Module.to"] == "self"  # an annotation: -> Self
    assert (
        r["torch.Tensor.max"] == "torch.Tensor|(torch.Tensor,torch.Tensor)"
    )  # overloads that differ
    assert r["torch.Tensor.split"] == "[torch.Tensor]"
    assert a["torch.Tensor.T"] == "torch.Tensor" and a["torch.Tensor.shape"] == "torch.Size"
    assert (
        facts["device_methods"]["torch.Tensor"] == "torch.Tensor"
    )  # what Tensor.<backend>() returns
    assert set(facts["sources"]) == {"annotation", "stub", "docstring", "schema"}
    # the schemas alone, for a torch whose stubs say little: every ATen op's overloads
    schemas = type_facts.schema_facts(torch)
    assert schemas["add"] == "torch.Tensor" and schemas["sort"].startswith(
        "(torch.Tensor,torch.Tensor)"
    )


@pytest.mark.slow
def test_the_environment_s_type_facts_are_cached_per_torch_version(tmp_path) -> None:
    from torchparity.coverage.environment import environment
    from torchparity.store import Store

    store = Store(tmp_path / "s")
    first = environment(["torch.Tensor.ndim"], sys.executable, "", store)
    assert first.types.returns["torch.Tensor.untyped_storage"] == "torch.storage.UntypedStorage"
    rows = store.query("SELECT key FROM coverage_type_facts")
    assert len(rows) == 1 and rows[0]["key"].startswith(first.resolutions[0].torch_version + "|")
    again = environment(["torch.Tensor.ndim"], sys.executable, "", store)
    assert again.types == first.types
    assert again.types.source.startswith("environment (torch ")


@pytest.mark.slow
def test_the_generator_itself_never_imports_torch(tmp_path, capsys) -> None:
    from torchparity.coverage import tablegen

    code = "import sys, torchparity.coverage.tablegen; print('torch' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr
    assert tablegen.main(["--python", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.startswith(
        f"ERROR: python interpreter not found: {tmp_path / 'nope'}"
    )


def _res(
    query: str,
    canonical: str,
    kind: str,
    aliases: tuple[str, ...] = (),
    owner: str | None = None,
    path: str = "",
):
    from types import SimpleNamespace

    return SimpleNamespace(
        query=query,
        path=path or query,
        canonical=canonical,
        aliases=aliases,
        kind=kind,
        owner_class=owner,
    )


def test_resolve_answers_add_only_what_the_static_table_does_not_say() -> None:
    from torchparity.coverage.environment import resolved_table

    t = resolved_table(
        [
            _res(
                "torch.set_grad_enabled.clone",
                "torch.autograd.grad_mode.set_grad_enabled.clone",
                "method",
                ("torch.set_grad_enabled.clone",),
                "torch.autograd.grad_mode.set_grad_enabled",
            ),
            _res(
                "Tensor.ndim",
                "torch.Tensor.ndim",
                "property",
                (),
                "torch.Tensor",
                path="torch.Tensor.ndim",
            ),
            _res(
                "torch_npu.npu.Stream.query",
                "torch_npu.npu.streams.Stream.query",
                "method",
                ("torch_npu.npu.Stream.query",),
                "torch_npu.npu.streams.Stream",
            ),
        ]
    )
    assert (
        dict(t.aliases)
        == {
            "Tensor.ndim": "torch.Tensor.ndim",  # the short query, for the API name itself; never a bare "Tensor"
            "torch_npu.npu.Stream.query": "torch_npu.npu.streams.Stream.query",
            "torch_npu.npu.Stream": "torch_npu.npu.streams.Stream",
        }
    )
    assert set(t.classes) == {"torch_npu.npu.streams.Stream"}  # the static classes keep their bases
    assert t.functions == {"torch_npu.npu.streams.Stream.query"}
    merged = table_for(t)
    assert merged.classes["torch.optim.sgd.SGD"].bases == ("torch.optim.optimizer.Optimizer",)
    assert _names("torch_npu.npu.Stream().query()", table=merged)[-1] == (
        "torch_npu.npu.streams.Stream.query",
        "c",
        "",
    )


def test_short_forms_map_when_the_table_knows_one_name() -> None:
    t = static_table()
    assert t.short_form("Tensor.ndim") == ("torch.Tensor.ndim",)
    assert t.short_form("Optimizer.zero_grad") == ("torch.optim.optimizer.Optimizer.zero_grad",)
    assert t.short_form("nn.functional.relu") == ("torch.nn.functional.relu",)
    assert t.short_form("set_grad_enabled") == ("torch.autograd.grad_mode.set_grad_enabled",)
    assert len(t.short_form("relu")) == 3
    assert t.short_form("torch.Tensor.nosuch") == t.short_form("torch_npu.npu_custom_op") == ()


def test_spellings_of_a_name_both_ways() -> None:
    table = static_table()
    canonical = "torch.autograd.grad_mode.set_grad_enabled.clone"
    from_alias = table.spellings("torch.set_grad_enabled.clone")
    assert from_alias[0] == canonical
    assert "torch.set_grad_enabled.clone" not in from_alias
    from_canonical = table.spellings(canonical)
    assert canonical not in from_canonical
    assert "torch.set_grad_enabled.clone" in from_canonical
    assert table.spellings("torch.no_such_name_xyz") == []
