"""The ``kinds`` family: an API called with tensors of another kind (sparse, nested, complex, quantized).

The agent (``agent/facts/tensor_kinds.py``) finds the kinds the API asks for (its
name, its parameters, its schema, a failed call's message), calls it on the
CPU with tensors of those kinds built from values worked out by hand, and
measures the result kind-aware. The test builds the same tensors on the device
(``torch.sparse_coo_tensor(..., device=device)``,
``torch.nested.nested_tensor([...], device=device)``; quantized tensors on the
CPU, which the test says), checks each argument against its matrix by hand,
calls the API and asserts the result as measured on the CPU: dtype, device,
shape, layout, ``is_coalesced``, the dense matrix (``to_dense``) of a sparse
result, the components (``unbind``) of a nested one, ``q_scale``/
``q_zero_point``/``int_repr`` of a quantized one, the tensors an in-place call
changed; and, where it holds, the dense operator on the densified arguments on
the CPU (``torch.sparse.sum(x)`` against ``torch.sum(x.to_dense())``).
"""

from __future__ import annotations

from ..agent.facts.schema_probe import KindScenario
from ..api.records import ApiInfo
from .code import Spelling, check_line, method, uses
from .facts import Facts
from .measured import owner_spelling
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of

#: kind -> what the test calls it
KIND_WORDS = {
    "sparse_coo": "a sparse COO matrix",
    "sparse_csr": "a sparse CSR matrix",
    "sparse_csc": "a sparse CSC matrix",
    "sparse_bsr": "a sparse BSR matrix",
    "sparse_bsc": "a sparse BSC matrix",
    "nested": "a nested tensor",
    "complex": "a complex tensor",
    "int": "an integer tensor",
    "bool": "a bool tensor",
    "quantized": "a quantized tensor",
    "dense": "a dense tensor",
    "quant_module": "a fake-quantize module (its switches are Python state, on the CPU)",
}
SPARSE = ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")


def _hand_check(var: str, hand: str, kind: str) -> list[str]:
    """The argument against the value worked out by hand (what the test builds it from)."""
    if not hand:
        return []
    if kind in SPARSE:
        return [f"self.assertEqual({var}.cpu().to_dense().tolist(), {hand})"]
    if kind == "nested":
        return [f"self.assertEqual([t.tolist() for t in {var}.cpu().unbind()], {hand})"]
    if kind == "quantized":
        return [
            "# quantized on the CPU: a device backend is not assumed to quantize",
            f"self.assertEqual({var}.dequantize().tolist(), {hand})",
        ]
    if kind == "dense":
        return [f"self.assertEqual({var}.cpu().tolist(), {hand})"]
    return [f"self.assertEqual({var}.cpu().tolist(), {hand})"]


def scenario_lines(sc: KindScenario, sp: Spelling) -> list[str]:
    hand: dict[str, list[str]] = sc.get("hand") or {}
    body: list[str] = []
    for line in sc.get("setup", []):
        var = line.split(" = ", 1)[0]
        value, kind = (hand.get(var) or ["", ""])[:2]
        body.append(
            f"# {KIND_WORDS.get(kind, 'a tensor')}" + (", its values by hand" if value else "")
        )
        body.append(sp.apply(line))
        body += _hand_check(var, value, kind)
    body.append(f"result = {sp.apply(sc['call'])}")
    body.append("# as measured on the CPU")
    body += [check_line(c, sp) for c in sc.get("checks", [])]
    raises = sc.get("raises")
    if raises:
        body += [
            "# an index outside the matrix breaks the invariants: refused",
            f"with self.assertRaises({raises[1]}):",
            f"    {sp.apply(raises[0])}",
        ]
    counterpart = sc.get("counterpart")
    if counterpart:
        sparse_result = any(c[1] == "result.layout" for c in sc.get("checks", []))
        got = "result.cpu().to_dense()" if sparse_result else "result.cpu()"
        body += [
            "# independent of the API: the dense operator on the densified arguments, on the CPU",
            f"torch.testing.assert_close({got}, {sp.apply(counterpart)}.cpu())",
        ]
    return body


def kinds_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    kf = facts.get("kinds") or {}
    scenarios = [sc for sc in kf.get("scenarios") or [] if sc.get("checks")]
    if not kf.get("found") or not scenarios:
        raise CannotDecide(str(kf.get("problem") or "no call with tensors of another kind"))
    spelling = spelling_of(r)
    sp = Spelling(api=spelling, owner=owner_spelling(info), device=device)
    stem = stem_of(r)
    methods: list[Method] = []
    names: set[str] = set()
    for sc in scenarios:
        base = name = f"test_{stem}_{sc.get('kind') or 'kind'}"
        n = 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.add(name)
        methods.append(Method(name, method(name, scenario_lines(sc, sp))))
    text = "\n".join(m.source for m in methods)
    kinds = sorted({str(sc.get("kind")) for sc in scenarios})
    dense = sum(1 for sc in scenarios if sc.get("counterpart"))
    summary = (
        f"{spelling} called with {', '.join(KIND_WORDS.get(k, k) for k in kinds)} built on the device "
        "from values worked out by hand; the result checked kind-aware (layout, shape, dtype, device, the "
        "dense matrix, nested components, quantized integers) against the values measured on the CPU"
        + (
            f"; {dense} call(s) against the dense operator on the densified arguments"
            if dense
            else ""
        )
        + "."
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="kinds",
        stem=stem,
        methods=tuple(methods),
        summary=summary,
        coverage=coverage_rows(
            types="、".join(kinds) + " 张量作为参数",
            normal=f"{len(scenarios)} 个调用场景：结果的布局、形状、dtype、稠密值与 CPU 实测一致",
        ),
        uses_device=uses(text, device) or device in text,
        facts=facts,
    )
