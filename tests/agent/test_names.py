"""The one guess by name (``agent/facts/names.py``) and the facts that say a value was one.

* each stage reads the rows of the one table it has values for, in the table's order: ``size`` is a
  shape for the probe's pools, the grid size of a named setup, a dense size for the tensor kinds;
* a name that matches no row of a stage gets nothing from it;
* the probe's pools follow an annotation first: a name adds its pool only where the annotation did not;
* a scenario lists the parameters whose value was a guess by name, and none whose value came from an
  annotation; so do the tensor kinds' scenarios.
"""

from __future__ import annotations

import pytest

from tests.lazy import torch
from torchparity.agent.api.objects import walk
from torchparity.agent.api.resolve import resolve
from torchparity.agent.facts import names, recipes, tensor_kinds
from torchparity.agent.facts import probe as fp
from torchparity.agent.facts import probe_values as pv


def test_each_stage_reads_the_first_row_it_has_values_for() -> None:
    assert names.guess("size", pv.NAME_POOLS) == "size"
    assert names.guess("size", recipes.NAMED_SETUPS) == "grid_size"
    assert names.guess("size", tensor_kinds.NAME_VALUES) == "dense_size"
    # a layer's width: a number for the pools (its row comes before the sizes'), a size for the kinds
    assert names.guess("hidden_size", pv.NAME_POOLS) == "int"
    assert names.guess("hidden_size", tensor_kinds.NAME_VALUES) == "dense_size"
    assert names.guess("no_such_parameter", pv.NAME_POOLS) == ""
    assert names.guess("", tensor_kinds.NAME_VALUES) == ""


def test_every_category_of_the_table_is_read_by_a_stage() -> None:
    read = set(pv.NAME_POOLS) | set(recipes.NAMED_SETUPS) | set(tensor_kinds.NAME_VALUES)
    read |= {"owner_instance", "stepped_optimizer", "distribution_value", "conv_weight"}
    read |= {"tensor_named", "message"}
    assert {category for _, category in names.NAME_TABLE} <= read


def test_a_name_adds_its_pool_after_the_annotation_and_only_where_it_did_not() -> None:
    assert pv.categories("dim", "", None)[0] == "int"
    assert pv.name_category("dim") == "int"
    assert pv.name_category("dim", ["int"]) == ""  # the annotation gave it: no guess
    # a name that narrows its annotation (probabilities for a tensor) comes first, on purpose
    assert pv.categories("probs", "Tensor", None)[:2] == ["probs", "tensor"]


@pytest.mark.parametrize(
    ("name", "dims"),
    [("lp_pool2d", 2), ("conv_transpose3d", 3), ("avg_pool2d.default", 2), ("atleast_2d", 0)],
)
def test_an_api_named_for_its_spatial_dims(name: str, dims: int) -> None:
    assert names.spatial_dims(name) == dims


@pytest.mark.slow
def test_a_scenario_says_which_arguments_were_a_guess_by_name() -> None:
    def guessed(x, dim):  # no annotation: each value is a guess by its name
        return x.sum(dim)

    def annotated(x: torch.Tensor, dim: int) -> torch.Tensor:
        return x.sum(dim)

    res = {"path": "x", "canonical": "x"}
    valid, _ = fp.Engine(torch, res, guessed, None, "cpu").scenarios()
    assert valid and valid[0].guessed == ["x", "dim"], [sc.call for sc in valid]
    assert valid[0].to_json()["guessed"] == ["x", "dim"]
    valid, _ = fp.Engine(torch, res, annotated, None, "cpu").scenarios()
    assert valid and all(sc.guessed == [] for sc in valid), [sc.guessed for sc in valid]


@pytest.mark.slow
def test_the_tensor_kinds_say_which_arguments_were_a_guess_by_name() -> None:
    res = resolve("torch.sparse_coo_tensor")  # (size): a dense size, by its name
    out = tensor_kinds.kind_facts(torch, res, walk(res["path"]).obj, None)
    assert out["found"] and all(sc["guessed"] == ["size"] for sc in out["scenarios"]), out
