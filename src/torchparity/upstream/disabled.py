"""The backend's disabled list, read in its own format and applied as the backend applies it.

The list is PyTorch's ``DISABLED_TESTS_FILE`` shape: a JSON object mapping
``"test_name (module.ClassName)"`` to ``[reason, [platforms]]``. A test is
disabled by an entry when

* the entry's test name is the test's method name, or that name less its device
  and dtype suffixes (``test_x_npu_float32`` -> ``test_x``), and
* the test's class name starts with the entry's class name (``TestFoo`` disables
  ``TestFooCPU``), or with it after a configured class-name alias
  (``TestFooPRIVATEUSE1`` is also spelled ``TestFooNPU``), and
* the entry applies on this platform: every tag it names (rule ``all``, Ascend's)
  or one of them (rule ``any``, PyTorch's) matches the target's
  ``"<device name>;<os platform>"``; tags the config does not know do not narrow
  an entry, and an entry naming none applies everywhere.

A category file (``{key: {CODE: detail}}``) and a file of category names
(``{CODE: meaning}``) give each entry its category.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..gitrepo import blob_bytes
from ..records.upstream import DisabledEntry
from ..store.blobs import sha256_bytes
from .settings import DisabledSettings, UpstreamSettings

_KEY = re.compile(r"^(\S+) \((.+)\)$")


@dataclass(frozen=True)
class Entry:
    key: str
    name: str  # the test name
    klass: str  # the class name (last part of the qualified name)
    reason: str
    platforms: tuple[str, ...]


def parse_key(key: str) -> tuple[str, str] | None:
    """("test_x", "TestFoo") of ``"test_x (__main__.TestFoo)"``; None for a key of another shape."""
    m = _KEY.match(key.strip())
    if m is None:
        return None
    return m.group(1), m.group(2).split(".")[-1]


def _load_json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(
            f"{what} is not valid JSON ({exc}); fix it at that ref or point [upstream.disabled] "
            "at another file"
        ) from None


class DisabledList:
    """One list file at one ref, with its categories."""

    def __init__(
        self,
        path: str,
        entries: Iterable[Entry],
        settings: DisabledSettings,
        categories: dict[str, tuple[str, str]] | None = None,
        meanings: dict[str, str] | None = None,
        malformed: int = 0,
    ) -> None:
        self.path = path
        self.settings = settings
        self.entries = list(entries)
        self.categories = categories or {}
        self.meanings = meanings or {}
        #: keys of another shape than "test_x (module.Class)": never match, as in the backend
        self.malformed = malformed
        self._by_name: dict[str, list[Entry]] = {}
        for e in self.entries:
            self._by_name.setdefault(e.name, []).append(e)
        self._tags = {t: re.compile(r) for t, r in settings.platforms.items()}

    @classmethod
    def parse(
        cls,
        path: str,
        data: bytes,
        settings: DisabledSettings,
        categories: bytes | None = None,
        names: bytes | None = None,
        where: str = "",
    ) -> DisabledList:
        doc = _load_json(data, f"the disabled list {path}{where}")
        if not isinstance(doc, dict):
            raise UsageError(
                f"the disabled list {path}{where} is not a JSON object of "
                '"test_x (module.Class)": [reason, [platforms]]'
            )
        entries: list[Entry] = []
        malformed = 0
        for key, value in doc.items():
            parsed = parse_key(str(key))
            if parsed is None:
                malformed += 1
                continue
            reason: str = ""
            platforms: tuple[str, ...] = ()
            if isinstance(value, list) and value:
                reason = str(value[0] or "")
                if len(value) > 1 and isinstance(value[1], list):
                    platforms = tuple(str(p) for p in value[1])
            entries.append(Entry(str(key), parsed[0], parsed[1], reason, platforms))
        cats: dict[str, tuple[str, str]] = {}
        if categories is not None:
            cdoc = _load_json(categories, f"the category file for {path}{where}")
            for key, value in cdoc.items() if isinstance(cdoc, dict) else ():
                if isinstance(value, dict) and value:
                    code, detail = next(iter(value.items()))
                    cats[str(key)] = (str(code), str(detail))
        meanings: dict[str, str] = {}
        if names is not None:
            ndoc = _load_json(names, f"the category names for {path}{where}")
            meanings = {str(k): str(v) for k, v in (ndoc.items() if isinstance(ndoc, dict) else ())}
        return cls(path, entries, settings, cats, meanings, malformed)

    def applies(self, entry: Entry, platform: str) -> bool:
        """Whether ``entry`` disables its tests on ``platform`` ("<device name>;<os platform>")."""
        known = [t for t in entry.platforms if t in self._tags]
        if not known:
            return True
        hits = [bool(self._tags[t].search(platform)) for t in known]
        return all(hits) if self.settings.platform_rule == "all" else any(hits)

    def _class_matches(self, classname: str, klass: str) -> bool:
        if classname.startswith(klass):
            return True
        for a, b in self.settings.class_aliases:
            other = (
                klass.replace(a, b) if a in klass else (klass.replace(b, a) if b in klass else None)
            )
            if other is not None and classname.startswith(other):
                return True
        return False

    def find(self, classname: str, method: str, sanitized: str = "") -> Entry | None:
        """The first entry naming this test, on any platform (None: the list does not name it)."""
        for name in dict.fromkeys((method, sanitized or method)):
            for e in self._by_name.get(name, ()):
                if self._class_matches(classname, e.klass):
                    return e
        return None

    def match(self, classname: str, method: str, sanitized: str, platform: str) -> Entry | None:
        """The entry that disables this test on ``platform`` (None: it runs)."""
        for name in dict.fromkeys((method, sanitized or method)):
            for e in self._by_name.get(name, ()):
                if self._class_matches(classname, e.klass) and self.applies(e, platform):
                    return e
        return None

    def record(self, entry: Entry) -> DisabledEntry:
        code, detail = self.categories.get(entry.key, ("", ""))
        return DisabledEntry(
            key=entry.key,
            list_file=self.path,
            reason=entry.reason,
            platforms=entry.platforms,
            category=code,
            category_detail=detail,
            category_meaning=self.meanings.get(code, ""),
        )


def list_at(
    settings: UpstreamSettings,
    repo: Path | None,
    commit: str,
    torch_version: str,
    cache: dict[str, DisabledList],
) -> tuple[DisabledList | None, str]:
    """The backend's disabled list that applies at ``commit`` for ``torch_version`` (its per-version
    variant first) and its SHA-256; (None, "") when the config names none or the ref has none."""
    d = settings.disabled
    if repo is None or not d.configured:
        return None, ""
    for path in d.list_for(torch_version):
        data = blob_bytes(repo, commit, path)
        if data is None:
            continue
        sha = sha256_bytes(data)
        if sha not in cache:
            cats = blob_bytes(repo, commit, d.categories) if d.categories else None
            names = blob_bytes(repo, commit, d.category_names) if d.category_names else None
            cache[sha] = DisabledList.parse(path, data, d, cats, names, where=f" at {commit[:12]}")
        return cache[sha], sha
    return None, ""


__all__ = ["DisabledList", "Entry", "list_at", "parse_key"]
