"""The ``sparse`` family: the sparse tensor constructors (``torch.sparse_coo_tensor``, ``sparse_csr_tensor``, …).

Each builds a small matrix whose compressed form is worked out by hand (the
2 x 3 matrix ``[[1, 0, 2], [0, 0, 3]]``; for the block layouts a 2 x 4 or 4 x 2
matrix of one 2 x 2 block) on the device and asserts what PyTorch documents:
the layout, dtype and device, the number of specified elements, the index and
value tensors it keeps (``crow_indices``/``col_indices``, ``ccol_indices``/
``row_indices``, coalesced COO ``indices``), the dense matrix ``to_dense()``
gives, and that indices breaking the layout's invariants raise with
``check_invariants=True``.
"""

from __future__ import annotations

import re

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.sparse import CASES, MODULES


def sparse_leaf(info: ApiInfo) -> str:
    """The constructor's name when the API is one of torch's sparse tensor constructors, else ""."""
    r = info.resolution
    if r.owner_class or r.kind not in ("function", "builtin"):
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        head, _, leaf = name.rpartition(".")
        if head in MODULES and leaf in CASES:
            return leaf
    return ""


def sparse_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    leaf = sparse_leaf(info)
    if not leaf:
        raise CannotDecide(f"{info.resolution.canonical} is no sparse constructor with a template")
    F = spelling_of(info.resolution)
    layout, args, dense, kept, invalid = CASES[leaf]
    on = f"device={device}"
    shape = re.findall(r"\((\d+, \d+)\)", args)[-1]
    construct = [f"result = {F}({args}, {on})"]
    body = construct + [
        f"self.assertIs(result.layout, {layout})",
        "self.assertIs(result.dtype, torch.float32)",
        f"self.assertEqual(result.device.type, {device}.type)",
        f"self.assertEqual(tuple(result.shape), ({shape}))",
        "# the matrix worked out by hand from its compressed form",
        f"self.assertEqual(result.cpu().to_dense().tolist(), {dense})",
    ]
    body += [f"self.assertEqual(result.{acc}.cpu().tolist(), {want})" for acc, want in kept]
    typed = [
        f"typed = {F}({args}, {on}, dtype=torch.float64)",
        "self.assertIs(typed.dtype, torch.float64)",
        f"self.assertEqual(typed.device.type, {device}.type)",
        f"self.assertEqual(typed.cpu().to_dense().tolist(), {dense})",
    ]
    bad = [
        "# the global check off (TestCase turns it on), so only check_invariants=True asks for it",
        "with torch.sparse.check_sparse_tensor_invariants(enable=False):",
        "    with self.assertRaises(RuntimeError):  # indices that break the layout's invariants",
        f"        {F}({invalid}, {on}, check_invariants=True)",
    ]
    source = (
        f"    def test_{leaf}(self):\n"
        + "".join(f"        {line}\n" for line in body)
        + "\n"
        + f"    def test_{leaf}_dtype(self):\n"
        + "".join(f"        {line}\n" for line in typed)
        + "\n"
        + f"    def test_{leaf}_invalid(self):\n"
        + "".join(f"        {line}\n" for line in bad)
    )
    what = (
        "a small matrix built from its compressed form worked out by hand: layout, dtype, device, shape, "
        "the dense matrix, the index and value tensors it keeps; dtype=; invariant-breaking indices raising"
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=F,
        family="sparse",
        stem=leaf,
        methods=tuple(split_methods(source)),
        summary=what + ".",
        coverage=coverage_rows(
            types="dtype 缺省与 float64",
            normal="稠密结果、布局、索引与取值符合手算值",
            invalid="违反布局约束的索引抛出 RuntimeError",
        ),
        facts=facts,
    )
