"""The data, sparse, tensor and jitgraph families' recipe tables: each entry reaches its family."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.data import data_plan
from torchparity.scaffold.families import tensor_formula
from torchparity.scaffold.jitgraph import jitgraph_applies
from torchparity.scaffold.recipes.data import TEMPLATES
from torchparity.scaffold.recipes.jitgraph import CLASSES, HELPERS
from torchparity.scaffold.recipes.sparse import CASES
from torchparity.scaffold.recipes.tensor import TENSOR_FORMULAS
from torchparity.scaffold.sparse import sparse_leaf, sparse_plan


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_each_data_template_is_rendered_for_its_name(name: str) -> None:
    kind = "function" if name[0].islower() else "class"
    plan = data_plan(api_info(resolution(f"torch.utils.data.{name}", kind)), {}, "DEVICE")
    assert plan.methods and name in "".join(m.source for m in plan.methods)


@pytest.mark.parametrize("leaf", sorted(CASES))
def test_each_sparse_case_writes_its_dense_matrix(leaf: str) -> None:
    info = api_info(resolution(f"torch.{leaf}", "builtin"))
    assert sparse_leaf(info) == leaf
    layout, _, dense, _, _ = CASES[leaf]
    source = "".join(m.source for m in sparse_plan(info, {}, "DEVICE").methods)
    assert dense in source and layout in source


@pytest.mark.parametrize("member", sorted(TENSOR_FORMULAS))
def test_each_tensor_formula_is_the_members(member: str) -> None:
    info = api_info(resolution(f"torch.Tensor.{member}", "method", owner="torch.Tensor"))
    assert tensor_formula(info) == TENSOR_FORMULAS[member]


@pytest.mark.parametrize("name", [*CLASSES, *HELPERS])
def test_each_jitgraph_class_and_helper_is_taken(name: str) -> None:
    assert jitgraph_applies(api_info(resolution(name, "function")))
