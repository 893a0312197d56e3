"""The ``serialization`` family: save/load round trips of device objects, and storage methods.

``torch.save``/``torch.load``: a dict of a device tensor, a view of it, a
module's state_dict, a storage and a number, through a buffer, then a whole
module through a file; the values, dtypes and devices come back, the view
still shares its base's storage, and ``map_location`` moves everything to the
CPU (or keeps it, with a function). Storage methods: a storage of known bytes
(or float32 elements) on the device, the method's copy, values, device and
dtype checked.
"""

from __future__ import annotations

from typing import Any

from ..api.records import ApiInfo
from .facts import Facts
from .measured import owner_spelling
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.serialization import LOAD, MEMBERS, SAVE, STORAGES, TYPED, UNTYPED
from .render import render_macro


def _macro(name: str, device: str, **kwargs: Any) -> str:
    return render_macro("serialization.py.j2", name, {"device": device}, **kwargs)


def serialization_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    spelling = spelling_of(r)
    stem = stem_of(r)
    test = f"test_{stem}"
    names = {r.canonical, r.path, *r.aliases}
    imports: tuple[str, ...] = ()
    if names & set(SAVE) or names & set(LOAD):
        save = spelling if names & set(SAVE) else "torch.save"
        load = spelling if names & set(LOAD) else "torch.load"
        source = _macro("save_load", device, test=test, save=save, load=load)
        imports = ("import io", "import os", "import tempfile")
        what = (
            "round trips of a device tensor, a view of it, a state_dict, a storage and a module through a "
            "buffer and a file, with and without map_location"
        )
    else:
        owner_mro = [str(c) for c in (facts.get("classes") or {}).get("owner") or []]
        leaf = r.path.rsplit(".", 1)[-1]
        typed = any(c in owner_mro for c in TYPED)
        if not (typed or any(c in owner_mro for c in UNTYPED)) or leaf not in MEMBERS:
            raise CannotDecide(f"no save/load or storage-method template for {r.canonical}")
        spelled = {"C": owner_spelling(info), "device": device, **STORAGES[typed]}
        lines = [line.format(**spelled) for line in MEMBERS[leaf]]
        source = _macro("storage_member", device, test=test, lines=lines, typed=typed)
        what = f"{leaf} of a storage of known values on the device: the copy, values, device and dtype it gives"
    methods = split_methods(source)
    return TestPlan(
        api=r.canonical,
        spelling=spelling,
        family="serialization",
        stem=stem,
        methods=tuple(methods),
        imports=imports,
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
