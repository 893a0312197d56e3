"""Select the instances of the wanted tests that run on the target's device, and apply the disabled list.

A wanted test is a template (``TestFoo.test_x`` as the source writes it); its
instances are what the file's runner loads: ``TestFooPRIVATEUSE1.test_x_npu_float32``
for a device-generic test on the npu, ``TestFooCPU.test_x_cpu`` on the cpu,
``TestFoo.test_x_param_value`` for a parametrized one, ``TestFoo.test_x`` itself
for a plain one. An OpInfo-driven template keeps only its instances for the
API's OpInfo. Each instance is then run, or disabled by the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..phrases import phrase
from ..records.notes import Note
from ..records.upstream import UpstreamTest
from .disabled import DisabledList
from .find import PYTEST, FileCandidates, Wanted


@dataclass(frozen=True)
class ListedClass:
    attr: str  # the name the file's module binds it to (what a test name on the command line uses)
    name: str
    qualname: str
    module: str  # __main__ for the file's own classes
    generic: str  # the template class of a device-generic class (TestFoo for TestFooCPU), else name
    device_type: str  # "" for a class that is not device-generic


@dataclass(frozen=True)
class ListedTest:
    klass: ListedClass
    method: str
    template: str  # the test it was instantiated from
    sanitized: str  # the method less its device and dtype suffixes (torch's own rule)
    opinfo: str = ""

    @property
    def id(self) -> str:
        return f"{self.klass.module}.{self.klass.qualname}.{self.method}"


@dataclass(frozen=True)
class Listing:
    tests: tuple[ListedTest, ...]
    api_opinfos: tuple[str, ...] = ()
    loader_errors: tuple[str, ...] = ()

    @classmethod
    def from_result(cls, res: dict[str, Any]) -> Listing:
        classes = [
            ListedClass(
                str(c.get("attr") or c["name"]),
                str(c["name"]),
                str(c.get("qualname") or c["name"]),
                str(c.get("module") or "__main__"),
                str(c.get("generic") or c["name"]),
                str(c.get("device_type") or ""),
            )
            for c in res.get("classes") or []
        ]
        tests = tuple(
            ListedTest(classes[int(t[0])], str(t[1]), str(t[2]), str(t[3]), str(t[4] or ""))
            for t in res.get("tests") or []
        )
        return cls(
            tests,
            tuple(str(x) for x in res.get("api_opinfos") or ()),
            tuple(str(x) for x in res.get("loader_errors") or ()),
        )

    def for_device(self, device: str) -> list[ListedTest]:
        """The tests the runner would run on ``device``: plain ones, and device-generic ones for it."""
        return [t for t in self.tests if not t.klass.device_type or t.klass.device_type == device]


def selector(t: ListedTest, path: str, entry: str) -> str:
    """What the command line passes to select ``t``: ``Class.test`` (unittest), a node id (pytest)."""
    if entry == PYTEST:
        return "::".join([path, *t.klass.qualname.split("."), t.method])
    return f"{t.klass.attr}.{t.method}"


@dataclass
class Selection:
    """A file's selected tests at one target, before they run."""

    tests: list[UpstreamTest] = field(default_factory=list)
    run: list[str] = field(default_factory=list)  # selectors to run
    disabled: list[str] = field(default_factory=list)  # selectors of the disabled ones
    tests_for_device: int = 0
    disabled_for_device: int = 0


def _template_of(w: Wanted, t: ListedTest) -> bool:
    return t.template == w.name and (
        not w.klass or t.klass.generic == w.klass or t.klass.name == w.klass
    )


def _not_started(w: Wanted, path: str, why: Note, **more: Any) -> UpstreamTest:
    return UpstreamTest(
        **{
            "test": w.test,
            "file": path,
            "id": "",
            "selector": "",
            **more,
            "status": "not_started",
            "why": why,
            "detail": phrase(why),
        }
    )


def select(
    listing: Listing,
    cand: FileCandidates,
    path: str,
    entry: str,
    device: str,
    disabled: DisabledList | None,
    platform: str,
    budget: int,
) -> Selection:
    """Plan the file's tests at one target (``budget``: how many may still run)."""
    sel = Selection()
    mine = listing.for_device(device)
    mine_set = set(mine)
    sel.tests_for_device = len(mine)
    if disabled is not None:
        sel.disabled_for_device = sum(
            1
            for t in mine
            if disabled.match(t.klass.name, t.method, t.sanitized, platform) is not None
        )
    api_ops = set(listing.api_opinfos)
    chosen: list[tuple[Wanted, ListedTest]] = []
    for w in cand.wanted:
        instances = [t for t in listing.tests if _template_of(w, t)]
        here = [t for t in instances if t in mine_set]
        driven = [t for t in here if t.opinfo]
        if driven:
            keep = [t for t in driven if t.opinfo in api_ops]
            if not keep:
                sel.tests.append(
                    _not_started(w, path, Note.of("upstream_opinfo_other", count=len(driven)))
                )
                continue
            here = keep + [t for t in here if not t.opinfo]
        if (
            not instances and entry == PYTEST
        ):  # a pytest function (or class) test: its node id selects it
            sel.tests.append(
                UpstreamTest(test=w.test, file=path, id=w.test, selector=w.test, status="run")
            )
            sel.run.append(w.test)
            continue
        if not here:
            devices = sorted({t.klass.device_type for t in instances if t.klass.device_type})
            sel.tests.append(
                _not_started(
                    w,
                    path,
                    Note.of(
                        "upstream_no_instance", device=device, devices=", ".join(devices) or "none"
                    ),
                )
            )
            continue
        chosen.extend((w, t) for t in here)
    if cand.opinfo and api_ops:
        seen = {t for _, t in chosen}
        for t in mine:
            if t.opinfo in api_ops and t not in seen:
                w = Wanted(
                    "::".join([path, t.klass.generic, t.template]),
                    path,
                    t.klass.generic,
                    t.template,
                    "opinfo",
                )
                chosen.append((w, t))
    for w, t in chosen:
        sel_id = selector(t, path, entry)
        entry_hit = (
            disabled.match(t.klass.name, t.method, t.sanitized, platform)
            if disabled is not None
            else None
        )
        common: dict[str, Any] = dict(
            test=w.test,
            file=path,
            id=t.id,
            selector=sel_id,
            opinfo=t.opinfo,
            device_type=t.klass.device_type,
        )
        if entry_hit is not None:
            assert disabled is not None
            sel.tests.append(
                UpstreamTest(
                    status="disabled",
                    entry=disabled.record(entry_hit),
                    detail=entry_hit.reason,
                    **common,
                )
            )
            sel.disabled.append(sel_id)
        elif len(sel.run) >= budget:
            sel.tests.append(
                _not_started(w, path, Note.of("upstream_budget", count=budget), **common)
            )
        else:
            sel.tests.append(UpstreamTest(status="run", **common))
            sel.run.append(sel_id)
    return sel


__all__ = ["ListedClass", "ListedTest", "Listing", "Selection", "select", "selector"]
