"""What one target says about one cell of the support pages (API x version x product), or why nothing.

A target stands for a product through its environment's configured hardware (``[envs.a2]
hardware = "Atlas A2"``, kept in its record), matched against the configured products by name or
alias; for a page version through the torch release its probe saw (``2.7.1+cpu`` is the 2.7.1
pages). It decides its cell only when its verdict is PASS or FAIL, its backend was not emulated, and
its probe saw a real device of that hardware (the report's ``hardware_matches``); otherwise it says
why in a sentence, and the cell is left to a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..collect.releases import release_of
from ..records.target import TargetRecord, emulated_device, hardware_matches
from .model import Products

#: the verdicts that decide a cell: the API's tests passed (✔) or one of them failed (✘)
DECIDING = ("PASS", "FAIL")

#: why a target with another verdict decides nothing
WHY_RESULT = {
    "NONE_RAN": "none of the API's tests ran (all skipped, disabled or never started): NONE_RAN is no verdict on the product",
    "MISMATCH": "its environment's torch is not the release the ref targets, so nothing ran (MISMATCH)",
    "ERROR": "the environment broke before the API's tests answered (ERROR)",
    "INCOMPLETE": "the run was cut short before the API's tests answered (INCOMPLETE)",
}


def probed_device(rec: TargetRecord) -> str:
    """The device type the probe saw (the record's device when the probe said none)."""
    return str(rec.probe_facts.get("device_type") or rec.device)


def emulated_of(rec: TargetRecord) -> str:
    """The device the target's backend only emulated ("" on hardware): the record's field, or the
    probe's facts for a record made before it."""
    return rec.emulated or emulated_device(rec)


@dataclass(frozen=True)
class Evidence:
    """One target of one run, as evidence for one cell: where it ran, its verdict, its log's hash."""

    api: str
    run_uid: str
    run_id: int
    label: str
    env: str
    #: the environment's configured hardware ("" when none)
    hardware: str
    #: the product code the hardware names ("" when it names none)
    product: str
    #: the page version (torch release the probe saw; "" when unknown)
    version: str
    result: str
    log_sha256: str
    device: str
    emulated: str
    hardware_matches: bool | None
    #: a CPU environment the user declared to stand for its configured hardware (--stand-in)
    stand_in: bool = False
    #: the API's tests: passed, failed, all of them
    passed: int = 0
    failed: int = 0
    total: int = 0
    #: "" when the target decides its cell; else a code and a sentence saying why it does not
    why_code: str = ""
    why: str = ""

    @property
    def decides(self) -> bool:
        return not self.why_code

    @property
    def supported(self) -> bool | None:
        """The cell it proposes: True (PASS), False (FAIL), None (it decides nothing)."""
        return None if not self.decides else self.result == "PASS"

    def where(self) -> str:
        """``v2.7.1@a2 in run 0101010101ab``: the target and its run, as a sentence names them (a
        stand-in says so)."""
        said = f"{self.label} in run {self.run_uid[:12]}"
        return said + (f" (stand-in: device {self.device})" if self.stand_in else "")

    def to_json(self) -> dict[str, Any]:
        return {
            "run_uid": self.run_uid,
            "run_id": self.run_id,
            "target": self.label,
            "env": self.env,
            "hardware": self.hardware,
            "product": self.product or None,
            "version": self.version or None,
            "result": self.result,
            "log_sha256": self.log_sha256,
            "device": self.device,
            "emulated": self.emulated,
            "hardware_matches": self.hardware_matches,
            "stand_in": self.stand_in,
            "api_tests": {"passed": self.passed, "failed": self.failed, "total": self.total},
            "decides": self.decides,
            "why_code": self.why_code or None,
            "why": self.why or None,
        }


def _known(products: Products) -> str:
    return ", ".join(f"{p.name} ({p.code})" for p in products) or "none configured"


def evidence_of(
    rec: TargetRecord,
    *,
    api: str,
    run_uid: str,
    run_id: int,
    log_sha256: str,
    products: Products,
    stand_in: frozenset[str] = frozenset(),
) -> Evidence:
    """What ``rec`` (one target of run ``run_uid``) says about its cell, or why it says nothing.

    ``stand_in``: environments the user declares (``--stand-in ENV``) to stand for their configured
    hardware though their probe saw the CPU (a CPU backend, a rehearsal); never an emulated one.
    """
    device = probed_device(rec)
    emulated = emulated_of(rec)
    standing = rec.env in stand_in and device == "cpu" and not emulated
    found = products.by_name(rec.hardware) if rec.hardware else None
    version = release_of(str(rec.probe_facts.get("torch_version") or rec.torch_version or ""))
    counts = rec.api_counts()
    why_code, why = "", ""
    if emulated:
        why_code = "emulated"
        why = (
            f"it ran on an emulated {emulated} (on the CPU): evidence of device paths, not of "
            f"{rec.hardware or 'any hardware'}; emulated evidence never proposes a cell"
        )
    elif not rec.hardware:
        why_code = "no_hardware"
        why = (
            f"environment {rec.env} has no hardware configured ([envs.{rec.env}] hardware = "
            '"Atlas A2"), so its evidence names no product'
        )
    elif found is None:
        why_code = "unknown_product"
        why = (
            f"the hardware {rec.hardware!r} of environment {rec.env} is no configured product "
            f"(known: {_known(products)}); name one in [envs.{rec.env}] hardware or add it to "
            "[[docs.products]]"
        )
    elif not hardware_matches(rec) and not standing:
        why_code = "hardware_mismatch"
        why = (
            f"configured as {rec.hardware}, but the probe saw device {device}: not evidence from "
            "that hardware"
        )
    elif not version:
        why_code = "no_version"
        why = "its probe did not say which torch release it ran, so no page version is known"
    elif rec.result not in DECIDING:
        why_code = rec.result or "INCOMPLETE"
        why = WHY_RESULT.get(rec.result, f"its verdict is {rec.result or 'missing'}")
    return Evidence(
        api=api,
        run_uid=run_uid,
        run_id=run_id,
        label=rec.label,
        env=rec.env,
        hardware=rec.hardware,
        product=found.code if found is not None else "",
        version=version,
        result=rec.result,
        log_sha256=log_sha256,
        device=device,
        emulated=emulated,
        hardware_matches=hardware_matches(rec),
        stand_in=standing,
        passed=counts["passed"],
        failed=counts["failed"],
        total=counts["total"],
        why_code=why_code,
        why=why,
    )


__all__ = [
    "DECIDING",
    "Evidence",
    "emulated_of",
    "evidence_of",
    "probed_device",
]
