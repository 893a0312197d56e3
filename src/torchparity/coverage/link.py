"""Across the files of one ref: helpers imported from other test files and shared test utilities,
and test classes whose test methods come from a base class in another file.

A file's facts name what it imports by dotted name (``testutils.TestUtils``,
``torch_npu.testing.common_utils.create_common_tensor``, ``__rel1__.utils.f``); here
each is looked for among the ref's Python files as Python would import it from the
test file (the file's own folder first, then the repository root, then each test
root). Only *test code* is followed: files under the test roots, and files in a
folder named ``testing`` (the backend's shared test utilities); a library's own
functions are not, so what they call inside never counts as the test's use.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


class FileFacts:
    """The facts of one blob with lookups by qualname."""

    __slots__ = ("blob", "doc", "funcs", "classes")

    def __init__(self, blob: str, doc: dict[str, Any]) -> None:
        self.blob = blob
        self.doc = doc
        self.funcs: dict[str, list[Any]] = {f[0]: f for f in doc.get("f", [])}
        self.classes: dict[str, list[Any]] = {c[0]: c for c in doc.get("c", [])}

    @classmethod
    def from_text(cls, blob: str, text: str | None) -> FileFacts:
        doc = json.loads(text) if text else {"err": "blob missing from the repository", "f": []}
        return cls(blob, doc)

    def string(self, i: int) -> str:
        return self.doc["s"][i] if i else ""

    def ext_names(self) -> list[str]:
        """Every imported dotted name the file calls or derives a class from."""
        out: list[str] = []
        for f in self.doc.get("f", []):
            for callee, *_ in f[5]:
                if callee.startswith("@"):
                    out.append(callee[1:])
        for c in self.doc.get("c", []):
            out += [self.string(b) for b in c[3] if not self.string(b).startswith("=")]
        return list(dict.fromkeys(out))


@dataclass(frozen=True)
class Target:
    """A function or class in another file of the ref."""

    path: str
    blob: str
    qual: str


@dataclass
class Link:
    """What one file's imported names are at this ref."""

    #: "importer path|dotted name" -> the helper function it is (this file's, and its helpers' files')
    helpers: dict[str, Target] = field(default_factory=dict)
    #: class qualname in this file -> its base classes in other files, nearest first
    bases: dict[str, list[Target]] = field(default_factory=dict)

    @property
    def key(self) -> tuple[Any, ...]:
        return (
            tuple(sorted((k, v.path, v.blob, v.qual) for k, v in self.helpers.items())),
            tuple(
                sorted(
                    (k, tuple((t.path, t.blob, t.qual) for t in v)) for k, v in self.bases.items()
                )
            ),
        )

    def __bool__(self) -> bool:
        return bool(self.helpers or self.bases)


def is_test_code(path: str, roots: Sequence[str]) -> bool:
    if any(r == "." or path == r or path.startswith(r.rstrip("/") + "/") for r in roots):
        return True
    return "testing" in path.split("/")[:-1]


class ModuleMap:
    """Python files of one ref, found by the dotted names a test file imports."""

    def __init__(self, files: dict[str, str], roots: Sequence[str]) -> None:
        self.files = files  # path -> blob (every .py file of the ref)
        self.roots = [r for r in roots if r != "."]

    def find(self, dotted: str, importer: str) -> tuple[str, str] | None:
        """(path, qualname inside it) of ``dotted`` as imported by the file at ``importer``."""
        parts = dotted.split(".")
        folder = importer.rpartition("/")[0]
        bases: list[str]
        if parts[0].startswith("__rel") and parts[0].endswith("__"):
            level = int(parts[0][5:-2] or 1)
            base = folder
            for _ in range(level - 1):
                base = base.rpartition("/")[0]
            bases, parts = [base], parts[1:]
        else:
            bases = [folder, "", *self.roots]
        for k in range(len(parts) - 1, 0, -1):
            rel = "/".join(parts[:k])
            rest = ".".join(parts[k:])
            for base in dict.fromkeys(bases):
                stem = f"{base}/{rel}" if base else rel
                for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                    if candidate in self.files and candidate != importer:
                        return candidate, rest
        return None


class Linker:
    """Links each file of a ref to the helpers and bases it imports (facts loaded on demand)."""

    def __init__(self, modules: ModuleMap, facts_of: Callable[[str], FileFacts]) -> None:
        self.modules = modules
        self.facts_of = facts_of  # blob -> facts (parsing what the cache lacks)

    def target(self, dotted: str, importer: str, want_class: bool) -> Target | None:
        found = self.modules.find(dotted, importer)
        if found is None:
            return None
        path, qual = found
        if not is_test_code(path, self.modules.roots or ["test"]):
            return None
        blob = self.modules.files[path]
        facts = self.facts_of(blob)
        if want_class and qual in facts.classes:
            return Target(path, blob, qual)
        if not want_class and qual in facts.funcs:
            return Target(path, blob, qual)
        return None

    def link(self, path: str, facts: FileFacts, depth: int = 2) -> Link:
        out = Link()
        self._helpers(path, facts, out, depth)
        for c in facts.doc.get("c", []):
            chain: list[Target] = []
            self._bases(path, facts, c, chain, set())
            if chain:
                out.bases[c[0]] = chain
        return out

    def _helpers(self, path: str, facts: FileFacts, out: Link, depth: int) -> None:
        """``importer|dotted`` -> the helper, for the file and (``depth`` > 1) for its helpers' files."""
        for name in facts.ext_names():
            key = f"{path}|{name}"
            if key in out.helpers:
                continue
            t = self.target(name, path, False)
            if t is None:
                continue
            out.helpers[key] = t
            if depth > 1:
                self._helpers(t.path, self.facts_of(t.blob), out, depth - 1)

    def _bases(
        self, path: str, facts: FileFacts, cls: list[Any], chain: list[Target], seen: set[str]
    ) -> None:
        for b in cls[3]:
            spec = facts.string(b)
            if spec.startswith("="):
                inner = facts.classes.get(spec[1:])
                if inner is not None and (path, spec) not in seen:
                    seen.add((path, spec))  # type: ignore[arg-type]
                    self._bases(path, facts, inner, chain, seen)
                continue
            t = self.target(spec, path, True)
            if t is None or (t.path, t.qual) in seen:
                continue
            seen.add((t.path, t.qual))  # type: ignore[arg-type]
            chain.append(t)
            other = self.facts_of(t.blob)
            self._bases(t.path, other, other.classes[t.qual], chain, seen)
