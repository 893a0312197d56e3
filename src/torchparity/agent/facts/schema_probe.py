"""The facts of measured scenarios: the probe's, the tensor kinds', switches, pairs, checkers, TorchScript IR.

Part of ``schema.py``. A check is ``[kind, expression, payload]`` (``observe.py``; ``inside``
checks of a context manager's result carry the kind first); the families write each as an
assertion.

Python 3.8 syntax: this module is shipped to the agent.
"""

from typing import Dict, List, Optional, TypedDict, Union

from .schema_common import Measured


class Scenario(TypedDict, total=False):
    """One scenario of the probe (``runner.Scenario.to_json``): setup, the call, what it gave."""

    setup: List[str]
    call: str
    #: the variable the call is a member of ("" for none)
    receiver: str
    listify: bool
    checks: List[List[str]]
    #: the exception an invalid call raises (None for a valid one)
    raises: Optional[str]
    varies: str
    statement: bool
    #: statements around every scenario (a process group), and after this one
    prelude: List[str]
    teardown: List[str]
    getters: List[str]
    remove_handle: bool
    #: the call returns a context manager
    context: bool
    #: parameters whose value is a guess by their name
    guessed: List[str]


class ProbeFacts(Measured, total=False):
    """``probe``: the valid and invalid scenarios measured on the CPU, and the imports they need."""

    valid: List[Scenario]
    invalid: List[Scenario]
    imports: List[str]
    tried: int


class KindScenario(TypedDict, total=False):
    """A call with tensors of another kind (sparse, nested, quantized, ...) and its kind-aware checks."""

    setup: List[str]
    call: str
    checks: List[List[str]]
    #: variable -> [its values worked out by hand, its kind]
    hand: Dict[str, List[str]]
    guessed: List[str]
    #: [a call with an index outside the matrix, the exception it raises]
    raises: List[str]
    #: the dense operator on the densified arguments
    counterpart: str
    kind: str


class KindsFacts(Measured, total=False):
    """``kinds``: the tensor kinds tried and the scenarios kept."""

    kinds: List[str]
    scenarios: List[KindScenario]


#: a switch's value: as measured (bool, int, str), or spelled (a dtype, a keyed value, a device)
SwitchValue = Union[bool, int, str]


class SwitchFacts(Measured, total=False):
    """``switch``: a setter with the getter that reads its state back (``switch.switch_facts``)."""

    #: bool, int, str, dtype, device, keyed, state or version
    kind: str
    getter: str
    setter: str
    #: the key a keyed getter and setter take
    key: str
    saved: SwitchValue
    accepted: List[SwitchValue]
    #: the exception an unknown mode word raises ("" when accepted)
    refused: str
    refused_message: str
    #: a draw that moves a tensor state, and what the setter returns (none, self or other)
    mover: str
    returns: str


class PairFacts(Measured, total=False):
    """``pair``: the API with its partner (``pairs.pair_facts``)."""

    #: toggle, receiver, getter, nesting or version
    kind: str
    enable: str
    disable: str
    args: str
    #: [reader, value on, value off] (for nesting: [reader, inside, outside])
    readers: List[List[str]]
    enable_returns_none: bool
    disable_returns_none: bool
    receiver: str
    #: [attribute read, value on, value off]
    moved: List[List[str]]
    setter: str
    switch: SwitchFacts
    up: str
    down: str
    token: bool
    #: what up, up, down, down return, as offsets from the first
    relation: Optional[List[int]]
    step: int
    returns_none: bool


class CheckerFacts(Measured, total=False):
    """``checker``: a predicate's or validator's arguments by outcome (``checker.checker_facts``)."""

    #: predicate or validator
    kind: str
    uses_io: bool
    #: the message argument a checker takes besides its argument
    tail: str
    true: List[str]
    false: List[str]
    none: List[str]
    #: [argument, exception]
    refused: List[List[str]]


class JitgraphFacts(Measured, total=False):
    """``jitgraph``: a TorchScript IR scenario; a line is a statement or ``["=", expr, literal, comment]``."""

    leaf: str
    lines: List[Union[str, List[str]]]
    restore: List[str]
