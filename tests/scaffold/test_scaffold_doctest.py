"""``scaffold/doctest.py`` from hand-written facts: examples' tensors and modules on the device, the
names their namespace imports, and the plan comparing with the printed results.
"""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.doctest import doctest_plan, on_device
from torchparity.scaffold.plan import CannotDecide


# -- doctest: tensors on the device ------------------------------------------------------------------
def test_tensor_factories_get_the_device():
    assert on_device("x = torch.tensor([1, 2])") == "x = torch.tensor([1, 2], device=device)"
    assert on_device("torch.randn()") == "torch.randn(device=device)"
    assert on_device("torch.zeros(2, device='meta')") == "torch.zeros(2, device='meta')"
    assert (
        on_device("torch.cat((torch.ones(2), x))") == "torch.cat((torch.ones(2, device=device), x))"
    )
    assert on_device("y = x.sum()") == "y = x.sum()"


def test_modules_an_example_builds_are_moved_to_the_device():
    """``custom_from_mask(nn.Linear(5, 3), mask=torch.tensor(...))``: the mask on the device meets weights
    there; a parameter is left as it is (``.to`` would make it a plain tensor)."""
    assert on_device("m = f(nn.Linear(5, 3), mask=torch.tensor([0, 1]))") == (
        "m = f(nn.Linear(5, 3).to(device), mask=torch.tensor([0, 1], device=device))"
    )
    assert on_device("torch.nn.ReLU()") == "torch.nn.ReLU().to(device)"
    assert (
        on_device("p = nn.Parameter(torch.ones(2))")
        == "p = nn.Parameter(torch.ones(2, device=device))"
    )
    assert on_device("y = nn.functional.relu(x)") == "y = nn.functional.relu(x)"


def test_doctest_plan_compares_with_the_printed_results_and_lists_what_it_left_out():
    facts = {
        "doctest": {
            "kept": 2,
            "leaf": "narrow",
            "examples": [
                {"source": "x = torch.tensor([[1, 2], [3, 4]])\n", "kept": True, "want": ""},
                {
                    "source": "torch.narrow(x, 0, 0, 1)\n",
                    "kept": True,
                    "shown": "torch.narrow(x, 0, 0, 1)",
                    "expected": "torch.tensor([[1, 2]])",
                    "want": "tensor([[1, 2]])\n",
                },
                {"source": "x.cuda()\n", "kept": False, "why": "needs CUDA", "want": ""},
                {
                    "source": "torch.narrow(x, 5, 0, 1)\n",
                    "kept": True,
                    "raises": "IndexError",
                    "want": "",
                },
            ],
        }
    }
    plan = doctest_plan(api_info(resolution("torch.narrow", "builtin")), facts, "DEVICE")
    test = plan.methods[0].source
    assert plan.family == "doctest" and plan.tests == ["test_narrow_docstring_examples"]
    assert "x = torch.tensor([[1, 2], [3, 4]], device=device)" in test
    assert (
        "shown.append(keep(torch.narrow(x, 0, 0, 1)))" in test and "torch.tensor([[1, 2]])," in test
    )
    assert (
        "def keep(value):" in test
    )  # a shown value is copied: a later example may change it in place
    assert "with self.assertRaises(IndexError):" in test
    assert "# left out: `x.cuda()`: needs CUDA" in test
    assert 'cpu_results = run(torch.device("cpu"))' in test
    assert any(m.helper and m.name == "_assert_documented" for m in plan.methods)
    with pytest.raises(CannotDecide):
        doctest_plan(
            api_info(resolution("torch.narrow", "builtin")),
            {"doctest": {"kept": 0, "problem": "x"}},
            "DEVICE",
        )


def test_doctest_plan_imports_the_namespace_names_its_examples_use():
    from torchparity.scaffold.doctest import _namespace_imports

    assert _namespace_imports(["a = numpy.array([1, 2, 3])", "t = torch.from_numpy(a)"]) == (
        "import numpy",
    )
    assert _namespace_imports(["x = np.ones(2)", "y = math.pi", "m = nn.Linear(2, 2)"]) == (
        "import numpy as np",
        "import math",
        "from torch import nn",
    )
    assert (
        _namespace_imports(["y = torch.numpy_like(x)", "F = 3", "z = x.np"]) == ()
    )  # not the names themselves
