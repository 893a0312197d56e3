"""Three general fixes of issue 16's fifth round, each on a real API and under a targeted break.

* A state with no restore code kept a setter out of the signature family: the
  deterministic-algorithms ``warn_only`` state now restores (each of the two
  restores keeps the other state), so ``torch.use_deterministic_algorithms``
  gets its getters checked; a setter that ignores ``warn_only`` fails.
* Docstring examples that use ``numpy`` got a ``NameError`` and a shown value
  changed in place by a later example (``t[0] = -1``) no longer matched: the
  examples' namespace names are imported and shown values copied, so
  ``torch.as_tensor`` (whose example changes ``t[0]`` of a tensor sharing a
  NumPy array's memory) gets its example test; an ``as_tensor`` that converts
  the array's integers to float64 fails. (``torch.from_numpy``, the first API this was seen on, now takes the
  utility family; a ``from_numpy`` that converts to float fails there.)
* The optimizer family tried a vector parameter only: an optimizer of 2-D
  parameters (``torch.optim.Muon``) now gets a matrix (loss 14.25 by hand); a
  step of the wrong sign fails.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.test_scaffold_more_kinds import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

CASES = (
    Case("torch.use_deterministic_algorithms", "signature",
         "use = torch.use_deterministic_algorithms\n"
         "torch.use_deterministic_algorithms = lambda mode, warn_only=False: use(mode)"),
    Case("torch.as_tensor", "doctest",  # an array's integers converted to float64
         "as_tensor = torch.as_tensor\ntorch.as_tensor = lambda data, *a, **k: as_tensor(data, *a, **k).double()"),
    Case("torch.from_numpy", "utility",  # the utility family takes it since the fifth round's merge
         "torch.from_numpy = lambda a: torch.tensor(a, dtype=torch.float32)"),
    Case("torch.optim.Muon", "optim",  # a step of the wrong sign
         "M = torch.optim.Muon\nstep = M.step\n"
         "def broken(self, closure=None):\n"
         "    params = [p for g in self.param_groups for p in g['params']]\n"
         "    before = [p.detach().clone() for p in params]\n"
         "    loss = step(self, closure)\n"
         "    with torch.no_grad():\n"
         "        for b, p in zip(before, params):\n"
         "            p.copy_(2 * b - p)\n"
         "    return loss\n"
         "M.step = broken"),
)


def test_each_gets_a_real_test_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("misc"))
    for case in CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(CASES, results, tmp_path)


HCS = "torch.distributed.elastic.agent.server.health_check_server.HealthCheckServer"


def test_a_call_whose_only_effect_is_a_log_record_is_measured_and_fails_when_it_logs_nothing(
        tmp_path_factory, tmp_path):
    """``HealthCheckServer.start`` only logs "No health check server started": the measured test holds the
    call in ``assertLogs`` with that message; a ``start`` that logs nothing fails it."""
    pytest.importorskip("torch")
    cases = (Case(f"{HCS}.start", "measured", f"import {HCS.rsplit('.', 1)[0]} as h\nh.HealthCheckServer.start = "
                                               "lambda self: None"),)
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("logs"))
    res = results[cases[0].api]
    assert res.family == "measured", res.fill_in
    text = open(res.path).read()
    assert "with self.assertLogs(" in text and "No health check server started" in text
    _passes_and_fails_once_broken(cases, results, tmp_path)


M = "torch.utils._config_module.ConfigModule"  # the base of every config module's own class
CONFIG_CASES = (
    Case("torch._inductor.config.get_config_copy", "config",  # a copy cached at its first call
         f"import torch._inductor.config, torch.utils._config_module\nM = {M}\norig = M.get_config_copy\ncache = {{}}\n"
         "M.get_config_copy = lambda self: cache.setdefault(id(self), orig(self))"),
    Case("torch._dynamo.config.shallow_copy_dict", "config",  # the module's own dict, not a copy
         f"import torch._dynamo.config, torch.utils._config_module\nM = {M}\norig = M.shallow_copy_dict\n"
         "held = {}\n"
         "M.shallow_copy_dict = lambda self: held.setdefault(id(self), orig(self))"),
    Case("torch._inductor.config.load_config", "config",  # loads nothing
         f"import torch._inductor.config, torch.utils._config_module\nM = {M}\nM.load_config = lambda self, data: None"),
)


def test_config_module_copies_and_loads_get_real_tests_that_fail_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CONFIG_CASES, [c.api for c in CONFIG_CASES], tmp_path_factory.mktemp("config"))
    for case in CONFIG_CASES:
        res = results[case.api]
        assert res.family == case.family and not res.notes, (case.api, res.fill_in, res.notes)
    _passes_and_fails_once_broken(CONFIG_CASES, results, tmp_path)


def test_package_exporter_close_gets_a_real_test_that_fails_when_close_writes_nothing(tmp_path_factory, tmp_path):
    """``PackageExporter.close`` writes the rest of the package: the test reads a package back only after it;
    a close that writes nothing (and a ``with`` block that therefore leaves an unreadable buffer) fails."""
    pytest.importorskip("torch")
    cases = (Case("torch.package.PackageExporter.close", "package",
                  "torch.package.PackageExporter.close = lambda self: None"),)
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("close"))
    assert results[cases[0].api].family == "package", results[cases[0].api].fill_in
    _passes_and_fails_once_broken(cases, results, tmp_path)


def test_a_setter_measured_first_leaves_its_getter_as_it_found_it(tmp_path_factory, tmp_path):
    """The signature family's calls of ``set_warn_always(True)`` left the state set in the agent, so
    ``is_warn_always_enabled`` measured after it in the same batch was measured True, and its test failed
    in a fresh interpreter: the state the setter found is restored after its calls."""
    pytest.importorskip("torch")
    cases = (Case("torch.set_warn_always", "measured", "torch.set_warn_always = lambda b: None"),
             Case("torch.is_warn_always_enabled", "signature", "torch.is_warn_always_enabled = lambda: True"))
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("leak"))
    for case in cases:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in)
    _passes_and_fails_once_broken(cases, results, tmp_path)
