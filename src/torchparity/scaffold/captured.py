"""The ``captured`` family: ATen operators that OpInfo samples reach but no OpInfo entry names.

``torch._trilinear`` or ``torch.ops.aten._embedding_bag`` has no OpInfo entry;
``nn.functional.bilinear``'s or ``nn.functional.embedding_bag``'s samples call it.
The agent records that call below autograd (``agent/facts/captured.py``); the
test writes its arguments out (float inputs rounded to four decimals), calls the
API on the device and compares each result with the same call in float64 on the
CPU, the reference the ``opinfo`` family takes for floats below float64; integer
results (indices, offsets) must be equal.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .backward import Writer
from .facts import Facts
from .operators import _comment_lines, lines_method
from .plan import CannotDecide, Method, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.captured import ATEN_NAMESPACE, BUILTIN_MODULES
from .render import render_helpers


def captured_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    cap = facts.get("captured") or {}
    if not cap.get("found"):
        raise CannotDecide(cap.get("problem") or "no captured facts")
    spelling = spelling_of(r)
    stem = stem_of(r)
    variant = f" ({cap['variant_test_name']})" if cap.get("variant_test_name") else ""
    # the operator looked up afresh, not through the attribute the test calls
    ns, name = cap["target"].split("::", 1)
    reference = f'torch._ops._OpNamespace("{ns}").{name}.{cap["overload"] or "default"}'
    body = [
        f"# {line}"
        for line in _comment_lines(
            f"{cap['target']} as a sample of OpInfo {cap['opinfo']}{variant} calls it (recorded below "
            "autograd), here with its float inputs rounded to four decimals"
        )
    ]
    exprs, kw = Writer(body).call(cap["args"], cap["kwargs"])
    rtol, atol = cap["tolerance"]
    body += [
        f"args = [{', '.join(exprs)}]",
        f"kwargs = {{{', '.join(kw)}}}",
        f"result = {spelling}(*self._to_device(args), **self._to_device(kwargs))",
        "flat = torch.utils._pytree.tree_flatten(result)[0]",
        "# the same call in float64 on the CPU (the opinfo family's reference below float64)",
        f"wide = {reference}(*self._widened(args), **self._widened(kwargs))",
        "expected = torch.utils._pytree.tree_flatten(wide)[0]",
        f"self.assertEqual(len(flat), {cap['results']})",
        "# its floating results (integer ones, offsets and counts, are each backend's bookkeeping)",
        f"dtypes = [{', '.join('torch.' + d for d in cap['dtypes'])}]  # as on the CPU",
        f"for i in {cap['float_results']!r}:",
        f"    self.assertEqual(flat[i].device.type, {device}.type)",
        "    self.assertEqual(flat[i].dtype, dtypes[i])",
        "    self.assertEqual(flat[i].shape, expected[i].shape)",
        f"    torch.testing.assert_close(flat[i].cpu().double(), expected[i], rtol={rtol}, atol={atol})",
    ]
    methods: list[Method] = [lines_method(f"test_{stem}", body)]
    methods += [
        Method(name, src, helper=True)
        for name, src in render_helpers("captured_helpers.py.j2", device=device)
    ]
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="captured",
        stem=stem,
        methods=tuple(methods),
        summary=(
            f"the call a sample of OpInfo {cap['opinfo']}{variant} makes of it, on the device, against "
            "the same call in float64 on the CPU."
        ),
        coverage=coverage_rows(
            types="OpInfo 样例实际传给该算子的参数",
            normal="设备结果与 CPU 上 float64 的同一调用一致，整数结果完全相同，结果位于被测设备",
        ),
        facts=facts,
    )


def private_aten(info: ApiInfo) -> bool:
    """An ATen operator by its ``torch.ops.aten`` name, or a private one under ``torch`` (``torch._trilinear``)."""
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    if any(n.startswith(ATEN_NAMESPACE) for n in names if n):
        return True
    leaf = r.path.rsplit(".", 1)[-1]
    if r.kind not in ("function", "builtin") or leaf.startswith("__"):
        return False
    return r.path.startswith(BUILTIN_MODULES) or (r.path.count(".") == 1 and leaf.startswith("_"))
