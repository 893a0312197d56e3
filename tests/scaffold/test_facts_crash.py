"""A facts batch whose agent job crashes is asked again in halves: only the crashing API loses its facts."""

from __future__ import annotations

from typing import Any

from torchparity.exec.session import AgentJobCrashed
from torchparity.scaffold.core import _ask_facts


class CrashingSession:
    """Answers ``scaffold_facts`` like the agent, and crashes any batch holding both ``a`` and ``b`` (as
    a segfault that needs two calls in one interpreter does) or the item ``boom``."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def call(self, op: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        paths = [i["resolution"]["path"] for i in args["items"]]
        self.batches.append(paths)
        if "boom" in paths or {"a", "b"} <= set(paths):
            raise AgentJobCrashed("agent job 'scaffold_facts' in python ended CRASH (exit -11)")
        # each API's facts marked by a key the agent sends (decoding keeps only those); ``odd``
        # answers a shape the schema refuses (its torch version a number)
        return {
            "items": [
                {
                    "defined_on": p,
                    "calls": {"found": True},
                    "torch_version": 2 if p == "odd" else "",
                }
                for p in paths
            ]
        }


def _items(*paths: str) -> list[dict[str, Any]]:
    return [{"resolution": {"path": p}, "wants": ["calls", "probe"]} for p in paths]


def test_a_pair_that_crashes_together_gets_its_facts_one_by_one():
    session = CrashingSession()
    facts = _ask_facts(session, _items("x", "a", "y", "b"))  # type: ignore[arg-type]
    assert [f["defined_on"] for f in facts] == ["x", "a", "y", "b"]
    assert session.batches[0] == ["x", "a", "y", "b"] and len(session.batches) == 3


def test_an_api_that_crashes_alone_says_why_and_the_others_keep_theirs():
    session = CrashingSession()
    facts = _ask_facts(session, _items("x", "boom", "y"))  # type: ignore[arg-type]
    assert [f.get("defined_on") for f in facts] == ["x", None, "y"]
    crashed = facts[1]
    assert "ended the interpreter" in crashed["problem"] and "exit -11" in crashed["problem"]
    assert crashed["calls"] == {"problem": crashed["problem"], "found": False}
    assert crashed["probe"]["found"] is False and crashed["states"] == []


def test_an_answer_of_another_shape_costs_only_its_own_api_its_facts():
    session = CrashingSession()
    facts = _ask_facts(session, _items("x", "odd", "y"))  # type: ignore[arg-type]
    assert [f.get("defined_on") for f in facts] == ["x", None, "y"]
    odd = facts[1]
    assert "the agent's facts for odd cannot be read" in odd["problem"]
    assert "$.torch_version" in odd["problem"]
    assert odd["calls"] == {"problem": odd["problem"], "found": False}
    assert len(session.batches) == 1  # not asked again: the answer came, only its shape is wrong
