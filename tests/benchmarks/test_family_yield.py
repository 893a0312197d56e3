"""family_yield tells, from kept facts, which families reach names no other family does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.benchmarks.bench_module import load
from tests.scaffold.scaffold_fixtures import api_info, resolution
from tests.scaffold.test_scaffold_facts_schema import SEED


def _out(tmp_path: Path) -> Path:
    folder = tmp_path / "out" / "torch.random.seed"
    folder.mkdir(parents=True)
    info = api_info(resolution("torch.random.seed", "function"))
    (folder / "info.json").write_text(json.dumps(info.to_json()))
    (folder / "facts.json").write_text(json.dumps(SEED))
    return tmp_path / "out"


def test_a_family_whose_check_alone_holds_is_sole_and_its_api_falls_to_fill_in_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load("family_yield")
    out = _out(tmp_path)
    (planned,) = bench.plan_all(out)
    # signature's test failed on the CPU: only measured's check holds
    assert planned.chosen == "measured" and planned.kept == ("measured",)
    table = {y.family: y for y in bench.yields([planned])}
    assert (table["measured"].chosen, table["measured"].kept, table["measured"].sole) == (1, 1, 1)

    assert bench.main([str(out), "--without", "measured"]) == 0
    said = capsys.readouterr().out
    assert "1 APIs change family, 1 fall to fill-in" in said
    assert "torch.random.seed: measured -> fill-in" in said


def test_a_second_family_whose_check_holds_takes_the_api_so_neither_is_sole(tmp_path: Path) -> None:
    bench = load("family_yield")
    out = _out(tmp_path)
    facts = json.loads((out / "torch.random.seed" / "facts.json").read_text())
    facts["checked"]["signature"] = facts["checked"]["measured"]  # its test passes and catches too
    (out / "torch.random.seed" / "facts.json").write_text(json.dumps(facts))
    (planned,) = bench.plan_all(out)
    assert planned.chosen == "signature" and set(planned.kept) == {"signature", "measured"}
    assert all(y.sole == 0 for y in bench.yields([planned]))
    (moved,) = bench.moved([planned], bench.plan_all(out, frozenset({"signature"})))
    assert moved == ("torch.random.seed", "signature", "measured")


def test_an_unknown_family_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load("family_yield")
    out = _out(tmp_path)
    for name in ("nosuch", "fill-in"):
        assert bench.main([str(out), "--without", name]) == 2
        said = capsys.readouterr()
        (line,) = said.err.splitlines()
        assert line.startswith(f"ERROR: no family called {name}; families: ") and not said.out


def test_a_family_costs_the_lines_only_it_reaches() -> None:
    bench = load("family_yield")
    from torchparity.scaffold.families import REGISTRY

    cost = bench.costs()
    assert set(cost) == {f.name for f in REGISTRY.families}
    src = bench.SRC
    own = [
        src / "scaffold" / "families" / "autograd.py",
        src / "scaffold" / "autograd.py",
        src / "scaffold" / "recipes" / "autograd.py",
        src / "scaffold" / "recipes" / "snippets" / "autograd.py",
        src / "scaffold" / "snippets.py",  # the snippets' reader: autograd is its only family yet
    ]
    assert cost["autograd"][0] == sum(len(p.read_text().splitlines()) for p in own)
    # optim's facts gatherer is the optim family's alone; the probe is shared by several families
    assert cost["optim"][0] > len((src / "agent" / "facts" / "runtime.py").read_text().splitlines())
    assert cost["measured"][0] == 0 and cost["measured"][1] > 0
