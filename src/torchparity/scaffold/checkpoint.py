"""The ``checkpoint`` family: torch.distributed.checkpoint saved and loaded in one process.

A state_dict of device tensors and a number is saved to a folder (a
``.metadata`` file and ``.distcp`` data) and loaded back in place: values,
dtypes and devices come back. The API under test takes its role: the save or
load function (public, or the private ``_save_state_dict``/``_load_state_dict``
with ``no_dist``), the storage writer or reader, the save or load planner
(``_EmptyStateDictLoadPlanner`` loads into an empty dict).
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.checkpoint import (
    DCP,
    DYNAMIC_PLANNER,
    LOAD_PLANNER,
    MEMBER_SLOTS,
    READER,
    ROLES,
    SAVE_PLANNER,
    SPECIAL,
    STAGER_MEMBERS,
    STAGERS,
    STATE_DICT_FUNCTIONS,
    STATE_DICT_WHAT,
    TORCH_SAVE_READERS,
    WRITER,
)
from .render import render_macro

_IMPORTS = (
    "import os",
    "import tempfile",
    f"import {DCP}",
    f"import {DCP}.format_utils",
    "import torch.distributed",
)


def _stager_plan(info: ApiInfo, facts: Facts, device: str, owner: str, leaf: str) -> TestPlan:
    """A stager (``BlockingAsyncStager``, the ``AsyncStager`` protocol) staging a state_dict of device tensors."""
    r = info.resolution
    if owner and leaf not in STAGER_MEMBERS or not owner and r.kind != "class":
        raise CannotDecide(f"no stager template for {r.canonical}")
    spelled = spelling_of(r)
    C = spelled.rsplit(".", 1)[0] if owner else spelled
    source = render_macro(
        "checkpoint.py.j2",
        "stager",
        {"device": device},
        test=f"test_{stem_of(r)}",
        C=C,
        leaf=leaf if owner else "",
    )
    what = (
        "a state_dict of device tensors staged by a blocking stager: host copies with the values, independent "
        "of the original, synchronize_staging returning None and no synchronisation needed after execute"
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelled,
        family="checkpoint",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=(f"import {DCP}.staging",),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


def _state_dict_plan(info: ApiInfo, facts: Facts, device: str, leaf: str) -> TestPlan:
    """A model and its SGD optimizer after one step: their state_dicts read by name, or loaded into others."""
    r = info.resolution
    X = spelling_of(r)
    lines = [line.format(X=X, device=device) for line in STATE_DICT_FUNCTIONS[leaf]]
    source = render_macro(
        "checkpoint.py.j2",
        "state_dict_api",
        {"device": device},
        test=f"test_{stem_of(r)}",
        lines=lines,
    )
    what = STATE_DICT_WHAT[leaf]
    return TestPlan(
        api=r.canonical,
        spelling=X,
        family="checkpoint",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=("import torch.distributed.checkpoint.state_dict",),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


def _member_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    """A protocol member (``LoadPlanner.load_bytes``): save/load call it on a recording subclass of the
    default concrete class, whose override calls the real one through ``super()``."""
    r = info.resolution
    owner = (r.owner_class or "").rsplit(".", 1)[-1]
    leaf = r.path.rsplit(".", 1)[-1]
    if owner in STAGERS:
        return _stager_plan(info, facts, device, owner, leaf)
    if owner not in MEMBER_SLOTS or r.kind != "method" or leaf.startswith(SPECIAL):
        raise CannotDecide(f"no checkpoint template for {owner}.{leaf}")
    slot, concrete = MEMBER_SLOTS[owner]
    returns_none = (r.signature or "").replace(" ", "").endswith("->None")
    writer, reader = (
        ("Recording" if slot == "writer" else WRITER),
        ("Recording" if slot == "reader" else READER),
    )
    save_planner = "Recording()" if slot == "save_planner" else f"{SAVE_PLANNER}()"
    load_planner = "Recording()" if slot == "load_planner" else f"{LOAD_PLANNER}()"
    save = f"{DCP}.save(state, storage_writer=writer, planner={save_planner})"
    load = f"{DCP}.load(loaded, storage_reader={reader}(tmp), planner={load_planner})"
    if slot == "torch_save_reader":
        load = f"{DCP}.load(loaded, storage_reader=Recording(), planner={DYNAMIC_PLANNER}(), checkpoint_id=path)"
    source = render_macro(
        "checkpoint.py.j2",
        "checkpoint",
        {"device": device},
        test=f"test_{stem_of(r)}",
        writer=writer,
        reader=reader,
        save=save,
        load=load,
        empty=False,
        abstract="",
        recording=concrete,
        leaf=leaf,
        returns_none=returns_none,
        torch_save=slot == "torch_save_reader",
    )
    what = (
        f"save and load of a state_dict of device tensors with {leaf} called by the protocol on a subclass of "
        f"{concrete} (through super()): the calls happen{', each returns None as annotated' if returns_none else ''}"
        ", and values, dtypes and devices come back"
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelling_of(r),
        family="checkpoint",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=_IMPORTS,
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )


def checkpoint_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    names = [r.canonical, r.path, *r.aliases]
    if not any(n.startswith(DCP + ".") for n in names):
        raise CannotDecide("not a torch.distributed.checkpoint function or class")
    if r.owner_class:
        return _member_plan(info, facts, device)
    leaf = r.canonical.rsplit(".", 1)[-1]
    if leaf in STAGERS:
        return _stager_plan(info, facts, device, "", "")
    if leaf in TORCH_SAVE_READERS:
        load = f"{DCP}.load(loaded, storage_reader={spelling_of(r)}(), planner={DYNAMIC_PLANNER}(), checkpoint_id=path)"
        source = render_macro(
            "checkpoint.py.j2",
            "checkpoint",
            {"device": device},
            test=f"test_{stem_of(r)}",
            writer="",
            reader="",
            save="",
            load=load,
            empty=False,
            abstract="",
            torch_save=True,
        )
        what = (
            "a state_dict of device tensors written by torch.save and loaded in place through this reader in a "
            "one-rank process group: values, dtypes and devices"
        )
        return TestPlan(
            api=r.canonical,
            spelling=spelling_of(r),
            family="checkpoint",
            stem=stem_of(r),
            methods=tuple(split_methods(source)),
            imports=_IMPORTS,
            summary=what + ".",
            coverage=coverage_rows(normal=what),
            facts=facts,
        )
    if leaf in STATE_DICT_FUNCTIONS and any(n.startswith(f"{DCP}.state_dict.") for n in names):
        return _state_dict_plan(info, facts, device, leaf)
    role = ROLES.get(leaf)
    if role is None:
        raise CannotDecide(f"no checkpoint template for {leaf}")
    api = spelling_of(r)
    writer, reader, abstract = WRITER, READER, ""
    save_planner, load_planner = f"{SAVE_PLANNER}()", f"{LOAD_PLANNER}()"
    save = f"{DCP}.save(state, storage_writer=writer, planner={save_planner})"
    load = f"{DCP}.load(loaded, storage_reader={reader}(tmp), planner={load_planner})"
    if role == "save":
        save = f"{api}(state, storage_writer=writer)"
    elif role == "private_save":
        save = f"{api}(state, writer, planner={save_planner}, no_dist=True)"
    elif role == "load":
        load = f"{api}(loaded, storage_reader={reader}(tmp))"
    elif role == "private_load":
        load = f"{api}(loaded, {reader}(tmp), planner={load_planner}, no_dist=True)"
    elif role == "writer":
        writer = api
    elif role == "reader":
        reader = api
        load = f"{DCP}.load(loaded, storage_reader={api}(tmp))"
    elif role == "save_planner":
        save = f"{DCP}.save(state, storage_writer=writer, planner={api}())"
    elif role == "load_planner":
        load = f"{DCP}.load(loaded, storage_reader={reader}(tmp), planner={api}())"
    elif role == "empty_planner":
        load = f"{DCP}.load(loaded, storage_reader={reader}(tmp), planner={api}())"
    else:
        abstract = api
        if role == "abstract_save_planner":
            save = f"{DCP}.save(state, storage_writer=writer, planner=planner)"
            save = f"planner = {SAVE_PLANNER}()\n            self.assertIsInstance(planner, {api})\n            {save}"
        elif role == "abstract_load_planner":
            load = (
                f"planner = {LOAD_PLANNER}()\n            self.assertIsInstance(planner, {api})\n"
                f"            {DCP}.load(loaded, storage_reader={reader}(tmp), planner=planner)"
            )
    source = render_macro(
        "checkpoint.py.j2",
        "checkpoint",
        {"device": device},
        test=f"test_{stem_of(r)}",
        writer=writer,
        reader=reader,
        save=save,
        load=load,
        empty=role == "empty_planner",
        abstract=abstract if role in ("abstract_writer", "abstract_reader") else "",
    )
    what = (
        "a state_dict of device tensors saved to a folder (.metadata and .distcp files) and loaded back in "
        f"place, values, dtypes and devices kept, with {api} as the {role.replace('_', ' ')}"
    )
    return TestPlan(
        api=r.canonical,
        spelling=api,
        family="checkpoint",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=_IMPORTS,
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
