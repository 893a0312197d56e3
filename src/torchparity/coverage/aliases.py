"""What names mean: aliases, classes and their bases, return types; a static table and a seam for ``resolve``.

The static table (``static_aliases.toml``, generated from a real torch by
``tablegen``) serves when no environment is at hand. ``resolve`` (or anything
else that knows better) plugs in through ``AliasTable.from_mappings`` or an
``AliasSource``; its entries win over the static ones.

``Normalizer`` turns a chain the extractor recorded ("torch.set_grad_enabled().clone()")
into the canonical names it touches, following aliases, constructor calls
(an instance of a class), known return types and inherited members.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from .types import KNOWN_DEVICES, SELF, TypeFacts, static_types


@dataclass(frozen=True)
class ClassInfo:
    bases: tuple[str, ...] = ()
    #: members the class defines itself; None when unknown (it may define any)
    defines: frozenset[str] | None = None


@dataclass(frozen=True)
class AliasTable:
    """Spelled -> canonical names, classes with bases and members, return types."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    classes: Mapping[str, ClassInfo] = field(default_factory=dict)
    #: names known NOT to be classes (functions, attributes): the table's lists and resolve's answers
    functions: frozenset[str] = frozenset()
    #: callable -> the type of its result (coverage/types.py spells types)
    returns: Mapping[str, str] = field(default_factory=dict)
    source: str = "static"
    #: attribute or property -> the type of its value
    attributes: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_mappings(
        cls,
        aliases: Mapping[str, str],
        bases: Mapping[str, Sequence[str]] | None = None,
        is_class: Mapping[str, bool] | None = None,
        *,
        defines: Mapping[str, Sequence[str]] | None = None,
        returns: Mapping[str, str] | None = None,
        source: str = "resolve",
        attributes: Mapping[str, str] | None = None,
    ) -> AliasTable:
        """Build a table from plain mappings, e.g. what ``resolve`` learnt in an environment.

        :param aliases: ``{"torch.set_grad_enabled": "torch.autograd.grad_mode.set_grad_enabled"}``
        :param bases: ``{class: [base classes]}`` (canonical names); each key is a class
        :param is_class: ``{name: is_class}`` for callables whose kind is known
        :param defines: ``{class: [members it defines itself]}``
        :param returns: ``{callable: class of its result}`` ("self" for its own class)
        """
        classes: dict[str, ClassInfo] = {}
        for name, bs in (bases or {}).items():
            members = (defines or {}).get(name)
            classes[name] = ClassInfo(tuple(bs), None if members is None else frozenset(members))
        for name, flag in (is_class or {}).items():
            if flag and name not in classes:
                members = (defines or {}).get(name)
                classes[name] = ClassInfo((), None if members is None else frozenset(members))
        functions = frozenset(n for n, flag in (is_class or {}).items() if not flag)
        return cls(
            dict(aliases), classes, functions, dict(returns or {}), source, dict(attributes or {})
        )

    def merged(self, over: AliasTable) -> AliasTable:
        """This table with ``over``'s entries winning (e.g. static, then resolve)."""
        if not (over.aliases or over.classes or over.functions or over.returns or over.attributes):
            return self
        classes = dict(self.classes)
        classes.update(over.classes)
        return AliasTable(
            {**self.aliases, **over.aliases},
            classes,
            (self.functions - frozenset(over.classes)) | over.functions,
            {**self.returns, **over.returns},
            f"{self.source}+{over.source}",
            {**self.attributes, **over.attributes},
        )

    def with_types(self, facts: TypeFacts, devices: Sequence[str] = ()) -> AliasTable:
        """This table with ``facts``' returns and attributes winning, device methods for ``devices``."""
        names = tuple(dict.fromkeys([*KNOWN_DEVICES, *devices]))
        returns = {**self.returns, **facts.for_devices(names), **facts.returns}
        source = self.source if facts.source == "static" else f"{self.source}+{facts.source}"
        return replace(
            self, returns=returns, attributes={**self.attributes, **facts.attributes}, source=source
        )

    # -- questions ---------------------------------------------------------------------
    def is_class(self, name: str) -> bool:
        if name in self.classes:
            return True
        if name in self.functions or name in self.aliases:
            return False
        # not in the table: a CapWords last segment under a package is taken to be a class
        last = name.rsplit(".", 1)[-1]
        return "." in name and last[:1].isupper() and any(c.islower() for c in last)

    def mro(self, cls: str) -> list[str]:
        """``cls`` and its bases, depth first, each once (enough for torch's single chains)."""
        out: list[str] = []
        stack = [cls]
        while stack:
            c = stack.pop(0)
            if c in out:
                continue
            out.append(c)
            info = self.classes.get(c)
            if info is not None:
                stack[0:0] = list(info.bases)
        return out

    def owner(self, cls: str, member: str) -> str | None:
        """The class in ``cls``'s MRO that defines ``member``; None when none is known to."""
        for c in self.mro(cls):
            info = self.classes.get(c)
            if info is None or info.defines is None or member in info.defines:
                return c if info is not None or c == cls else None
        return None

    def returned(self, callable_name: str, owner: str | None = None) -> str | None:
        """The type of what calling ``callable_name`` gives (looked up on ``owner`` too)."""
        ret = self.returns.get(callable_name)
        if ret is None and owner is not None:
            ret = self.returns.get(f"{owner}.{callable_name.rsplit('.', 1)[-1]}")
        return ret

    def attribute(self, name: str, owner: str | None = None) -> str | None:
        """The type of the attribute or property ``name`` (looked up on ``owner`` too)."""
        ret = self.attributes.get(name)
        if ret is None and owner is not None:
            ret = self.attributes.get(f"{owner}.{name.rsplit('.', 1)[-1]}")
        return ret

    def known(self, name: str) -> bool:
        """Whether the table knows ``name`` (or the class it is a member of)."""
        if (
            name in self.classes
            or name in self.aliases
            or name in self.returns
            or name in self.functions
        ):
            return True
        if name in self._canonical_names:
            return True
        parent, _, member = name.rpartition(".")
        info = self.classes.get(parent)
        if info is None:
            return False
        if (
            info.defines is None
        ):  # members not listed (torch.Tensor): the functions list says, if it has them
            return name in self.functions or f"{parent}." not in self._function_homes
        return member in info.defines or self.owner(parent, member) is not None

    @property
    def _function_homes(self) -> frozenset[str]:
        homes = self.__dict__.get("_homes")
        if homes is None:
            homes = frozenset(f.rpartition(".")[0] + "." for f in self.functions)
            object.__setattr__(self, "_homes", homes)
        return homes

    @property
    def _canonical_names(self) -> frozenset[str]:
        values = self.__dict__.get("_values")
        if values is None:
            values = frozenset(self.aliases.values())
            object.__setattr__(self, "_values", values)
        return values

    def canonical(self, name: str) -> tuple[str, bool]:
        """The canonical spelling of an API name, and whether an alias was followed."""
        segs = name.split(".")
        path = segs[0]
        aliased = False
        if path in self.aliases:
            path, aliased = self.aliases[path], True
        for seg in segs[1:]:
            nxt = f"{path}.{seg}"
            if nxt in self.aliases:
                nxt, aliased = self.aliases[nxt], True
            path = nxt
        return path, aliased

    def spellings(self, name: str) -> list[str]:
        """The other names of ``name``: its canonical name, and the aliases of that name or of a
        name it starts with (``torch.set_grad_enabled.clone`` <-> ``torch.autograd.grad_mode.set_grad_enabled.clone``)."""
        canonical, _ = self.canonical(name)
        by_target: dict[str, list[str]] = {}
        for alias, target in self.aliases.items():
            by_target.setdefault(target, []).append(alias)
        out = [canonical]
        segs = canonical.split(".")
        for k in range(len(segs), 0, -1):
            prefix = ".".join(segs[:k])
            out.extend(
                alias + canonical[len(prefix) :] for alias in sorted(by_target.get(prefix, ()))
            )
        return [n for n in dict.fromkeys(out) if n != name]

    def short_form(self, name: str) -> tuple[str, ...]:
        """The canonical names a short form (``Tensor.ndim``, ``nn.functional.relu``) may stand for.

        A name whose first part is no root of the table is looked for as the tail
        of the names the table knows (``torch.Tensor.ndim``), and as a member
        after a class or module the table knows by that tail (``torch.Tensor`` +
        ``ndim``). Public names win over private ones, as ``resolve`` picks them.
        """
        segs = name.split(".")
        if not name or segs[0] in self._roots:
            return ()
        by_leaf = self._by_leaf
        found: set[str] = set()
        for full in by_leaf.get(segs[-1], ()):
            if full.endswith("." + name):
                found.add(self.canonical(full)[0])
        for i in range(1, len(segs)):
            head, rest = ".".join(segs[:i]), ".".join(segs[i:])
            for full in by_leaf.get(segs[i - 1], ()):
                if full.endswith("." + head):
                    member = self.canonical(f"{full}.{rest}")[0]
                    if self.known(member):
                        found.add(member)
        public = {
            n
            for n in found
            if not any(p.startswith("_") and not p.endswith("__") for p in n.split("."))
        }
        return tuple(sorted(public or found))

    @property
    def _by_leaf(self) -> dict[str, list[str]]:
        index = self.__dict__.get("_leaf_index")
        if index is None:
            index = {}
            for n in self.names():
                index.setdefault(n.rsplit(".", 1)[-1], []).append(n)
            object.__setattr__(self, "_leaf_index", index)
        return index

    @property
    def _roots(self) -> frozenset[str]:
        roots = self.__dict__.get("_root_names")
        if roots is None:
            roots = frozenset(n.split(".", 1)[0] for n in self.names())
            object.__setattr__(self, "_root_names", roots)
        return roots

    def names(self) -> list[str]:
        """Every name the table can speak of, for suggestions."""
        out = set(self.aliases) | set(self.aliases.values()) | set(self.classes) | set(self.returns)
        out |= self.functions
        for cls, info in self.classes.items():
            out.update(f"{cls}.{m}" for m in info.defines or ())
        return sorted(out)


class AliasSource(Protocol):
    """Anything that can say what names mean (the static table, resolve in an environment)."""

    def alias_table(self) -> AliasTable: ...


@dataclass(frozen=True)
class MappingSource:
    """An ``AliasSource`` over plain mappings: the shape ``resolve`` answers in."""

    aliases: Mapping[str, str]
    bases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    is_class: Mapping[str, bool] = field(default_factory=dict)

    def alias_table(self) -> AliasTable:
        return AliasTable.from_mappings(self.aliases, self.bases, self.is_class)


@dataclass(frozen=True)
class JsonSource:
    """An ``AliasSource`` read from a JSON file: what ``resolve`` learnt, saved for later runs.

    ``{"aliases": {spelled: canonical}, "bases": {class: [bases]}, "is_class": {name: bool},
    "defines": {class: [members]}, "returns": {callable: class}}``; every key is optional.
    """

    path: Path

    def alias_table(self) -> AliasTable:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            raise UsageError(
                f"alias file not found: {self.path}; pass an existing JSON file to --aliases"
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(
                f"{self.path}: not valid JSON ({exc}); fix the file or drop --aliases"
            ) from None
        known = {"aliases", "bases", "is_class", "defines", "returns"}
        if (
            not isinstance(data, dict)
            or not set(data) <= known
            or not all(isinstance(v, dict) for v in data.values())
        ):
            raise UsageError(
                f"{self.path}: expected an object with some of {', '.join(sorted(known))}, each an object"
            )
        return AliasTable.from_mappings(
            data.get("aliases", {}),
            data.get("bases", {}),
            data.get("is_class", {}),
            defines=data.get("defines", {}),
            returns=data.get("returns", {}),
            source=f"file {self.path.name}",
        )


class StaticSource:
    """The table shipped with torchparity (``static_aliases.toml``)."""

    def alias_table(self) -> AliasTable:
        return static_table()


@cache
def static_table() -> AliasTable:
    from .shipped import shipped_toml

    data = shipped_toml("static_aliases.toml")
    classes = {
        name: ClassInfo(
            tuple(info.get("bases", ())),
            None if "defines" not in info else frozenset(info["defines"]),
        )
        for name, info in data.get("classes", {}).items()
    }
    functions = frozenset(
        f"{home}.{n}" for home, names in data.get("functions", {}).items() for n in names
    )
    table = AliasTable(dict(data.get("aliases", {})), classes, functions, {}, "static")
    return table.with_types(static_types())


def table_for(aliases: AliasTable | AliasSource | Mapping[str, str] | None) -> AliasTable:
    """The table to use: the static one, with what the caller knows better on top."""
    base = static_table()
    if aliases is None:
        return base
    if isinstance(aliases, AliasTable):
        over = aliases
    elif hasattr(aliases, "alias_table"):
        over = aliases.alias_table()
    else:
        over = AliasTable.from_mappings(aliases)
    # a table that already stands on the static one (spellings.assemble's) is used as it is
    return (
        over if over.source == "static" or over.source.startswith("static+") else base.merged(over)
    )


# -- chains (re-exported: the index, the checklist and verify read them from here) ----------------
from .chains import ATTR, CALL, DECORATOR, MEMBER, WITH, Emission, Normalizer  # noqa: E402

__all__ = [
    "SELF",
    "ATTR",
    "CALL",
    "DECORATOR",
    "MEMBER",
    "WITH",
    "AliasSource",
    "AliasTable",
    "ClassInfo",
    "Emission",
    "JsonSource",
    "MappingSource",
    "Normalizer",
    "StaticSource",
    "static_table",
    "table_for",
]
