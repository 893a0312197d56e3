"""The ``pipelining`` family: torch.distributed.pipelining's stages, schedules and model splitting.

One process in a one-rank group runs a two-layer model through a schedule in
two micro-batches: as one stage (``ScheduleGPipe``, ``Schedule1F1B``), as two
stages on the same rank (``ScheduleInterleaved1F1B``, ``ScheduleLoopedBFS``), or
as the two stages ``pipeline`` splits the model into (``SplitPoint``,
``pipe_split``, ``Pipe``; its stage modules made stages of the one rank, since
the stages ``build_stage`` makes ask a peer rank for shapes). What the test holds comes from the
model run directly: the output, each micro-batch's loss, and the gradients of
the whole batch's loss over the number of micro-batches.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.pipelining import LINES, MEMBERS, PIPELINING, ROLES
from .render import render_macro


def _entry(info: ApiInfo) -> tuple[str, str, str] | None:
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    if not any(n.startswith(PIPELINING + ".") for n in names):
        return None
    leaf = r.path.rsplit(".", 1)[-1]
    if r.owner_class:
        owner = r.owner_class.rsplit(".", 1)[-1]
        hit = MEMBERS.get((owner, leaf))
        return (hit[0], hit[1], leaf) if hit else None
    hit = ROLES.get(leaf)
    return (hit[0], hit[1], leaf) if hit else None


def pipelining_role(info: ApiInfo) -> bool:
    return _entry(info) is not None


def pipelining_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    entry = _entry(info)
    if entry is None:
        raise CannotDecide("no pipelining template for this API")
    role, schedule, leaf = entry
    r = info.resolution
    X = spelling_of(r)
    recipe = LINES.get(leaf, {})
    slots = {
        slot: [line.format(X=X, device=device) for line in recipe.get(slot, ())]
        for slot in ("stage", "pipe", "made", "step")
    }
    source = render_macro(
        "pipelining.py.j2",
        "pipelined",
        {"device": device},
        test=f"test_{stem_of(r)}",
        role=role,
        schedule=schedule or X,
        **slots,
    )
    staged = {
        "single": "as one stage",
        "multi": "as two stages on one rank",
        "pipe": "split by pipeline into two stages",
    }[role]
    what = (
        f"a two-layer model on the device {staged}, run in two micro-batches in a one-rank group: the output "
        "is the model's, each micro-batch's loss that of its rows, the gradients those of the whole batch's "
        "loss over the number of micro-batches"
    )
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="pipelining",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=(
            "import copy",
            "import inspect",
            "import torch.distributed",
            f"import {PIPELINING}",
            f"import {PIPELINING}.schedules",
        ),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
