"""The facts of operator calls written out literally, of ATen overloads and of module_db samples.

``recorded`` describes a call's arguments and results as ``ArgLiteral`` (``recorded._literal``); ``overload`` is an ATen overload's
schema with its OpInfo samples or a batch-norm kernel's arguments; ``module_db`` a module's
construction and forward from upstream's ``module_db``. Part of ``schema.py``.

Python 3.8 syntax: this module is shipped to the agent.
"""

from typing import Dict, List, Optional, Tuple, TypedDict, Union

from .schema_common import Excluded, Measured, Number, ScalarValue


class SparseLiteral(TypedDict, total=False):
    """A COO tensor: its coalesced indices and values, its shape, whether it was coalesced."""

    indices: "ArgLiteral"
    values: "ArgLiteral"
    shape: List[int]
    coalesced: bool


class ArgLiteral(TypedDict, total=False):
    """One value of a call, as the test writes it out: exactly one of ``tensor`` (with ``shape``,
    ``dtype`` and, for a result, ``stride``), ``value``, ``list`` (with ``tuple``), ``torch`` (a dtype,
    layout or memory format by name), ``device``, ``sparse`` or ``nested``."""

    #: a tensor's values, flat (floats rounded)
    tensor: List[Union[bool, int, float]]
    shape: List[int]
    dtype: str
    stride: List[int]
    value: ScalarValue
    list: List["ArgLiteral"]
    tuple: bool
    torch: str
    device: str
    sparse: SparseLiteral
    nested: List["ArgLiteral"]


class RecordedFacts(Measured, total=False):
    """``recorded``: one call of the operator as torch's own code makes it, and what it gives."""

    #: whether the call is the API's own (else its base operator's: ``recorded``)
    own: bool
    recorded: str
    args: List[ArgLiteral]
    kwargs: Dict[str, ArgLiteral]
    result: ArgLiteral
    #: positions of the arguments documented to stay on the CPU
    cpu_args: List[int]
    #: position (as text) / keyword -> the argument as the call leaves it
    changed: Dict[str, ArgLiteral]
    kwchanged: Dict[str, ArgLiteral]
    tolerance: List[Number]


class NormFacts(Measured, total=False):
    """A batch-norm kernel's arguments, and the modes it runs in on the CPU."""

    arguments: List[str]
    #: the training flag's parameter ("" for none)
    flag: str
    #: the training values it runs with
    modes: List[bool]
    returns: int
    updates_running: bool
    mutates: List[str]


class OverloadOpinfo(Measured, total=False):
    """The OpInfo whose samples an overload's schema accepts."""

    name: str
    variant_test_name: str
    #: positions of the sample's positional arguments in the schema (None: as they are)
    order: Optional[List[int]]
    out: bool
    captured: bool
    limit: int
    reference: str
    dtypes: List[str]
    excluded: List[Excluded]
    samples: Dict[str, int]
    tolerances: Dict[str, List[Number]]


class OverloadFacts(Measured, total=False):
    """``overload``: an ATen overload or packet, its schemas, and what checks it."""

    #: overload, packet or function
    kind: str
    qualified: str
    overload: Optional[str]
    name: str
    schemas: List[str]
    norm: NormFacts
    opinfo: OverloadOpinfo


class InputSpec(TypedDict, total=False):
    """One forward argument: ``tensor`` (source), ``tuple`` (with ``list``) or ``value`` (source)."""

    tensor: str
    tuple: List["InputSpec"]
    list: bool
    value: str


class ModuleOutput(TypedDict, total=False):
    """One tensor of a forward's result: its shape and dtype, its values or their sums."""

    shape: List[int]
    dtype: str
    values: List[Number]
    sum: float
    abs_sum: float


class ModuleDbFacts(Measured, total=False):
    """``module_db``: a sample's construction and forward, and its result measured on the CPU."""

    args: List[str]
    #: [name, source] of each keyword argument
    kwargs: List[List[str]]
    inputs: List[InputSpec]
    #: [name, spec] of each keyword argument of the forward
    forward_kwargs: List[Tuple[str, InputSpec]]
    outputs: List[Optional[ModuleOutput]]
    parameters: int
    #: LSTM, RNN, or "" for another module
    rnn: str
    samples: int
