"""The agent tests probe torch in this interpreter: what one probe leaves process-wide is put back."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _distribution_validation_put_back():
    """torch._dynamo's ``TorchPatcher.patch()``, run once per process by ``optimize``, ``optimize_assert`` or
    ``torch.compile``, turns torch.distributions' argument validation off for the whole process: after a
    probe of such an API, a later probe of a distribution would find calls valid that validation refuses
    (``Bernoulli.log_prob(bernoulli.mean)``). Each test leaves validation as it found it (torch's default,
    ``__debug__``, where torch.distributions was not imported yet). Imports nothing."""
    module = sys.modules.get("torch.distributions.distribution")
    before = module.Distribution._validate_args if module is not None else __debug__
    yield
    module = sys.modules.get("torch.distributions.distribution")
    if module is not None and module.Distribution._validate_args != before:
        module.Distribution.set_default_validate_args(before)
