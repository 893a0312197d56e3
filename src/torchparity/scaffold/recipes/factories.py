"""What the ``factory`` family asserts of each of torch's non-reproducible tensor factories, by leaf (``torch.<leaf>``).

Each entry gives the parts of its tests, in order (``factories.py`` writes one test per part):

* ``structure``: the call whose result's shape, dtype, device, layout and ``requires_grad``
  are checked (``call``, ``shape``, ``dtype``), the ``out=`` call and the ``requires_grad=True``
  call where the factory takes them (``out``, ``grad``), the lines run ``before`` and the
  factory's own checks ``after``;
* ``distribution``: the lines that draw ``sample`` (under ``torch.manual_seed(0)``) and check it,
  and the documented ``moments`` (mean, standard deviation, tolerance) where they apply;
* ``seed``: a call that ``torch.manual_seed`` must reproduce, after the lines ``before``.

In the lines ``{F}`` is the factory as the test spells it and ``{n}`` the number of samples.
"""

from __future__ import annotations

from typing import Any

#: the module the factories below are named under (``torch.rand``); the same leaf elsewhere is another API
MODULE = "torch"

#: a float64 tensor for the ``*_like`` factories to copy
BASE = "base = torch.zeros(2, 3, dtype=torch.float64, device=DEVICE)"
BASE_64 = "base = torch.zeros(64, dtype=torch.float64, device=DEVICE)"

#: the structure part of a floating-point factory called with a size (``rand``, ``randn``)
FLOAT_STRUCTURE = {
    "call": "{F}(2, 3, device=DEVICE)",
    "shape": "(2, 3)",
    "dtype": "torch.get_default_dtype()",
    "out": "{F}(2, 3, out=out)",
    "grad": "{F}(2, 3, device=DEVICE, requires_grad=True)",
    "after": ("self.assertIs({F}(2, dtype=torch.float64, device=DEVICE).dtype, torch.float64)",),
}
#: the structure part of a ``*_like`` floating-point factory (``rand_like``, ``randn_like``)
LIKE_STRUCTURE = {
    "before": (BASE,),
    "call": "{F}(base)",
    "shape": "(2, 3)",
    "dtype": "torch.float64",
    "grad": "{F}(base, requires_grad=True)",
}

#: leaf -> part of its tests (structure, distribution, seed) -> what the part checks
FACTORIES: dict[str, dict[str, dict[str, Any]]] = {
    "empty": {
        "structure": {
            "call": "{F}(2, 3, device=DEVICE)",
            "shape": "(2, 3)",
            "dtype": "torch.get_default_dtype()",
            "out": "{F}(2, 3, out=out)",
            "grad": "{F}(2, 3, device=DEVICE, requires_grad=True)",
            "after": (
                "typed = {F}((4,), dtype=torch.int64, device=DEVICE)",
                "self.assertIs(typed.dtype, torch.int64)",
                "self.assertEqual(typed.numel(), 4)",
                "self.assertTrue(typed.is_contiguous())",
                "self.assertEqual({F}(0, device=DEVICE).numel(), 0)",
            ),
        },
    },
    "empty_like": {
        "structure": {
            "before": (BASE,),
            "call": "{F}(base)",
            "shape": "(2, 3)",
            "dtype": "torch.float64",
            "grad": "{F}(base, requires_grad=True)",
            "after": ("self.assertIs({F}(base, dtype=torch.int32).dtype, torch.int32)",),
        },
    },
    "empty_strided": {
        "structure": {
            "call": "{F}((2, 3), (1, 2), device=DEVICE)",
            "shape": "(2, 3)",
            "dtype": "torch.get_default_dtype()",
            "grad": "{F}((2, 3), (1, 2), device=DEVICE, requires_grad=True)",
            "after": (
                "self.assertEqual({F}((2, 3), (1, 2), device=DEVICE).stride(), (1, 2))",
                "self.assertEqual({F}((2, 3), (3, 1), device=DEVICE).stride(), (3, 1))",
            ),
        },
    },
    "rand": {
        "structure": FLOAT_STRUCTURE,
        "distribution": {
            "lines": (
                "sample = {F}({n}, device=DEVICE)",
                "self.assertGreaterEqual(sample.min().item(), 0.0)",
                "self.assertLess(sample.max().item(), 1.0)",
            ),
            "moments": (0.5, 0.28867513459481287, 0.03),  # U(0, 1): std 12 ** -0.5
        },
        "seed": {"call": "{F}(64, device=DEVICE)"},
    },
    "randn": {
        "structure": FLOAT_STRUCTURE,
        "distribution": {
            "lines": ("sample = {F}({n}, device=DEVICE)",),
            "moments": (0.0, 1.0, 0.03),
        },
        "seed": {"call": "{F}(64, device=DEVICE)"},
    },
    "rand_like": {
        "structure": LIKE_STRUCTURE,
        "distribution": {
            "lines": ("sample = {F}(torch.zeros({n}, device=DEVICE))",),
            "moments": (0.5, 0.28867513459481287, 0.03),  # U(0, 1): std 12 ** -0.5
        },
        "seed": {"before": (BASE_64,), "call": "{F}(base)"},
    },
    "randn_like": {
        "structure": LIKE_STRUCTURE,
        "distribution": {
            "lines": ("sample = {F}(torch.zeros({n}, device=DEVICE))",),
            "moments": (0.0, 1.0, 0.03),
        },
        "seed": {"before": (BASE_64,), "call": "{F}(base)"},
    },
    "randint": {
        "structure": {
            "call": "{F}(3, 10, (2, 3), device=DEVICE)",
            "shape": "(2, 3)",
            "dtype": "torch.int64",
            "out": "{F}(3, 10, (2, 3), out=out)",
            "after": (
                "self.assertIs({F}(5, (2,), dtype=torch.int32, device=DEVICE).dtype, torch.int32)",
            ),
        },
        "distribution": {
            "lines": (
                "sample = {F}(3, 10, ({n},), device=DEVICE)",
                "self.assertEqual(sorted(set(sample.tolist())), list(range(3, 10)))  # [low, high)",
                "self.assertEqual(sorted(set({F}(4, ({n},), device=DEVICE).tolist())), [0, 1, 2, 3])",
            ),
            "moments": (6.0, 2.0, 0.1),
        },
        "seed": {"call": "{F}(0, 1000, (64,), device=DEVICE)"},
    },
    "randint_like": {
        "structure": {
            "before": (BASE,),
            "call": "{F}(base, 3, 10)",
            "shape": "(2, 3)",
            "dtype": "torch.float64",
        },
        "distribution": {
            "lines": (
                "sample = {F}(torch.zeros({n}, device=DEVICE), 3, 10)",
                "self.assertEqual(sorted(set(sample.tolist())), [3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])",
            ),
        },
        "seed": {"before": (BASE_64,), "call": "{F}(base, 0, 1000)"},
    },
    "randperm": {
        "structure": {
            "call": "{F}(6, device=DEVICE)",
            "shape": "(6,)",
            "dtype": "torch.int64",
            "out": "{F}(6, out=out)",
            "after": (
                "self.assertIs({F}(4, dtype=torch.float64, device=DEVICE).dtype, torch.float64)",
                "self.assertEqual({F}(0, device=DEVICE).numel(), 0)",
            ),
        },
        "distribution": {
            "lines": (
                "sample = {F}(500, device=DEVICE)",
                "self.assertEqual(sorted(sample.tolist()), list(range(500)))  # a permutation",
                "self.assertNotEqual(sample.tolist(), list(range(500)))",
            ),
        },
        "seed": {"call": "{F}(64, device=DEVICE)"},
    },
    "normal": {
        "structure": {
            "call": "{F}(2.0, 3.0, size=(2, 3), device=DEVICE)",
            "shape": "(2, 3)",
            "dtype": "torch.get_default_dtype()",
            "after": (
                "mean = torch.arange(1.0, 4.0, device=DEVICE)",
                "self.assertEqual({F}(mean, torch.zeros(3, device=DEVICE)).tolist(), [1.0, 2.0, 3.0])  # std 0",
            ),
        },
        "distribution": {
            "lines": ("sample = {F}(2.0, 3.0, size=({n},), device=DEVICE)",),
            "moments": (2.0, 3.0, 0.1),
        },
        "seed": {"call": "{F}(0.0, 1.0, size=(64,), device=DEVICE)"},
    },
    "bernoulli": {
        "structure": {
            "before": ("p = torch.full((2, 3), 0.5, device=DEVICE)",),
            "call": "{F}(p)",
            "shape": "(2, 3)",
            "dtype": "torch.float32",
            "after": (
                "self.assertEqual({F}(torch.zeros(5, device=DEVICE)).tolist(), [0.0] * 5)",
                "self.assertEqual({F}(torch.ones(5, device=DEVICE)).tolist(), [1.0] * 5)",
            ),
        },
        "distribution": {
            "lines": (
                "sample = {F}(torch.full(({n},), 0.3, device=DEVICE))",
                "self.assertEqual(set(sample.tolist()), {0.0, 1.0})",
                "self.assertAlmostEqual(sample.double().mean().item(), 0.3, delta=0.03)",
            ),
        },
        "seed": {"before": ("p = torch.full((64,), 0.5, device=DEVICE)",), "call": "{F}(p)"},
    },
}
