"""Predicates and validators (``is_X``, ``has_X``, ``check_X``, ``_assert_X``): cases measured on candidate arguments.

Each candidate argument (tensors of several kinds on the device, a sparse
tensor coalesced or not, numbers, words, a file buffer written by
``torch.save`` and one that is not, ...) is built afresh and given to the API
twice; an outcome that differs between the two is dropped. What is kept:

* the arguments it answers ``True`` and ``False`` for (a predicate);
* the arguments it accepts by returning ``None`` (a validator);
* the arguments it refuses, with the exception's type, except ``TypeError``
  and ``AttributeError``: an argument of the wrong type says nothing of the
  check itself.

A method of ``torch.Tensor`` takes the candidate tensors as its receiver.
"""

from __future__ import annotations

import inspect
import io
import re
from typing import Any, Dict, List, Tuple, cast

from ..protocol import TorchModule
from .literal import exc_name
from .names import guess
from .recipes.layout import NOT_REFUSALS
from .schema_probe import CheckerFacts

#: the category of ``names.NAME_TABLE`` of a second parameter that is a message
_MESSAGE = ("message",)
#: candidate arguments, as the test spells them (``DEVICE`` bound to the device under test)
TENSORS = (
    "torch.tensor([1.0, 2.0], device=DEVICE)",
    "torch.tensor([1, 2], device=DEVICE)",
    "torch.tensor([True, False], device=DEVICE)",
    "torch.tensor([1 + 2j], device=DEVICE)",
    "torch.tensor(3.0, device=DEVICE)",
    "torch.zeros(0, device=DEVICE)",
    "torch.ones(2, 3, device=DEVICE).t()",
    "torch.sparse_coo_tensor([[0, 0], [1, 1]], [1.0, 2.0], (2, 2)).to(DEVICE)",
    "torch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2)).coalesce().to(DEVICE)",
)
#: a buffer ``torch.save`` wrote (a zip file) and one holding other bytes
ZIP_BUFFER = "(lambda b: (torch.save(torch.ones(1), b), b.seek(0), b)[2])(io.BytesIO())"
OTHERS = (
    "None",
    "0",
    "1",
    "-1",
    "True",
    "False",
    "2.5",
    '""',
    '"same"',
    '"different"',
    '"error"',
    '"no_such_word"',
    "[1, 2]",
    "(1, 2)",
    "{}",
    "torch.float32",
    "torch.int64",
    'torch.device("cpu")',
    "torch.nn.Linear(2, 2)",
    ZIP_BUFFER,
    'io.BytesIO(b"not a zip file")',
)
KEEP = 3


#: a second argument a checker may require: the message it raises with (``torch._assert(cond, message)``)
MESSAGE = '"torchparity check"'
_MISSING = re.compile(
    r"missing (?:\d+ )?(?:required )?(?:positional )?(?:argument|value for argument)|"
    r"takes (?:exactly )?2 (?:positional )?arguments|expected 2 arguments"
)


def _tail(obj: Any) -> str:
    """``""`` or ``, MESSAGE`` where a call with one argument asks for a second (a message)."""
    schema = getattr(obj, "_schema", None)
    if (
        schema is not None
    ):  # an operator overload: ``_assert_async.msg(Tensor self, str assert_msg)``
        needed = [
            a for a in schema.arguments if a.default_value is None and not str(a.type).endswith("?")
        ]
        return ", " + MESSAGE if len(needed) == 2 and str(needed[1].type) == "str" else ""
    try:
        params = list(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        params = []
    if len(params) >= 2 and not guess(params[1], _MESSAGE):  # a second operand, not a message
        return ""
    try:
        obj(True)
    except Exception as exc:
        if _MISSING.search(str(exc)):
            try:
                obj(True, eval(MESSAGE))
            except Exception as again:
                if _MISSING.search(str(again)):
                    return ""
            return ", " + MESSAGE
    return ""


def _outcome(obj: Any, src: str, env: Dict[str, Any], tail: str = "") -> Tuple[str, str]:
    """("true"|"false"|"none"|"refused"|"other", exception name) of ``obj(value)`` for a fresh value."""
    value = eval(src, env)
    try:
        got = obj(value, *([eval(tail[2:], env)] if tail else []))
    except Exception as exc:
        name = exc_name(exc)
        return ("other", name) if name.split(".")[-1] in NOT_REFUSALS else ("refused", name)
    if got is True:
        return "true", ""
    if got is False:
        return "false", ""
    if got is None:
        return "none", ""
    return "other", ""


def checker_facts(torch: TorchModule, obj: Any, owner: Any, device_type: str) -> CheckerFacts:
    if not callable(obj) or isinstance(obj, type):
        return {"found": False, "problem": "not a function"}
    env = {"torch": torch, "io": io, "DEVICE": torch.device("cpu")}
    tensor_method = owner is torch.Tensor
    pool = TENSORS if tensor_method else TENSORS + OTHERS
    cases: Dict[str, List[Any]] = {"true": [], "false": [], "none": [], "refused": []}
    tail = "" if tensor_method else _tail(obj)
    for src in pool:
        try:
            first = _outcome(obj, src, env, tail)
            second = _outcome(obj, src, env, tail)
        except Exception:  # the value itself could not be built here
            continue
        if first != second or first[0] == "other":
            continue
        kind, exc = first
        cases[kind].append([src, exc] if kind == "refused" else src)
    # a refusal of a value of the right kind first (a word, a number) over one of a tensor
    cases["refused"].sort(key=lambda case: case[0] in TENSORS)
    cases = dict((k, v[:KEEP]) for k, v in cases.items())
    if cases["true"] and cases["false"]:
        kind = "predicate"
    elif cases["none"] and cases["refused"]:
        kind = "validator"
    else:
        return {
            "found": False,
            "problem": "no candidate argument gave both outcomes (true %d, false %d, "
            "accepted %d, refused %d)"
            % tuple(len(cases[k]) for k in ("true", "false", "none", "refused")),
        }
    return cast(
        CheckerFacts,
        dict(
            {
                "found": True,
                "kind": kind,
                "uses_io": any("io." in str(c) for v in cases.values() for c in v),
                "tail": tail,
            },
            **cases,
        ),
    )
