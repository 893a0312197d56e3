"""Facts the domain families need, measured on the CPU: how to build an optimizer or a scheduler
(and the learning rates it gives), and which tensor factories an example uses.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, List, Optional, Tuple, cast

from ..protocol import TorchModule
from .literal import error_text, literal
from .schema import OptimFacts

#: keyword arguments tried for a learning-rate scheduler, the first that changes the rate wins
SCHEDULER_KWARGS = (
    "step_size=1, gamma=0.5",
    "gamma=0.5",
    "milestones=[1, 2], gamma=0.5",
    "T_max=4",
    "lr_lambda=lambda epoch: 0.5 ** epoch",
    "factor=0.5, total_iters=2",
    "total_iters=4",
    "max_lr=1.0, total_steps=10",
    "base_lr=0.1, max_lr=1.0, step_size_up=2",
    "T_0=2",
    "patience=0, factor=0.5",
    "",
)
STEPS = 3
#: a scheduler made of others (ChainedScheduler, SequentialLR): its arguments, ``opt`` the optimizer
_TWO = (
    "[torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5), "
    "torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)]"
)
COMPOSITE_ARGS = (_TWO, "opt, %s, milestones=[2]" % _TWO)


def _subclass(obj: Any, torch: TorchModule, path: str) -> bool:
    cls = torch
    for part in path.split("."):
        cls = getattr(cls, part, None)
        if cls is None:
            return False
    return isinstance(obj, type) and isinstance(cls, type) and issubclass(obj, cls)


def _scheduler_bases(torch: TorchModule) -> Tuple[type, ...]:
    out: List[type] = []
    for path in (
        "optim.lr_scheduler.LRScheduler",
        "optim.lr_scheduler._LRScheduler",
        "optim.lr_scheduler.ReduceLROnPlateau",
    ):
        cls = torch
        for part in path.split("."):
            cls = getattr(cls, part, None)
        if isinstance(cls, type):
            out.append(cls)
    return tuple(out)


def optimizer_facts(torch: TorchModule, cls: Any) -> OptimFacts:
    """How ``cls([param], ...)`` is built and that one closure step works here."""
    tries = [
        (ctor, values)
        for values in ([1.0, -2.0, 3.0], [[1.0, -2.0], [3.0, 0.5]])
        for ctor in (", lr=0.1", "")
    ]
    for (
        ctor,
        values,
    ) in tries:  # a vector first; a matrix for optimizers of 2-D parameters only (Muon)
        param = torch.nn.Parameter(torch.tensor(values))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                opt = eval("cls([param]%s)" % ctor, {"cls": cls, "torch": torch, "param": param})

                def closure(opt: Any = opt, param: Any = param) -> Any:
                    opt.zero_grad()
                    loss = (param * param).sum()
                    loss.backward()
                    return loss

                opt.step(closure)
        except Exception as exc:
            last = error_text(exc)
            continue
        return {
            "kind": "optimizer",
            "ctor": ctor,
            "matrix": isinstance(values[0], list),
            "problem": "",
        }
    return {
        "kind": "optimizer",
        "problem": "%s([param]) with one closure step failed here: %s" % (cls.__name__, last),
    }


def scheduler_facts(torch: TorchModule, cls: Any) -> OptimFacts:
    """The first keyword arguments that build ``cls`` over SGD(lr=1.0), and the rates of 3 steps."""
    plateau = getattr(torch.optim.lr_scheduler, "ReduceLROnPlateau", None)
    found: Optional[OptimFacts] = None
    tries: List[Tuple[str, Optional[str]]] = [
        ("opt" + (", " + kwargs if kwargs else ""), kwargs) for kwargs in SCHEDULER_KWARGS
    ]
    tries += [(args, None) for args in COMPOSITE_ARGS]
    for args, kwargs in tries:
        weight = torch.nn.Parameter(torch.ones(2))
        opt = torch.optim.SGD([weight], lr=1.0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sched = eval("cls(%s)" % args, {"cls": cls, "opt": opt, "torch": torch})
                lrs: List[float] = []
                for _ in range(STEPS):
                    opt.step()
                    if plateau is not None and isinstance(sched, plateau):
                        sched.step(1.0)
                    else:
                        sched.step()
                    lrs.append(float(opt.param_groups[0]["lr"]))
                last = [float(v) for v in sched.get_last_lr()]
        except Exception:
            continue
        epoch = getattr(sched, "last_epoch", None)
        record: OptimFacts = {
            "kind": "scheduler",
            "kwargs": kwargs or "",
            "lrs": literal(lrs),
            "last_lr": literal(last),
            "args": None if kwargs is not None else re.sub(r"\bopt\b", "optimizer", args),
            "last_epoch": epoch if isinstance(epoch, int) else None,
            "metric": "1.0" if plateau is not None and isinstance(sched, plateau) else "",
            "problem": "",
        }
        if len(set(lrs + [1.0])) > 1:
            return record
        found = found or record
    return found or {
        "kind": "scheduler",
        "problem": "no keyword arguments built %s here" % cls.__name__,
    }


def optim_facts(torch: TorchModule, obj: Any, owner: Any) -> OptimFacts:
    """Optimizer or scheduler facts for a class or a member of one (the base classes use SGD/StepLR)."""
    cls = obj if isinstance(obj, type) else owner
    if not isinstance(cls, type):
        return {"problem": "not an optimizer or a scheduler"}
    bases = _scheduler_bases(torch)
    if bases and issubclass(cls, bases):
        if cls.__name__ in ("LRScheduler", "_LRScheduler"):
            return cast(
                OptimFacts,
                dict(
                    scheduler_facts(torch, torch.optim.lr_scheduler.StepLR),
                    concrete="torch.optim.lr_scheduler.StepLR",
                ),
            )
        return scheduler_facts(torch, cls)
    if _subclass(cls, torch, "optim.Optimizer"):
        if cls is torch.optim.Optimizer:
            return cast(
                OptimFacts,
                dict(optimizer_facts(torch, torch.optim.SGD), concrete="torch.optim.SGD"),
            )
        return optimizer_facts(torch, cls)
    return {"problem": "not an optimizer or a scheduler"}
