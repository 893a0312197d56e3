"""``agent/facts/domain.py``, in this interpreter: a learning-rate scheduler made of others is built
from two (``ChainedScheduler``, ``SequentialLR``).
"""

from __future__ import annotations

import pytest

from tests.lazy import torch  # imported on first use, not at collection


@pytest.mark.slow
def test_a_scheduler_made_of_others_is_built_from_two() -> None:
    from torchparity.agent.facts.domain import scheduler_facts

    chained = scheduler_facts(torch, torch.optim.lr_scheduler.ChainedScheduler)
    assert chained["problem"] == "" and chained["args"].startswith(
        "[torch.optim.lr_scheduler.StepLR(optimizer,"
    )
    assert (
        chained["lrs"] == "[0.25, 0.25, 0.125]" and chained["last_epoch"] is None
    )  # it keeps no epoch
    sequential = scheduler_facts(torch, torch.optim.lr_scheduler.SequentialLR)
    assert sequential["args"].startswith("optimizer, [") and sequential["last_epoch"] == 3
    step = scheduler_facts(torch, torch.optim.lr_scheduler.StepLR)
    assert step["args"] is None and step["kwargs"] == "step_size=1, gamma=0.5"
