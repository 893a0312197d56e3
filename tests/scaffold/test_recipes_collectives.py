"""Each recipe of the collectives family reaches the test written for its API (no torch needed)."""

from __future__ import annotations

import re
import string

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.api.records import ApiInfo
from torchparity.scaffold import collectives
from torchparity.scaffold.collectives import collective_section, collectives_plan
from torchparity.scaffold.plan import spelling_of
from torchparity.scaffold.recipes.collectives import OWNED, SCENARIOS, SECTIONS

C10D = "torch.distributed.distributed_c10d"
#: where the API of each section with recipes lives: (owner class or "", namespace of the API)
WHERE = {
    "objects": ("", "torch.distributed"),
    "functional": ("", collectives.FUNCTIONAL),
    "legacy": ("", collectives.LEGACY),
    "funcol": ("", collectives.FUNCOL),
    "process_group": (f"{C10D}.ProcessGroup", ""),
}


def _info(section: str, leaf: str) -> ApiInfo:
    owner, namespace = WHERE[section]
    if owner:
        return api_info(
            resolution(f"{namespace}.{leaf}", "method", owner=owner, owner_kind="class")
        )
    return api_info(resolution(f"{namespace}.{leaf}", "function"))


def _bare(code: str) -> str:
    """``code`` without its whitespace and the commas the writer adds when it wraps a long line."""
    return re.sub(r",([)\]}])", r"\1", re.sub(r"\s+", "", code))


ENTRIES = [(section, leaf) for section, table in SCENARIOS.items() for leaf in table]


class _Spelled(dict):  # type: ignore[type-arg]
    """How the test spells each name a recipe line reads: the API under test as resolved, every
    other name in its section's namespace."""

    def __init__(self, section: str, leaf: str, spelled: str) -> None:
        super().__init__()
        self.section, self.leaf, self.spelled = section, leaf, spelled

    def __missing__(self, key: str) -> str:
        if key == self.leaf:
            return self.spelled
        if key == "owner":
            return self.spelled.rsplit(".", 1)[0]
        return f"{WHERE[self.section][1]}.{key}"


@pytest.mark.parametrize(("section", "leaf"), ENTRIES)
def test_each_recipe_is_the_scenario_of_its_api(section: str, leaf: str) -> None:
    info = _info(section, leaf)
    found = collective_section(info.resolution)
    assert found is not None and found[0] == section
    source = "".join(m.source for m in collectives_plan(info, {}, "self.device").methods)
    written = _bare(source)
    spelled = _Spelled(section, leaf, spelling_of(info.resolution))
    for line in SCENARIOS[section][leaf]:
        assert _bare(string.Formatter().vformat(line, (), spelled)) in written


def test_the_sections_that_name_their_functions_cover_each_name_once() -> None:
    names = [n for leaves in SECTIONS.values() for n in leaves]
    assert len(names) == len(set(names))
    for section, _namespace, members in OWNED.values():
        assert section in SECTIONS or section in SCENARIOS
        assert members
