"""The agent's facts, decoded once where they enter the controller: ``decode_facts``.

The agent answers each API's facts as JSON (``agent/facts/gather.py``), and the runs of each
family's candidate test (``agent/facts/check.py``, kept as ``checked``); their shape is
``agent/facts/schema.py``'s ``Facts``. ``decode_facts`` checks an answer against it (msgspec walks
the typed dicts), so a family reads only keys the schema declares, with the types it declares;
an answer of another shape is refused with the key path that is wrong.
"""

from __future__ import annotations

import msgspec

from ..agent.facts.schema import Facts, RunOutcome
from ..errors import EnvironmentBroken

__all__ = ["Facts", "FactsUnreadable", "decode_facts", "decode_run"]


class FactsUnreadable(EnvironmentBroken):
    """An agent's facts answer of another shape than ``Facts`` (a key path says where)."""


def decode_facts(doc: object, where: str = "the agent's facts") -> Facts:
    """``doc`` as ``Facts``, or ``FactsUnreadable`` naming the key path that does not fit.

    Keys the schema does not declare are dropped: no family reads them.
    """
    try:
        return msgspec.convert(doc, type=Facts)
    except msgspec.ValidationError as exc:
        raise FactsUnreadable(
            f"{where} cannot be read: {exc} (made by another torchparity version? "
            "run the scaffold again)"
        ) from None


def decode_run(doc: object, where: str = "the agent's check") -> RunOutcome | None:
    """One run of a candidate file as the agent's ``scaffold_check`` answers it (None: no run), or
    ``FactsUnreadable``; it becomes part of the facts (``checked``)."""
    try:
        return msgspec.convert(doc, type=RunOutcome | None)
    except msgspec.ValidationError as exc:
        raise FactsUnreadable(f"{where} cannot be read: {exc}") from None
