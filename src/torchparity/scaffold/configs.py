"""The ``config`` family: the copy and load methods of torch's config modules (``torch._inductor.config`` ...).

``torch._dynamo.config``, ``torch._inductor.config``, ``torch._functorch.config``
and the like are ``ConfigModule`` objects. Their ``get_config_copy`` and
``shallow_copy_dict`` return a dict of every entry, ``load_config`` sets the
entries a saved config holds. The tests assert that contract with a boolean
entry of the module's own: each copied value is the module's value (dotted
keys through their sub-configs), the copy follows a ``patch`` made before it
and not one made after it, changing the copy leaves the module alone, and a
config saved and loaded back inside a ``patch`` restores the saved value.
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of
from .recipes.config import CONFIG_METHODS, CONFIG_MODULE_SUFFIX, CONFIG_TESTS, PICK


def config_leaf(info: ApiInfo) -> str:
    """``get_config_copy`` etc. when the API is that method of a config module, else ""."""
    r = info.resolution
    for name in (r.canonical, r.path, *r.aliases):
        if not name or "." not in name:
            continue
        holder, leaf = name.rsplit(".", 1)
        if leaf in CONFIG_METHODS and holder.rsplit(".", 1)[-1].endswith(CONFIG_MODULE_SUFFIX):
            return leaf
    return ""


def _lines(leaf: str, S: str, C: str) -> tuple[str, list[str]]:
    """The test of method ``leaf``: its name and its lines."""
    method = CONFIG_METHODS[leaf]
    test = method["test"]
    lines = ("import operator", method["entries"], *PICK, *CONFIG_TESTS[test])
    return test, [line.format(S=S, C=C) for line in lines]


def config_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    leaf = config_leaf(info)
    if not leaf:
        raise CannotDecide(
            f"{info.resolution.canonical} is not a copy or load method of a config module"
        )
    S = spelling_of(info.resolution)
    C = S.rsplit(".", 1)[0]
    stem = C.replace("torch.", "").replace(".", "_").strip("_") + "_" + leaf
    suffix, lines = _lines(leaf, S, C)
    methods = (_method(f"test_{leaf}_{suffix}", lines),)
    what = CONFIG_METHODS[leaf]["what"].format(S=S)
    return TestPlan(
        api=info.resolution.canonical,
        spelling=S,
        family="config",
        stem=stem,
        methods=methods,
        summary=f"{what}.",
        coverage=coverage_rows(normal=what),
        uses_device=False,
        facts=facts,
    )
