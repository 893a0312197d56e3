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


def test_an_engine_of_every_family_is_the_whole_engine_the_size_benchmark_counts() -> None:
    bench, size = load("family_yield"), load("bench_scaffold_size")
    from torchparity.scaffold.families import REGISTRY

    files = bench.family_files()
    everyone = frozenset(f.name for f in REGISTRY.families)
    parts = {p.name: p.lines for p in size.measure()[0]}
    assert bench.engine_lines(everyone, files) == parts["scaffold"] + parts["facts"]
    # the engine's own machinery (choosing a family, writing and checking its test) is in every one
    assert files.common >= {
        bench.SRC / "scaffold" / "core.py",
        bench.SRC / "scaffold" / "families" / "__init__.py",
        bench.SRC / "agent" / "facts" / "standin.py",
    }
    one = bench.engine_lines(frozenset({"measured"}), files)
    assert files.lines(files.common) < one < bench.engine_lines(everyone - {"jitgraph"}, files)


def test_an_engine_reaches_an_api_where_one_of_its_families_check_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = load("family_yield")
    out = _out(tmp_path)
    planned = bench.plan_all(out)
    # signature's test failed on the CPU: without measured the API is not reached
    assert bench.reached_by(planned, frozenset({"measured"})) == 1
    assert bench.reached_by(planned, frozenset({"signature", "opinfo"})) == 0
    for keep in ({"measured"}, {"signature", "opinfo"}):  # the count re-planning gives
        assert bench.engine(planned, frozenset(keep), out).reached == bench.reached_by(
            planned, frozenset(keep)
        )
    assert bench.main([str(out), "--keep", "measured", "--keep", "signature"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[-2:]]
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("measured", "1", "100.0%"),
        ("signature", "0", "0.0%"),
    ]


def test_a_family_whose_plan_was_not_checked_takes_the_api_as_re_planning_does(
    tmp_path: Path,
) -> None:
    """A plan with no checked outcome (a family whose test needs the device) is written where it
    comes first: the count read from the kept facts and re-planning agree."""
    bench = load("family_yield")
    out = _out(tmp_path)
    facts = json.loads((out / "torch.random.seed" / "facts.json").read_text())
    facts["checked"]["signature"] = facts["checked"].pop(
        "measured"
    )  # signature passes, unchecked measured
    (out / "torch.random.seed" / "facts.json").write_text(json.dumps(facts))
    (planned,) = bench.plan_all(out)
    assert planned.chosen == "signature" and "measured" in planned.unchecked
    assert not bench.yields([planned])[0].sole  # measured would take it
    for keep in ({"measured"}, {"signature"}, {"opinfo"}):
        assert (
            bench.reached_by([planned], frozenset(keep))
            == bench.engine([planned], frozenset(keep), out).reached
        )


def test_the_frontier_keeps_the_family_that_alone_reaches_the_api_to_the_last(
    tmp_path: Path,
) -> None:
    bench = load("family_yield")
    from torchparity.scaffold.families import REGISTRY

    planned = bench.plan_all(_out(tmp_path))
    steps = bench.frontier(planned)
    names = [f.name for f in REGISTRY.families]
    assert len(steps) == len(names) - 1
    assert {s.left_out for s in steps} == set(names) - {"measured"}
    assert all(s.reached == 1 for s in steps)
    lines = [s.lines for s in steps]
    assert lines == sorted(lines, reverse=True) and lines[-1] == bench.engine_lines(
        frozenset({"measured"})
    )
