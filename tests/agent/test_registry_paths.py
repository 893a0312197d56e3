"""The registries a function reaches are named by paths that lead back to them (or left out)."""

from __future__ import annotations

import importlib

import pytest

from torchparity.agent.api.objects import try_walk  # noqa: E402
from torchparity.agent.facts.probe import touched_containers  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("module", "name", "expect"),
    [
        # exported under another module name than the one whose globals it reads
        ("torch.nn.attention", "list_flash_attention_impls", "torch.nn.attention._registry."),
        # its module is hidden by a function of the same name: no path leads there
        ("torch.ao.quantization.quantize", "get_default_custom_config_dict", None),
        (
            "torch.multiprocessing.reductions",
            "init_reductions",
            "torch.multiprocessing.reductions.",
        ),
    ],
)
def test_each_path_leads_back_to_the_registry(module: str, name: str, expect: str | None) -> None:
    fn = getattr(importlib.import_module(module), name)
    paths = touched_containers(fn)
    for path in paths:
        found = try_walk(path)
        assert found is not None, path
        assert isinstance(found.obj, (dict, list, set)), path
    if expect is None:
        assert paths == []
    else:
        assert paths and all(p.startswith(expect) for p in paths), paths
