"""``scaffold/registry.py`` without an interpreter: a family is one module, found, checked and put in
order by its priority; adding one is one new file."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.families import REGISTRY, build_plan, candidates, wants
from torchparity.scaffold.registry import FamilyError, Registry, from_folder

#: a family of its own, as one file: tried between ``doctest`` and ``signature`` for every function
TOY = """\
from torchparity.scaffold.plan import Method, TestPlan

NAME = "toy"
PRIORITY = {priority}
WANTS = ("toy_fact",)


def applies(info, backend_module):
    return info.resolution.kind == "function"


def plan(info, facts, device):
    source = "    def test_toy(self):\\n        self.assertEqual(facts_toy, 1)\\n"
    return TestPlan(
        api=info.resolution.canonical,
        spelling=info.resolution.canonical,
        family=NAME,
        stem="toy",
        methods=(Method("test_toy", source),),
        facts=facts,
    )
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_family_added_as_one_file_takes_the_place_its_priority_says(tmp_path: Path) -> None:
    between = (REGISTRY["doctest"].priority + REGISTRY["signature"].priority) // 2
    _write(tmp_path, "toy", TOY.format(priority=between))
    registry = REGISTRY + from_folder(tmp_path)
    info = api_info(resolution("torch.frobnicate", "function"))
    before = candidates(info)
    after = candidates(info, registry=registry)
    assert after.index("toy") == after.index("doctest") + 1
    assert after.index("signature") == after.index("toy") + 1
    assert [f for f in after if f != "toy"] == before
    assert "toy_fact" in wants(after, registry=registry)
    assert "toy" not in candidates(api_info(resolution("torch.Size", "class")), registry=registry)
    # the families before it cannot decide on these facts: its plan is the one built
    assert build_plan(info, {}, "DEVICE", registry=registry).family == "toy"
    assert build_plan(info, {}, "DEVICE").family != "toy"


def test_the_package_s_families_are_found_and_ordered() -> None:
    folder = Path(REGISTRY["measured"].module.replace(".", "/")).parent.name
    on_disk = {
        p.stem
        for p in (Path(__file__).parents[2] / "src/torchparity/scaffold" / folder).glob("*.py")
        if not p.stem.startswith("_")
    }
    assert {f.module.rsplit(".", 1)[-1] for f in REGISTRY.families} == on_disk
    assert REGISTRY.names[-1] == "fill-in"
    priorities = [f.priority for f in REGISTRY.families]
    assert priorities == sorted(priorities)
    assert REGISTRY.device_only == ("runtime",)
    assert "_base" not in REGISTRY.names


def test_a_module_that_misses_an_attribute_is_named(tmp_path: Path) -> None:
    path = _write(tmp_path, "broken", "NAME = 'broken'\nPRIORITY = 1\n")
    with pytest.raises(FamilyError) as err:
        from_folder(tmp_path)
    (line,) = str(err.value).splitlines()
    assert str(path) in line and "does not declare WANTS, applies, plan" in line


def test_two_families_with_one_name_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "toy", TOY.format(priority=1))
    with pytest.raises(FamilyError) as err:
        Registry([*from_folder(tmp_path), *from_folder(tmp_path)])
    (line,) = str(err.value).splitlines()
    assert "both declare NAME 'toy'" in line


def test_two_families_with_one_priority_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "toy", TOY.format(priority=REGISTRY["signature"].priority))
    with pytest.raises(FamilyError) as err:
        REGISTRY + from_folder(tmp_path)
    (line,) = str(err.value).splitlines()
    assert "torchparity.scaffold.families.signature (signature)" in line
    assert "(toy) both take priority" in line


def test_a_module_that_declares_a_removed_hook_is_refused(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "toy",
        TOY.format(priority=1)
        + "\nPLACES = (1, 2)\n\n\ndef place(info, backend_module):\n    return 2\n",
    )
    with pytest.raises(FamilyError) as err:
        from_folder(tmp_path)
    (line,) = str(err.value).splitlines()
    assert "declares place, PLACES, which the registry no longer reads" in line
