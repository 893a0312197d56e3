"""The ``config`` family on torch's config modules: their copies and loads (``get_config_copy``,
``shallow_copy_dict``, ``load_config`` of ``ConfigModule``, the base of every config module's own class)
get real tests that pass on the CPU, with no notes, and fail once broken.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

M = "torch.utils._config_module.ConfigModule"  # the base of every config module's own class
CONFIG_CASES = (
    Case(
        "torch._inductor.config.get_config_copy",
        "config",  # a copy cached at its first call
        f"import torch._inductor.config, torch.utils._config_module\nM = {M}\norig = M.get_config_copy\ncache = {{}}\n"
        "M.get_config_copy = lambda self: cache.setdefault(id(self), orig(self))",
    ),
    Case(
        "torch._dynamo.config.shallow_copy_dict",
        "config",  # the module's own dict, not a copy
        f"import torch._dynamo.config, torch.utils._config_module\nM = {M}\norig = M.shallow_copy_dict\n"
        "held = {}\n"
        "M.shallow_copy_dict = lambda self: held.setdefault(id(self), orig(self))",
    ),
    Case(
        "torch._inductor.config.load_config",
        "config",  # loads nothing
        f"import torch._inductor.config, torch.utils._config_module\nM = {M}\nM.load_config = lambda self, data: None",
    ),
)


def test_config_module_copies_and_loads_get_real_tests_that_fail_once_broken(
    tmp_path_factory, tmp_path
):
    pytest.importorskip("torch")
    results, _ = _scaffold(
        CONFIG_CASES, [c.api for c in CONFIG_CASES], tmp_path_factory.mktemp("config")
    )
    for case in CONFIG_CASES:
        res = results[case.api]
        assert res.family == case.family and not res.notes, (case.api, res.fill_in, res.notes)
    _passes_and_fails_once_broken(CONFIG_CASES, results, tmp_path)
