"""The legacy functional collectives (``torch.ops.c10d_functional``: a group named by a tag, its ranks
and its size) and operators named by their ``.default`` overload.

Each gets the collectives family's world of two gloo ranks (the test's process and a forked peer),
checked against values worked out by hand. Each is scaffolded for the CPU, passes and fails under a
targeted break.
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

L = "torch.ops.c10d_functional"
SETUP = "import torch.distributed._functional_collectives\n"
CASES = (
    Case(
        f"{L}.all_reduce",
        "collectives",  # reduces with max whatever it is asked
        SETUP
        + f"orig = {L}.all_reduce\n{L}.all_reduce = lambda x, op, tag, ranks, n: orig(x, 'max', tag, ranks, n)",
    ),
    Case(
        f"{L}.all_gather_into_tensor",
        "collectives",  # its own shard, repeated
        SETUP + f"{L}.all_gather_into_tensor = lambda x, tag, ranks, n: x.repeat(n)",
    ),
    Case(
        f"{L}.wait_tensor",
        "collectives",  # a result that is not the one waited for
        SETUP + f"{L}.wait_tensor = lambda x: x * 0",
    ),
    Case(
        f"{L}.broadcast.default",
        "collectives",  # every rank keeps its own tensor
        SETUP + f"{L}.broadcast.default = lambda x, src, tag, ranks, n: x.clone()",
    ),
)


def test_each_gets_a_two_rank_test_on_the_cpu_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("legacy"))
    _check_families(CASES, results)
    for case in CASES:
        text = Path(results[case.api].path).read_text()
        assert "import torch.distributed._functional_collectives" in text, case.api
        assert '"", ranks, world' in text, case.api  # the legacy group: a tag, its ranks, its size
    _passes_and_fails_once_broken(CASES, results, tmp_path)
