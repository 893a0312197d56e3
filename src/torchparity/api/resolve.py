"""Resolve API names and trace what they dispatch, by asking the agent in the target interpreter.

The controller never imports torch: every lookup and every trace is an agent
job (``resolve``, ``trace``) run through ``exec.make_runner``. This module turns
the agent's answers into frozen records and classifies them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..exec.session import AgentSession, agent_session  # noqa: F401  (torchparity.api hands them on)
from ..names import name_patterns
from .classify import classify
from .records import ApiInfo, Resolution, Trace, merge_traces

#: a dotted Python name, optionally written with a trailing ``()`` as in prose
_API_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\(\))?$")

#: seconds for resolving names (with their call samples)
RESOLVE_TIMEOUT = 300.0
#: further seconds a traced name may take: an API without a call sample is traced over a call the
#: facts probe builds (the probe's child: 40 s at most, tried twice where a call crashed it; then
#: at most two of its calls, 20 s each)
PROBED_TRACE_TIMEOUT = 150.0
#: seconds for tracing one test file
TRACE_FILE_TIMEOUT = 900.0


class UnresolvedApi(UsageError):
    """A name that names nothing (with suggestions) or several things (with candidates)."""

    def __init__(
        self, query: str, suggestions: list[str], candidates: list[str], message: str
    ) -> None:
        super().__init__(message)
        self.query = query
        self.suggestions = suggestions
        self.candidates = candidates


def unresolved_error(items: list[dict[str, Any]]) -> UnresolvedApi:
    """One line for the first unresolved name (and how many more there are)."""
    item = items[0]
    query = item["query"]
    if item["status"] == "ambiguous":
        cands = item["candidates"]
        msg = (
            f"API {query!r} is ambiguous: it names {len(cands)} different objects "
            f"({', '.join(cands)}); pass one of them in full"
        )
    else:
        where = item.get("furthest") or ""
        missing = item.get("missing") or query
        head = f"unknown API {query!r}: " + (
            f"{where} has no {missing!r}" if where else f"no module or name {missing!r}"
        )
        sugg = item.get("suggestions") or []
        msg = head + (
            f"; did you mean: {', '.join(sugg)}?"
            if sugg
            else "; check the spelling or write the name in full"
        )
    if len(items) > 1:
        msg += (
            f" (and {len(items) - 1} more unresolved: {', '.join(i['query'] for i in items[1:])})"
        )
    return UnresolvedApi(
        query, list(item.get("suggestions") or []), list(item.get("candidates") or []), msg
    )


def _trace_or_none(doc: dict[str, Any] | None) -> Trace | None:
    return Trace.from_json(doc) if doc else None


def _check_file(path: str | Path) -> str:
    p = Path(path)
    if not p.is_file():
        raise UsageError(
            f"test file not found: {path}; pass an existing file to --test-file/--file"
        )
    return str(p.resolve())


def resolve_api(
    names: Sequence[str],
    python: str,
    backend_module: str = "",
    device: str = "auto",
    trace: bool = True,
    test_files: Sequence[str | Path] | None = None,
    *,
    patterns: Sequence[str] | None = None,
    mode: str = "warm",
    log_dir: Path | None = None,
    session: AgentSession | None = None,
    allow_cpu_fallback: bool = False,
) -> list[ApiInfo]:
    """Resolve ``names`` in ``python``; trace each (call sample, and ``test_files`` if given).

    With ``test_files`` the API's tests are the trace that classifies it (selected
    by ``patterns``, default: from the API's name); otherwise its call sample is.
    Raises ``UnresolvedApi`` (exit 2) for a name that names nothing or several things.
    """
    names = [n.strip() for n in names if n and n.strip()]
    if not names:
        raise UsageError("no API name given; pass at least one, e.g. torch.nn.functional.relu")
    for n in names:
        if not _API_NAME.match(n.strip("`")):
            raise UsageError(
                f"{n!r} is not an API name; write a dotted Python name, e.g. torch.nn.functional.relu"
            )
    files = [_check_file(f) for f in (test_files or [])]
    if session is None:
        with agent_session(
            python,
            backend_module,
            device,
            mode=mode,
            log_dir=log_dir,
            allow_cpu_fallback=allow_cpu_fallback,
        ) as s:
            return resolve_api(
                names, python, backend_module, device, trace, files, patterns=patterns, session=s
            )
    timeout = RESOLVE_TIMEOUT + (PROBED_TRACE_TIMEOUT * len(names) if trace else 0.0)
    answer = session.call("resolve", {"names": names, "trace": bool(trace)}, timeout)
    items = answer.get("results", [])
    bad = [i for i in items if i.get("status") != "ok"]
    if bad:
        raise unresolved_error(bad)
    device_type = str(answer.get("device_type", ""))
    out = []
    for item in items:
        res = Resolution.from_json(item["resolution"])
        sample = _trace_or_none(item.get("trace"))
        traces = [sample] if sample is not None else []
        chosen = sample
        if trace and files:
            pats = list(patterns) if patterns else name_patterns(res.path)
            file_traces = [_trace_file(session, f, pats) for f in files]
            traces += file_traces
            chosen = merge_traces(file_traces, ", ".join(t.target for t in file_traces))
        cls = classify(res, chosen, device_type, backend_module)
        out.append(ApiInfo(res, cls, chosen, device_type, tuple(traces)))
    return out


def _trace_file(session: AgentSession, path: str, patterns: Sequence[str]) -> Trace:
    answer = session.call("trace", {"file": path, "patterns": list(patterns)}, TRACE_FILE_TIMEOUT)
    return Trace.from_json(answer["trace"])


def trace_file(
    path: str | Path,
    python: str,
    patterns: Sequence[str] = (),
    backend_module: str = "",
    device: str = "auto",
    *,
    mode: str = "warm",
    log_dir: Path | None = None,
    session: AgentSession | None = None,
    allow_cpu_fallback: bool = False,
) -> Trace:
    """Run the tests of ``path`` selected by ``patterns`` (all when none match) under the recorder."""
    file = _check_file(path)
    if session is None:
        with agent_session(
            python,
            backend_module,
            device,
            mode=mode,
            log_dir=log_dir,
            allow_cpu_fallback=allow_cpu_fallback,
        ) as s:
            return _trace_file(s, file, patterns)
    return _trace_file(session, file, patterns)


def trace_call(
    api: str | None,
    python: str,
    call: str | None = None,
    setup: str = "",
    teardown: str = "",
    backend_module: str = "",
    device: str = "auto",
    *,
    mode: str = "warm",
    log_dir: Path | None = None,
    allow_cpu_fallback: bool = False,
) -> Trace:
    """Trace ``call`` (code; ``api``/``owner`` bound when ``api`` is given) or ``api``'s call sample."""
    if call is not None and not call.strip():
        raise UsageError(
            '--call is empty; pass the code to trace, e.g. --call "api(torch.ones(2))"'
        )
    if not call and not api:
        raise UsageError("nothing to trace: pass an API name, --call CODE or --file TEST_FILE")
    args: dict[str, Any] = {"setup": setup, "teardown": teardown}
    if api:
        args["api"] = api
    if call:
        args["call"] = call
        _check_code(call, "--call")
        _check_code(setup, "--setup")
        _check_code(teardown, "--teardown")
    with agent_session(
        python,
        backend_module,
        device,
        mode=mode,
        log_dir=log_dir,
        allow_cpu_fallback=allow_cpu_fallback,
    ) as s:
        answer = s.call("trace", args, RESOLVE_TIMEOUT + PROBED_TRACE_TIMEOUT)
    if answer.get("trace") is None and answer.get("error"):
        raise UsageError(f"the agent refused the trace: {answer['error']}")
    if answer.get("unresolved"):
        raise unresolved_error([answer["unresolved"]])
    result = Trace.from_json(answer["trace"])
    if result.status == "no-sample":
        raise UsageError(
            f"{result.error}; pass the code to run with --call CODE (it sees torch, device, api, owner)"
        )
    return result


def _check_code(code: str, flag: str) -> None:
    """Catch a syntax error here, as one line, before an interpreter is started."""
    if not code:
        return
    try:
        compile(code, flag, "exec")
    except SyntaxError as exc:
        raise UsageError(
            f"{flag} is not valid Python: {exc.msg} (line {exc.lineno}); fix the code"
        ) from None


def with_test_traces(info: ApiInfo, traces: Sequence[Trace], backend_module: str = "") -> ApiInfo:
    """``info`` classified again by its tests' dispatch traces (as ``resolve --test-file`` does): the
    tests that ran on the device are better evidence than the call sample. No trace: ``info`` as is."""
    ran = [t for t in traces if t.tests_run]
    if not ran:
        return info
    chosen = merge_traces(ran, ", ".join(dict.fromkeys(t.target for t in ran)))
    cls = classify(info.resolution, chosen, info.device_type, backend_module)
    return ApiInfo(info.resolution, cls, chosen, info.device_type, (*info.traces, *ran))
