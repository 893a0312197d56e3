"""The ``factory`` family: tensor factories whose values are not reproducible (``torch.empty*``, ``torch.rand*``).

Their values cannot be compared with a second run, so the tests assert what
PyTorch documents of them instead: the shape, dtype, device, layout,
``requires_grad`` and ``out=`` of the result; for random factories the
distribution on enough samples (``rand`` in [0, 1), ``randint`` in [low,
high) hitting every value, ``randperm`` a permutation, means and standard
deviations within the stated tolerances, ``bernoulli`` 0/1 with p = 0 and 1
exact) and that ``torch.manual_seed`` reproduces the draw on the device's
generator. ``empty`` gets the structural facts only, never its values.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of

#: samples drawn for a distribution check; the tolerances below are at least five standard errors
SAMPLES = 20000


def _structure(
    call: str, shape: str, dtype: str, out_call: str = "", grad_call: str = ""
) -> list[str]:
    lines = [
        f"result = {call}",
        f"self.assertEqual(tuple(result.shape), {shape})",
        f"self.assertIs(result.dtype, {dtype})",
        "self.assertEqual(result.device.type, DEVICE.type)",
        "self.assertIs(result.layout, torch.strided)",
        "self.assertFalse(result.requires_grad)",
    ]
    if grad_call:
        lines += [
            f"leaf = {grad_call}",
            "self.assertTrue(leaf.requires_grad)",
            "self.assertTrue(leaf.is_leaf)",
        ]
    if out_call:
        lines += [
            f"out = torch.zeros(1, dtype={dtype}, device=DEVICE)",
            f"given = {out_call}",
            "self.assertIs(given, out)  # out= is filled (and resized) in place",
            f"self.assertEqual(tuple(out.shape), {shape})",
        ]
    return lines


def _seeded(call: str) -> list[str]:
    return [
        "torch.manual_seed(1234)",
        f"first = {call}",
        "torch.manual_seed(1234)",
        f"second = {call}",
        "self.assertTrue(torch.equal(first, second))  # the same seed draws the same values",
        f"third = {call}",
        "self.assertFalse(torch.equal(second, third))  # the generator moved on",
    ]


def _moments(mean: float, std: float, tol: float) -> list[str]:
    return [
        f"self.assertAlmostEqual(sample.double().mean().item(), {mean}, delta={tol})",
        f"self.assertAlmostEqual(sample.double().std().item(), {std}, delta={tol})",
    ]


def _lines(leaf: str, F: str) -> dict[str, list[str]]:
    """test-name suffix -> body lines, for the factory ``leaf`` spelled ``F``."""
    n = SAMPLES
    base = "base = torch.zeros(2, 3, dtype=torch.float64, device=DEVICE)"
    if leaf == "empty":
        return {
            "structure": _structure(
                f"{F}(2, 3, device=DEVICE)",
                "(2, 3)",
                "torch.get_default_dtype()",
                f"{F}(2, 3, out=out)",
                f"{F}(2, 3, device=DEVICE, requires_grad=True)",
            )
            + [
                f"typed = {F}((4,), dtype=torch.int64, device=DEVICE)",
                "self.assertIs(typed.dtype, torch.int64)",
                "self.assertEqual(typed.numel(), 4)",
                "self.assertTrue(typed.is_contiguous())",
                f"self.assertEqual({F}(0, device=DEVICE).numel(), 0)",
            ]
        }
    if leaf == "empty_like":
        return {
            "structure": [base]
            + _structure(
                f"{F}(base)", "(2, 3)", "torch.float64", "", f"{F}(base, requires_grad=True)"
            )
            + [f"self.assertIs({F}(base, dtype=torch.int32).dtype, torch.int32)"]
        }
    if leaf == "empty_strided":
        return {
            "structure": _structure(
                f"{F}((2, 3), (1, 2), device=DEVICE)",
                "(2, 3)",
                "torch.get_default_dtype()",
                "",
                f"{F}((2, 3), (1, 2), device=DEVICE, requires_grad=True)",
            )
            + [
                f"self.assertEqual({F}((2, 3), (1, 2), device=DEVICE).stride(), (1, 2))",
                f"self.assertEqual({F}((2, 3), (3, 1), device=DEVICE).stride(), (3, 1))",
            ]
        }
    if leaf in ("rand", "randn"):
        mean, std = (0.5, 12**-0.5) if leaf == "rand" else (0.0, 1.0)
        body = [f"sample = {F}({n}, device=DEVICE)"]
        if leaf == "rand":
            body += [
                "self.assertGreaterEqual(sample.min().item(), 0.0)",
                "self.assertLess(sample.max().item(), 1.0)",
            ]
        return {
            "structure": _structure(
                f"{F}(2, 3, device=DEVICE)",
                "(2, 3)",
                "torch.get_default_dtype()",
                f"{F}(2, 3, out=out)",
                f"{F}(2, 3, device=DEVICE, requires_grad=True)",
            )
            + [f"self.assertIs({F}(2, dtype=torch.float64, device=DEVICE).dtype, torch.float64)"],
            "distribution": ["torch.manual_seed(0)", *body] + _moments(mean, std, 0.03),
            "seed": _seeded(f"{F}(64, device=DEVICE)"),
        }
    if leaf in ("rand_like", "randn_like"):
        mean, std = (0.5, 12**-0.5) if leaf == "rand_like" else (0.0, 1.0)
        return {
            "structure": [base]
            + _structure(
                f"{F}(base)", "(2, 3)", "torch.float64", "", f"{F}(base, requires_grad=True)"
            ),
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(torch.zeros({n}, device=DEVICE))",
            ]
            + _moments(mean, std, 0.03),
            "seed": [base.replace("2, 3", "64")] + _seeded(f"{F}(base)"),
        }
    if leaf == "randint":
        return {
            "structure": _structure(
                f"{F}(3, 10, (2, 3), device=DEVICE)",
                "(2, 3)",
                "torch.int64",
                f"{F}(3, 10, (2, 3), out=out)",
                "",
            )
            + [f"self.assertIs({F}(5, (2,), dtype=torch.int32, device=DEVICE).dtype, torch.int32)"],
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(3, 10, ({n},), device=DEVICE)",
                "self.assertEqual(sorted(set(sample.tolist())), list(range(3, 10)))  # [low, high)",
                f"self.assertEqual(sorted(set({F}(4, ({n},), device=DEVICE).tolist())), [0, 1, 2, 3])",
            ]
            + _moments(6.0, 2.0, 0.1),
            "seed": _seeded(f"{F}(0, 1000, (64,), device=DEVICE)"),
        }
    if leaf == "randint_like":
        return {
            "structure": [base] + _structure(f"{F}(base, 3, 10)", "(2, 3)", "torch.float64"),
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(torch.zeros({n}, device=DEVICE), 3, 10)",
                "self.assertEqual(sorted(set(sample.tolist())), [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])",
            ],
            "seed": [base.replace("2, 3", "64")] + _seeded(f"{F}(base, 0, 1000)"),
        }
    if leaf == "randperm":
        return {
            "structure": _structure(
                f"{F}(6, device=DEVICE)", "(6,)", "torch.int64", f"{F}(6, out=out)", ""
            )
            + [
                f"self.assertIs({F}(4, dtype=torch.float64, device=DEVICE).dtype, torch.float64)",
                f"self.assertEqual({F}(0, device=DEVICE).numel(), 0)",
            ],
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(500, device=DEVICE)",
                "self.assertEqual(sorted(sample.tolist()), list(range(500)))  # a permutation",
                "self.assertNotEqual(sample.tolist(), list(range(500)))",
            ],
            "seed": _seeded(f"{F}(64, device=DEVICE)"),
        }
    if leaf == "normal":
        return {
            "structure": _structure(
                f"{F}(2.0, 3.0, size=(2, 3), device=DEVICE)", "(2, 3)", "torch.get_default_dtype()"
            )
            + [
                "mean = torch.arange(1.0, 4.0, device=DEVICE)",
                f"self.assertEqual({F}(mean, torch.zeros(3, device=DEVICE)).tolist(), [1.0, 2.0, 3.0])  # std 0",
            ],
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(2.0, 3.0, size=({n},), device=DEVICE)",
            ]
            + _moments(2.0, 3.0, 0.1),
            "seed": _seeded(f"{F}(0.0, 1.0, size=(64,), device=DEVICE)"),
        }
    if leaf == "bernoulli":
        return {
            "structure": ["p = torch.full((2, 3), 0.5, device=DEVICE)"]
            + _structure(f"{F}(p)", "(2, 3)", "torch.float32")
            + [
                f"self.assertEqual({F}(torch.zeros(5, device=DEVICE)).tolist(), [0.0] * 5)",
                f"self.assertEqual({F}(torch.ones(5, device=DEVICE)).tolist(), [1.0] * 5)",
            ],
            "distribution": [
                "torch.manual_seed(0)",
                f"sample = {F}(torch.full(({n},), 0.3, device=DEVICE))",
                "self.assertEqual(set(sample.tolist()), {0.0, 1.0})",
                "self.assertAlmostEqual(sample.double().mean().item(), 0.3, delta=0.03)",
            ],
            "seed": ["p = torch.full((64,), 0.5, device=DEVICE)"] + _seeded(f"{F}(p)"),
        }
    return {}


FACTORIES = (
    "empty",
    "empty_like",
    "empty_strided",
    "rand",
    "randn",
    "rand_like",
    "randn_like",
    "randint",
    "randint_like",
    "randperm",
    "normal",
    "bernoulli",
)


def factory_leaf(info: ApiInfo) -> str:
    """The factory's name (``rand``) when the API is one of torch's non-reproducible factories, else ""."""
    r = info.resolution
    if r.owner_class or r.kind not in ("function", "builtin"):
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        head, _, leaf = name.rpartition(".")
        if head == "torch" and leaf in FACTORIES:
            return leaf
    return ""


def factory_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    leaf = factory_leaf(info)
    if not leaf:
        raise CannotDecide(f"{info.resolution.canonical} is no tensor factory with a template")
    F = spelling_of(info.resolution)
    bodies = _lines(leaf, F)
    source = "".join(
        f"    def test_{leaf}_{part}(self):\n"
        + "".join(f"        {line}\n" for line in lines)
        + "\n"
        for part, lines in bodies.items()
    )
    methods = tuple(split_methods(source))
    what = "the shape, dtype, device, layout, requires_grad and out= of the result"
    if "distribution" in bodies:
        what += f"; the documented distribution on {SAMPLES} samples and reproducibility under torch.manual_seed"
    return TestPlan(
        api=info.resolution.canonical,
        spelling=F,
        family="factory",
        stem=leaf,
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
