"""States a scaffolded test restores, each on a real API and under a targeted break.

* A state with no restore code kept a setter out of the signature family: the
  deterministic-algorithms ``warn_only`` state restores (each of the two
  restores keeps the other state), so ``torch.use_deterministic_algorithms``
  gets its getters checked; a setter that ignores ``warn_only`` fails.
* A setter measured first leaves its getter as it found it: the signature family's
  calls of ``set_warn_always(True)`` are undone after them in the agent, so
  ``is_warn_always_enabled``, measured after it in the same batch, is measured
  as it is in a fresh interpreter.
* Scaffolded in the same batch as the first: docstring examples that use ``numpy``
  run with the names of their namespace imported and shown values copied, so
  ``torch.as_tensor`` (whose example changes ``t[0]`` of a tensor sharing a
  NumPy array's memory) gets its example test; an ``as_tensor`` that converts
  the array's integers to float64 fails. (``torch.from_numpy`` takes the
  utility family; a ``from_numpy`` that converts to float fails there.) An
  optimizer of 2-D parameters (``torch.optim.Muon``) gets a matrix (loss 14.25
  by hand); a step of the wrong sign fails.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

CASES = (
    Case(
        "torch.use_deterministic_algorithms",
        "signature",
        "use = torch.use_deterministic_algorithms\n"
        "torch.use_deterministic_algorithms = lambda mode, warn_only=False: use(mode)",
    ),
    Case(
        "torch.as_tensor",
        "doctest",  # an array's integers converted to float64
        "as_tensor = torch.as_tensor\ntorch.as_tensor = lambda data, *a, **k: as_tensor(data, *a, **k).double()",
    ),
    Case(
        "torch.from_numpy",
        "utility",  # the utility family takes it since the families were merged
        "torch.from_numpy = lambda a: torch.tensor(a, dtype=torch.float32)",
    ),
    Case(
        "torch.optim.Muon",
        "optim",  # a step of the wrong sign
        "M = torch.optim.Muon\nstep = M.step\n"
        "def broken(self, closure=None):\n"
        "    params = [p for g in self.param_groups for p in g['params']]\n"
        "    before = [p.detach().clone() for p in params]\n"
        "    loss = step(self, closure)\n"
        "    with torch.no_grad():\n"
        "        for b, p in zip(before, params):\n"
        "            p.copy_(2 * b - p)\n"
        "    return loss\n"
        "M.step = broken",
    ),
)


def test_each_gets_a_real_test_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("misc"))
    for case in CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(CASES, results, tmp_path)


def test_a_setter_measured_first_leaves_its_getter_as_it_found_it(tmp_path_factory, tmp_path):
    """The signature family's calls of ``set_warn_always(True)`` left the state set in the agent, so
    ``is_warn_always_enabled`` measured after it in the same batch was measured True, and its test failed
    in a fresh interpreter: the state the setter found is restored after its calls."""
    pytest.importorskip("torch")
    cases = (
        Case("torch.set_warn_always", "measured", "torch.set_warn_always = lambda b: None"),
        Case(
            "torch.is_warn_always_enabled",
            "signature",
            "torch.is_warn_always_enabled = lambda: True",
        ),
    )
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("leak"))
    for case in cases:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(cases, results, tmp_path)
