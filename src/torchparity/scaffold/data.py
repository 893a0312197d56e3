"""The ``data`` family: torch.utils.data loaders, datasets, samplers and collation.

Each class or function gets its documented results: a loader's batch sizes
(with and without ``drop_last``), a seeded shuffle that is a permutation and
repeats, dict collation, batches of device tensors staying on the device and
pinned batches where the device is not the CPU; datasets' lengths and items;
samplers' orders; collation of tensors, numbers, strings, dicts and tuples;
worker info inside and outside worker processes.
"""

from __future__ import annotations

import textwrap

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.data import TEMPLATES
from .render import render_macro


def data_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    stem = stem_of(r)
    target = (r.owner_class or r.canonical).rsplit(".", 1)[-1]
    spelled = owner_spelling(info) if r.owner_class else spelling
    if target not in TEMPLATES:
        raise CannotDecide(f"no torch.utils.data template for {target}")
    macro, extra = TEMPLATES[target]
    if (
        macro == "dataloader"
    ):  # pinned batches where the device's backend pins host memory (measured there)
        pinned = facts.get("pinned_memory") or {"ok": True}
        problem = "" if pinned.get("ok") else str(pinned.get("problem") or "not pinned")
        extra = {
            **extra,
            "unpinned": textwrap.wrap(f"pin_memory=True is left out: {problem}", 88)
            if problem
            else [],
        }
    source = render_macro(
        "data.py.j2", macro, {"device": device}, test=f"test_{stem}", C=spelled, **extra
    )
    methods = split_methods(source)
    what = f"{target}'s documented results"
    if r.owner_class:
        what += f", {r.path.rsplit('.', 1)[-1]} among them"
    if macro == "dataloader":
        what = (
            "batching with and without drop_last, a seeded shuffle, dict collation, device tensors"
            + (" and pinned batches for the device" if not extra["unpinned"] else "")
        )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="data",
        stem=stem,
        methods=tuple(methods),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
