"""Recipe data of the agent's facts: receivers, arguments and scenarios of particular APIs, as source.

The modules here hold DATA ONLY: assignments of literals, tuples and dicts (and imports of other
recipe data); no ``def``, ``class``, ``for``, ``while`` or ``if``. The code that reads them lives
beside it (``recipe_lookup.py``, ``receivers.py``, ``scenarios.py``, ``jitgraph.py``, ...).

* ``instances.py``: how a user makes an instance of a class (the receivers of its members);
* ``arguments.py``: values of parameters that no pool has (a named setup, a distribution's value);
* ``jitgraph.py``: the ``jitgraph`` family's scenarios of Python helpers of ``torch.jit`` and
  ``torch.fx``;
* ``tensor_kinds.py``: the sparse APIs the tensor kinds' facts compare with no dense namesake;
* ``recorded.py``: the operators whose recorded calls an operator with none of its own is given.

Everything here runs in the environment under test (Python 3.8, standard library only).
"""

from __future__ import annotations

from .arguments import DISTRIBUTION_VALUES, NAMED_SETUPS
from .instances import (
    GRAPH_MODULE,
    MADE_ELSEWHERE,
    MORE_MADE,
    MORE_RECIPES,
    RECIPES,
    SAVED_FIRST,
    Setup,
)

__all__ = [
    "DISTRIBUTION_VALUES",
    "GRAPH_MODULE",
    "MADE_ELSEWHERE",
    "MORE_MADE",
    "MORE_RECIPES",
    "NAMED_SETUPS",
    "RECIPES",
    "SAVED_FIRST",
    "Setup",
]
