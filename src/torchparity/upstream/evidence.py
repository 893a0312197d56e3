"""The ``===== UPSTREAM TESTS =====`` section of an evidence log, and the literal commands it states.

The section is rendered from an ``UpstreamTarget`` alone: where the tests came
from, the disabled list (path, sha256, entries, the variable set to it), each
file's command exactly as run (the variables it sets or unsets, the interpreter,
the file, the selected test names) with the runner's own output, then one
``UPSTREAM_TEST=`` line per test and one ``UPSTREAM_STALE_ENTRY=`` line per list
entry that a recheck found passing (``UPSTREAM_PASSES_WITHOUT_LIST_EMULATED=`` on an
emulated device: no stale entry until it passes on hardware). The ``upstream`` verb's own log is this
section under the usual header and environment probe.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ..collect.evidence import probe_output
from ..emulated import device_label
from ..exec.ship import UNSET_VARIABLES
from ..records.upstream import UpstreamTarget, UpstreamTest
from ..textsafe import one_line

RULE = "=" * 50
SECTION = "===== UPSTREAM TESTS ====="


def command(
    python: str,
    argv: Sequence[str],
    set_vars: dict[str, str] | None = None,
    unset: Sequence[str] = (),
) -> str:
    """The literal command: the isolated environment, the variables set or unset, then the argv."""
    prefix = ["env", *[f"-u {n}" for n in (*UNSET_VARIABLES, *unset)], "PYTHONNOUSERSITE=1"]
    assigns = [f"{k}={shlex.quote(v)}" for k, v in (set_vars or {}).items()]
    return " ".join([*prefix, *assigns, shlex.join([python, *argv])])


def emulated_line(t: UpstreamTarget) -> str:
    """The EMULATED line of a target whose device is emulated on CPU (as the collect log says it)."""
    return (
        f"EMULATED={t.emulated} emulated on CPU: a dry run of the device paths, not hardware evidence; "
        "a disabled test passing here is no stale entry until it passes on hardware"
    )


def test_line(t: UpstreamTest) -> str:
    bits = [t.status]
    if t.outcome and t.outcome != t.status:
        bits.append(f"outcome:{t.outcome}")
    if t.entry is not None:
        e = t.entry
        bits.append(f"key:{e.key}")
        bits.append(f"reason:{e.reason or '(none given)'}")
        bits.append(f"platforms:{'|'.join(p for p in e.platforms if p) or 'all'}")
        if e.category:
            bits.append(
                f"category:{e.category}" + (f" ({e.category_detail})" if e.category_detail else "")
            )
    elif t.detail:
        bits.append(f"detail:{t.detail.strip().splitlines()[-1] if t.detail.strip() else ''}")
    if t.rechecked:
        bits.append(f"rechecked:{t.rechecked}")
    if t.opinfo:
        bits.append(f"opinfo:{t.opinfo}")
    return f"UPSTREAM_TEST={one_line(t.id or t.test)}:" + one_line(",".join(bits))


def section(t: UpstreamTarget) -> list[str]:
    """The section's lines (starting with a blank line, as every section of the log does)."""
    where = "backend vendored upstream files" if t.source == "backend" else "PyTorch"
    lines = [
        "",
        SECTION,
        f"UPSTREAM_SOURCE={one_line(f'{where} {t.ref} ({t.commit})')}",
        f"UPSTREAM_DEVICE={one_line(device_label(t.device, t.emulated))}",
    ]
    if t.emulated:
        lines.append(one_line(emulated_line(t)))
    if t.platform:
        lines.append(f"UPSTREAM_PLATFORM={one_line(t.platform)}")
    if t.disabled_list:
        lines.append(
            f"DISABLED_LIST={one_line(t.disabled_list)},sha256:{one_line(t.disabled_list_sha256)},"
            f"entries:{t.disabled_entries},unreadable_keys:{t.disabled_unreadable}"
        )
        lines.append(
            "DISABLED_LIST_APPLIED_BY=the selection, with the backend's rule (platform tags, class-name "
            "aliases): a test the list disables here is not passed to the command"
            + (
                f"; {one_line(t.disabled_variable)} is unset in the runs"
                if t.disabled_variable
                else ""
            )
        )
    else:
        lines.append("DISABLED_LIST=none (no disabled list configured, or none at this ref)")
    if t.error:
        lines.append(f"UPSTREAM_ERROR={one_line(t.error)}")
    runs = {f.path: [r for r in t.runs if r.file == f.path] for f in t.files}
    for f in t.files:
        lines += [
            f"UPSTREAM_FILE={one_line(f.path)}",
            f"UPSTREAM_FILE_SHA256={one_line(f.sha256)}",
            f"UPSTREAM_ENTRY={one_line(f.entry)}",
        ]
        if f.missing is not None:
            m = f.missing
            lines.append(
                f"UPSTREAM_NOT_STARTED={one_line(m.kind)}:{one_line(m.name)}"
                + (f",repo_lacks:{one_line(m.path)}" if m.in_repo and m.path else "")
                + (f",detail:{one_line(m.detail)}" if m.detail else "")
            )
        else:
            lines.append(
                f"UPSTREAM_FILE_TESTS=for_device:{f.tests_for_device},disabled_by_list:{f.disabled_for_device}"
            )
        for r in runs[f.path]:
            lines.append(f"COMMAND={one_line(r.command)}")
            if r.how:
                lines.append(f"EXECUTED_AS={one_line(r.how)}")
            if r.purpose == "recheck":
                lines.append("UPSTREAM_RECHECK=the disabled tests, run without the disabled list")
            if r.output:
                lines.extend(r.output.rstrip("\n").split("\n"))
            if r.status not in ("OK", "FAIL"):
                lines.append(f"UPSTREAM_STATUS={one_line(r.status)}")
            lines.append(f"UPSTREAM_EXIT_CODE={'' if r.exit_code is None else r.exit_code}")
            lines.append(
                f"UPSTREAM_RUNNER={one_line(r.runner_kind or 'none started')} (sessions started:{r.runner_sessions},"
                f"finished:{r.runner_finished},tests_run:{r.tests_run})"
            )
    for test in t.tests:
        lines.append(test_line(test))
    for entry in t.stale:
        where = f"{one_line(entry.list_file)}:{one_line(entry.key)}"
        if t.emulated:  # found on CPU kernels: no stale entry until it passes on hardware
            lines.append(f"UPSTREAM_PASSES_WITHOUT_LIST_EMULATED={where} (recheck on hardware)")
        else:
            lines.append(f"UPSTREAM_STALE_ENTRY={where}")
    lines.append(f"UPSTREAM_RESULT={one_line(t.result)}")
    return lines


def target_log(
    t: UpstreamTarget,
    probe_text: str,
    probe_exit: int | None,
    mode: str,
    facts: Sequence[Sequence[object]] = (),
) -> str:
    """The ``upstream`` verb's evidence log of one target (``facts``: the probe's, each printed fact of
    ``probe_text`` is then written on one line, as the collect log does)."""
    lines = [
        RULE,
        f"TARGET_BRANCH={one_line(t.ref)}",
        f"COMMIT={one_line(t.commit)}",
        f"PYTHON={one_line(t.python)}",
    ]
    for f in t.files:
        lines += [f"TEST_FILE={one_line(f.path)}", f"TEST_FILE_SHA256={one_line(f.sha256)}"]
    lines += [
        f"RUN_MODE={'warm-worker' if mode == 'warm' else 'fresh'}",
        f"DEVICE={one_line(device_label(t.device, t.emulated))}",
        *([one_line(emulated_line(t))] if t.emulated else []),
        RULE,
        "",
        "===== ENVIRONMENT PROBE =====",
    ]
    if probe_text:
        lines.extend(probe_output(probe_text, facts).rstrip("\n").split("\n"))
    lines.append(f"ENVIRONMENT_PROBE_EXIT_CODE={'' if probe_exit is None else probe_exit}")
    lines += section(t)
    lines += ["", f"RESULT={one_line(t.result)}"]
    return "\n".join(lines) + "\n"


__all__ = ["SECTION", "command", "section", "target_log", "test_line"]
