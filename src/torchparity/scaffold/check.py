"""Ask the agent to run each family's candidate test, as written and with the API broken.

``checked_facts`` renders every candidate plan as a file of its own (torch's
TestCase; the device variable bound to the CPU, or to the device where the
family's expected values were measured there: ``checked_on``), sends them in
one ``scaffold_check`` job and stores the outcomes under ``facts["checked"]``,
where ``build_plan`` reads them: a family whose test does not pass, or still
passes when the API only returns a sentinel, is not chosen. For a device other
than the CPU the agent runs them in a new interpreter (``fresh``), as a test
run does: a child forked from its job could not use the device the job started.
``failing_on_device`` runs the file about to be written on the device itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..agent.facts.schema import CheckedOutcome
from ..api.records import ApiInfo
from ..config import load_preset
from ..exec.session import AgentSession
from .conventions import conventions_from, device_expression
from .facts import Facts, FactsUnreadable, decode_run
from .families import DEVICE_ONLY, candidate_plans
from .render import render_file

#: seconds per candidate file (two runs each)
CHECK_TIMEOUT = 150.0
CPU_DEVICE_LINE = 'DEVICE = torch.device("cpu")'


def on_device(facts: Facts) -> str:
    """The device the facts were measured for, "" for the CPU."""
    device = str(facts.get("device_type") or "cpu")
    return "" if device == "cpu" else device


#: family -> the fact its asserted values come from, where the agent measures them on the device
MEASURED_ON_DEVICE = {"signature": "calls"}


def checked_on(facts: Facts, family: str) -> str:
    """The device a family's candidate is checked on ("" for the CPU): the device where its expected
    values were measured there, else the CPU, so that a backend bug never makes a weaker family win."""
    fact = facts.get(MEASURED_ON_DEVICE.get(family, "")) or {}
    return on_device(facts) if isinstance(fact, dict) and fact.get("measured_on") else ""


def check_items(
    info: ApiInfo, facts: Facts, backend_module: str = "", key: str = ""
) -> list[dict[str, Any]]:
    """One job item per candidate family (device-only families are not checked)."""
    conv = conventions_from(load_preset("default"))
    plans, _ = candidate_plans(info, facts, "DEVICE", backend_module)
    items = []
    for plan in plans:
        if plan.family in DEVICE_ONLY:
            continue
        device = checked_on(facts, plan.family)
        source = render_file(
            plan,
            conv,
            device_line=f"DEVICE = {device_expression(device)}" if device else CPU_DEVICE_LINE,
            device_type=device or "cpu",
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


def _attach(facts: Facts, answers: list[dict[str, Any]], key: str = "") -> None:
    checked: dict[str, CheckedOutcome] = {}
    for answer in answers:
        name = str(answer.get("key", ""))
        if key and not name.startswith(key):
            continue
        where = f"the agent's check of {name}"
        try:
            clean, broken = (decode_run(answer.get(run), where) for run in ("clean", "broken"))
        except (
            FactsUnreadable
        ) as exc:  # a run of another shape: its family is not kept, and says why
            clean, broken = {"outcomes": {}, "error": str(exc)}, None
        checked[name[len(key) :]] = {
            "clean": clean,
            "broken": broken,
            "on": checked_on(facts, name[len(key) :]) or "the CPU",
        }
    if checked:
        facts["checked"] = checked


def checked_facts(
    infos: Sequence[ApiInfo],
    facts: Sequence[Facts],
    session: AgentSession,
    backend_module: str = "",
) -> None:
    """Run every candidate of every API in one job; each API's facts gain ``checked``."""
    items: list[dict[str, Any]] = []
    fresh = False
    for n, (info, f) in enumerate(zip(infos, facts, strict=True)):
        items += check_items(info, f, backend_module, key=f"{n}:")
        fresh = fresh or bool(on_device(f))
    if not items:
        return
    args: dict[str, Any] = {"items": items}
    if fresh:  # one session, one device: every item runs on it
        args.update(fresh=True, backend=backend_module)
    answer = session.call("scaffold_check", args, CHECK_TIMEOUT * len(items) + 60.0 * fresh)
    for n, f in enumerate(facts):
        _attach(f, list(answer.get("items") or []), key=f"{n}:")


def failing_on_device(
    session: AgentSession,
    facts: Facts,
    file_name: str,
    content: str,
    tests: Sequence[str],
    backend_module: str = "",
) -> list[str]:
    """``tests`` of the file about to be written that do not pass on the facts' device, run as written
    (the backend's TestCase and device line) in a new interpreter there: "test: why" each."""
    item = {"key": "written", "file": file_name, "source": content, "standin": False}
    answer = session.call(
        "scaffold_check",
        {"items": [item], "fresh": True, "backend": backend_module},
        CHECK_TIMEOUT + 60.0,
    )
    runs = [a for a in answer.get("items") or [] if a.get("key") == "written"]
    if not runs:  # no answer for this file: nothing known to fail
        return []
    clean = runs[0].get("clean") or {}
    outcomes = clean.get("outcomes") or {}
    if clean.get("error") and not outcomes:
        return [f"{file_name}: {clean['error']}"]
    return [
        f"{t}: {(outcomes.get(t) or {}).get('message', 'did not run')}"
        for t in tests
        if (outcomes.get(t) or {}).get("status") not in ("pass", "skip")
    ]
