"""The ``distributed`` family: torch.distributed utilities that work in one process.

Key-value stores (``HashStore``, ``FileStore``, ``TCPStore``, ``PrefixStore``,
the ``Store`` base and its members): set/get, add, compare_set, check,
delete_key, multi_set/multi_get, append, wait with a timeout, set_timeout,
num_keys; ``Store`` itself as the base of a Python store that a ``PrefixStore``
calls into; ``TCPStore.port``/``host`` through a second client. Each store then
backs a one-rank process group whose ``all_reduce`` runs on the device.
DDP communication hooks (``allreduce_hook``, ``fp16_compress_hook``, the
``*_wrapper`` functions): a one-rank ``DistributedDataParallel`` model on the
device with the hook registered; the gradient against values worked out by hand.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.distributed import (
    HOOK_FUNCTIONS,
    HOOK_WRAPPERS,
    HOOKS,
    OWN_MEMBERS,
    STORE_MEMBERS,
    STORES,
    SUBCLASSED,
)
from .render import render_macro


def is_distributed_utility(r: Any) -> bool:
    names = [r.canonical, r.path, *r.aliases]
    if any(n.startswith(HOOKS + ".") for n in names):
        return True
    owner = (r.owner_class or "").rsplit(".", 1)[-1]
    cls = (r.canonical if not r.owner_class else "").rsplit(".", 1)[-1]
    return ("distributed" in (r.owner_class or r.canonical)) and (owner in STORES or cls in STORES)


def distributed_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    spelled = spelling_of(r)
    leaf = r.path.rsplit(".", 1)[-1]
    test = f"test_{stem_of(r)}"
    python_store = False
    if any(n.startswith(HOOKS + ".") for n in names):
        if leaf in HOOK_FUNCTIONS:
            hook, compressed = spelled, HOOK_FUNCTIONS[leaf]
        elif leaf in HOOK_WRAPPERS:
            hook = f"{spelled}({HOOKS}.default_hooks.allreduce_hook)"
            compressed = HOOK_WRAPPERS[leaf]
        else:
            raise CannotDecide(f"no communication-hook template for {leaf}")
        source = render_macro(
            "distributed.py.j2",
            "comm_hook",
            {"device": device},
            test=test,
            hook=hook,
            compressed=compressed,
        )
        what = (
            f"a one-rank DistributedDataParallel model on the device with {leaf} registered: the gradient after "
            "one backward against values worked out by hand, and the step it makes"
        )
        imports: tuple[str, ...] = (
            "import torch.distributed",
            "import torch.distributed.algorithms.ddp_comm_hooks.default_hooks",
        )
    else:
        owner = (r.owner_class or "").rsplit(".", 1)[-1]
        cls = owner or leaf
        member = leaf if owner else ""
        if (
            cls not in STORES
            or (member and member not in STORE_MEMBERS)
            or OWN_MEMBERS.get(member, cls) != cls
        ):
            raise CannotDecide(f"no store template for {r.canonical}")
        owner_spelled = spelled.rsplit(".", 1)[0] if owner else spelled
        # the base class itself: a Python subclass under a PrefixStore, a utility that never touches the device
        python_store = member in SUBCLASSED.get(cls, ())
        recipe = {
            slot: [line.format(C=owner_spelled) for line in lines]
            for slot, lines in STORES[cls].items()
        }
        source = render_macro(
            "distributed.py.j2",
            "store",
            {"device": device, "C": owner_spelled, "leaf": member},
            test=test,
            python_store=python_store,
            make=recipe["make"],
            own=recipe.get("own", []),
        )
        if python_store:
            what = (
                "a Python subclass of Store in one process, its own __init__ calling Store's: a PrefixStore "
                "over it writes set/add under its prefix as bytes, get/add/check read them back"
            )
        else:
            what = (
                f"a {cls} in one process: set/get, add, compare_set, check, delete_key, multi_set/multi_get, "
                "append, wait with a timeout, set_timeout"
                + (f", {member}" if member else "")
                + "; then a one-rank process group on it, all_reduce on the device"
            )
        imports = (
            "import os",
            "import tempfile",
            "from datetime import timedelta",
            "import torch.distributed",
        )
    return TestPlan(
        api=r.canonical,
        spelling=spelled,
        family="distributed",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=imports,
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
        uses_device=not python_store,
    )
