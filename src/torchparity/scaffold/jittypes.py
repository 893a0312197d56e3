"""The ``jittype`` family: TorchScript's type classes in ``torch._C`` (``Type`` and its subclasses).

``torch._C.Type`` is the base of the types TorchScript reads annotations into
(``IntType``, ``TensorType``, ``OptionalType``, ``ListType``, ``TupleType``,
``DictType``, ``UnionType``, ``FutureType``, ...). Their tests hold the facts
of TorchScript's type system, compared exactly, never a second run: the
singleton a ``get()`` returns, ``annotation_str``/``str()``/``kind()``, the
element types of a container type, equality, ``isSubtypeOf`` (``int`` under
``number`` and ``Optional[int]``, ``None`` under ``Optional[int]``, lists
invariant, tuples covariant), and the type a scripted function's schema gives
its annotated argument. ``TensorType.create_from_tensor`` of a device tensor
gives its sizes, dtype and device. ``Type`` is abstract: it is tested through
its subclasses (instances, members read through the base, no constructor).
"""

from __future__ import annotations

from ..api.records import ApiInfo
from .facts import Facts
from .operators import lines_method
from .plan import CannotDecide, TestPlan, coverage_rows, snake, spelling_of
from .recipes.jittypes import (
    BASES,
    ELEMENT,
    ELEMENT_EXPECTED,
    ELEMENT_TEST,
    INVALID,
    OWN_TESTS,
    PREFIXES,
    RELATIONS,
    SCRIPTED,
    SCRIPTED_TEST,
    SINGLETON_EXPECTED,
    SINGLETON_TEST,
    SINGLETONS,
    SPELLINGS,
)


def jit_type_leaf(info: ApiInfo) -> str:
    """The leaf (``OptionalType``) when the API is one of TorchScript's type classes, else ""."""
    r = info.resolution
    if r.kind != "class":
        return ""
    for name in (r.canonical, r.path, *r.aliases):
        for prefix in PREFIXES:
            leaf = name[len(prefix) :] if name.startswith(prefix) else ""
            if leaf in SINGLETONS or leaf in ELEMENT or leaf in OWN_TESTS:
                return leaf
    return ""


def _filled(lines: tuple[str, ...], fill: dict[str, str]) -> list[str]:
    """``lines`` with their placeholders filled in."""
    return [line.format_map(fill) for line in lines]


def _scripted(leaf: str, fill: dict[str, str]) -> list[str]:
    """The test that a scripted function's argument annotated as the class gets the type (none without one)."""
    if leaf in SINGLETONS:
        annotation, expected = SINGLETONS[leaf][1], SINGLETON_EXPECTED
    elif leaf in ELEMENT:
        annotation, expected = ELEMENT[leaf][1], ELEMENT_EXPECTED
    else:
        annotation, expected = SCRIPTED.get(leaf, ("", ""))
    if not annotation:
        return []
    return _filled(
        SCRIPTED_TEST, {**fill, "annotation": annotation, "expected": expected.format_map(fill)}
    )


def _tests(leaf: str, C: str) -> dict[str, list[str]]:
    """test-name suffix -> body lines, for the type class ``leaf`` spelled ``C``."""
    fill = {**SPELLINGS, "C": C, "leaf": leaf}
    tests: dict[str, list[str]] = {}
    if leaf in SINGLETONS:
        tests["singleton"] = _filled(SINGLETON_TEST, {**fill, "text": SINGLETONS[leaf][0]})
    elif leaf in ELEMENT:
        tests["element"] = _filled(ELEMENT_TEST, {**fill, "text": ELEMENT[leaf][0]})
    for lines in tests.values():
        lines += _filled(RELATIONS.get(leaf, ()), fill)
    for suffix, own in OWN_TESTS.get(leaf, {}).items():
        tests[suffix] = _filled(own, fill)
    scripted = _scripted(leaf, fill)
    if scripted:
        tests["scripted"] = scripted
    return tests


def jittype_plan(info: ApiInfo, facts: Facts, device: str) -> TestPlan:
    leaf = jit_type_leaf(info)
    if not leaf:
        raise CannotDecide(f"{info.resolution.canonical} is none of TorchScript's type classes")
    mro = [str(c) for c in (facts.get("classes") or {}).get("api") or []]
    if mro and not any(base in mro for base in BASES):
        raise CannotDecide(f"{info.resolution.canonical} does not derive from {BASES[-1]} here")
    C = spelling_of(info.resolution)
    tests = _tests(leaf, C)
    stem = snake(leaf)
    methods = tuple(
        lines_method(f"test_{stem}_{suffix}", [line.replace("DEVICE", device) for line in lines])
        for suffix, lines in tests.items()
    )
    what = (
        "TorchScript's documented facts of the type compared exactly: annotation_str, str, kind, element "
        "types, equality, isSubtypeOf, and the type a scripted function's schema gives its argument"
    )
    return TestPlan(
        api=info.resolution.canonical,
        spelling=C,
        family="jittype",
        stem=stem,
        methods=methods,
        summary=what + ".",
        coverage=coverage_rows(
            normal=what,
            boundary="子类型关系（Any、number、Optional、List 不变、Tuple 协变）",
            invalid=INVALID.get(leaf, ""),
        ),
        uses_device=any("DEVICE" in line for lines in tests.values() for line in lines),
        facts=facts,
    )
