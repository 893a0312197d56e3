"""Ask the agent to run each family's candidate test on the CPU, as written and with the API broken.

``checked_facts`` renders every candidate plan as a file of its own (the
device variable bound to the CPU, torch's TestCase), sends them in one
``scaffold_check`` job and stores the outcomes under ``facts["checked"]``,
where ``build_plan`` reads them: a family whose test does not pass on the CPU,
or still passes when the API only returns a sentinel, is not chosen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..api.records import ApiInfo
from ..config import load_preset
from ..exec.session import AgentSession
from .conventions import conventions_from
from .families import DEVICE_ONLY, candidate_plans
from .render import render_file

#: seconds per candidate file (two runs each)
CHECK_TIMEOUT = 150.0
CPU_DEVICE_LINE = 'DEVICE = torch.device("cpu")'


def check_items(
    info: ApiInfo, facts: dict[str, Any], backend_module: str = "", key: str = ""
) -> list[dict[str, Any]]:
    """One job item per candidate family (device-only families are not checked on the CPU)."""
    conv = conventions_from(load_preset("default"))
    plans, _ = candidate_plans(info, facts, "DEVICE", backend_module)
    items = []
    for plan in plans:
        if plan.family in DEVICE_ONLY:
            continue
        source = render_file(
            plan,
            conv,
            device_line=CPU_DEVICE_LINE,
            device_type="cpu",
            torch_version=str(facts.get("torch_version", "")),
            year=2000,
        )
        resolution = dict(dataclasses.asdict(info.resolution), spelled=plan.spelling)
        items.append(
            {
                "key": f"{key}{plan.family}",
                "file": plan.file_name,
                "source": source,
                "resolution": resolution,
                "standin": True,
            }
        )
    return items


def _attach(facts: dict[str, Any], answers: list[dict[str, Any]], key: str = "") -> None:
    checked = {}
    for answer in answers:
        name = str(answer.get("key", ""))
        if key and not name.startswith(key):
            continue
        checked[name[len(key) :]] = {"clean": answer.get("clean"), "broken": answer.get("broken")}
    if checked:
        facts["checked"] = checked


def checked_facts(
    infos: Sequence[ApiInfo],
    facts: Sequence[dict[str, Any]],
    session: AgentSession,
    backend_module: str = "",
) -> None:
    """Run every candidate of every API in one job; each API's facts gain ``checked``."""
    items: list[dict[str, Any]] = []
    for n, (info, f) in enumerate(zip(infos, facts, strict=True)):
        items += check_items(info, f, backend_module, key=f"{n}:")
    if not items:
        return
    answer = session.call("scaffold_check", {"items": items}, CHECK_TIMEOUT * len(items))
    for n, f in enumerate(facts):
        _attach(f, list(answer.get("items") or []), key=f"{n}:")
