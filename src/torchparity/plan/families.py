"""The scaffold family that would take an API: resolve, the agent's facts, ``scaffold.build_plan``.

It costs an agent job per API (resolve's aliases, the facts each family needs: about a second an API
here), too slow for the whole surface: the plan asks it for its first N tasks (``--families``) and
says so for the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..api import AgentSession, ApiInfo, Resolution, classify
from ..api.resolve import RESOLVE_TIMEOUT
from ..scaffold.core import scaffold_facts_many
from ..scaffold.families import build_plan


def families_of(
    session: AgentSession, names: Sequence[str], backend_module: str = "", check: bool = False
) -> dict[str, tuple[str | None, str]]:
    """{name: (family, "") or (None, why not)} for ``names``, asked in ``session``.

    ``check``: each family's candidate test is also run by the agent (as ``scaffold`` does), and a
    family whose test does not pass falls through: the family scaffold would write, slower."""
    if not names:
        return {}
    answer = session.call("resolve", {"names": list(names), "trace": False}, RESOLVE_TIMEOUT)
    device_type = str(answer.get("device_type", ""))
    out: dict[str, tuple[str | None, str]] = {}
    infos: list[tuple[str, ApiInfo]] = []
    for name, item in zip(names, answer.get("results") or (), strict=False):
        if item.get("status") != "ok":
            out[name] = (None, f"resolve: {item.get('status', 'no answer')}")
            continue
        res = Resolution.from_json(item["resolution"])
        cls = classify(res, None, device_type, backend_module)
        infos.append((name, ApiInfo(res, cls, None, device_type, ())))
    facts = scaffold_facts_many([i for _, i in infos], session, None, backend_module, check)
    for (name, info), fact in zip(infos, facts, strict=True):
        out[name] = (build_plan(info, fact, "DEVICE", backend_module).family, "")
    for name in names:
        out.setdefault(name, (None, "resolve gave no answer"))
    return out
