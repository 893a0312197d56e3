"""``agent/api/surface.py``: the public surface of a package by PyTorch's rules, on a package written here.

The rules are those ``plan`` counts torch's API by (issue 38): public modules walked (no private one
entered), ``__all__`` or, without it, the package's own callables and classes; public members of
public classes; one entry per object, named as resolve names it. The package is plain Python, so
these run in the fast tier; tests/plan/test_plan_real.py runs the job on torch itself.
"""

from __future__ import annotations

from typing import Any

from tests.plan.fakepkg import package_fixture  # noqa: F401 - the fixture `package`
from torchparity.agent.api.surface import op_surface, surface


def _by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in entries}


def test_the_public_names_of_public_modules_one_entry_per_object(package: str) -> None:
    entries, modules, failed, _, _ = surface([package])
    got = _by_name(entries)
    assert modules == ["tpfake", "tpfake.nn", "tpfake.ops"]  # no private module, nor one that fails
    assert [m for m, _ in failed] == ["tpfake.broken"] and "cannot be imported" in failed[0][1]
    # __all__, less its private names; the same function under two names is one entry
    assert got["tpfake.add"]["canonical"] == "tpfake.ops.add"
    assert got["tpfake.add"]["spellings"] == ["tpfake.ops.add"]
    helper = got["tpfake.public_helper"]
    assert helper["canonical"] == "tpfake._impl.helper"  # resolve's canonical name: where it lives
    assert helper["spellings"] == ["tpfake.ops.helper"] and helper["kind"] == "function"
    assert got["tpfake.CONSTANT"]["kind"] == "attribute"
    # without __all__: the package's own callables and classes, not what it imports from elsewhere
    assert "tpfake.ops.Color" in got and "tpfake.ops.Optional" not in got
    assert not any(n.endswith(("_sub", "_hidden", "public_name")) for n in got)


def test_the_public_members_of_public_classes(package: str) -> None:
    got = _by_name(surface([package])[0])
    assert got["tpfake.Base.shared"]["kind"] == "method"
    assert got["tpfake.Base.kind"]["kind"] == "attribute"
    assert got["tpfake.Base.shared"]["module"] == "tpfake" and got["tpfake.Base.shared"][
        "owner"
    ] == ("tpfake.Base")
    assert got["tpfake.nn.Leaf.shared"]["canonical"] == "tpfake.nn.Leaf.shared"  # its own override
    assert "tpfake.nn.Leaf.kind" not in got  # inherited from a public base: the base's
    # defined by a private base: held by the public classes, one entry for the one object
    inherited = got["tpfake.nn.Child1.inherited"]
    assert inherited["also"] == ["tpfake.nn.Child2.inherited"] and inherited["spellings"] == []
    assert "tpfake.nn.Child2.inherited" not in got
    assert got["tpfake.nn.Child1.own"]["owner"] == "tpfake.nn.Child1"
    # no dunder, no private member, no enum member, nothing enum.Enum gives every enum
    assert not [n for n in got if n.startswith("tpfake.ops.Color.")]
    assert not [n for n in got if n.rsplit(".", 1)[-1].startswith("_")]


def test_a_pages_names_reach_the_entry_of_their_object(package: str) -> None:
    class Ctx:
        class torch:  # noqa: N801 - stands for the module the job reports the version of
            __version__ = "0.0.0"

    names = [
        "tpfake.nn.Child2.inherited",
        "tpfake.nn.Leaf.kind",
        "tpfake._impl.helper",
        "tpfake.ops.add",
        "tpfake.ops._sub",
        "tpfake.nothing",
    ]
    answer = op_surface(Ctx, {"roots": [package], "names": names})
    assert answer["names"] == {
        "tpfake.nn.Child2.inherited": "tpfake.nn.Child1.inherited",
        "tpfake.nn.Leaf.kind": "tpfake.Base.kind",
        "tpfake._impl.helper": "tpfake.public_helper",
        "tpfake.ops.add": "tpfake.add",
        "tpfake.ops._sub": "",  # an object that is no public API
        "tpfake.nothing": None,  # nothing here
    }
    assert answer["exit_code"] == 0 and answer["torch_version"] == "0.0.0"
    assert [e["name"] for e in answer["entries"]] == sorted(e["name"] for e in answer["entries"])
