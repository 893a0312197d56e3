"""OpInfo entries whose ``op`` is a lambda around the API: found by what the lambda calls.

``nn.functional.embedding``'s entry is ``lambda weight, idx, **kwargs: embedding(idx, weight, **kwargs)``:
the generated test calls the API itself with the sample rearranged as the lambda does, compares with the
float64 reference and fails under a targeted break (rows off by one, the other operand picked, ...).
"""

from __future__ import annotations

import pytest

from tests.lazy import torch
from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold
from torchparity.agent.facts.opinfo import find_opinfo
from torchparity.agent.facts.opinfo_wrappers import as_called, wrapped_call

#: embedding and einsum have no NumPy reference: the reference is the same call in float64 on the CPU,
#: so their breaks are bugs of the lower-precision kernels that reference exists to catch
CASES = (
    Case(
        "torch.nn.functional.embedding",
        "opinfo",  # half-precision rows read one further on
        "emb = torch.nn.functional.embedding\n"
        "torch.nn.functional.embedding = lambda i, w, **k: emb(\n"
        "    i, w if w.dtype == torch.float64 else w.roll(1, 0), **k)",
    ),
    Case(
        "torch.einsum",
        "opinfo",  # the half-precision result doubled
        "einsum = torch.einsum\n"
        "def broken(*a, **k):\n"
        "    r = einsum(*a, **k)\n"
        "    return r if r.dtype == torch.float64 else r * 2\n"
        "torch.einsum = broken",
    ),
    Case(
        "torch.where",
        "opinfo",  # the two branches swapped
        "where = torch.where\ntorch.where = lambda c, x=None, y=None, **k: where(c, y, x, **k)",
    ),
)


def _entry(obj):
    op, kind, names = find_opinfo(obj)
    assert kind == "wrapper", (obj, kind, names)
    return op


@pytest.mark.slow
def test_the_lambda_s_rearrangement_is_read_from_its_source():
    assert (
        wrapped_call(_entry(torch.nn.functional.embedding).op, torch.nn.functional.embedding)
        == "@S@.args[0], @S@.input, **@S@.kwargs"
    )
    # a lambda written over two lines, through wrapper_set_seed
    sdpa = torch.nn.functional.scaled_dot_product_attention
    assert wrapped_call(_entry(sdpa).op, sdpa) == "@S@.input, *@S@.args, **@S@.kwargs"
    # the lambda of one API is no wrapper of another
    assert (
        wrapped_call(_entry(torch.nn.functional.embedding).op, torch.nn.functional.embedding_bag)
        is None
    )
    # an entry matched by identity stays a function entry
    assert find_opinfo(torch.add)[1] == "function"
    # a Tensor member wrapped by its entry (``item``) is left to the tensor family
    assert find_opinfo(torch.Tensor.item)[0] is None


def api(*args, **kwargs):
    """An API for the lambdas below (a module global, as the OpInfo's lambdas reach torch)."""
    return args


def test_a_lambda_that_computes_more_than_a_rearrangement_is_not_a_wrapper():
    assert wrapped_call(lambda a, b: api(a @ b), api) is None
    assert wrapped_call(lambda a: api(a.clone()), api) is None
    assert (
        wrapped_call(lambda a, *rest, **kw: api(a, *rest, flag=True, **kw), api)
        == "@S@.input, *@S@.args, flag=True, **@S@.kwargs"
    )


def test_the_check_calls_the_api_as_the_test_does():
    calls = []

    def recording(*args, **kwargs):
        calls.append((args, kwargs))
        return 0

    fn = as_called(recording, "@S@.args[0], @S@.input, **@S@.kwargs")
    fn("weight", "idx", padding_idx=1)
    assert calls == [(("idx", "weight"), {"padding_idx": 1})]


@pytest.mark.slow
def test_each_gets_an_opinfo_test_that_passes_and_fails_once_broken(tmp_path_factory, tmp_path):
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("wrappers"))
    for case in CASES:
        assert results[case.api].family == case.family, (case.api, results[case.api].fill_in[:1])
    text = open(results["torch.nn.functional.embedding"].path).read()
    assert "torch.nn.functional.embedding(dev.args[0], dev.input, **dev.kwargs)" in text
    _passes_and_fails_once_broken(CASES, results, tmp_path)
