"""Which names a support page may list an API under (Resolution.doc_names), from real resolutions."""

from __future__ import annotations

import pytest

from torchparity.api.records import Resolution


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "first", "also"),
    [
        # PyTorch's docs name leads (a new entry takes it); the canonical one is still matched
        ("torch.cuda.Event", "torch.cuda.Event", "torch.cuda.streams.Event"),
        ("torch.Generator.seed", "torch.Generator.seed", "torch._C.Generator.seed"),
        # torch.__all__ lacks set_grad_enabled: PyTorch's public spelling leads, the query is still looked up
        ("torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.set_grad_enabled"),
        # a full path through a module that does not export the class is never an entry's name
        (
            "torch.optim.sgd.Optimizer.zero_grad",
            "torch.optim.Optimizer.zero_grad",
            "torch.optim.sgd.Optimizer.zero_grad",
        ),
        (
            "torch.autograd.grad_mode.set_grad_enabled.clone",
            "torch.autograd.grad_mode.set_grad_enabled.clone",
            "torch.autograd.grad_mode.set_grad_enabled.clone",
        ),
        # a short form is never an entry's name: PyTorch's docs name is
        (
            "Optimizer.zero_grad",
            "torch.optim.Optimizer.zero_grad",
            "torch.optim.optimizer.Optimizer.zero_grad",
        ),
        # private: no docs name, the canonical name stands alone
        (
            "torch._utils._get_device_index",
            "torch._utils._get_device_index",
            "torch._utils._get_device_index",
        ),
    ],
)
def test_doc_names(agent_resolve, query, first, also):
    names = Resolution.from_json(agent_resolve.resolve(query)).doc_names()
    assert names[0] == first
    assert also in names
    assert len(names) == len(set(names))
    assert all(n and not n.startswith(".") for n in names)
    if not query.startswith("torch."):  # a short form is not looked up as written
        assert query not in names
