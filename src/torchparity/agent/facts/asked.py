"""What a failed call's message asks for: the next try of the probe reads it.

An optional parameter it names (``'probs' or 'logits' must be specified``), the values it lists
(``expected rounding_mode to be one of None, 'trunc', or 'floor'``), the kind of value it wants for the
first argument (a code object, a square matrix), the type a parameter must have (``argument 'x'
(position 1) must be tuple of Tensors``), a tensor of indices, and a call it asks for first
(``Please call `consolidate_state_dict(to=0)` beforehand``). These are the recipes of the value chain
(``names.py``): what the API itself says it wants, read before any guess by name.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

_CHOICES = re.compile(
    r"[`'\"]?\b([A-Za-z_]\w*)[`'\"]?\s+(?:to be|must be|should be|needs to be|can only be)\s+"
    r"(?:either\s+)?(?:one of|in)\b[\s:]*(.*)",
    re.S,
)
_CHOICE_ITEM = re.compile(r"'([^'\n]{0,40})'|\"([^\"\n]{0,40})\"|\b(None|True|False)\b")


#: what a message says the argument should have been -> the category tried for the first parameter
WANTED_KINDS = (
    (r"expected an? code object|must be a code object", "code"),
    (r"a bytes-like object is required|expected a bytes-like object", "bytes"),
    (r"issubclass\(\) arg 1 must be a class|must be a (?:subclass|class)\b", "class"),
    (r"does not require grad|doesn't require grad|does not have a grad_fn", "grad_tensor"),
    (r"isFunctionalTensor\(", "functional_tensor"),
    (r"(?:batch(?:es)? of )?square matri|must have at least 2 dimensions", "square_matrix"),
    (r"could not find destination (?:name|id)", "worker"),  # an RPC's ``to``
    # the function given to ``hvp``, ``vhp``, ``hessian``: one of a tensor to a scalar
    (
        r"(?:returned by|given to) .*should (?:contain|return) (?:a Tensor with )?a single element",
        "scalar_fn",
    ),
)


def choices_named(message: str) -> Tuple[str, List[str]]:
    """(parameter, [value source]) an error lists the allowed values of ("expected rounding_mode to be one
    of None, 'trunc', or 'floor' but found 'x'"), or ("", [])."""
    m = _CHOICES.search(message or "")
    if not m:
        return "", []
    rest = re.split(r"\b(?:but|got|found|instead|received)\b", m.group(2), maxsplit=1, flags=re.I)[
        0
    ][:300]
    out = []
    for q1, q2, word in _CHOICE_ITEM.findall(rest):
        src = word or repr(q1 if q1 or not q2 else q2)
        if src not in out:
            out.append(src)
    return (m.group(1), out[:6]) if len(out) >= 1 else ("", [])


#: what a failed call says when an argument must hold indices: (pattern, hint key: "#N" a place, else a name)
INDEX_ERRORS = (
    (r"argument #(\d+) '\w+' to have one of the following scalar types: (?:Long|Int)", "#%s"),
    (r"'(\w+)' argument should be a \w* ?(?:CPU )?int64 tensor", "%s"),
    (r"[Ee]xpected (\w+) to be (?:a )?(?:Long|int64|integer)", "%s"),
)
#: what a failed call says when it needs an optional parameter after all (its name, group 1)
WANTED_ERRORS = (
    r"[`'\"](\w+)[`'\"] (?:or [`'\"]\w+[`'\"] )?(?:must|should|needs to|has to) be (?:specified|given|provided|passed|set)",
    r"(?:[Ss]pecify|[Pp]rovide|[Pp]ass|[Ss]et) (?:either )?(?:the )?(?:argument |parameter )?[`'\"](\w+)[`'\"]",
    r"[Rr]equires? (?:the |an? )?(?:argument |parameter |keyword )?[`'\"](\w+)[`'\"]",
    r"[`'\"](\w+)[`'\"] (?:is required|must not be None|cannot be None|should not be None)",
    r"^(\w+) must be (?:provided|specified|given) for",  # a QAT module's "qconfig must be provided for QAT module"
    r"\b(?:[Tt]he (?:vector |argument |parameter )?)?(\w+) can only be None if",  # autograd.functional.jvp's v
)


def wanted_names(message: str) -> List[str]:
    """Names of the parameters a failed call's message asks for."""
    out = []
    for pattern in WANTED_ERRORS:
        out += [n for n in re.findall(pattern, message) if n not in out]
    return out


def read_type_errors(message: str, hints: Dict[str, str]) -> None:
    """Adds to ``hints`` what ``message`` asks of the parameters: ``+name`` -> "given" or "missing" (an
    optional parameter it needs after all, one no signature named), ``name`` or ``#N`` -> a category of
    values (its place or its name), ``name`` -> ``choice:a|b`` (the values it lists)."""
    for name in wanted_names(
        message
    ):  # an optional parameter the call needs after all: given next round
        hints["+" + name] = "given"
    # a parameter no signature named, asked for by the call (``from_buffer(b"..")``: "byte_order (pos 2)")
    m = re.search(r"missing required argument '([A-Za-z_]\w*)' \(pos \d+\)", message)
    if m:
        hints["+" + m.group(1)] = "missing"
    for pattern, key in INDEX_ERRORS:  # a tensor of indices, by the argument's place or name
        m = re.search(pattern, message)
        if m:
            hints[key % m.group(1)] = "index"
    for pattern, cat in WANTED_KINDS:  # "expected a code object": the first argument's kind
        if re.search(pattern, message):
            hints.setdefault("#1", cat)
    name, choices = choices_named(message)
    if name and choices:  # "expected rounding_mode to be one of None, 'trunc', or 'floor'"
        hints[name] = "choice:" + "|".join(choices)
    m = re.search(r"argument '(\w+)' \(position \d+\) must be ([\w .]+?)(?:,|$| not)", message)
    if not m:
        return
    wanted = m.group(2)
    cat = (
        "class"
        if wanted.startswith("a class") or wanted == "type"
        else "tensors"
        if "tuple of Tensors" in wanted
        else "tensor"
        if "Tensor" in wanted
        else "size"
        if "tuple of ints" in wanted
        else "int"
        if wanted.startswith("int")
        else "bool"
        if wanted.startswith("bool")
        else "float"
        if wanted.startswith(("float", "Number", "Scalar", "number"))
        else "str"
        if wanted.startswith("str")
        else "device"
        if wanted.lower().startswith(("device", "torch.device"))
        else "dtype"
        if "dtype" in wanted
        else ""
    )
    if cat:
        hints[m.group(1)] = cat


def asked_calls(message: str, found: List[Tuple[str, str]]) -> None:
    """Adds to ``found`` each (method, arguments) the message asks to be called first (``Please call
    `consolidate_state_dict(to=0)` ... beforehand``)."""
    for m in re.finditer(
        r"\b[Cc]all [`'\"]?(?:\w+\.)?(\w+)\(([\w=., \"']*)\)[^.;]*?"
        r"\b(?:first|before|beforehand|prior)\b",
        message,
    ):
        if (m.group(1), m.group(2)) not in found:
            found.append((m.group(1), m.group(2)))
