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

from typing import Any

from ..api.records import ApiInfo
from .operators import lines_method as _method
from .plan import CannotDecide, TestPlan, coverage_rows, spelling_of

LEAVES = ("get_config_copy", "shallow_copy_dict", "load_config")


def config_leaf(info: ApiInfo) -> str:
    """``get_config_copy`` etc. when the API is that method of a config module, else ""."""
    r = info.resolution
    for name in (r.canonical, r.path, *r.aliases):
        if not name or "." not in name:
            continue
        holder, leaf = name.rsplit(".", 1)
        if leaf in LEAVES and holder.rsplit(".", 1)[-1].endswith("config"):
            return leaf
    return ""


def _lines(leaf: str, S: str, C: str) -> dict[str, list[str]]:
    pick = [
        "import operator",
        f"entries = {C}.get_config_copy()" if leaf != "get_config_copy" else f"entries = {S}()",
        "key = sorted(k for k, v in entries.items() if isinstance(v, bool))[0]  # a boolean entry of its own",
        "value = operator.attrgetter(key)(" + C + ")",
    ]
    if leaf == "load_config":
        return {
            "restores_saved_values": pick
            + [
                f"saved = {C}.save_config()",
                f"with {C}.patch({{key: not value}}):",
                "    self.assertEqual(operator.attrgetter(key)(" + C + "), not value)",
                f"    self.assertIsNone({S}(saved))",
                "    self.assertEqual(operator.attrgetter(key)("
                + C
                + "), value)  # the saved value is back",
                "self.assertEqual(operator.attrgetter(key)(" + C + "), value)",
            ]
        }
    return {
        "copies_every_entry": pick
        + [
            f"copy = {S}()",
            "self.assertIsInstance(copy, dict)",
            "self.assertEqual(sorted(copy), sorted(entries))",
            "for name in list(copy)[:50]:",
            "    self.assertEqual(copy[name], operator.attrgetter(name)(" + C + "), name)",
            f"with {C}.patch({{key: not value}}):",
            f"    self.assertEqual({S}()[key], not value)  # a copy made inside the patch",
            "self.assertEqual(copy[key], value)  # the copy made before is not changed by the patch",
            "copy[key] = not value",
            "self.assertEqual(operator.attrgetter(key)("
            + C
            + "), value)  # changing the copy leaves the module",
        ]
    }


def config_plan(info: ApiInfo, facts: dict[str, Any], device: str) -> TestPlan:
    leaf = config_leaf(info)
    if not leaf:
        raise CannotDecide(
            f"{info.resolution.canonical} is not a copy or load method of a config module"
        )
    S = spelling_of(info.resolution)
    C = S.rsplit(".", 1)[0]
    stem = C.replace("torch.", "").replace(".", "_").strip("_") + "_" + leaf
    methods = tuple(
        _method(f"test_{leaf}_{suffix}", lines) for suffix, lines in _lines(leaf, S, C).items()
    )
    what = (
        f"{S} against the module's own entries: every value copied, copies independent of later patches and "
        "of the module"
        if leaf != "load_config"
        else f"{S} of a saved config inside a patch restores the saved value"
    )
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
