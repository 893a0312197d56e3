"""``agent/api/lookup.py``, in this interpreter: a name through a module hidden by a function of the same
name reaches the sibling its parent exports (``torch.autograd.gradcheck.gradgradcheck`` is
``torch.autograd.gradgradcheck``).
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # imported on first use, not at collection


@pytest.mark.slow
def test_a_name_through_a_hidden_module_reaches_the_parents_sibling() -> None:
    from torchparity.agent.api.lookup import locate

    hit = locate("torch.autograd.gradcheck.gradgradcheck", "")
    assert hit.obj is torch.autograd.gradgradcheck
    assert hit.path == "torch.autograd.gradgradcheck"
    assert locate("torch.autograd.gradcheck.gradcheck", "").obj is torch.autograd.gradcheck
