"""``agent/facts/checker.py``, in this interpreter: a checker that requires a message is given one."""

from __future__ import annotations

import pytest

from tests.lazy import torch  # imported on first use, not at collection


@pytest.mark.slow
def test_a_checker_that_requires_a_message_is_given_one() -> None:
    from torchparity.agent.facts.checker import MESSAGE, checker_facts

    for fn in (torch._assert, torch.ops.aten._assert_async.msg):
        facts = checker_facts(torch, fn, None, "cpu")
        assert facts["found"] and facts["tail"] == ", " + MESSAGE, facts
        assert facts["none"] and facts["refused"], facts
    assert checker_facts(torch, torch._check, None, "cpu")["tail"] == ""
