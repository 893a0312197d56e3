"""The ``optim`` family: optimizers and learning-rate schedulers over parameters on the device.

An optimizer takes one closure step on the device and the same step on the
CPU: the step returns the closure's loss (a value worked out by hand), moves
every coordinate against its gradient (a descent step), equals the CPU step,
keeps its state on the device through a state_dict round trip, and zero_grad
works both ways of ``set_to_none``. A scheduler steps three times: the rates
measured on the CPU, the group's rate equal to ``get_last_lr``, a state_dict
round trip.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.optim import OPTIMIZER_MEMBERS, SCHEDULER_MEMBERS
from .render import render_macro


def _macro(name: str, leaf: str, owner: str, device: str, **kwargs: Any) -> str:
    return render_macro(
        "optim.py.j2", name, {"device": device, "leaf": leaf, "owner": owner}, **kwargs
    )


def optim_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    op = facts.get("optim") or {}
    if not op or op.get("problem"):
        raise CannotDecide(op.get("problem") or "no optimizer facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    member = bool(r.owner_class)
    leaf = r.path.rsplit(".", 1)[-1] if member else ""
    owner = owner_spelling(info) if member else ""
    cls = str(op.get("concrete") or (owner if member else spelling))
    if op["kind"] == "optimizer":
        if member and leaf not in OPTIMIZER_MEMBERS:
            raise CannotDecide(f"no optimizer template for {leaf!r}")
        source = _macro(
            "optimizer",
            leaf,
            owner,
            device,
            test=test,
            OPT=cls,
            ctor=op.get("ctor", ""),
            matrix=bool(op.get("matrix")),
            member_lines=[
                line.format(owner=owner, device=device) for line in OPTIMIZER_MEMBERS.get(leaf, ())
            ],
        )
        what = (
            "one closure step on the device: the loss it returns, a descent step equal to the CPU step, "
            "the state on the device through a state_dict round trip, and zero_grad both ways of set_to_none"
        )
    else:
        if member and leaf not in SCHEDULER_MEMBERS:
            raise CannotDecide(f"no scheduler template for {leaf!r}")
        kwargs = op.get("kwargs", "")
        args = op.get("args") or "optimizer" + (", " + kwargs if kwargs else "")
        epoch = op.get("last_epoch", 3) if "last_epoch" in op else 3
        source = _macro(
            "scheduler",
            leaf,
            owner,
            device,
            test=test,
            SCHED=cls,
            args=args,
            lrs=op["lrs"],
            last_lr=op["last_lr"],
            metric=op.get("metric", ""),
            last_epoch=epoch,
        )
        what = (
            "three steps over parameters on the device: the learning rates measured on the CPU, "
            "get_last_lr, and a state_dict round trip"
        )
    methods = split_methods(source)
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="optim",
        stem=stem,
        methods=tuple(methods),
        summary=what + ".",
        coverage=coverage_rows(
            enum="zero_grad 的 set_to_none=True/False" if op["kind"] == "optimizer" else "",
            normal=what,
        ),
        facts=facts,
    )
