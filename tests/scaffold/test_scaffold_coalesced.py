"""The coalesced functional collectives and ``all_gather_into_tensor_out``.

Each gets the collectives family's world of two gloo ranks (the test's process and a forked
peer): every tensor of the list reduced, gathered or scattered on its own against values worked
out by hand. Each is scaffolded for the CPU, passes and fails under a targeted break.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import (
    _check_families,
    _passes_and_fails_once_broken,
    _scaffold,
)

pytestmark = pytest.mark.slow

F = "torch.ops._c10d_functional"
CASES = (
    Case(
        f"{F}.all_reduce_coalesced_",
        "collectives",  # reduces with max
        f"orig = {F}.all_reduce_coalesced_\n"
        f"{F}.all_reduce_coalesced_ = lambda xs, op, g: orig(xs, 'max', g)",
    ),
    Case(
        f"{F}.all_gather_into_tensor_coalesced",
        "collectives",  # each rank's own tensors, repeated
        f"{F}.all_gather_into_tensor_coalesced = lambda xs, n, g: [x.repeat(n) for x in xs]",
    ),
    Case(
        f"{F}.reduce_scatter_tensor_coalesced",
        "collectives",  # the list's results in reverse order
        f"orig = {F}.reduce_scatter_tensor_coalesced\n"
        f"{F}.reduce_scatter_tensor_coalesced = lambda xs, op, n, g: orig(xs, op, n, g)[::-1]",
    ),
    Case(
        f"{F}.all_gather_into_tensor_out",
        "collectives",  # out= left as it was
        f"{F}.all_gather_into_tensor_out = lambda x, n, g, out: x.repeat(n)",
    ),
)


def test_each_gets_a_two_rank_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("coalesced"))
    _check_families(CASES, results)
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert (
            'get_context("fork")' in text and "default_device_backend_map.get(DEVICE.type)" in text
        ), case.api
    _passes_and_fails_once_broken(CASES, results, tmp_path)
