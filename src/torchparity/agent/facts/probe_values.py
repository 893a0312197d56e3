"""Argument values by category, as source: the pools, and the categories a parameter's annotation,
docstring type, default and name give.

Everything here is source that runs with ``torch`` and ``os`` bound, plus the placeholders of
``recipes/instances.py`` (``DEVICE``, ``_TMP_``). A parameter's categories come from its annotation, its docstring
type and its default first, then from a guess by its name (``names.guess``, the last source of the value
chain that ``names.py`` states), then any value at all (``ANY``).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from .names import guess, spatial_dims
from .recipes import GRAPH_MODULE

_TENSORS = (
    "torch.tensor([1.0, -2.0, 3.0], device=DEVICE)",
    "torch.arange(6.0, device=DEVICE).reshape(2, 3)",
    "torch.tensor(2.5, device=DEVICE)",
    "torch.zeros(0, device=DEVICE)",
)
#: argument values by category, most telling first
POOLS: Dict[str, Tuple[str, ...]] = {
    "tensor": _TENSORS,
    "tensors": (
        "[torch.ones(2, device=DEVICE), torch.arange(3.0, device=DEVICE)]",
        "[torch.full((2,), 5.0, device=DEVICE), torch.tensor([7.0, 8.0, 9.0], device=DEVICE)]",
        "(torch.tensor([1.0, 2.0], device=DEVICE),)",
    ),
    "int": ("1", "0", "2", "-1"),
    "bool": ("True", "False"),
    "float": ("0.5", "1.0", "-2.0"),
    "str": ('"x"', '"weight"', '""'),
    "none": ("None",),
    "dtype": ("torch.float32", "torch.int64", "torch.float16", "torch.bool"),
    "device": ("DEVICE",),
    "size": ("(2, 3)", "[3]", "()", "(3, 2)"),
    "sequence": ("[1, 2, 3]", "(1, 2)", "[]"),
    "dict": ('{"a": 1, "b": 2}', "{}"),
    # a function of no argument that pickles and is no torch builtin (an RPC runs it on its worker) last
    "callable": ("torch.relu", "lambda *args, **kwargs: None", "int"),
    "module": (
        "torch.nn.Linear(3, 2, device=DEVICE)",
        "torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()).to(DEVICE)",
    ),
    "graph_module": (GRAPH_MODULE.split(" = ", 1)[1],),
    # models of one architecture (``stack_module_state``, an ensemble): two linear layers
    "modules": ("[torch.nn.Linear(3, 2, device=DEVICE) for _ in range(2)]",),
    "path": ('os.path.join(_TMP_, "item")', "_TMP_"),
    "tree": ('{"a": [1, 2], "b": (torch.ones(2, device=DEVICE), None)}', "[1, (2, 3)]"),
    "op": ("torch.ops.aten.add.Tensor", "torch.ops.aten.relu.default"),
    "class": ("torch.nn.ReLU", "torch.nn.Identity", "torch.nn.Linear", "torch.Tensor"),
    # a class of the test's own (a registry or a decorator changes it, not one of torch's), then torch's
    "fresh_class": (
        'type("Point", (), {"__module__": "__main__", "__annotations__": {"x": int, "y": int}, '
        '"x": 0, "y": 1})',
        "torch.nn.ReLU",
        "torch.Tensor",
    ),
    "bytes": ('b"\\x00\\x00\\x80?\\x00\\x00\\x00@"', "bytearray(8)"),
    "code": ("(lambda x: x + 1).__code__",),
    "functional_tensor": (
        "torch._to_functional_tensor(torch.tensor([1.0, -2.0, 3.0], device=DEVICE))",
    ),
    # one index tensor per indexed dim (``index_put_``), as a tuple, a list and alone
    "index_tuple": (
        "(torch.tensor([0, 2, 1], device=DEVICE),)",
        "[torch.tensor([2, 0, 1], device=DEVICE)]",
        "torch.tensor([0, 2, 1], device=DEVICE)",
    ),
    "tensor_lists": (
        "[[torch.ones(2, device=DEVICE), torch.arange(3.0, device=DEVICE)], "
        "[torch.zeros(2, device=DEVICE), torch.full((3,), 2.0, device=DEVICE)]]",
    ),
    "grad_tensor": (
        "torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True) * 2",
        "torch.tensor([1.0, -2.0, 3.0], device=DEVICE, requires_grad=True)",
    ),
    "backend": ('"eager"', "lambda gm, example_inputs: gm.forward", '"aot_eager"'),
    # a linear-algebra input: square, symmetric, positive definite, well conditioned; then a batch of two
    "square_matrix": (
        "torch.tensor([[2.0, 1.0], [1.0, 3.0]], device=DEVICE)",
        "torch.tensor([[[2.0, 1.0], [1.0, 3.0]], [[4.0, 0.0], [0.0, 1.0]]], device=DEVICE)",
    ),
    # probabilities, each strictly between 0 and 1 (a distribution's ``probs``)
    "probs": ("torch.tensor([0.25, 0.5], device=DEVICE)", "torch.tensor(0.25, device=DEVICE)"),
    # an activation's name (``calculate_gain``, ``kaiming_uniform_``)
    "nonlinearity": ('"relu"', '"tanh"', '"leaky_relu"'),
    # a quantization-aware-training config (a QAT module asks for one)
    "qconfig": ('torch.ao.quantization.get_default_qat_qconfig("fbgemm")',),
    # a symbolic expression (a shape environment's ``replace(expr)``, ``simplify(expr)``)
    "sym_expr": (
        '__import__("sympy").Symbol("s0", positive=True, integer=True) + 1',
        '__import__("sympy").Integer(2)',
    ),
    # an RPC destination: the one worker of the probe's RPC agent, by name and by rank
    "store": ("torch.distributed.HashStore()",),
    "dynamo_source": ('torch._dynamo.source.LocalSource("x")',),
    "worker": ('"worker0"', "0"),
    # the probe's one-process group (its process-group pass)
    # another node of the receiver's traced graph (where the setup traced one), else a graph's own placeholder
    "fx_node": (
        "list(gm.graph.nodes)[0]",
        "list(gm.graph.nodes)[2]",
        'torch.fx.Graph().placeholder("y")',
    ),
    "process_group": ("torch.distributed.group.WORLD",),
    # two normal distributions of one shape (``kl_divergence(p, q)``)
    "distribution": (
        "torch.distributions.Normal(torch.tensor([0.0, 1.0], device=DEVICE), torch.tensor([1.0, 2.0], "
        "device=DEVICE))",
        "torch.distributions.Normal(torch.tensor([0.5, -1.0], device=DEVICE), torch.tensor([2.0, 0.5], "
        "device=DEVICE))",
    ),
    # the parts a fused module is made of (``LinearReLU(linear, relu)``, ``ConvBn2d(conv, bn)``): of each width
    "conv_layer": tuple("torch.nn.Conv%dd(2, 2, 1, device=DEVICE)" % n for n in (1, 2, 3)),
    "norm_layer": tuple("torch.nn.BatchNorm%dd(2, device=DEVICE)" % n for n in (1, 2, 3)),
    "linear_layer": ("torch.nn.Linear(3, 2, device=DEVICE)",),
    "relu_layer": ("torch.nn.ReLU()",),
    "leaky_relu_layer": ("torch.nn.LeakyReLU(0.1)",),
    "tanh_layer": ("torch.nn.Tanh()",),
    # a relaxed distribution's temperature: one positive number (it broadcasts with any parameter)
    "temperature": ("torch.tensor(0.5, device=DEVICE)",),
    # the order of a buffer's bytes (``from_buffer``): one that reads alike on every host first
    "byte_order": ('"little"', '"big"'),
    # a function of one tensor to a scalar, with a nonzero second derivative (``hvp``, ``hessian``)
    "scalar_fn": ("lambda x: (x ** 3).sum()",),
    # a function transform's primals and tangents: a tuple of one tensor each
    "tensor_tuple": (
        "(torch.tensor([1.0, -2.0, 3.0], device=DEVICE),)",
        "(torch.tensor([0.5, 1.0, -1.5], device=DEVICE),)",
    ),
}
#: a value of no expected type: an invalid call
INVALID = "object()"
#: the categories of ``names.NAME_TABLE`` the pools have values for: the pools' own, and a name's indices
#: (an index tuple here)
NAME_POOLS: Dict[str, str] = dict([(cat, cat) for cat in POOLS] + [("indices", "index_tuple")])
#: words of an annotation or a docstring type -> category
TYPE_HINTS = (
    (r"(List|Sequence|list)\[\s*([\w.]*\.)?(List|Sequence|list)\[", "tensor_lists"),
    (r"\bbool(ean)?\b", "bool"),
    (r"\bint(eger)?s?\b|\bSymInt\b", "int"),
    (r"\bfloat\b|\bnumber\b", "float"),
    (r"\bstr(ing)?\b", "str"),
    (r"\bNone\b|\bOptional\b|\boptional\b", "none"),
    (r"\bdtype\b", "dtype"),
    (r"\bdevice\b", "device"),
    (r"\bGraphModule\b", "graph_module"),
    (r"\bModule\b", "module"),
    (r"(List|Sequence|Tuple|Iterable|list|tuple)\[\s*(torch\.)?Tensor", "tensors"),
    (r"\bTensor\b", "tensor"),
    (r"\bSize\b|\bshape\b", "size"),
    (r"\bCallable\b|\bcallable\b", "callable"),
    (r"\bPyTree\b|\bpytree\b", "tree"),
    (r"\bdict\b|\bDict\b|\bMapping\b", "dict"),
    (r"^\s*(?:torch\.fx\.(?:node\.)?)?['\"]?Node['\"]?\s*$", "fx_node"),
    (r"\bProcessGroup\b", "process_group"),
    (r"\bDistribution\b", "distribution"),
    (r"\bOpOverload\b", "op"),
    (r"\b[Tt]ype\[", "class"),
    (
        r"^\s*(?:bytes|bytearray|(?:collections\.abc\.)?Buffer)\s*$",
        "bytes",
    ),  # bytes alone, not IO[bytes]
    (r"\bCodeType\b", "code"),
    (r"\bPath\b|\bPathLike\b|\bpath\b", "path"),
    (r"\blist\b|\btuple\b|\bSequence\b|\bList\b|\bTuple\b|\bIterable\b", "sequence"),
)
#: name categories that narrow an annotation's category, tried before it
NARROWING = ("probs", "temperature")
#: categories tried for a parameter nothing hints at
ANY = ("tensor", "int", "bool", "str", "none", "sequence", "dict")


def name_category(name: str, found: Sequence[str] = ()) -> str:
    """The pool a parameter's name suggests (``names.guess``) besides those ``found`` already, or ""."""
    known = [key for key, cat in NAME_POOLS.items() if cat not in found]
    return NAME_POOLS.get(guess(name, known), "")


def type_categories(
    annotation: Optional[str], doc_type: Optional[str], default_is_bool: bool = False
) -> List[str]:
    """The categories a parameter's default, annotation and docstring type give, in that order."""
    found = ["bool"] if default_is_bool else []
    for text in (annotation or "", doc_type or ""):
        for pattern, cat in TYPE_HINTS:
            if re.search(pattern, text) and cat not in found:
                found.append(cat)
    return found


def categories(
    name: str, annotation: Optional[str], doc_type: Optional[str], default_is_bool: bool = False
) -> List[str]:
    """Categories of values worth trying for one parameter, most likely first: those of its type, then
    the one its name suggests, then any (where nothing else hints)."""
    found = type_categories(annotation, doc_type, default_is_bool)
    cat = name_category(name, found)
    if cat:
        # a name that narrows its annotation's kind (``probs: Tensor``: probabilities) comes first
        found.insert(0, cat) if cat in NARROWING else found.append(cat)
    if not found or found == ["index_tuple"]:  # indices with no annotation: the general pools after
        found = found + [c for c in ANY if c not in found]
    if "class" in found and guess(
        name, ("fresh_class",)
    ):  # ``cls: type``: a class of the test's own
        found = ["fresh_class"] + [c for c in found if c not in ("class", "fresh_class")]
    return found


def values_for(cats: Sequence[str], limit: int = 8) -> List[str]:
    """Values of the categories: the first category's first two, then round-robin over all."""
    out: List[str] = []
    first = list(POOLS.get(cats[0], ()))[:2] if cats else []
    pools = [list(POOLS.get(c, ())) for c in cats]
    for v in first:
        if v not in out:
            out.append(v)
    for rank in range(max([len(p) for p in pools] or [0])):
        for pool in pools:
            if rank < len(pool) and pool[rank] not in out:
                out.append(pool[rank])
    return out[:limit]


def spatial_input(n: int) -> str:
    """A batch of one with two channels and ``n`` 4-wide spatial dims, as source; "" for no dims."""
    return (
        "torch.arange(1.0, %d.0, device=DEVICE).reshape(1, 2%s)" % (2 * 4**n + 1, ", 4" * n)
        if n
        else ""
    )


def spatial_tensor(api_name: str) -> str:
    """The input of an API named for 1, 2 or 3 spatial dims, or ""."""
    return spatial_input(spatial_dims(api_name))


def conv_weight(n: int) -> str:
    """A convolution's weight for ``n`` spatial dims: 2 in, 2 out, 2-wide, as source."""
    return "torch.arange(1.0, %d.0, device=DEVICE).reshape(2, 2%s) / 10" % (4 * 2**n + 1, ", 2" * n)


def var_name(class_name: str) -> str:
    """``StringTable`` -> ``string_table``: a receiver's variable in the test."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", class_name.strip("_")).lower()
    text = re.sub(r"[^a-z0-9_]+", "_", text).strip("_") or "obj"
    if text in ("self", "torch", "os", "result", "tmp", "api") or text[0].isdigit():
        text = "obj_" + text
    return text


#: values worth trying besides the shared pools: indices (small int64 tensors: on the device, and one on the
#: CPU for a lengths argument), and a function of a number a tracer can capture
EXTRA_POOLS: Dict[str, Tuple[str, ...]] = {
    "index": ("torch.tensor([1, 0], device=DEVICE)", "torch.tensor([2, 1, 1])"),
    "callable": ("lambda x: x * 2 + 1",),
}


def unique(values: Sequence[str]) -> List[str]:
    return list(dict.fromkeys(values))


#: an annotation's outermost type -> the pool its values come from (``Iterable[Tensor] | ...``: a list of
#: tensors, not a tensor; ``dict[str, Any]``: a dict, not a string)
_OUTER = (
    (
        r"^(?:typing\.|collections\.abc\.)?(?:Iterable|Sequence|List|list|Tuple|tuple)\[\s*(?:torch\.)?Tensor\b",
        "tensors",
    ),
    (r"^(?:typing\.|collections\.abc\.)?(?:Dict|dict|Mapping|MutableMapping)\b", "dict"),
)


def outer_first(values: List[str], annotation: Optional[str]) -> List[str]:
    """``values`` with the pool of the annotation's outermost type first."""
    for pattern, cat in _OUTER:
        if re.search(pattern, (annotation or "").strip()):
            first = [v for v in POOLS[cat] if v not in ("{}",)][
                :2
            ]  # then the typed values, as before
            return first + [v for v in values if v not in first]
    return values


def narrowed_first(values: List[str], cats: Sequence[str]) -> List[str]:
    """The values of a category that narrows the annotation's (``probs``) before the annotation's own."""
    if not cats or cats[0] not in NARROWING:
        return values
    first = list(POOLS.get(cats[0], ()))
    return first + [v for v in values if v not in first]


def with_extra(values: List[str], cats: Sequence[str]) -> List[str]:
    """``values`` with the extra pools' values of ``cats``: a hinted index pool first, a callable's after
    the first shared one."""
    out = list(values)
    if cats and cats[0] == "index":
        out = list(EXTRA_POOLS["index"]) + [v for v in out if v not in EXTRA_POOLS["index"]]
    if "callable" in cats:
        for v in EXTRA_POOLS["callable"]:
            if v not in out:
                out.insert(1 if out else 0, v)
    return out
