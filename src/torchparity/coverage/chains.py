"""Chains: what the extractor recorded an expression as, and what it touches under one alias table.

The extractor (``extract.py``) writes each use as a chain string that depends on
the file alone; here a ``Normalizer`` reads it with a table (aliases, classes,
type facts) and says which canonical names it touches, and how. Grammar::

    chain  := atom ('.' NAME ops)*
    atom   := NAME ops                        a name: an import, a module, a builtin
            | '{' chain ('|' chain)+ '}' ops  a name bound on several paths: the known types must agree
            | '{' chain ('?' chain)+ '}' ops  the first with a known type (``a + b``: a.__add__ or b.__radd__)
            | '<' elem (',' elem)* '>' ops    a tuple or list display; elem is a chain or '~' (unknown)
            | '!' chain '!' ops               an instance of the class the chain names (an annotation)
            | '#' TYPE '#' ops                a literal (#builtins.int#)
            | '[' chain ']' ops               a sequence of what chain is (a comprehension, list(x))
            | '$' NAME ops                    a helper's parameter (its callers' arguments replace it)
    ops    := ('()' | '[' [INT] ']')*         calls; subscripts (a constant index, or any)

``torch.randn().npu().ndimension()`` is a Tensor's ``ndimension``: ``torch.randn``
returns a Tensor (the type facts say so), ``Tensor.npu`` does too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import SELF, Type, cls, join, parse
from .wrappers import wrapped_by

#: roles of a name in a test: called, entered as a context manager, used as a decorator,
#: or only named (an attribute read, a class passed to isinstance)
CALL, WITH, DECORATOR, ATTR = "c", "w", "d", "a"
#: a member of a class used through the class itself (``TracingContext.get()``): a use of the class
MEMBER = "m"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPS = re.compile(r"(?:\(\)|\[\d*\])*")
_INDEX = re.compile(r"\[(\d*)\]")

#: a chain's ops: "c" a call, "i" a subscript with any index, "i3" index 3
Ops = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Atom:
    kind: str  # n name | j join | f first known | t tuple display | a annotation | l literal | s sequence | p parameter
    name: str = ""
    parts: tuple[Chain | None, ...] = ()
    ops: Ops = ()


@dataclass(frozen=True, slots=True)
class Chain:
    atom: Atom
    segs: tuple[tuple[str, Ops], ...] = ()

    def __len__(self) -> int:
        return 1 + len(self.segs)


class ChainSyntaxError(ValueError):
    pass


_OPS_MEMO: dict[str, Ops] = {"": ()}


def _ops(text: str) -> Ops:
    hit = _OPS_MEMO.get(text)
    if hit is None:
        out: list[str] = []
        for m in re.finditer(r"\(\)|\[(\d*)\]", text):
            out.append("c" if m.group(0) == "()" else f"i{m.group(1)}")
        hit = _OPS_MEMO[text] = tuple(out)
    return hit


_SIMPLE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_]*(?:\(\)|\[\d*\])*(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\(\)|\[\d*\])*)*"
)


def _simple(text: str) -> Chain:
    """A chain of plain names and ops (most of them): split, no recursion."""
    segs: list[tuple[str, Ops]] = []
    for part in text.split("."):
        cut = len(part)
        for i, ch in enumerate(part):
            if ch == "(" or ch == "[":
                cut = i
                break
        segs.append((part[:cut], _ops(part[cut:])))
    head, head_ops = segs[0]
    return Chain(Atom("n", head, (), head_ops), tuple(segs[1:]))


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def chain(self) -> Chain:
        atom = self.atom()
        segs: list[tuple[str, Ops]] = []
        while self.i < len(self.s) and self.s[self.i] == ".":
            self.i += 1
            m = _NAME.match(self.s, self.i)
            if m is None:
                raise ChainSyntaxError(self.s)
            self.i = m.end()
            segs.append((m.group(0), self.ops()))
        return Chain(atom, tuple(segs))

    def ops(self) -> Ops:
        m = _OPS.match(self.s, self.i)
        assert m is not None
        self.i = m.end()
        return _ops(m.group(0)) if m.group(0) else ()

    def atom(self) -> Atom:
        s = self.s
        if self.i >= len(s):
            raise ChainSyntaxError(s)
        ch = s[self.i]
        if ch == "{":
            self.i += 1
            parts = [self.chain()]
            sep = s[self.i] if self.i < len(s) else ""
            if sep not in "|?":
                raise ChainSyntaxError(s)
            while self.i < len(s) and s[self.i] == sep:
                self.i += 1
                parts.append(self.chain())
            self.expect("}")
            return Atom("j" if sep == "|" else "f", "", tuple(parts), self.ops())
        if ch == "<":
            self.i += 1
            elems: list[Chain | None] = []
            if s[self.i] != ">":
                while True:
                    if s[self.i] == "~":
                        self.i += 1
                        elems.append(None)
                    else:
                        elems.append(self.chain())
                    if s[self.i] == ",":
                        self.i += 1
                        continue
                    break
            self.expect(">")
            return Atom("t", "", tuple(elems), self.ops())
        if ch == "!":
            self.i += 1
            inner = self.chain()
            self.expect("!")
            return Atom("a", "", (inner,), self.ops())
        if ch == "[":
            self.i += 1
            inner = self.chain()
            self.expect("]")
            return Atom("s", "", (inner,), self.ops())
        if ch == "$":
            m = _NAME.match(s, self.i + 1)
            if m is None:
                raise ChainSyntaxError(s)
            self.i = m.end()
            return Atom("p", m.group(0), (), self.ops())
        if ch == "#":
            end = s.index("#", self.i + 1)
            name = s[self.i + 1 : end]
            self.i = end + 1
            return Atom("l", name, (), self.ops())
        m = _NAME.match(s, self.i)
        if m is None:
            raise ChainSyntaxError(s)
        self.i = m.end()
        return Atom("n", m.group(0), (), self.ops())

    def expect(self, ch: str) -> None:
        if self.i >= len(self.s) or self.s[self.i] != ch:
            raise ChainSyntaxError(self.s)
        self.i += 1


_PARSED: dict[str, Chain | None] = {}


def parse_chain(text: str) -> Chain | None:
    """The chain ``text`` spells (None when it does not parse: an older or broken fact)."""
    hit = _PARSED.get(text, _PARSED)
    if hit is not _PARSED:
        return hit  # type: ignore[return-value]
    value: Chain | None
    if _SIMPLE.fullmatch(text):
        value = _simple(text)
    else:
        try:
            p = _Parser(text)
            value = p.chain()
            if p.i != len(text):
                value = None
        except (ChainSyntaxError, IndexError, ValueError):
            value = None
    if len(_PARSED) > 500_000:
        _PARSED.clear()
    _PARSED[text] = value
    return value


@dataclass(frozen=True, slots=True)
class Emission:
    """One canonical name a chain touches, and how."""

    name: str
    role: str
    #: reached through the result of a call (torch.set_grad_enabled(False).clone())
    chained: bool = False
    #: an alias was followed (torch.set_grad_enabled -> torch.autograd.grad_mode.set_grad_enabled)
    aliased: bool = False
    #: the member is inherited: the class the test used (SGD for Optimizer.zero_grad)
    inherited_via: str = ""
    #: is this the chain's last name (what the expression finally is)
    final: bool = False
    #: reached by calling a wrapper that upstream implements with this API (``wrappers.py``)
    wrapper: str = ""


def _role(kind: str, called: bool, final: bool) -> str:
    if final and kind in (WITH, DECORATOR):
        return kind
    return CALL if called else ATTR


class _Value:
    """Where a walk along a chain stands: a dotted path (module, class, function) or an instance."""

    __slots__ = ("path", "owner", "recv", "inst")

    def __init__(
        self,
        path: str | None = None,
        owner: str | None = None,
        recv: str | None = None,
        inst: Type | None = None,
    ) -> None:
        self.path = path  # a dotted name (when not an instance)
        self.owner = owner  # the class that defines the member ``path`` names
        self.recv = recv  # the class the member was looked up on (for "self" results)
        self.inst = inst  # the type of the value, when it is an instance


class Normalizer:
    """Chains -> canonical names, memoised (one per table)."""

    def __init__(self, table) -> None:
        self.table = table
        self._memo: dict[tuple[str, str], tuple[Emission, ...]] = {}
        self._flat: dict[tuple[str, str], tuple[tuple[str, str, bool, str, str], ...]] = {}
        self._types: dict[tuple[str, int], Type | None] = {}
        self._classes: dict[str, bool] = {}

    def is_class(self, name: str) -> bool:
        hit = self._classes.get(name)
        if hit is None:
            hit = self._classes[name] = self.table.is_class(name)
        return hit

    def flat(self, chain: str, kind: str) -> tuple[tuple[str, str, bool, str, str], ...]:
        """``emissions`` as plain tuples (name, role, chained, inherited_via, wrapper): the index's hot loop."""
        key = (chain, kind)
        hit = self._flat.get(key)
        if hit is None:
            hit = self._flat[key] = tuple(
                (e.name, e.role, e.chained, e.inherited_via, e.wrapper)
                for e in self.emissions(chain, kind)
            )
        return hit

    def emissions(self, chain: str, kind: str) -> tuple[Emission, ...]:
        key = (chain, kind)
        hit = self._memo.get(key)
        if hit is None:
            parsed = parse_chain(chain)
            out: list[Emission] = []
            if parsed is not None:
                self._walk(parsed, kind, out, depth=0)
            hit = self._memo[key] = tuple(self._settle(out))
        return hit

    def _settle(self, out: list[Emission]) -> list[Emission]:
        """A called wrapper (``wrappers.py``) also calls the public API it is implemented with."""
        settled: list[Emission] = []
        names = {e.name for e in out}
        for e in out:
            settled.append(e)
            wrapped = wrapped_by(e.name) if e.role in (CALL, WITH, DECORATOR) else None
            if wrapped is not None and wrapped not in names:
                names.add(wrapped)
                settled.append(Emission(wrapped, e.role, e.chained, e.aliased, "", e.final, e.name))
        return settled

    def type_of(self, chain: str, nseg: int = 0) -> Type | None:
        """The type of ``chain`` (of its first ``nseg`` parts: the atom and nseg - 1 members)."""
        key = (chain, nseg)
        if key in self._types:
            return self._types[key]
        parsed = parse_chain(chain)
        value: Type | None = None
        if parsed is not None:
            if nseg:
                parsed = Chain(parsed.atom, parsed.segs[: max(nseg - 1, 0)])
            value = self._walk(parsed, ATTR, None, depth=0).inst
        self._types[key] = value
        return value

    # -- the walk ---------------------------------------------------------------------------
    def _walk(self, chain: Chain, kind: str, out: list[Emission] | None, depth: int) -> _Value:
        table = self.table
        last = len(chain.segs)
        atom = chain.atom
        chained = False
        aliased = False
        if depth > 8:
            return _Value()
        if atom.kind == "n":
            path = atom.name
            if path in table.aliases:
                path, aliased = table.aliases[path], True
            value = _Value(path=path)
            if atom.ops:
                if out is not None:
                    out.append(
                        Emission(
                            path,
                            _role(kind, "c" in atom.ops, last == 0),
                            False,
                            aliased,
                            "",
                            last == 0,
                        )
                    )
                value = self._apply(value, atom.ops, out)
                chained = True
        else:
            value = _Value(inst=self._atom_type(atom, out, depth))
            if atom.kind != "a":
                chained = True
            if atom.ops:
                value = self._apply(value, atom.ops, out)
        for i, (name, ops) in enumerate(chain.segs, start=1):
            final = i == last
            called = "c" in ops
            role = _role(kind, called, final)
            inst = value.inst
            if inst is not None:
                if inst.kind == "s" and name == "__enter__" and ops[:1] == ("c",):
                    # a generator-based context manager (its annotation: Iterator[X]) gives what it yields
                    value = _Value(inst=inst.items[0])
                    if ops[1:]:
                        value = self._apply(value, ops[1:], out)
                    continue
                if inst.kind != "c" or inst.name.startswith("builtins."):
                    return _Value()  # a tuple, a union, an int: no member of it is guessed
                c = inst.name
                member = f"{c}.{name}"
                owner = table.owner(c, name)
                if out is not None:
                    out.append(Emission(member, role, chained, aliased, "", final))
                    if owner is not None and owner != c:
                        out.append(Emission(f"{owner}.{name}", role, chained, aliased, c, final))
                if not called:
                    attr = self._result(table.attribute(member, owner), c)
                    value = _Value(inst=attr) if attr is not None else _Value(path=member)
                    if ops:
                        value = self._apply(value, ops, out)
                    continue
                value = _Value(path=member, owner=owner or c, recv=c)
            else:
                here = value.path
                if here is None:
                    return value
                if self.is_class(here):
                    member = f"{here}.{name}"
                    owner = table.owner(here, name)
                    if out is not None:
                        out.append(Emission(member, role, chained, aliased, "", final))
                        if owner is not None and owner != here:
                            out.append(
                                Emission(f"{owner}.{name}", role, chained, aliased, here, final)
                            )
                    value = _Value(path=member, owner=owner or here, recv=here)
                else:
                    nxt = f"{here}.{name}"
                    if nxt in table.aliases:
                        nxt, aliased = table.aliases[nxt], True
                    # plain module paths on the way (torch.nn on the way to torch.nn.functional.relu) say nothing
                    if out is not None and (final or ops or self.is_class(nxt)):
                        if (
                            not final
                            and not ops
                            and self.is_class(nxt)
                            and not chain.segs[i][0].startswith("__")
                        ):
                            role = (
                                MEMBER  # Cls.member: the class is used (Cls == x is no use of it)
                            )
                        out.append(Emission(nxt, role, chained, aliased, "", final))
                    value = _Value(path=nxt)
            if ops:
                value = self._apply(value, ops, out)
                if called:
                    chained = True
        return value

    def _atom_type(self, atom: Atom, out: list[Emission] | None, depth: int) -> Type | None:
        if atom.kind == "l":
            return cls(atom.name)
        if atom.kind == "p":
            return None
        if atom.kind == "s":
            inner = atom.parts[0]
            assert inner is not None
            return Type("s", items=(self._walk(inner, ATTR, out, depth + 1).inst,))
        if atom.kind == "a":
            inner = atom.parts[0]
            assert inner is not None
            v = self._walk(inner, ATTR, None, depth + 1)
            return cls(v.path) if v.inst is None and v.path and self.is_class(v.path) else None
        if atom.kind == "t":
            items = tuple(
                None if p is None else self._walk(p, ATTR, out, depth + 1).inst for p in atom.parts
            )
            return Type("t", items=items)
        types = [self._walk(p, ATTR, out, depth + 1).inst for p in atom.parts if p is not None]
        if atom.kind == "j":
            return join(types)
        return next((t for t in types if t is not None), None)  # "f": the first that is known

    def _apply(self, value: _Value, ops: Ops, out: list[Emission] | None) -> _Value:
        for op in ops:
            if op == "c":
                value = self._call(value)
            else:
                value = self._index(value, op[1:], out)
            if value.inst is None and value.path is None:
                return value
        return value

    def _call(self, value: _Value) -> _Value:
        table = self.table
        if value.inst is not None:  # calling an instance: its __call__, when the facts say
            inst = value.inst
            if inst.kind == "c" and not inst.name.startswith("builtins."):
                t = self._result(
                    table.returned(f"{inst.name}.__call__", table.owner(inst.name, "__call__")),
                    inst.name,
                )
                return _Value(inst=t)
            return _Value()
        path = value.path
        if path is None:
            return value
        if value.recv is None and self.is_class(path):
            return _Value(inst=cls(path))
        return _Value(inst=self._result(table.returned(path, value.owner), value.recv))

    def _index(self, value: _Value, index: str, out: list[Emission] | None) -> _Value:
        inst = value.inst
        if inst is None:
            return _Value()
        return _Value(inst=self._subscript(inst, index, out))

    def _subscript(self, inst: Type, index: str, out: list[Emission] | None) -> Type | None:
        if inst.kind == "t":
            if index and int(index) < len(inst.items):
                return inst.items[int(index)]
            return join(list(inst.items)) if inst.items else None
        if inst.kind == "s":
            return inst.items[0]
        if inst.kind == "u":
            return join(
                [self._subscript(t, index, None) if t is not None else None for t in inst.items]
            )
        if inst.name.startswith("builtins."):
            return None
        table = self.table
        member = f"{inst.name}.__getitem__"
        owner = table.owner(inst.name, "__getitem__")
        if out is not None:
            out.append(Emission(member, CALL, True, False, "", False))
        return self._result(table.returned(member, owner), inst.name)

    def _result(self, ret: str | None, recv: str | None) -> Type | None:
        if ret is None:
            return None
        if ret == SELF:
            return cls(recv) if recv else None
        t = parse(ret)
        if t is not None and t.kind == "c" and t.name == SELF:
            return cls(recv) if recv else None
        return t
