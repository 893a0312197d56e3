"""The ``utility`` family: Python-level torch utilities with documented behaviour and no other template.

* futures: ``torch.futures.Future`` and its members (``set_result``, ``wait``,
  ``value``, ``then``, ``add_done_callback``, ``done``, ``set_exception``),
  ``collect_all``, ``wait_all``: a result set once, the callbacks and chained
  futures it runs, an error raised by ``wait`` and by what is chained after it,
  a second ``set_result`` refused;
* shared values: ``torch.multiprocessing.Value``/``Array``: the typecode's
  values, a lock, and a change made by a forked child process seen by the parent;
* autocast entry and exit: ``torch.amp._enter_autocast``/``_exit_autocast``
  (either spelling): autocast on, with its dtype, between them, a matmul on the
  device in that dtype, and off again after;
* compile caches: ``torch.compiler.reset``: a compiled function cached after one
  compile and compiled again after the reset (a ``CompileCounter`` backend);
* dynamic shapes: ``torch._dynamo.mark_dynamic``: the marked dimension, one
  compile for two sizes (two without the mark), a symbolic size in the graph;
* control flow: ``torch.cond``: each branch by the predicate, eager and
  exported (a ``cond`` node with both branch graphs);
* symbolic shapes: ``constrain_range``, ``constrain_unify``,
  ``compute_unbacked_bindings`` and ``ShapeEnv.add_backed_var_to_val`` on a
  fresh ``ShapeEnv``: the bounds, replacements, bindings and values each
  records, and the errors documented for plain ints and repeated symbols;
* ``torch._dynamo.mark_static_address``: the mark dynamo reads;
* ``torch.from_numpy``: memory shared with the array both ways, the dtypes.

Fake tensors, the ``torch.dtype``/``torch.device`` classes, config copies,
``torch.library`` and ``use_deterministic_algorithms`` have families or rules
of their own (``fake``, ``typeobject``, ``config``, ``library``, the
signature family's state restore).
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.utilities import (
    FUTURE_CLASS,
    FUTURE_DEVICE_LISTS,
    FUTURE_GATHERS,
    FUTURE_MEMBERS,
    FUTURES,
    KINDS,
    VARIANTS,
)
from .render import render_macro

WHAT = {
    "future": (
        "a future's result set once, the callbacks and chained futures it runs, an error raised by wait "
        "and by what is chained after it"
    ),
    "shared": "the shared value's contents and lock, and a change a forked child process makes, seen by the parent",
    "autocast": "autocast on with its dtype between entry and exit (a matmul on the device in that dtype), off after",
    "reset": "a compiled function cached after one compile and compiled again after the reset",
    "dynamic": "the marked dimension compiled once for two sizes (twice without the mark), symbolic in the graph",
    "symbolic": (
        "what it records in a ShapeEnv: the range of an unbacked size, the symbol standing for another, "
        "the binding of a fresh symbol to its size, a symbol's value and the hints that follow from it"
    ),
    "static": "the static-address mark dynamo reads, guarded and not, and the error for a non-tensor",
    "from_numpy": "the array's memory shared both ways, the dtypes it maps, a list refused, the values on the device",
    "cond": "each branch taken by the predicate on the device, eager and exported (a cond node with both branches)",
}
IMPORTS = {
    "reset": ("import torch._dynamo", "import torch._dynamo.testing"),
    "dynamic": ("import torch._dynamo", "import torch._dynamo.testing"),
}


def _names(info: ApiInfo) -> list[str]:
    r = info.resolution
    return [n for n in (r.canonical, r.path, *r.aliases) if n]


def utility_kind(info: ApiInfo) -> str:
    """The utility kind of the API ("" when it is none of them)."""
    r = info.resolution
    for name in _names(info):
        if name in KINDS:
            return KINDS[name]
        if name in FUTURES:
            return "future"
    leaf = r.path.rsplit(".", 1)[-1]
    if r.owner_class in FUTURES and leaf in FUTURE_MEMBERS:
        return "future"
    return ""


def _future(spelling: str, owner: str) -> dict[str, Any]:
    """What a future test makes (the class, with a device list or not) and how it gathers two futures."""
    leaf = spelling.rsplit(".", 1)[-1]
    classes = {name.rsplit(".", 1)[-1] for name in FUTURES}
    future = owner or (spelling if leaf in classes else FUTURE_CLASS)
    return {
        "future_class": future,
        "device_list": future in FUTURE_DEVICE_LISTS,
        "gather": FUTURE_GATHERS.get(leaf, ""),
    }


def utility_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    kind = utility_kind(info)
    if not kind:
        raise CannotDecide("not a Python utility this family covers")
    spelling = spelling_of(r)
    stem = stem_of(r)
    leaf = r.path.rsplit(".", 1)[-1]
    owner = owner_spelling(info) if r.owner_class else ""
    context = {"device": device, "leaf": leaf if owner else "", "owner": owner}
    if kind == "future":
        context.update(_future(spelling, owner))
    source = render_macro(
        "utilities.py.j2",
        kind,
        context,
        test=f"test_{stem}",
        C=spelling,
        leaf=leaf,
        variant=VARIANTS.get(leaf, ""),
    )
    methods = split_methods(source)
    if not methods:
        raise CannotDecide("the template wrote no test")
    imports = {"shared": ["import torch.multiprocessing"], "from_numpy": ["import numpy"]}.get(
        kind, []
    )
    if kind == "symbolic" and "sympy." in "".join(m.source for m in methods):
        imports.append("import sympy")
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="utility",
        stem=stem,
        methods=tuple(methods),
        imports=(*imports, *IMPORTS.get(kind, ())),
        summary=WHAT[kind] + ".",
        coverage=coverage_rows(
            normal=WHAT[kind], invalid="异常结果、重复设置" if kind == "future" else ""
        ),
        facts=facts,
    )
