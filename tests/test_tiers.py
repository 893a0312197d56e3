"""The fast tier's guard (tests/tiers.py): a fast test that imports torch or starts an interpreter fails."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.tiers import TierGuard, TierViolation, command_runs_python, is_interpreter

INNER_CONFTEST = """
from tests.tiers import FastTierPlugin


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: the slow tier")
    config.pluginmanager.register(FastTierPlugin(), "inner-fast-tier")
"""


@pytest.fixture
def guard():
    g = TierGuard()
    g.install()
    g.start()
    try:
        yield g
    finally:
        g.stop()
        g.uninstall()


def test_an_interpreter_is_refused_and_remembered(guard: TierGuard) -> None:
    with pytest.raises(TierViolation, match="start an interpreter"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)
    assert guard.violations and sys.executable in guard.violations[0]


def test_a_program_that_is_no_interpreter_runs(guard: TierGuard) -> None:
    out = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("git version") and guard.violations == []


def test_importing_torch_is_refused(guard: TierGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        monkeypatch.delitem(
            sys.modules, name
        )  # put back after the test (a whole run may have loaded it)
    with pytest.raises(TierViolation, match="import torch"):
        importlib.import_module("torch")
    assert guard.violations == ["import torch"]


@pytest.mark.slow  # it starts an interpreter: the fast tier's own guard would refuse it
def test_an_inactive_guard_lets_everything_through() -> None:
    g = TierGuard()
    g.install()
    try:
        code = subprocess.run([sys.executable, "-c", "raise SystemExit(7)"], check=False).returncode
    finally:
        g.uninstall()
    assert code == 7 and g.violations == []


def test_what_counts_as_an_interpreter(tmp_path: Path) -> None:
    script = tmp_path / "tool"
    script.write_text("#!/usr/bin/env python3\nprint(1)\n")
    script.chmod(0o755)
    shell = tmp_path / "tool.sh"
    shell.write_text("#!/bin/sh\necho 1\n")
    shell.chmod(0o755)
    assert is_interpreter([sys.executable, "-c", "pass"])
    assert is_interpreter(["env", "-u", "PYTHONPATH", "python3.11", "f.py"])
    assert is_interpreter(["tool"], [str(script)])  # a console script runs python
    assert not is_interpreter(["tool.sh"], [str(shell)])
    assert not is_interpreter(["git", "status"], ["/usr/bin/git"])
    assert command_runs_python("cd x && python3 -m pytest") and not command_runs_python(
        "git status"
    )


def _inner(pytester: pytest.Pytester, body: str) -> pytest.RunResult:
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makepyfile(test_inner=textwrap.dedent(body))
    pytester.syspathinsert(Path(__file__).resolve().parents[1])  # so that `tests.tiers` imports
    return pytester.runpytest_inprocess("-m", "not slow", "-p", "no:cacheprovider")


def test_a_fast_test_that_imports_torch_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        monkeypatch.delitem(sys.modules, name)
    result = _inner(
        pytester,
        """
        import pytest

        def test_uses_torch():
            import torch  # noqa: F401

        def test_swallows_the_refusal():
            try:
                import torch  # noqa: F401
            except Exception:
                pass

        @pytest.mark.slow
        def test_slow_may():
            pass
    """,
    )
    # the call fails, and so does the teardown of both: the swallowed refusal is still a failure
    result.assert_outcomes(failed=1, passed=1, errors=2, deselected=1)
    result.stdout.fnmatch_lines(
        ["*test_swallows_the_refusal*is in the fast tier but tried to import torch*"]
    )


def test_a_fast_test_that_starts_an_interpreter_fails(pytester: pytest.Pytester) -> None:
    result = _inner(
        pytester,
        f"""
        import subprocess

        def test_starts_python():
            subprocess.run([{sys.executable!r}, "-c", "pass"])

        def test_runs_git():
            subprocess.run(["git", "--version"], check=True, capture_output=True)
    """,
    )
    result.assert_outcomes(failed=1, passed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_starts_python*tried to start an interpreter*"])
