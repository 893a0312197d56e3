"""Test output claims: each listed test is defined in the file, ``Ran N`` matches the listing and the file,
the printed qualifier is the one the stated command produces, OK/FAILED agrees with the listed outcomes."""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from collections.abc import Iterator

from ..records import ListedTest, TestRunClaim, Verdict, contradicted, unverifiable, verified
from ..testdefs import SourceTests
from .facts import Facts

_INTERPRETER = re.compile(r"^python[\d.]*$")
_PY_OPTS_WITH_VALUE = {"-W", "-X", "-Q"}


def expected_module(command: str) -> str | None:
    """The module unittest prints for ``command``: ``__main__`` for ``python FILE``; None when unknown."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, w in enumerate(words):
        if _INTERPRETER.match(os.path.basename(w)):
            rest = words[i + 1 :]
            j = 0
            while j < len(rest) and rest[j].startswith("-") and rest[j] != "-m":
                j += 2 if rest[j] in _PY_OPTS_WITH_VALUE else 1
            if j >= len(rest):
                return None
            if rest[j] == "-m":
                if j + 1 >= len(rest):
                    return None
                mod = rest[j + 1]
                if mod != "unittest":
                    return "pytest" if mod == "pytest" else None
                args = [a for a in rest[j + 2 :] if not a.startswith("-")]
                if len(args) != 1:
                    return None
                return _unittest_module(args[0])
            return "__main__" if rest[j].endswith(".py") else None
        if os.path.basename(w) in ("pytest", "py.test"):
            return "pytest"
    return None


def _unittest_module(arg: str) -> str | None:
    if arg.endswith(".py"):
        return arg[:-3].replace("/", ".").lstrip(".")
    parts = arg.split(".")
    while parts and (
        parts[-1][:1].isupper()
        or parts[-1].startswith("test_")
        and len(parts) > 1
        and parts[-2][:1].isupper()
    ):
        parts.pop()
    return ".".join(parts) or None


def _selects(command: str) -> bool:
    """Whether the command runs only part of the file (``-k``, test names, ``::`` node ids)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return True
    after = False
    for w in words:
        if after and (
            w in ("-k", "-p", "--pattern")
            or "::" in w
            or re.match(r"^Test\w*(\.\w+)?$", w)
            or re.match(r"^[A-Z]\w*\.test\w*$", w)  # Class.test_x: unittest's own selection
            or re.match(r"^test_\w+$", w)
        ):
            return True
        if w.endswith(".py"):
            after = True
    return False


def _where(f: Facts, run: TestRunClaim, file: str) -> tuple[str | None, str]:
    """(path, commit) of the file a run is about: the one its command (or log) names, found at the merge
    or at the tip of the branch the output names; with none named, the change's only test file."""
    view = f.view
    if file:
        found = view.locate(file)
        if found:
            return found, view.commit
        other = f.branch_commit(run.branch)
        if other:
            found = view.locate(file, other)
            if found:
                return found, other
        return None, view.commit
    return f.only_changed_file(), view.commit


def _best_file(
    f: Facts, run: TestRunClaim, path: str | None, commit: str
) -> tuple[str | None, str]:
    """The candidate file that defines the most of the run's listed tests (the named one on a tie).

    A text that shows two commands and then two outputs, or names the file only in a
    changed-files list, is read against the file its tests are in."""
    if not run.tests:
        return path, commit
    names = [(t.cls, t.name) for t in run.tests if t.name]
    cands = [
        p
        for p in dict.fromkeys(
            [
                path,
                *(f.view.locate(c) for c in f.claims.command_files),
                *f.changed_py,
                *(f.view.locate(c) for c in f.claims.files),
            ]
        )
        if p
    ]
    best, score = path, -1
    for cand in cands:
        tf = f.test_file(cand, commit)
        n = sum(1 for cls, name in names if tf is not None and tf.defines(name, cls)) if tf else -1
        if n > score:
            best, score = cand, n
    if path is not None and best != path:
        tf = f.test_file(path, commit)
        if tf is not None and sum(1 for cls, name in names if tf.defines(name, cls)) == score:
            best = path
    return (best if score > 0 or best == path else path), commit


def _defined(
    f: Facts,
    t: ListedTest,
    path: str | None,
    commit: str,
    tf: SourceTests | None,
    file_given: str,
    run: TestRunClaim,
) -> Verdict:
    label = f"{t.cls}.{t.name}" if t.cls else t.name
    claim = run
    if path is None or tf is None:
        where = file_given or "the test file"
        why = (
            f"{where} is not in the repository at {f.view.commit[:12]} (run from another checkout?)"
            if file_given
            else "the text names no test file and the change does not single one out"
        )
        return unverifiable(claim, "test.defined", why, text=t.text, line=t.line)
    at = "" if commit == f.view.commit else f" (at {commit[:12]}, the branch the output names)"
    if tf.syntax_error:
        return unverifiable(
            claim,
            "test.defined",
            f"{path} does not parse ({tf.syntax_error})",
            text=t.text,
            line=t.line,
        )
    if tf.defines(t.name, t.cls):
        return verified(
            claim, "test.defined", f"{label} is defined in {path}{at}", text=t.text, line=t.line
        )
    if t.cls and t.cls not in tf.classes and tf.defines(t.name):
        return verified(
            claim,
            "test.defined",
            f"{t.name} is defined in {path}{at} (the output's class {t.cls} "
            "is not; a generated or renamed class?)",
            text=t.text,
            line=t.line,
        )
    base = tf.generated_from(t.name)
    if base and not tf.closed:
        return verified(
            claim,
            "test.defined",
            f"{t.name} is generated from {base} in {path}{at}",
            text=t.text,
            line=t.line,
        )
    if not tf.closed:
        return unverifiable(
            claim,
            "test.defined",
            f"{label} is not written in {path}{at}, which makes tests its "
            f"source does not spell ({tf.open_reason})",
            text=t.text,
            line=t.line,
        )
    # another file named by the text or the change may be the one that ran
    for other in dict.fromkeys(
        [*f.changed_py, *(p for p in (f.view.locate(x) for x in f.claims.files) if p)]
    ):
        if other == path:
            continue
        of = f.test_file(other)
        if of is not None and of.defines(t.name, t.cls):
            return verified(
                claim,
                "test.defined",
                f"{label} is defined in {other} (the text's command names {path})",
                text=t.text,
                line=t.line,
            )
    if not f.is_changed(path):
        return unverifiable(
            claim,
            "test.defined",
            f"{label} is not in {path}{at}, which this change does not touch: "
            "the output may come from another checkout (upstream PyTorch?)",
            text=t.text,
            line=t.line,
        )
    elsewhere = [p for p in f.view.grep_def(t.name, commit) if p != path]
    if elsewhere:
        return unverifiable(
            claim,
            "test.defined",
            f"{label} is not in {path}{at}; it is defined in {', '.join(elsewhere[:3])}",
            text=t.text,
            line=t.line,
        )
    what = (
        f"class {t.cls} has no test {t.name}"
        if t.cls in tf.classes
        else (f"no class {t.cls} and no test {t.name}" if t.cls else f"no test {t.name}")
    )
    return contradicted(
        claim,
        "test.defined",
        f"{path}{at}: {what}, and no file of the repository defines {t.name}",
        text=t.text,
        line=t.line,
    )


def _count(f: Facts, run: TestRunClaim, path: str | None, tf: SourceTests | None) -> Verdict | None:
    if run.ran is None:
        return None
    listed = len({(t.cls, t.name, t.file) for t in run.tests if t.name}) + sum(
        1 for t in run.tests if not t.name
    )
    found: list[tuple[str, str]] = []  # (verdict, detail)
    if listed:
        if listed == run.ran:
            found.append(("v", f"the output lists {listed} tests, as `{run.text}` says"))
        elif run.runner == "unittest":
            others = sorted(
                (tf.all_tests() if tf is not None else set()) - {t.name for t in run.tests}
            )
            more = (
                f" (the file's other tests: {', '.join(others[:6])}{', ...' if len(others) > 6 else ''})"
                if others and listed < run.ran
                else ""
            )
            found.append(("c", f"the output lists {listed} tests above `{run.text}`{more}"))
    if run.runner == "unittest" and path and tf is not None and f.is_changed(path):
        n = tf.count()
        whole = (
            bool(run.command)
            and not _selects(run.command)
            and f.view.locate(run.file or "") == path
        )
        if n is None:
            pass
        elif whole and n != run.ran:
            found.append(
                (
                    "c",
                    f"{path} defines {n} tests at {f.view.commit[:12]}; running the whole file reports "
                    f"Ran {n}",
                )
            )
        elif run.ran > n:
            found.append(("c", f"{path} defines only {n} tests at {f.view.commit[:12]}"))
        else:
            found.append(
                ("v", f"{path} defines {n} tests" + (", all of them run" if whole else ""))
            )
    if not found:
        why = (
            "no test is listed and the file's tests cannot be counted from its source"
            if listed == 0
            else "pytest counts parametrized cases and subtests apart"
        )
        return unverifiable(run, "test.count", why)
    bad = [d for v, d in found if v == "c"]
    if bad:
        return contradicted(run, "test.count", "; ".join(bad))
    return verified(run, "test.count", "; ".join(d for _, d in found))


def _verbose(command: str) -> bool:
    return bool(re.search(r"(?:^|\s)(?:-v+|--verbose)(?:\s|$)", command))


def _qualifier(run: TestRunClaim) -> Verdict | None:
    modules = Counter(t.module for t in run.tests if t.module)
    if run.runner != "unittest" or not run.command or not run.tests:
        return None
    line = run.command_line or run.line
    text = run.command
    expected = expected_module(run.command)
    if not modules:
        if expected == "__main__" and _verbose(run.command) and not any(t.cls for t in run.tests):
            return unverifiable(
                run,
                "test.qualifier",
                f"the output prints no qualifier, though `python FILE -v` "
                f"prints each test as `name (__main__.Class.name)`: {len(run.tests)} lines edited "
                "or from another runner",
                text=text,
                line=line,
            )
        return None
    if expected is None:
        return unverifiable(
            run,
            "test.qualifier",
            "the command's own qualifier cannot be told from it",
            text=text,
            line=line,
        )
    if expected == "pytest":
        return contradicted(
            run,
            "test.qualifier",
            "pytest prints node ids (file::Class::test), not unittest's "
            "`test (module.Class)` lines",
            text=text,
            line=line,
        )
    wrong = {m: n for m, n in modules.items() if m != expected}
    if wrong:
        shown = ", ".join(f"`{m}` ({n} lines)" for m, n in wrong.items())
        return contradicted(
            run,
            "test.qualifier",
            f"this command prints `{expected}.Class`; the output prints {shown}",
            text=text,
            line=line,
        )
    return verified(
        run,
        "test.qualifier",
        f"`{expected}` is what this command prints ({sum(modules.values())} lines)",
        text=text,
        line=line,
    )


def _result(run: TestRunClaim) -> Verdict | None:
    """OK / FAILED (or pytest's counts) against the outcomes the output lists."""
    if not run.status:
        return None
    outcomes = Counter(t.outcome for t in run.tests if t.outcome)
    footer = dict(run.footer)
    listed = sum(outcomes.values())
    if run.runner == "pytest":
        if not listed or listed != run.ran:
            return None
        pairs = (
            ("passed", "ok"),
            ("failed", "fail"),
            ("skipped", "skip"),
            ("error", "error"),
            ("xfailed", "xfail"),
            ("xpassed", "xpass"),
        )
        diff = [
            f"{k} {footer.get(k, 0)} but {outcomes.get(o, 0)} listed"
            for k, o in pairs
            if footer.get(k, 0) != outcomes.get(o, 0)
        ]
        if diff:
            return contradicted(run, "test.result", "; ".join(diff))
        return verified(run, "test.result", "the summary's counts are the listed outcomes")
    line, text = run.status_line or run.line, run.status
    fails, errors = outcomes.get("fail", 0), outcomes.get("error", 0)
    complete = run.ran is not None and listed == run.ran
    if run.status == "OK":
        if fails or errors:
            return contradicted(
                run,
                "test.result",
                f"OK, but {fails} listed FAIL and {errors} ERROR",
                text=text,
                line=line,
            )
        if outcomes and complete:
            return verified(
                run,
                "test.result",
                "OK, and every listed test passed or was skipped",
                text=text,
                line=line,
            )
        return None
    if not complete:
        return None
    said = (footer.get("failures", 0), footer.get("errors", 0))
    text = f"FAILED ({', '.join(f'{k}={v}' for k, v in run.footer)})" if run.footer else text
    if said != (fails, errors):
        return contradicted(
            run,
            "test.result",
            f"FAILED (failures={said[0]}, errors={said[1]}), but the output "
            f"lists {fails} FAIL and {errors} ERROR",
            text=text,
            line=line,
        )
    return verified(run, "test.result", "FAILED, as the listed outcomes say", text=text, line=line)


def check_run(run: TestRunClaim, f: Facts) -> Iterator[Verdict]:
    if run.runner == "pytest":
        for t in dict((t.line, t) for t in run.tests).values():
            path, commit = _where(f, run, t.file)
            tf = f.test_file(path, commit) if path else None
            yield _defined(f, t, path, commit, tf, t.file, run)
        path = None
        tf = None
    else:
        path, commit = _where(f, run, run.file)
        path, commit = _best_file(f, run, path, commit)
        tf = f.test_file(path, commit) if path else None
        seen: set[tuple[str, str]] = set()
        for t in run.tests:
            if not t.name or (t.cls, t.name) in seen:
                continue
            seen.add((t.cls, t.name))
            yield _defined(f, t, path, commit, tf, run.file, run)
    for v in (_count(f, run, path, tf), _qualifier(run), _result(run)):
        if v is not None:
            yield v


def check_runs(f: Facts) -> Iterator[Verdict]:
    for run in f.claims.runs:
        yield from check_run(run, f)
