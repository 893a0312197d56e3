"""Which Python-level torch utilities the ``utility`` family tests, and which test each gets.

``KINDS`` maps an API's name to its kind (a macro of ``utilities.py.j2``); the members of the
future classes are futures too. ``VARIANTS`` maps the leaf of an API to the variant of its
kind's test (``shared``: a value or an array; ``autocast``: the entry or the exit under test;
``symbolic``: what the API records in a ``ShapeEnv``). ``FUTURE_CLASS``, ``FUTURE_DEVICE_LISTS``
and ``FUTURE_GATHERS`` say what a future test makes and how it gathers two futures.
``utilities.py`` reads them.
"""

from __future__ import annotations

#: the future classes, whose members (FUTURE_MEMBERS) are futures
FUTURES = ("torch.futures.Future", "torch.jit.Future", "torch._C.Future")
FUTURE_MEMBERS = (
    "set_result",
    "wait",
    "value",
    "then",
    "add_done_callback",
    "done",
    "set_exception",
)

#: the future class a test of collect_all or wait_all makes (a future class's test makes its own, a
#: member's test its class's)
FUTURE_CLASS = "torch.futures.Future"
#: the future classes made with a device list (``F([])``), whose futures are not failed with set_exception
FUTURE_DEVICE_LISTS = ("torch.Future", "torch._C.Future")
#: how a future test gathers two futures, by the leaf of the API under test: the API itself, which
#: returns their values or a future of both; the others through torch.futures.collect_all
FUTURE_GATHERS = {"wait_all": "values", "collect_all": "future"}

#: API name -> the kind (its macro in utilities.py.j2)
KINDS = {
    "torch.futures.collect_all": "future",
    "torch.futures.wait_all": "future",
    "torch.multiprocessing.Value": "shared",
    "torch.multiprocessing.Array": "shared",
    "torch.amp.autocast_mode._enter_autocast": "autocast",
    "torch.amp.autocast_mode._exit_autocast": "autocast",
    "torch.amp._enter_autocast": "autocast",
    "torch.amp._exit_autocast": "autocast",
    "torch.compiler.reset": "reset",
    "torch._dynamo.mark_dynamic": "dynamic",
    "torch._dynamo.decorators.mark_dynamic": "dynamic",
    "torch.cond": "cond",
    "torch._higher_order_ops.cond.cond": "cond",
    "torch._dynamo.mark_static_address": "static",
    "torch._dynamo.decorators.mark_static_address": "static",
    "torch.from_numpy": "from_numpy",
    "torch.fx.experimental.symbolic_shapes.constrain_range": "symbolic",
    "torch.fx.experimental.symbolic_shapes.constrain_unify": "symbolic",
    "torch.fx.experimental.symbolic_shapes.compute_unbacked_bindings": "symbolic",
    "torch.fx.experimental.symbolic_shapes.ShapeEnv.add_backed_var_to_val": "symbolic",
}

#: leaf -> the variant of its kind's test ("" for the others: an array, the backed value of a symbol)
VARIANTS = {
    "Value": "value",
    "_enter_autocast": "enter",
    "_exit_autocast": "exit",
    "constrain_range": "range",
    "constrain_unify": "unify",
    "compute_unbacked_bindings": "bindings",
}
