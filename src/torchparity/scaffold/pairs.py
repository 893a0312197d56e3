"""The ``pair`` family: a function and its partner, one moving a state the other reads.

Tried after ``measured`` (with the switch), before the fill-in, for functions
named as one side of a pair (``enable_X``/``disable_X``, ``is_X_enabled``,
``is_enabled``, ``get_X``). The agent (``agent/facts/pairs.py``) finds the
partner by name and measures the state:

* ``toggle``: the enable and the disable, each followed by the readers the
  agent found telling them apart (their values measured after each), the
  state found restored in a ``finally``;
* ``receiver``: the disable and the enable on an object of the function's
  module (a ``FakeQuantize``): the attributes each sets;
* ``getter``: the API is the getter of a switch: each value its setter takes
  set through the setter and read back through the API, restored after.

Whichever side is the API, a stand-in returning a sentinel in its place makes
the test fail: a reader reads the sentinel, a setter leaves the state unmoved.
"""

from __future__ import annotations

import re

from ..agent.facts.schema_probe import PairFacts, SwitchFacts
from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .switches import switch_tests

PAIR = re.compile(r"^_?(enable|disable)(_.+)?$|^_?(is_enabled|is_.+_enabled|.+_enabled|get_.+)$")
#: a side of a nesting pair (``autocast_increment_nesting``, ``_enter_inference_mode``, ``_push_on_X_stack``)
NEST = re.compile(r"(^|_)(increment|decrement|enter|exit|push_on|push|pop)(_|$)")


def pair_leaf(info: ApiInfo) -> bool:
    r = info.resolution
    leaf = r.path.rsplit(".", 1)[-1]
    return r.kind in ("function", "builtin", "staticmethod") and bool(
        PAIR.match(leaf) or NEST.search(leaf)
    )


def _call(fn: str, args: str, returns_none: bool) -> str:
    return f"self.assertIsNone({fn}({args}))" if returns_none else f"{fn}({args})"


def _toggle(X: str, pr: PairFacts) -> tuple[list[str], str]:
    enable, disable = str(pr["enable"]).replace("_API_", X), str(pr["disable"]).replace("_API_", X)
    args = str(pr.get("args") or "")
    readers = [(str(src).replace("_API_", X), str(on), str(off)) for src, on, off in pr["readers"]]
    first, on0, _ = readers[0]
    body = [
        f"saved = {first}",
        "try:",
        "    " + _call(enable, args, bool(pr.get("enable_returns_none"))),
    ]
    body += [f"    self.assertEqual({src}, {on})" for src, on, _ in readers]
    body += ["    " + _call(disable, "", bool(pr.get("disable_returns_none")))]
    body += [f"    self.assertEqual({src}, {off})" for src, _, off in readers]
    same = "is" if on0 in ("True", "False", "None") else "=="
    body += [
        "finally:",
        f"    if saved {same} {on0}:",
        f"        {enable}({args})",
        "    else:",
        f"        {disable}()",
        f"self.assertEqual({first}, saved)  # restored",
    ]
    names = ", ".join(src for src, _, _ in readers)
    return (
        body,
        f"{enable}({args}) and {disable}() each read back through {names} (values measured on the CPU), "
        "the state found restored after",
    )


def _receiver(X: str, pr: PairFacts) -> tuple[list[str], str]:
    enable, disable = str(pr["enable"]).replace("_API_", X), str(pr["disable"]).replace("_API_", X)
    body = [f"mod = {pr['receiver']}", _call(disable, "mod", bool(pr.get("disable_returns_none")))]
    body += [f"self.assertEqual({src}, {off})" for src, _, off in pr["moved"]]
    body += [_call(enable, "mod", bool(pr.get("enable_returns_none")))]
    body += [f"self.assertEqual({src}, {on})" for src, on, _ in pr["moved"]]
    body += [_call(disable, "mod", bool(pr.get("disable_returns_none")))]
    body += [f"self.assertEqual({src}, {off})  # and off again" for src, _, off in pr["moved"]]
    names = ", ".join(src for src, _, _ in pr["moved"])
    return (
        body,
        f"{disable} and {enable} on {pr['receiver']}: {names} after each (measured on the CPU)",
    )


def _nesting(X: str, pr: PairFacts) -> tuple[dict[str, list[str]], str]:
    up, down = str(pr["up"]).replace("_API_", X), str(pr["down"]).replace("_API_", X)
    args = str(pr.get("args") or "")
    tests: dict[str, list[str]] = {}
    parts = []
    readers = [
        (str(src).replace("_API_", X), str(inside), str(outside))
        for src, inside, outside in pr["readers"]
    ]
    if readers:
        body = [f"token = {up}({args})", "try:"]
        body += [f"    self.assertEqual({src}, {inside})" for src, inside, _ in readers]
        body += ["finally:", f"    {down}({'token' if pr.get('token') else ''})"]
        body += [f"self.assertEqual({src}, {outside})  # as before" for src, _, outside in readers]
        tests["inside_and_after"] = body
        parts.append(
            f"{', '.join(src for src, _, _ in readers)} inside {up}({args}) and after {down} "
            "(values measured on the CPU)"
        )
    relation = pr.get("relation")
    if relation:

        def offset(k: int) -> str:
            return "first" if k == 0 else f"first + {k}" if k > 0 else f"first - {-k}"

        tests["returns"] = [
            f"first = {up}({args})",
            f"self.assertEqual({up}({args}), first + 1)  # one deeper",
            f"self.assertEqual({down}(), {offset(relation[2])})",
            f"self.assertEqual({down}(), {offset(relation[3])})",
        ]
        parts.append(f"the depths {up} and {down} return, one level apart (measured on the CPU)")
    if not tests:
        raise CannotDecide("no reader and no depth returned")
    return tests, "; ".join(parts)


def pair_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    pr = facts.get("pair") or {}
    if not pr.get("found"):
        raise CannotDecide(pr.get("problem") or "no pair facts")
    X = spelling_of(r)
    stem = stem_of(r)
    kind = pr.get("kind")
    uses_device = False
    if kind == "toggle":
        body, what = _toggle(X, pr)
        tests = {"toggle": body}
    elif kind == "receiver":
        body, what = _receiver(X, pr)
        tests = {"toggle": body}
    elif kind == "version":
        step = int(pr["step"])
        call = f"self.assertIsNone({X}(t))" if pr.get("returns_none") else f"{X}(t)"
        tests = {
            "version": [
                "t = torch.zeros(3, device=DEVICE)",
                "view = t.view(-1)",
                "before = t._version",
                call,
                f"self.assertEqual(t._version, before + {step})",
                f"self.assertEqual(view._version, before + {step})  # a view shares the counter",
                call,
                f"self.assertEqual(t._version, before + {2 * step})",
                "self.assertEqual(t.cpu().tolist(), [0.0, 0.0, 0.0])  # the values untouched",
            ]
        }
        what = f"the tensor's version counter {step} higher after each call (measured on the CPU), a view's too"
        uses_device = True
    elif kind == "nesting":
        tests, what = _nesting(X, pr)
    elif kind == "getter":
        sw: SwitchFacts = {
            **pr["switch"],
            "getter": str(pr["switch"].get("getter") or "").replace("_API_", X),
        }
        tests, what, uses_device = switch_tests(str(pr["setter"]), sw)
        what = f"through its setter {pr['setter']}: {what}"
    else:
        raise CannotDecide(f"no pair template for a {kind}")
    methods = tuple(
        lines_method(f"test_{stem}_{suffix}", [line.replace("DEVICE", device) for line in lines])
        for suffix, lines in tests.items()
    )
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="pair",
        stem=stem,
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(enum="开启与关闭（或逐一取值）后读回", normal=what),
        uses_device=uses_device,
        facts=facts,
    )
