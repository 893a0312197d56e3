"""The ``package`` family: torch.package writes a package to a buffer and reads it back.

The exporter saves source (a module importing an extern one), a pickled
device tensor, text, bytes, and a dependency only ``add_dependency`` adds;
its extern/intern lists and dependency graph say so. The importer loads each
back: the tensor's values and device, the text, the bytes, the source, the
module's function, the file structure. The member under test is spelled
through its class.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import split_methods
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of, stem_of
from .recipes.package import PACKAGE_MEMBERS, PACKAGE_SIDES
from .render import render_macro


def package_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    r = info.resolution
    spelled = spelling_of(r)
    owner = (r.owner_class or "").rsplit(".", 1)[-1]
    leaf = r.path.rsplit(".", 1)[-1] if owner else ""
    cls = owner or r.canonical.rsplit(".", 1)[-1]
    side = PACKAGE_SIDES.get(cls)
    if side is None or leaf and leaf not in PACKAGE_MEMBERS[side]:
        raise CannotDecide(f"no torch.package template for {r.canonical}")
    if leaf == "__init__":
        leaf = ""  # the constructor: the class is spelled where the test builds it
    C = spelled.rsplit(".", 1)[0] if owner else spelled
    source = render_macro(
        "package.py.j2",
        "package",
        {"device": device, "C": C, "leaf": leaf, "owner_side": side},
        test=f"test_{stem_of(r)}",
        member_lines=[line.format(C=C) for line in PACKAGE_MEMBERS[side].get(leaf, ())],
    )
    what = (
        "a package written to a buffer (source importing an extern module, a pickled device tensor, text, bytes, "
        "a dependency only add_dependency adds) and read back: extern/intern lists, the dependency graph, the "
        "tensor's values and device, the text, bytes, source and the module's function"
    )
    return TestPlan(
        api=r.canonical,
        spelling=spelled,
        family="package",
        stem=stem_of(r),
        methods=tuple(split_methods(source)),
        imports=("import io", "import torch.package"),
        summary=what + ".",
        coverage=coverage_rows(normal=what),
        facts=facts,
    )
