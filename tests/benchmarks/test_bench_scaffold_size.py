"""The size benchmark counts name rules in code, and lists them apart in recipe data."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.benchmarks.bench_module import load


def _bench() -> ModuleType:
    return load("bench_scaffold_size")


def test_a_comparison_of_a_name_with_a_literal_is_a_rule(tmp_path: Path) -> None:
    bench = _bench()
    code = tmp_path / "family.py"
    code.write_text(
        "def plan(leaf, kind):\n"
        "    if leaf == 'memory_stats':\n"
        "        return 1\n"
        "    if kind == 'method':\n"
        "        return 2\n"
        "    return {'torch.nn.Linear': 3}\n"
    )
    rules = bench.python_rules(code)
    assert [r.line for r in rules] == [2, 6]  # the kind is not a name


def test_recipe_data_is_data_only_while_it_holds_no_code(tmp_path: Path) -> None:
    bench = _bench()
    folder = tmp_path / "recipes"
    folder.mkdir()
    data = folder / "setups.py"
    data.write_text("SETUPS = {'torch.nn.Linear': ('m = torch.nn.Linear(3, 2)',)}\n")
    code = folder / "rules.py"
    code.write_text("def pick(name):\n    return name == 'torch.nn.Linear'\n")
    elsewhere = tmp_path / "setups.py"
    elsewhere.write_text(data.read_text())
    assert bench.is_data(data)
    assert not bench.is_data(code)
    assert not bench.is_data(elsewhere)  # the same table outside a recipes folder counts
    assert len(bench.python_rules(data)) == 1


def test_a_template_rule_is_a_jinja_comparison_of_a_name_not_the_python_it_writes(
    tmp_path: Path,
) -> None:
    bench = _bench()
    template = tmp_path / "family.py.j2"
    template.write_text(
        '{% if leaf == "set_state" %}\n'
        '    x = {{ "a" if member == "clone" else "b" }}\n'
        '{% if leaf.startswith("set_") %}\n'
        '{% if cls == "Store" %}\n'
        "    self.assertTrue(name.endswith('.distcp'))\n"
        '{% if section == "all_reduce" %}\n'
    )
    assert [r.line for r in bench.template_rules(template)] == [1, 2, 3, 4]


def test_a_field_is_read_by_its_key_and_words_of_python_are_not_names(tmp_path: Path) -> None:
    bench = _bench()
    code = tmp_path / "family.py"
    code.write_text(
        "def plan(op, doc, leaf, stmt):\n"
        "    a = op['reference'] == 'meta'\n"
        "    b = doc['name'] == 'torch.add'\n"
        "    c = leaf == '__init__' or leaf.startswith('_')\n"
        "    d = stmt.name in ('setUp', 'setUpClass')\n"
        "    return leaf == 'manual_seed'\n"
    )
    assert [r.line for r in bench.python_rules(code)] == [3, 6]


def test_a_table_of_names_in_code_counts_once_and_one_name_among_python_words_counts(
    tmp_path: Path,
) -> None:
    bench = _bench()
    code = tmp_path / "family.py"
    code.write_text(
        "KNOWN = {'manual_seed': 1, 'seed': 2}\n"
        "CLASSES = ('torch.nn.Linear', 'torch.nn.ReLU')\n"
        "ERRORS = {'TypeError': 1}\n"
        "def plan(leaf, n, kind):\n"
        "    a = KNOWN.get(leaf)\n"
        "    b = leaf in KNOWN\n"
        "    c = ERRORS.get(kind)\n"
        "    d = n in CLASSES\n"
        "    return leaf in ('forward', '__call__')\n"
    )
    rules = bench.python_rules(code)
    assert sorted(r.line for r in rules) == [1, 2, 9]


def test_a_template_branch_on_any_literal_is_a_scenario_selector(tmp_path: Path) -> None:
    bench = _bench()
    template = tmp_path / "family.py.j2"
    template.write_text(
        '{% if section == "all_reduce" %}\n'
        "    x = 1\n"
        '{% elif which in ("gradcheck", "gradgradcheck") %}\n'
        '    self.assertEqual(kind, "a")\n'
    )
    assert bench.template_branches(template) == 2
