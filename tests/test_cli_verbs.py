"""The CLI imports only the module of the verb it runs; help and unknown verbs still see every verb."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from torchparity.cli import main


def _loaded(argv: list[str]) -> list[str]:
    code = (
        f"import json, sys, torchparity.cli as c; c._load_verbs({argv!r}); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('torchparity.cli.') "
        "and not m.split('.')[-1].startswith('_'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_a_verb_loads_its_own_module_only():
    assert _loaded(["runs", "--store", "x"]) == ["torchparity.cli.store"]
    assert _loaded(["--debug", "trace", "torch.add"]) == ["torchparity.cli.resolve"]
    assert _loaded(["coverage", "torch.add"]) == ["torchparity.cli.coverage"]


@pytest.mark.slow
def test_help_and_unknown_verbs_load_every_verb():
    every = _loaded(["--help"])
    assert {"torchparity.cli.verify", "torchparity.cli.run", "torchparity.cli.coverage"} <= set(
        every
    )
    assert _loaded([]) == every and _loaded(["nonsense"]) == every


def test_help_lists_every_verb(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for verb in ("verify", "run", "coverage", "runs", "show", "trace", "docs", "bundle", "review"):
        assert f"  {verb} " in text
