"""Find the API's official tests: where to look at each source, and which tests of which files.

Two sources:

* the backend repo at a ref: its vendored copies of PyTorch's test files
  (``[upstream] vendored``, less ``exclude``);
* a PyTorch clone (``--upstream-repo``) at the tag of an environment's torch
  version (torch ``2.7.1+cpu`` -> ``v2.7.1``): its ``test/``.

In each, the coverage index names the tests that use the API (the template of a
device-generic or parametrized test, as written in the source): its direct
tests, or, when none is direct, the related tests of its parent (the
community's choice for a method of a context manager). For an operator, files
that hold OpInfo-driven tests (``@ops(...)``) are candidates too: their
instances for the API's OpInfo are chosen after listing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import pyast
from ..coverage import coverage_for
from ..coverage.aliases import AliasTable
from ..errors import UsageError
from ..gitrepo import git
from ..records.coverage import RefCoverage, TestHit
from ..store import Store
from .settings import UpstreamSettings

#: how the tests of a file were chosen
DIRECT, RELATED, GIVEN, OPINFO = "direct", "related", "given", "opinfo"


@dataclass(frozen=True)
class Wanted:
    """A test as the source writes it: the template that instances are made from."""

    test: str  # path::Class::test_name
    path: str
    klass: str  # innermost class name ("" for a test outside a class)
    name: str
    how: str = DIRECT


@dataclass
class FileCandidates:
    path: str
    wanted: list[Wanted] = field(default_factory=list)
    #: the file holds OpInfo-driven tests: its instances for the API's OpInfo are wanted
    opinfo: bool = False


@dataclass
class Found:
    """The candidates at one source."""

    selection: str  # direct | related | given (the most specific of the files')
    files: list[FileCandidates] = field(default_factory=list)


def torch_tag(version: str) -> str | None:
    """The PyTorch release tag of a torch version ("2.7.1+cpu" -> "v2.7.1"); None for a build of no release."""
    m = re.match(r"^(\d+)\.(\d+)\.(\d+)(?:\+[\w.]+)?$", version.strip())
    if m is None:
        return None
    return f"v{m.group(1)}.{m.group(2)}.{m.group(3)}"


def parse_given(spec: str) -> Wanted:
    """``--test path::Class::test_x`` (or ``path::test_x``) as a wanted test."""
    parts = spec.split("::")
    if len(parts) < 2 or not parts[0].endswith(".py") or not all(parts):
        raise UsageError(
            f"--test {spec!r}: give a test as PATH::Class::test_name (PATH relative to the repo root), "
            "e.g. test/test_autograd.py::TestAutograd::test_set_grad_enabled"
        )
    return Wanted(spec, parts[0], parts[-2] if len(parts) > 2 else "", parts[-1], GIVEN)


def _wanted(hit: TestHit, how: str) -> Wanted:
    parts = hit.test.split("::")
    klass = parts[-2].rsplit(".", 1)[-1] if len(parts) > 2 else ""
    return Wanted(hit.test, hit.path, klass, parts[-1], how)


def _group(wanted: Sequence[Wanted]) -> list[FileCandidates]:
    files: dict[str, FileCandidates] = {}
    for w in wanted:
        fc = files.setdefault(w.path, FileCandidates(w.path))
        if all(x.test != w.test for x in fc.wanted):
            fc.wanted.append(w)
    return list(files.values())


def from_coverage(ref: RefCoverage, keep: object = None) -> tuple[str, list[Wanted]]:
    """(selection, wanted) at one ref: the direct tests, else the related ones (``keep``: a path filter)."""

    def ok(h: TestHit) -> bool:
        return keep is None or bool(keep(h.path))  # type: ignore[operator]

    direct = [_wanted(h, DIRECT) for h in ref.direct if ok(h)]
    if direct:
        return DIRECT, direct
    return RELATED, [_wanted(h, RELATED) for h in ref.related if ok(h)]


def opinfo_files(repo: Path, commit: str, roots: Sequence[str], keep: object = None) -> list[str]:
    """Files at ``commit`` that hold OpInfo-driven tests (``@ops(``)."""
    res = git(repo, "grep", "-l", "-F", "@ops(", commit, "--", *roots, check=False)
    out = []
    for line in res.text.splitlines():
        path = line.split(":", 1)[1] if line.startswith(commit + ":") else line
        if path.endswith(".py") and (keep is None or keep(path)):  # type: ignore[operator]
            out.append(path)
    return sorted(out)


def hits_at(
    repo: Path,
    ref: str,
    api: str,
    store: Store,
    roots: Sequence[str],
    aliases: AliasTable | None = None,
) -> RefCoverage:
    """The coverage index's answer for ``api`` at one ref of one repository."""
    report = coverage_for([api], repo, [ref], store, tests=list(roots), aliases=aliases, grep="off")
    return report.apis[0].refs[0]


def candidates(
    ref_cov: RefCoverage | None,
    repo: Path,
    commit: str,
    roots: Sequence[str],
    *,
    settings: UpstreamSettings | None,
    operator: bool,
    given: Sequence[Wanted] = (),
) -> Found:
    """The candidate files and tests at one source (``settings``: the backend's, to keep vendored files)."""
    keep = settings.is_vendored if settings is not None else None
    if given:
        return Found(GIVEN, _group(given))
    selection, wanted = from_coverage(ref_cov, keep) if ref_cov is not None else (DIRECT, [])
    files = _group(wanted)
    if operator:
        by_path = {f.path: f for f in files}
        for path in opinfo_files(repo, commit, roots, keep):
            by_path.setdefault(path, FileCandidates(path)).opinfo = True
        files = list(by_path.values())
    return Found(selection, sorted(files, key=lambda f: f.path))


# -- the file's entry point ------------------------------------------------------------------
UNITTEST, PYTEST, MODULE = "unittest", "pytest", "module"


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    names = {s.id for s in sides if isinstance(s, ast.Name)}
    consts = {s.value for s in sides if isinstance(s, ast.Constant)}
    return "__name__" in names and "__main__" in consts


def _called(node: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute):
                base = f.value.id if isinstance(f.value, ast.Name) else ""
                out.add(f"{base}.{f.attr}" if base else f.attr)
            elif isinstance(f, ast.Name):
                out.add(f.id)
    return out


#: calls a main block may make and still run no test (``print("run these through test_x.py")``)
_NO_RUNNER_CALLS = {"print", "sys.exit", "exit", "warnings.warn"}


def entry_kind(source: bytes) -> str:
    """How the file runs its tests when run as a script: unittest (torch's ``run_tests``,
    ``unittest.main``: test names on the command line), pytest (``pytest.main``, or no main block:
    node ids), or module (a main block that only prints or exits, as a file run through another
    one does: ``python -m unittest MODULE.Class.test`` from its folder runs its tests)."""
    try:
        tree = pyast.parse_module(source)
    except (SyntaxError, ValueError):
        return UNITTEST  # it cannot be imported either: the run says so
    guards = [n for n in tree.body if _is_main_guard(n)]
    if not guards:
        return PYTEST
    calls = set().union(*(_called(g) for g in guards))
    if calls <= _NO_RUNNER_CALLS:
        return MODULE
    if any(c == "pytest.main" or c.endswith(".pytest.main") for c in calls) and not any(
        c.endswith("run_tests") or c.endswith("unittest.main") for c in calls
    ):
        return PYTEST
    return UNITTEST


__all__ = [
    "DIRECT",
    "GIVEN",
    "MODULE",
    "OPINFO",
    "PYTEST",
    "RELATED",
    "UNITTEST",
    "FileCandidates",
    "Found",
    "Wanted",
    "candidates",
    "entry_kind",
    "from_coverage",
    "hits_at",
    "opinfo_files",
    "parse_given",
    "torch_tag",
]
