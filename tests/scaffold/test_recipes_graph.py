"""Each recipe of the graph family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.api.records import ApiInfo
from torchparity.scaffold.families import graph as family
from torchparity.scaffold.graph import graph_plan
from torchparity.scaffold.recipes.graph import (
    COMPILE,
    EXPORT,
    EXPORTED_MEMBERS,
    FX_HELPERS,
    FX_MEMBERS,
    JIT,
    JIT_FLAGS,
    JIT_FUNCTION_MEMBERS,
)


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


def _member(owner: str, leaf: str) -> ApiInfo:
    return api_info(resolution(f"{owner}.{leaf}", "method", owner=owner, owner_kind="class"))


def _source(info: ApiInfo) -> str:
    return "".join(m.source for m in graph_plan(info, {}, "DEVICE").methods)


def _has_lines(source: str, lines: tuple[str, ...], **names: str) -> bool:
    return all(_bare(line.format(device="DEVICE", **names)) in _bare(source) for line in lines)


@pytest.mark.parametrize("leaf", list(JIT_FUNCTION_MEMBERS))
def test_each_scripted_function_member_gets_its_lines(leaf: str) -> None:
    owner = "torch.jit.ScriptFunction"
    source = _source(_member(owner, leaf))
    assert _has_lines(source, JIT_FUNCTION_MEMBERS[leaf], owner=owner)


@pytest.mark.parametrize("key", list(FX_MEMBERS))
def test_each_fx_member_gets_its_lines(key: str) -> None:
    cls, _, leaf = key.rpartition(".")
    owner = f"torch.fx.{cls or 'Graph'}"
    info = _member(owner, leaf)
    assert family.applies(info, "")
    assert _has_lines(_source(info), FX_MEMBERS[key], owner=owner)


def test_a_member_of_one_class_only_gets_no_lines_on_another() -> None:
    (key, lines), *_ = ((k, v) for k, v in FX_MEMBERS.items() if "." in k)
    leaf = key.rpartition(".")[2]
    assert not _has_lines(_source(_member("torch.fx.Node", leaf)), lines, owner="torch.fx.Node")


@pytest.mark.parametrize("helper", list(FX_HELPERS))
def test_each_fx_helper_gets_its_lines(helper: str) -> None:
    info = api_info(resolution(f"torch.fx.node.{helper}", "function", module="torch.fx.node"))
    source = _source(info)
    assert _has_lines(source, FX_HELPERS[helper], C=f"torch.fx.node.{helper}")


@pytest.mark.parametrize("leaf", list(EXPORTED_MEMBERS))
def test_each_exported_program_member_gets_its_lines(leaf: str) -> None:
    owner = "torch.export.ExportedProgram"
    source = _source(_member(owner, leaf))
    for lines in EXPORTED_MEMBERS[leaf].values():
        assert _has_lines(source, lines, owner=owner)


@pytest.mark.parametrize("name", [*JIT, *JIT_FLAGS, *EXPORT, *COMPILE])
def test_each_named_entry_point_gets_a_test(name: str) -> None:
    source = _source(api_info(resolution(name, "function")))
    assert source.startswith("    def test_")


@pytest.mark.parametrize(("name", "scripting"), list(JIT_FLAGS.items()))
def test_a_flag_is_checked_inside_the_capture_it_names(name: str, scripting: bool) -> None:
    source = _source(api_info(resolution(name, "function")))
    assert ("torch.jit.trace(probe" in source) is not scripting
