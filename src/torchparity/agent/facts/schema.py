"""The facts the agent answers for one API (``gather.facts_for``), as typed dicts: one per kind of fact.

The agent sends them as JSON; the controller decodes them once against ``Facts``
(``scaffold/facts.py``), so that a wrong-shaped answer is refused where it enters and every key a
family reads is declared here. Every kind may be absent (the families that need it were not
candidates) and every dict is ``total=False``: a measurement that failed is only
``{"problem": why, "found": False}`` (``gather._guard``).

The operator calls written out literally (``recorded``), the
overload and module_db facts are in ``schema_calls.py``; the probe's scenarios, the tensor kinds,
switches, pairs and checkers in ``schema_probe.py``.

Python 3.8 syntax: this module is shipped to the agent.
"""

from typing import Dict, List, Optional, TypedDict, Union

from .schema_calls import (
    ModuleDbFacts,
    OverloadFacts,
    RecordedFacts,
)
from .schema_common import Excluded, Measured, Number, StateValue
from .schema_probe import (
    CheckerFacts,
    JitgraphFacts,
    KindsFacts,
    PairFacts,
    ProbeFacts,
    SwitchFacts,
)

__all__ = [
    "CallDiffers",
    "CallsFacts",
    "CheckedOutcome",
    "CheckerFacts",
    "Classes",
    "ContextFacts",
    "ContextRun",
    "DecoratorRun",
    "DoctestExample",
    "DoctestFacts",
    "ErrorInputs",
    "Facts",
    "InvalidCall",
    "JitgraphFacts",
    "KindsFacts",
    "ModuleDbFacts",
    "OpinfoFacts",
    "OptimFacts",
    "OverloadFacts",
    "PairFacts",
    "PinnedMemoryFacts",
    "ProbeFacts",
    "RecordedFacts",
    "RunOutcome",
    "RuntimeCall",
    "RuntimeFacts",
    "StandinReport",
    "StateFacts",
    "StorageFacts",
    "SwitchFacts",
    "TensorFacts",
    "TensorRow",
    "TestOutcome",
    "ValidCall",
]


# -- the global states an API touches (``context.state_facts``) ---------------------------------
class StateFacts(TypedDict, total=False):
    """One state of the agent's registry linked to the API."""

    name: str
    #: whether this torch has it (``why`` says why not)
    available: bool
    why: str
    #: the values a test sets it to (JSON scalars: a dtype as its text)
    values: List[StateValue]


# -- ``context``: how a context manager moves its states (``context.context_facts_here``) -------
class ContextIdentity(TypedDict, total=False):
    """What ``clone()`` gives: a new object of the same class with the same mode attributes."""

    is_not: bool
    same_type: bool
    attrs: Dict[str, bool]


class ContextRun(TypedDict, total=False):
    """One construction, entry and exit from one start value: each state's value at each point."""

    #: the mode argument given (``[]``: none, ``[False]`` or ``[True]``)
    args: List[bool]
    outer: Dict[str, StateValue]
    before: Dict[str, StateValue]
    after_construct: Dict[str, StateValue]
    inside: Dict[str, StateValue]
    after_exit: Dict[str, StateValue]
    #: for ``clone``: what the clone is
    identity: ContextIdentity


class DecoratorRun(TypedDict, total=False):
    """One call of a function decorated with the manager, from one start value."""

    args: List[bool]
    before: Dict[str, StateValue]
    inside: Dict[str, StateValue]


class ContextFacts(Measured, total=False):
    """``context``: the manager's states, parameters and runs from every start value."""

    states: List[StateFacts]
    #: the member under test (``clone``, ``__enter__``, ...); None for the class itself
    member: Optional[str]
    runs: List[ContextRun]
    decorator_runs: List[DecoratorRun]
    decorator: bool
    params: List[str]
    #: the constructor's bool mode parameter, None when it takes none
    mode_param: Optional[str]
    mode_attrs: List[str]
    enter_returns_none: bool


# -- ``opinfo``: the OpInfo entry of an operator (``opinfo.opinfo_facts``) ----------------------
class ErrorInputs(TypedDict, total=False):
    """How many of the OpInfo's error inputs raise the error they document here."""

    count: int
    problem: str


class OpinfoFacts(Measured, total=False):
    """``opinfo``: the entry, how its samples call the API, and the dtypes checked on the CPU."""

    #: why op_db could not be imported
    error: str
    name: str
    variant_test_name: str
    #: every OpInfo name matching the API
    matches: List[str]
    error_inputs: ErrorInputs
    #: how the sample calls the API: function, method, inplace or wrapper
    call: str
    wrapper_args: str
    has_ref: bool
    #: what the device result is compared with: numpy, float64, cpu or meta
    reference: str
    cpu_reference: bool
    cpu_dtypes: List[str]
    supported: List[str]
    dtypes: List[str]
    excluded: List[Excluded]
    #: dtype -> sample inputs checked
    samples: Dict[str, int]
    #: dtype -> [rtol, atol]
    tolerances: Dict[str, List[Number]]


# -- ``tensor``: a Tensor member on tensors of several shapes (``calls.tensor_facts``) -----------
class TensorRow(TypedDict, total=False):
    """The member on a float32 tensor of one shape."""

    shape: List[int]
    #: the result as source, None when no literal holds it
    literal: Optional[str]
    #: the exception it raises, None when it returns
    raises: Optional[str]
    #: whether the shape formula gives the same value (None: no formula)
    formula_ok: Optional[bool]
    error: str


class TensorFacts(Measured, total=False):
    """``tensor``: a row per shape."""

    shapes: List[TensorRow]


# -- ``calls``: calls by the signature (``calls.call_facts``, ``gather.calls_on_device``) --------
class ValidCall(TypedDict, total=False):
    """A call that returns the same from every start value of the API's states (``calls._outcome``)."""

    #: the arguments as source (``DEVICE`` stands for the device)
    args: str
    #: the result as source
    literal: str
    type: str
    tensor: bool
    #: [state, its value as source] for each state the call leaves the same from every start
    states: List[List[str]]
    #: the parameters given another value than the base call's, joined by ``+``
    varies: str


class InvalidCall(TypedDict, total=False):
    """A call that raises from every start value."""

    args: str
    #: the exception's name as a test spells it
    raises: str
    error: str
    varies: str


class CallDiffers(TypedDict, total=False):
    """A call whose outcome on the device is not the CPU's (each in words)."""

    args: str
    cpu: str
    device: str


class CallsFacts(Measured, total=False):
    """``calls``: valid and invalid calls, measured on the CPU and again on the device."""

    valid: List[ValidCall]
    invalid: List[InvalidCall]
    params: List[str]
    states: List[str]
    #: the device the calls were measured again on ("" or absent: the CPU only)
    measured_on: str
    differs: List[CallDiffers]


# -- ``storage`` and ``runtime`` (``runtime.py``) ------------------------------------------------
class StorageFacts(Measured, total=False):
    """``storage``: a storage class built and moved on the CPU."""

    untyped: bool
    #: source of the values a typed storage is built from; an untyped one's bytes
    values: Union[str, List[int]]
    size: int
    nbytes: int
    dtype: str
    tolist: str
    element_size: int
    moved_ok: bool


class RuntimeCall(TypedDict, total=False):
    """A zero-argument call of a runtime function or method."""

    ok: bool
    literal: Optional[str]
    type: str
    error: str
    raises: str


class RuntimeFacts(Measured, total=False):
    """``runtime``: a device-runtime function or class, through the device's own module."""

    callable: bool
    is_class: bool
    module: str
    leaf: str
    #: ``torch.<device>.<name>`` where the device has its own module ("" otherwise)
    spelled: str
    module_members: List[str]
    home: str
    #: how a class was constructed: device or plain
    construct: str
    methods: Dict[str, RuntimeCall]
    timing: bool
    device: Optional[str]
    zero_arg: RuntimeCall


class PinnedMemoryFacts(Measured, total=False):
    """``pinned_memory``: whether the device's backend pins host memory (``problem``: why not; a
    measurement that raised is only ``problem`` and ``found``, as every kind's)."""

    ok: bool


# -- ``doctest``: the docstring's examples run here (``doctest.doctest_facts``) ------------------
class DoctestExample(TypedDict, total=False):
    """One ``>>>`` example and what it gives here."""

    source: str
    want: str
    raises: str
    line: int
    kept: bool
    why: str
    #: the expression whose value the docstring prints, and that value as source
    shown: str
    expected: str
    replayed: str


class DoctestFacts(TypedDict, total=False):
    """``doctest``: the examples, how many were kept, and the name they call the API by."""

    examples: List[DoctestExample]
    kept: int
    problem: str
    found: bool
    leaf: str


# -- ``optim``: an optimizer or a scheduler (``domain.optim_facts``) -----------------------------
class OptimFacts(Measured, total=False):
    """``optim``: how the class is built, and what a scheduler's steps give."""

    #: optimizer or scheduler
    kind: str
    #: the class measured in place of a base class
    concrete: str
    ctor: str
    matrix: bool
    kwargs: str
    lrs: str
    last_lr: str
    args: Optional[str]
    last_epoch: Optional[int]
    metric: str


# -- ``checked``: each candidate's test run by the agent (added by ``scaffold/check.py``) ----------
class TestOutcome(TypedDict, total=False):
    """One test method's outcome: pass, fail, error or skip."""

    status: str
    message: str


class StandinReport(TypedDict, total=False):
    """Where the API was replaced by the stand-in."""

    replaced: List[str]
    problem: str


class RunOutcome(TypedDict, total=False):
    """One run of a candidate file (``check.run_file``)."""

    outcomes: Dict[str, TestOutcome]
    standin: Optional[StandinReport]
    error: str


class CheckedOutcome(TypedDict, total=False):
    """A family's candidate run as written (``clean``) and with the API broken (``broken``)."""

    clean: Optional[RunOutcome]
    broken: Optional[RunOutcome]
    #: where it ran ("the CPU", or the device)
    on: str


class Classes(TypedDict, total=False):
    """``module.qualname`` of each class in the MRO of the API and of its owner class."""

    api: List[str]
    owner: List[str]


class Facts(TypedDict, total=False):
    """Everything the agent answers for one API, and the outcomes of the candidates' checks."""

    device_type: str
    torch_version: str
    python_version: str
    #: why the API could not be looked up (then every kind asked for says so too)
    problem: str
    #: name -> the ``import`` lines it needs beyond ``import torch``
    imports: Dict[str, List[str]]
    classes: Classes
    callable: bool
    members: List[str]
    defined_on: str
    states: List[StateFacts]
    context: ContextFacts
    opinfo: OpinfoFacts
    overload: OverloadFacts
    recorded: RecordedFacts
    tensor: TensorFacts
    calls: CallsFacts
    storage: StorageFacts
    runtime: RuntimeFacts
    doctest: DoctestFacts
    pinned_memory: PinnedMemoryFacts
    #: asked for as ``data``; answered as ``pinned_memory``, or here when the lookup failed
    data: Measured
    optim: OptimFacts
    probe: ProbeFacts
    jitgraph: JitgraphFacts
    kinds: KindsFacts
    switch: SwitchFacts
    checker: CheckerFacts
    pair: PairFacts
    module_db: ModuleDbFacts
    #: family -> its candidate's outcomes
    checked: Dict[str, CheckedOutcome]
