"""The ``>>>`` examples of an API's docstring, run here: which ones reproduce their printed results.

The examples run in order in one namespace, as doctest runs them. An example
whose printed result is a value (a tensor repr, a number, a list, a dict...)
is kept when the value computed here matches it (tensors: shape, dtype, and
values within the 4 decimals a repr prints); one that documents an exception
is kept when the same exception type is raised. A random tensor the docstring
prints right after drawing it is replaced by the printed values, so what the
docstring computes from it reproduces too. Examples that need CUDA, the
network or a file, and ones whose result differs here, are left out with the
reason.
"""

from __future__ import annotations

import collections
import contextlib
import doctest
import inspect
import io
import math
import re
import sys
import warnings
from typing import Any, Dict, List, Optional, cast

from ..protocol import Json, TorchModule
from .literal import exc_name
from .schema import DoctestExample, DoctestFacts

TOLERANCE = 1e-4
MAX_EXAMPLES = 40
_NEEDS = (
    (re.compile(r"\.cuda\(|['\"]cuda(:\d+)?['\"]|torch\.cuda\.|\bcuda\b\s*="), "needs CUDA"),
    (re.compile(r"https?://|hub\.load|download|urlopen"), "needs the network"),
    (
        re.compile(
            r"\bopen\(|['\"][^'\"]+\.(pt|pth|pkl|json|txt|csv|onnx|zip|tar)['\"]|tempfile|os\.remove"
        ),
        "needs a file",
    ),
    (
        re.compile(r"\bdist\.|init_process_group|torch\.distributed\.|mp\.spawn|Pool\("),
        "needs several processes",
    ),
)
_RANDOM = re.compile(r"torch\.(randn|rand|randint|randperm|normal|empty|randn_like|rand_like)\(")
_GRAD_FN = re.compile(r",\s*grad_fn=<[^>]*>")


def needs(source: str) -> str:
    for pattern, why in _NEEDS:
        if pattern.search(source):
            return why
    return ""


def want_source(want: str) -> Optional[str]:
    """The printed result as Python source (``tensor(`` as ``torch.tensor(``), or None."""
    text = want.strip()
    if not text or text.startswith("<") or "..." in text:
        return None
    text = _GRAD_FN.sub("", text)
    text = re.sub(r"(?<![\w.])tensor\(", "torch.tensor(", text)
    text = re.sub(r"\s*\n\s*", " ", text)
    if "device=" in text:
        text = re.sub(r",\s*device='[^']*'", "", text)
    return text


def _close(torch: TorchModule, actual: Any, expected: Any) -> bool:
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return False
        if actual.shape != expected.shape or actual.dtype != expected.dtype:
            return False
        if actual.is_complex() or actual.is_floating_point():
            return bool(
                torch.allclose(
                    actual.detach().cpu().to(expected.dtype),
                    expected,
                    rtol=TOLERANCE,
                    atol=TOLERANCE,
                    equal_nan=True,
                )
            )
        return bool(torch.equal(actual.detach().cpu(), expected))
    if (
        isinstance(expected, float)
        and isinstance(actual, (float, int))
        and not isinstance(actual, bool)
    ):
        return math.isclose(actual, expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE) or (
            math.isnan(expected) and math.isnan(actual)
        )
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(
            _close(torch, actual[i], e) for i, e in enumerate(expected)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return list(actual) == list(expected) and all(
            _close(torch, actual[k], expected[k]) for k in expected
        )
    try:
        return type(actual) is type(expected) and bool(actual == expected)
    except Exception:
        return False


def _namespace(torch: TorchModule, obj: Any, leaf: str) -> Dict[str, Any]:
    ns: Dict[str, Any] = {
        "torch": torch,
        "math": math,
        "namedtuple": collections.namedtuple,
        "nn": torch.nn,
        "F": torch.nn.functional,
    }
    try:
        import numpy

        ns["np"] = ns["numpy"] = numpy
    except ImportError:
        pass
    if leaf and leaf.isidentifier():
        ns[leaf] = obj
    return ns


def _value_source(source: str) -> str:
    """The expression an example shows: the source itself, or the argument of a ``print``."""
    text = source.strip()
    m = re.match(r"^print\((.*)\)$", text, re.S)
    return m.group(1) if m else text


def _run(
    torch: TorchModule, examples: List[DoctestExample], obj: Any, leaf: str
) -> List[DoctestExample]:
    """Outcome per example (kept or left out, and why), running them in order in one namespace."""
    ns = _namespace(torch, obj, leaf)
    out: List[DoctestExample] = []
    for ex in examples:
        source = ex["source"]
        record = cast(DoctestExample, dict(ex, kept=False, why=""))
        why = needs(source)
        if why:
            record["why"] = why
            out.append(record)
            continue
        buffer = io.StringIO()
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(buffer):
                warnings.simplefilter("ignore")
                if ex.get("raises"):
                    try:
                        exec(compile(source, "<example>", "exec"), ns)
                    except Exception as exc:
                        if exc_name(exc) == ex["raises"] or type(exc).__name__ == ex["raises"]:
                            record["kept"] = True
                            record["raises"] = exc_name(exc)
                        else:
                            record["why"] = "raises %s here, not %s" % (
                                type(exc).__name__,
                                ex["raises"],
                            )
                    else:
                        record["why"] = "raises nothing here, the docstring shows %s" % ex["raises"]
                    out.append(record)
                    continue
                if not ex["want"]:
                    exec(compile(source, "<example>", "exec"), ns)
                    record["kept"] = True
                    out.append(record)
                    continue
                expected_src = want_source(ex["want"])
                if expected_src is None:
                    record["why"] = "its printed result is not a Python value"
                    exec(compile(source, "<example>", "exec"), ns)
                    out.append(record)
                    continue
                shown = _value_source(source)
                value = eval(compile(shown, "<example>", "eval"), ns)
            try:
                expected = eval(
                    expected_src,
                    {
                        "torch": torch,
                        "inf": float("inf"),
                        "nan": float("nan"),
                        "Point": collections.namedtuple("Point", ["x", "y"]),
                    },
                )
            except Exception:
                record["why"] = "its printed result is not a Python value"
                out.append(record)
                continue
            if _close(torch, value, expected):
                record.update({"kept": True, "shown": shown, "expected": expected_src})
            else:
                record["why"] = "its printed result differs here (random, or out of date)"
        except SyntaxError:
            record["why"] = "it is not a Python expression or statement"
        except Exception as exc:
            record["why"] = "raises %s here" % type(exc).__name__
        out.append(record)
    return out


def _replay_random(
    examples: List[DoctestExample], outcomes: List[DoctestExample]
) -> Optional[List[DoctestExample]]:
    """Examples where a random draw the docstring prints next is replaced by the printed values."""
    changed = False
    fixed = [cast(DoctestExample, dict(ex)) for ex in examples]
    for i, ex in enumerate(fixed[:-1]):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*) = (.*)$", ex["source"].strip(), re.S)
        nxt = fixed[i + 1]
        if (
            not m
            or not _RANDOM.search(m.group(2))
            or nxt["source"].strip() != m.group(1)
            or not nxt["want"]
        ):
            continue
        printed = want_source(nxt["want"])
        if printed is None or not printed.startswith("torch.tensor("):
            continue
        ex["source"] = "%s = %s\n" % (m.group(1), printed)
        ex["replayed"] = m.group(2).strip()
        changed = True
    return fixed if changed else None


def doctest_facts_here(torch: TorchModule, obj: Any, res: Json) -> DoctestFacts:
    """{"examples": [...], "kept": n, "problem"}: the docstring's examples and what they give here."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or ">>>" not in doc:
        return {"examples": [], "kept": 0, "problem": "its docstring has no >>> example"}
    try:
        parsed = doctest.DocTestParser().get_examples(inspect.cleandoc(doc))
    except ValueError as exc:
        return {"examples": [], "kept": 0, "problem": "its examples do not parse: %s" % exc}
    examples: List[DoctestExample] = []
    for ex in parsed[:MAX_EXAMPLES]:
        raises = ""
        if ex.exc_msg:
            m = re.match(r"^([A-Za-z_][A-Za-z0-9_.]*)", ex.exc_msg)
            raises = m.group(1).rsplit(".", 1)[-1] if m else ""
        examples.append(
            {
                "source": ex.source,
                "want": "" if raises else ex.want,
                "raises": raises,
                "line": ex.lineno,
            }
        )
    leaf = res["path"].rsplit(".", 1)[-1]
    outcomes = _run(torch, examples, obj, leaf)
    replayed = _replay_random(examples, outcomes)
    if replayed is not None:
        again = _run(torch, replayed, obj, leaf)
        if sum(1 for o in again if o["kept"] and o.get("expected")) > sum(
            1 for o in outcomes if o["kept"] and o.get("expected")
        ):
            outcomes = again
    checked = sum(1 for o in outcomes if o["kept"] and (o.get("expected") or o.get("raises")))
    problem = (
        "" if checked else "no example reproduces a printed result or a documented exception here"
    )
    sys.stdout.flush()
    return {"examples": outcomes, "kept": checked, "problem": problem, "leaf": leaf}


def doctest_facts(torch: TorchModule, obj: Any, res: Json, device_type: str = "") -> DoctestFacts:
    """``doctest_facts_here`` in a forked child (``isolate.run_isolated``): what its calls change
    in this interpreter (a global mode, a registry) stays there, and a call that aborts costs only the
    child."""
    from .isolate import isolated_facts

    return isolated_facts("docstring example", doctest_facts_here, (torch, obj, res), device_type)
