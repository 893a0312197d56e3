"""The ``measured`` family: scenarios the agent found and measured on the CPU, repeated on the device.

Each scenario builds a receiver (a recipe or the class's own constructor),
names its arguments, calls the API and asserts what the call gave on the CPU:
the result (values, dtype and shape of tensors, types, lengths, public
attributes), the receiver and arguments it changed, files it wrote, and for
a setter the state its getter reads afterwards. Invalid calls (an argument of
no expected type) assert the exception type measured on the CPU.
"""

from __future__ import annotations

import re

from ..agent.facts.schema_probe import Scenario
from ..api.records import ApiInfo
from .code import (
    FLOAT_ATOL,
    FLOAT_RTOL,
    Spelling,
    check_line,
    indent,
    method,
    safe_name,
    uses,
    wrap_finally,
    wrap_tmp,
)
from .facts import Facts
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of


def owner_spelling(info: ApiInfo) -> str:
    r = info.resolution
    if not r.owner_class:
        return ""
    spelled = spelling_of(r)
    return spelled.rsplit(".", 1)[0] if "." in spelled else r.owner_class


def _explicit_member(call: str, receiver: str, setup: list[str], owner: str, leaf: str) -> str:
    """``recv.leaf(args)`` as ``Owner.leaf(recv, args)`` when the receiver's type is not written out.

    A reader (and the checklist's call finder) then sees the API named in the
    call itself, whatever built the receiver.
    """
    if not receiver or not owner or not call.startswith(f"{receiver}.{leaf}("):
        return call
    binding = next((line for line in reversed(setup) if line.startswith(f"{receiver} = ")), "")
    if binding.startswith(f"{receiver} = {owner}("):
        return call
    args = call[len(f"{receiver}.{leaf}(") : -1]
    return f"{owner}.{leaf}({receiver}{', ' + args if args.strip() else ''})"


def scenario_body(sc: Scenario, sp: Spelling, info: ApiInfo) -> list[str]:
    r = info.resolution
    leaf = r.path.rsplit(".", 1)[-1]
    setup = [sp.apply(line) for line in sc.get("setup", [])]
    call = sp.apply(sc["call"])
    if r.kind == "method" and r.owner_class:
        call = _explicit_member(call, sc.get("receiver", ""), setup, sp.owner, leaf)
    inside = [check_line(c[1:], sp) for c in sc.get("checks", []) if c and c[0] == "inside"]
    after = [
        check_line(c, sp) for c in sc.get("checks", []) if c and c[0] not in ("inside",) + EFFECTS
    ]
    body: list[str] = []
    if sc.get("context"):
        body += [f"with {call} as result:", *indent(inside or ["pass"])]
    elif sc.get("statement"):
        body.append(call)
    elif sc.get("listify"):
        body.append(f"result = list({call})")
    else:
        body.append(f"result = {call}")
    body = effect_wrapped(body, [c for c in sc.get("checks", []) if c and c[0] in EFFECTS])
    body += after
    teardown = [sp.apply(line) for line in sc.get("teardown", [])]
    if sc.get("remove_handle"):
        teardown = ["result.remove()", *teardown]
    prelude = [sp.apply(line) for line in sc.get("prelude", [])]
    # the process group before the ``try``; what follows it (a device mesh) inside, so the teardown runs
    saved = prelude[:1] + [line for line in setup if line.startswith("saved")]
    rest = prelude[1:] + [line for line in setup if not line.startswith("saved")]
    lines = saved + wrap_finally(rest + body, teardown) if teardown else prelude + setup + body
    if any(uses(line, sp.tmp) for line in lines):
        lines = wrap_tmp(lines, sp.tmp)
    return lines


EFFECTS = ("logs", "warns")


def effect_wrapped(call: list[str], effects: list[list[str]]) -> list[str]:
    """The call inside ``assertLogs``/``assertWarns`` for each log record or warning it was measured to emit."""
    for n, (kind, where, payload) in enumerate(effects):
        var = f"{kind[:-1]}ged" if kind == "logs" else "warned"
        var += str(n) if n else ""
        if kind == "logs":
            level, _, message = payload.partition(":")
            call = [
                f"with self.assertLogs({where!r}, level={level!r}) as {var}:",
                *indent(call),
                f"self.assertIn({message!r}, [r.getMessage() for r in {var}.records])",
            ]
        else:
            call = [
                f"with self.assertWarns({where}) as {var}:",
                *indent(call),
                f"self.assertIn({payload!r}, [str(w.message) for w in {var}.warnings])",
            ]
    return call


def invalid_body(scenarios: list[Scenario], sp: Spelling, info: ApiInfo) -> list[str]:
    r = info.resolution
    leaf = r.path.rsplit(".", 1)[-1]
    lines: list[str] = []
    for sc in scenarios:
        setup = [sp.apply(line) for line in sc.get("setup", []) if not line.startswith("saved")]
        call = sp.apply(sc["call"])
        if r.kind == "method" and r.owner_class:
            call = _explicit_member(call, sc.get("receiver", ""), setup, sp.owner, leaf)
        block = [*setup, f"with self.assertRaises({sc['raises']}):", f"    {call}"]
        teardown = [sp.apply(line) for line in sc.get("teardown", [])]
        if teardown:
            saved = [sp.apply(line) for line in sc.get("prelude", [])]
            saved += [sp.apply(line) for line in sc.get("setup", []) if line.startswith("saved")]
            block = saved + wrap_finally(block, teardown)
        lines += block
    if any(uses(line, sp.tmp) for line in lines):
        lines = wrap_tmp(lines, sp.tmp)
    return lines


def measured_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    probe = facts.get("probe") or {}
    valid = list(probe.get("valid") or [])
    invalid = [s for s in probe.get("invalid") or [] if s.get("raises")]
    if not valid:
        raise CannotDecide(probe.get("problem") or "no measured call")
    spelling = spelling_of(r)
    sp = Spelling(api=spelling, owner=owner_spelling(info), device=device)
    stem = stem_of(r)
    methods = []
    names: set[str] = set()
    for n, sc in enumerate(valid):
        name = (
            f"test_{stem}" if n == 0 else f"test_{stem}_{safe_name(sc.get('varies') or str(n + 1))}"
        )
        while name in names:
            name += "_2"
        names.add(name)
        methods.append((name, scenario_body(sc, sp, info)))
    if invalid:
        methods.append((f"test_{stem}_invalid_arguments", invalid_body(invalid, sp, info)))

    plan_methods = tuple(Method(name, method(name, body)) for name, body in methods)
    text = "\n".join(m.source for m in plan_methods)
    imports = list(probe.get("imports") or [])
    if re.search(r"\bos\.", text):
        imports.append("import os")
    if "tempfile." in text:
        imports.append("import tempfile")
    if re.search(r"\bdatetime\.", text):
        imports.append("import datetime")
    floats = "torch.testing.assert_close(" in text and f"rtol={FLOAT_RTOL}" in text
    version = facts.get("torch_version", "")
    summary = (
        f"{len(valid)} call(s) of {spelling} measured on the CPU with torch {version}, repeated on the "
        "device: the result, and the receiver, arguments, files and state the call changed"
        + (
            f"; {len(invalid)} invalid call(s) raise the exception measured on the CPU"
            if invalid
            else ""
        )
        + (f" (floats compared with rtol={FLOAT_RTOL}, atol={FLOAT_ATOL})" if floats else "")
        + "."
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="measured",
        stem=stem,
        methods=plan_methods,
        imports=tuple(dict.fromkeys(imports)),
        summary=summary,
        coverage=coverage_rows(
            omitted="可选参数省略与显式传入" if any(s.get("varies") for s in valid) else "",
            boundary="参数 "
            + "、".join(sorted({s["varies"] for s in valid if s.get("varies")}))
            + " 的其他取值"
            if any(s.get("varies") for s in valid)
            else "",
            normal=f"{len(valid)} 个调用场景：返回值、调用后对象与参数的状态与 CPU 实测一致",
            invalid=f"{len(invalid)} 个非法调用，异常类型与 CPU 实测一致" if invalid else "",
        ),
        uses_device=uses(text, device) or device in text,
        facts=facts,
    )
