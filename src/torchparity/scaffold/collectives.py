"""The ``collectives`` family: torch.distributed process groups, collectives and point-to-point ops.

A world of two ranks on the CPU with gloo: rank 0 is the test's own process,
rank 1 a forked peer (a forked process cannot use the device; it inherits
whatever the test process has, the stand-in of the API too). Both run one
``scenario`` and check what they receive from each other against values worked
out by hand (sums, maxima, the rank's own slice, what the peer sent); the test
also checks that the peer's checks held (its exit code). Where torch knows a
collective backend for the device (``Backend.default_device_backend_map``:
nccl for cuda, hccl once torch_npu registers it) the same scenario runs again
in a world of one on the device with that backend; where it knows none (the
emulated npu) the test says so and the world of two is the whole test.

Kinds: the lifecycle (``init_process_group``, ``destroy_process_group``,
``is_initialized``, ``get_rank``/``get_world_size``/``get_backend``,
``new_group``, ``get_process_group_ranks``, ``get_global_rank``/``get_group_rank``, ``barrier``); the
collectives of
``torch.distributed`` (``all_reduce``, ``all_gather``, ``all_gather_into_tensor``,
``broadcast``, ``reduce``, ``reduce_scatter``, ``reduce_scatter_tensor``,
``all_to_all``, ``all_to_all_single``, ``gather``, ``scatter``, the single-tensor
``*_single``/``_*_base`` names, ``ReduceOp`` and its SUM/PRODUCT/MIN/MAX) and their
object forms; point-to-point ``send``/``recv``/``isend``/``irecv``,
``batch_isend_irecv``/``P2POp``; the functional ops of
``torch.ops._c10d_functional`` (with ``wait_tensor``) and their Python wrappers in
``torch.distributed._functional_collectives``; FSDP's
``torch.ops.fsdp.all_gather_copy_in`` followed by the all-gather it prepares;
``_verify_params_across_processes``; ``ProcessGroup`` members (``rank``,
``size``, ``name``, ``_get_sequence_number_for_group``).
"""

from __future__ import annotations

import re
from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.collectives import OWNED, SCENARIOS, SECTIONS, TOTAL_SECTIONS, VERIFY_PARAMS
from .recipes.layout import OPS_NAMESPACE
from .render import render_macro

C10D = "torch.distributed"
FUNCTIONAL = "torch.ops._c10d_functional"
FSDP_OPS = "torch.ops.fsdp"
#: the functional ops (``torch.ops._c10d_functional``) with a section of their own
FUNCTIONAL_OPS = tuple(SCENARIOS["functional"])
#: the legacy spelling of the functional ops (``torch.ops.c10d_functional``, a group named by a tag, its
#: ranks and its size), registered by ``torch.distributed._functional_collectives``
LEGACY = "torch.ops.c10d_functional"
LEGACY_OPS = tuple(SCENARIOS["legacy"])
#: the Python functional collectives (``torch.distributed._functional_collectives``) with a section
FUNCOL = "torch.distributed._functional_collectives"
FUNCOL_FUNCTIONS = tuple(SCENARIOS["funcol"])
#: sections that need a peer (a world of one cannot send to itself): no device stage
PEER_ONLY = ("p2p", "batch_p2p")
TOTAL = re.compile(r"\btotal\b")
#: every torch.distributed function a scenario may call
HELPERS = tuple(dict.fromkeys(n for names in SECTIONS.values() for n in names))


def _packet(name: str) -> str:
    """``name``, an operator's ``.default`` overload named by its packet."""
    return name.removesuffix(".default") if name.startswith(OPS_NAMESPACE) else name


def _names(r: Any) -> list[str]:
    """The API's names, an operator's ``.default`` overload named by its packet."""
    return [_packet(n) for n in (r.canonical, r.path, *r.aliases) if n]


def _leaf(r: Any) -> str:
    return str(_packet(r.path).rsplit(".", 1)[-1])


def collective_section(r: Any) -> tuple[str, str] | None:
    """(section, namespace) of an API this family covers, else None."""
    names = _names(r)
    leaf = _leaf(r)
    owner = (r.owner_class or "").rsplit(".", 1)[-1]
    owned = OWNED.get(owner) if "distributed" in (r.owner_class or "") else None
    if owned is not None:
        section, namespace, members = owned
        return (section, namespace) if leaf in members else None
    if r.owner_class:
        return None
    if any(n == f"{FUNCTIONAL}.{leaf}" for n in names):
        return ("functional", "functional") if leaf in FUNCTIONAL_OPS else None
    if any(n == f"{LEGACY}.{leaf}" for n in names):
        return ("legacy", "legacy") if leaf in LEGACY_OPS else None
    if any(n == f"{FUNCOL}.{leaf}" for n in names):
        return ("funcol", "funcol") if leaf in FUNCOL_FUNCTIONS else None
    if any(n == f"{FSDP_OPS}.all_gather_copy_in" for n in names):
        return "fsdp_copy_in", "fsdp"
    if leaf == VERIFY_PARAMS and any("distributed" in n for n in names):
        return "verify_params", "c10d"
    public = {f"{C10D}.{leaf}", f"{C10D}.distributed_c10d.{leaf}"}
    if any(n in public for n in names):
        for section, leaves in SECTIONS.items():
            if leaf in leaves:
                return section, "c10d"
    return None


def is_collective(r: Any) -> bool:
    return collective_section(r) is not None


def scenario_lines(section: str, leaf: str, spellings: dict[str, str]) -> tuple[str, ...]:
    """The recipe's lines for ``leaf`` in ``section`` (none where the template writes the whole
    section), each name spelled as ``spellings`` says."""
    return tuple(line.format(**spellings) for line in SCENARIOS.get(section, {}).get(leaf, ()))


def collectives_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    found = collective_section(r)
    if found is None:
        raise CannotDecide(f"no collectives template for {r.canonical}")
    section, namespace = found
    spelled = spelling_of(r)
    leaf = _leaf(r)
    d = {n: f"{C10D}.{n}" for n in HELPERS}
    lg = {n: f"{LEGACY}.{n}" for n in LEGACY_OPS}
    f = {n: f"{FUNCTIONAL}.{n}" for n in FUNCTIONAL_OPS}
    fc = {n: f"{FUNCOL}.{n}" for n in FUNCOL_FUNCTIONS}
    if namespace == "c10d" and section != "verify_params":
        d[leaf] = spelled
    elif namespace == "reduce_op":
        d["ReduceOp"] = spelled.rsplit(".", 1)[0]
    elif namespace == "functional":
        f[leaf] = spelled
    elif namespace == "funcol":
        fc[leaf] = spelled
    elif namespace == "legacy":
        lg[leaf] = spelled
    owner = spelled.rsplit(".", 1)[0] if namespace == "group" else ""
    spellings = {"c10d": d, "functional": f, "funcol": fc, "legacy": lg}.get(namespace, {})
    scenario = scenario_lines(section, leaf, {**spellings, "owner": owner})
    test = f"test_{stem_of(r)}"
    source = render_macro(
        "collectives.py.j2",
        "collective",
        {"device": device},
        test=test,
        section=section,
        leaf=leaf,
        spelled=spelled,
        d=d,
        device_stage=section not in PEER_ONLY,
        scenario=scenario,
        needs_total=section in TOTAL_SECTIONS or any(TOTAL.search(line) for line in scenario),
    )
    imports: tuple[str, ...] = (
        "import math",
        "import multiprocessing",
        "import os",
        "import tempfile",
        "import time",
        "from datetime import timedelta",
        "import torch.distributed",
    )
    if section == "fsdp_copy_in":
        imports += ("import torch.distributed.fsdp",)  # registers torch.ops.fsdp
    if section in ("funcol", "legacy"):
        imports += (
            f"import {FUNCOL}",
        )  # ``import torch.distributed`` does not load it (nor register the legacy ops)
    what = (
        f"{leaf} in a world of two ranks on the CPU with gloo (this process and a forked peer), each checking "
        "what it receives from the other against values worked out by hand"
        + (
            "; then in a world of one on the device with the collective backend torch knows for it"
            if section not in PEER_ONLY
            else ""
        )
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelled,
        family="collectives",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=imports,
        summary=what + ".",
        coverage=coverage_rows(
            normal=what, boundary="world_size=2（依赖对端的结果）与 world_size=1（设备）"
        ),
        facts=facts,
    )
