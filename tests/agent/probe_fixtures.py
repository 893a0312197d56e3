"""The probe on one real torch API, in this interpreter: the helpers the ``facts_probe`` tests share.

``torch`` is imported on first use (``tests.lazy``): a module importing these collects without it.
"""

from __future__ import annotations

from tests.lazy import torch
from torchparity.agent.api.objects import walk
from torchparity.agent.api.resolve import resolve
from torchparity.agent.facts import probe as fp


def _probe(name: str) -> tuple[list[fp.Scenario], list[fp.Scenario]]:
    """The engine's valid and invalid scenarios for ``name`` (a member of a class with its class as owner)."""
    res = resolve(name)
    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return fp.Engine(torch, res, hit.obj, owner, "cpu").scenarios()


def _facts(name: str) -> dict:
    """``probe_facts`` of ``name``, as the agent gives them."""
    res = resolve(name)
    hit = walk(res["path"])
    owner = hit.parent if isinstance(hit.parent, type) else None
    return fp.probe_facts(torch, res, hit.obj, owner, "cpu", ())


def _calls(name: str) -> dict:
    """``name``'s valid scenarios by their call (there is one at least)."""
    out = _facts(name)
    assert out["valid"], out["problem"]
    return {sc["call"]: sc for sc in out["valid"]}
