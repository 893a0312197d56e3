"""The tensors of other kinds the tensor kinds' probe (``tensor_kinds.py``) calls an API with, and what asks for them.

``KIND_POOLS``: per kind, sources of tensors (with the ``DEVICE`` placeholder) and each one's matrix
worked out by hand; the words of an API's name (``WORD_KINDS``, ``PAIR_KINDS``) and the messages of its
failed calls (``ERROR_KINDS``) that ask for a kind; the values a parameter's name (``recipes/arguments.NAME_VALUES``) or
its type (``TYPE_VALUES``) suggests, and arguments that break an invariant (``INVALID``).

Stdlib only; Python 3.8.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

_DENSE = "[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]"
_BLOCK = "torch.tensor([[[1.0, 2.0], [3.0, 4.0]]])"

#: kind -> [(source, the dense value by hand)]; sources see ``torch`` and ``DEVICE``
KIND_POOLS: Dict[str, List[Tuple[str, str]]] = {
    "sparse_coo": [
        (
            "torch.sparse_coo_tensor(torch.tensor([[0, 0, 1], [0, 2, 2]]), torch.tensor([1.0, 2.0, 3.0]), (2, 3), "
            "device=DEVICE, is_coalesced=True)",
            _DENSE,
        ),
        # the same matrix, indices out of order and not coalesced
        (
            "torch.sparse_coo_tensor(torch.tensor([[1, 0, 0], [2, 2, 0]]), torch.tensor([3.0, 2.0, 1.0]), (2, 3), "
            "device=DEVICE)",
            _DENSE,
        ),
        # every entry specified
        (
            "torch.sparse_coo_tensor(torch.tensor([[0, 0, 1, 1], [0, 1, 0, 1]]), torch.tensor([1.0, 2.0, 3.0, 4.0]), "
            "(2, 2), device=DEVICE, is_coalesced=True)",
            "[[1.0, 2.0], [3.0, 4.0]]",
        ),
        # another shape: one entry of a 3 x 4 matrix
        (
            "torch.sparse_coo_tensor(torch.tensor([[2], [3]]), torch.tensor([7.0]), (3, 4), device=DEVICE)",
            "[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 7.0]]",
        ),
    ],
    "sparse_csr": [
        (
            "torch.sparse_csr_tensor(torch.tensor([0, 2, 3]), torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 3.0]), "
            "(2, 3), device=DEVICE)",
            _DENSE,
        ),
    ],
    "sparse_csc": [
        (
            "torch.sparse_csc_tensor(torch.tensor([0, 1, 1, 3]), torch.tensor([0, 0, 1]), torch.tensor([1.0, 2.0, 3.0]), "
            "(2, 3), device=DEVICE)",
            _DENSE,
        ),
    ],
    "sparse_bsr": [
        (
            "torch.sparse_bsr_tensor(torch.tensor([0, 1]), torch.tensor([1]), %s, (2, 4), device=DEVICE)"
            % _BLOCK,
            "[[0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 3.0, 4.0]]",
        ),
    ],
    "sparse_bsc": [
        (
            "torch.sparse_bsc_tensor(torch.tensor([0, 1]), torch.tensor([1]), %s, (4, 2), device=DEVICE)"
            % _BLOCK,
            "[[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]",
        ),
    ],
    "nested": [
        (
            "torch.nested.nested_tensor([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0])], device=DEVICE)",
            "[[1.0, 2.0, 3.0], [4.0, 5.0]]",
        ),
        (
            "torch.nested.nested_tensor([torch.arange(6.0).reshape(3, 2), torch.arange(2.0).reshape(1, 2)], "
            "device=DEVICE)",
            "[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[0.0, 1.0]]]",
        ),
    ],
    "complex": [
        (
            "torch.tensor([1.0 + 2.0j, -3.0 + 0.5j, 0.0 - 1.0j], device=DEVICE)",
            "[1+2j, -3+0.5j, -1j]",
        ),
    ],
    "int": [
        ("torch.tensor([5, -3, 0, 12], device=DEVICE)", "[5, -3, 0, 12]"),
    ],
    "bool": [
        ("torch.tensor([True, False, True], device=DEVICE)", "[True, False, True]"),
    ],
    # quantized on the CPU: a device backend is not assumed to quantize
    "quantized": [
        (
            "torch.quantize_per_tensor(torch.tensor([0.5, 1.0, -1.5]), 0.5, 4, torch.quint8)",
            "[0.5, 1.0, -1.5]",
        ),
        (
            "torch.quantize_per_channel(torch.tensor([[0.5, 1.0], [-1.5, 2.0]]), torch.tensor([0.5, 0.25]), "
            "torch.tensor([0, 1]), 0, torch.qint8)",
            "[[0.5, 1.0], [-1.5, 2.0]]",
        ),
    ],
    # a fake-quantize module with its observer and fake quantization switched off, and one as built
    "quant_module": [
        (
            "(lambda m: (m.disable_observer(), m.disable_fake_quant(), m)[-1])(torch.ao.quantization.FakeQuantize())",
            "",
        ),
        ("torch.ao.quantization.FakeQuantize()", ""),
    ],
    "dense": [
        ("torch.tensor(%s, device=DEVICE)" % _DENSE, _DENSE),
        (
            "torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=DEVICE)",
            "[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]",
        ),
        (
            "torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]], device=DEVICE)",
            "[[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]]",
        ),
        (
            "torch.arange(12.0, device=DEVICE).reshape(2, 3, 2)",
            "[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]]",
        ),
    ],
}
SPARSE = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")

#: a word of the API's name (split at dots, underscores and case) -> the kinds it asks for. Whole words
#: only: "int" is not "internal", "coo" is not "coordinate", "col" alone (a column) asks for nothing
WORD_KINDS = {
    "sparse": SPARSE,
    "coo": ("sparse_coo",),
    "coalesce": ("sparse_coo",),
    "coalesced": ("sparse_coo",),
    "csr": ("sparse_csr",),
    "crow": ("sparse_csr", "sparse_bsr"),
    "csc": ("sparse_csc",),
    "ccol": ("sparse_csc", "sparse_bsc"),
    "bsr": ("sparse_bsr",),
    "bsc": ("sparse_bsc",),
    "indices": ("sparse_coo",),
    "values": ("sparse_coo", "sparse_csr"),
    "dense": SPARSE + ("nested",),
    "nested": ("nested",),
    "jagged": ("nested",),
    "padded": ("nested",),
    "complex": ("complex",),
    "cfloat": ("complex",),
    "imag": ("complex",),
    "conj": ("complex",),
    "quantize": ("quantized",),
    "q": ("quantized",),
    "dequantize": ("quantized",),
    "quantized": ("quantized",),
    "qscheme": ("quantized",),
    "quantization": ("quantized", "quant_module"),
    "observer": ("quant_module",),
    "bitwise": ("int", "bool"),
    "bool": ("bool",),
    "logical": ("bool",),
    "int": ("int",),
}
#: two words together (``col_indices``, ``row_indices``)
PAIR_KINDS: Dict[Tuple[str, ...], Tuple[str, ...]] = {
    ("col", "indices"): ("sparse_csr", "sparse_bsr"),
    ("row", "indices"): ("sparse_csc", "sparse_bsc"),
    ("int", "repr"): ("quantized",),
    ("per", "channel"): ("quantized",),
    ("fake", "quant"): ("quant_module",),
    ("q", "scale"): ("quantized",),
    ("q", "zero"): ("quantized",),
}
#: what a failed call's message asks for
ERROR_KINDS = (
    (r"[Ss]parse ?[Cc]sr|sparse_csr|\bCSR\b|(?<!block )row compressed", ("sparse_csr",)),
    (r"sparse_csc|\bCSC\b|(?<!block )column compressed", ("sparse_csc",)),
    (r"sparse_bsr|\bBSR\b|block row", ("sparse_bsr",)),
    (r"sparse_bsc|\bBSC\b|block column", ("sparse_bsc",)),
    (r"[Ss]parse|\bCOO\b", SPARSE),
    (r"[Nn]ested", ("nested",)),
    (r"[Cc]omplex", ("complex",)),
    (r"[Qq]uantized|QuantizedCPU", ("quantized",)),
    (r"[Ii]nteger|\bLong\b|\bInt\b", ("int",)),
    (r"Boolean|\bBool\b", ("bool",)),
)
#: the category of ``names.NAME_TABLE`` of the names a tensor goes by
_TENSOR_NAMED = ("tensor_named",)
#: an argument -> one that breaks an invariant (an index out of the matrix)
INVALID = {
    "torch.tensor([[0, 0, 1], [0, 2, 2]], device=DEVICE)": "torch.tensor([[0, 0, 5], [0, 2, 2]], device=DEVICE)",
}
TYPE_VALUES = (
    (
        r"List\[Tensor|Tensor\[\]|tuple of Tensors",
        (
            "[torch.tensor([1.0, 2.0, 3.0], device=DEVICE), "
            "torch.tensor([4.0, 5.0], device=DEVICE)]",
        ),
    ),
    (r"Tensor", ()),
    (r"^int|SymInt$", ("0", "1")),
    (r"Size|int\[", ("(2, 2, 3)", "(2, 3)")),
    (r"float|Scalar|Number", ("0.0", "1.0")),
    (r"bool", ("False", "True")),
    (r"dtype|ScalarType", ("torch.float64",)),
)


def words(name: str) -> List[str]:
    """``torch.Tensor.crow_indices`` -> ["torch", "tensor", "crow", "indices"]."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", text.lower()) if w]


def kinds_in_name(name: str) -> List[str]:
    ws = words(name)
    out: List[str] = []
    for i, w in enumerate(ws):
        pair = tuple(ws[i : i + 2])
        for kind in PAIR_KINDS.get(pair, ()) + WORD_KINDS.get(w, ()):
            if kind not in out:
                out.append(kind)
    return out


def kinds_in_error(message: str) -> List[str]:
    out: List[str] = []
    for pattern, kinds in ERROR_KINDS:
        if re.search(pattern, message or ""):
            out += [k for k in kinds if k not in out]
    return out
