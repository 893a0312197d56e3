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
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.factories import FACTORIES, MODULE

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


def _part(part: str, recipe: dict[str, Any]) -> list[str]:
    """The body lines of one part of a factory's tests, as its recipe describes it."""
    before = list(recipe.get("before", ()))
    if part == "structure":
        checks = _structure(
            recipe["call"],
            recipe["shape"],
            recipe["dtype"],
            recipe.get("out", ""),
            recipe.get("grad", ""),
        )
        return [*before, *checks, *recipe.get("after", ())]
    if part == "distribution":
        moments = recipe.get("moments")
        return ["torch.manual_seed(0)", *recipe["lines"], *(_moments(*moments) if moments else [])]
    return [*before, *_seeded(recipe["call"])]


def _lines(leaf: str, F: str) -> dict[str, list[str]]:
    """test-name suffix -> body lines, for the factory ``leaf`` spelled ``F``."""
    return {
        part: [line.replace("{F}", F).replace("{n}", str(SAMPLES)) for line in _part(part, recipe)]
        for part, recipe in FACTORIES.get(leaf, {}).items()
    }


def factory_leaf(info: ApiInfo) -> str:
    """The factory's name (``rand``) when the API is one of torch's non-reproducible factories, else ""."""
    r = info.resolution
    if r.owner_class or r.kind not in ("function", "builtin"):
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        head, _, leaf = name.rpartition(".")
        if head == MODULE and leaf in FACTORIES:
            return leaf
    return ""


def factory_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
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
