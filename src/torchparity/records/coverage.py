"""The coverage stage's records: which tests touch an API at each ref, and how (data, no search here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .base import Record


@dataclass(frozen=True)
class GrepResult:
    command: str
    pattern: str
    count: int
    matches: tuple[str, ...]
    engine: str  # "git grep -P" | "git grep -E" (the command run) | "in-process"

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "pattern": self.pattern,
            "count": self.count,
            "matches": list(self.matches),
            "engine": self.engine,
        }


@dataclass(frozen=True, slots=True)
class TestHit:
    """One test and how it touches the API."""

    test: str  # path::Class::test_name
    path: str
    line: int
    end_line: int
    how: str
    at: int  # the line of the use (the test's first line when the use sits in a helper)

    def to_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "how": self.how,
            "at": self.at,
        }

    @classmethod
    def from_json(cls, d: Any) -> TestHit:
        return cls(
            str(d["test"]),
            str(d["path"]),
            int(d["line"]),
            int(d["end_line"]),
            str(d["how"]),
            int(d["at"]),
        )


@dataclass(frozen=True)
class RefCoverage:
    ref: str
    commit: str
    repo: str
    upstream: bool
    files: int
    tests: int
    direct: tuple[TestHit, ...]
    related: tuple[TestHit, ...]
    related_total: int
    weak: tuple[TestHit, ...]
    weak_total: int
    grep: GrepResult | None
    skipped_files: tuple[tuple[str, str], ...]
    #: grep lines that fall inside a direct test (the rest are comments, strings, other names)
    grep_in_direct: int = 0

    @property
    def label(self) -> str:
        return f"upstream {self.ref}" if self.upstream else self.ref

    def to_json(self) -> dict[str, Any]:
        grep = (
            self.grep.to_json()
            if self.grep
            else {"command": "", "pattern": "", "count": 0, "matches": [], "engine": "off"}
        )
        grep["in_direct_tests"] = self.grep_in_direct
        return {
            "ref": self.ref,
            "commit": self.commit,
            "repo": self.repo,
            "upstream": self.upstream,
            "files": self.files,
            "tests": self.tests,
            "direct": [h.to_json() for h in self.direct],
            "related": [h.to_json() for h in self.related],
            "related_total": self.related_total,
            "weak": [h.to_json() for h in self.weak],
            "weak_total": self.weak_total,
            "grep": grep,
            "skipped_files": [{"path": p, "why": w} for p, w in self.skipped_files],
        }

    @classmethod
    def from_json(cls, d: Any) -> RefCoverage:
        g = d.get("grep") or {}
        grep = (
            None
            if g.get("engine", "off") == "off"
            else GrepResult(
                str(g["command"]),
                str(g["pattern"]),
                int(g["count"]),
                tuple(g.get("matches", ())),
                str(g["engine"]),
            )
        )
        return cls(
            ref=str(d["ref"]),
            commit=str(d["commit"]),
            repo=str(d["repo"]),
            upstream=bool(d["upstream"]),
            files=int(d["files"]),
            tests=int(d["tests"]),
            direct=tuple(TestHit.from_json(h) for h in d.get("direct", ())),
            related=tuple(TestHit.from_json(h) for h in d.get("related", ())),
            related_total=int(d.get("related_total", 0)),
            weak=tuple(TestHit.from_json(h) for h in d.get("weak", ())),
            weak_total=int(d.get("weak_total", 0)),
            grep=grep,
            skipped_files=tuple(
                (str(x["path"]), str(x["why"])) for x in d.get("skipped_files", ())
            ),
            grep_in_direct=int(g.get("in_direct_tests", 0)),
        )


@dataclass(frozen=True)
class ApiCoverage(Record):
    """The coverage stage's record for one API over every searched ref."""

    SCHEMA: ClassVar[str] = "torchparity.coverage/2"
    KIND: ClassVar[str] = "coverage"

    api: str
    canonical: str
    known: bool
    alias_source: str
    suggestions: tuple[str, ...]
    refs: tuple[RefCoverage, ...]
    justification_zh: str = ""
    justification_en: str = ""
    #: the whole 【社区用例检索与新增必要性】 section (commands, counts, tests, paragraph)
    section_zh: str = ""
    section_en: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "canonical": self.canonical,
            "known": self.known,
            "alias_source": self.alias_source,
            "suggestions": list(self.suggestions),
            "refs": [r.to_json() for r in self.refs],
            "justification_zh": self.justification_zh,
            "justification_en": self.justification_en,
            "section_zh": self.section_zh,
            "section_en": self.section_en,
        }

    @classmethod
    def from_json(cls, d: Any) -> ApiCoverage:
        return cls(
            api=str(d["api"]),
            canonical=str(d["canonical"]),
            known=bool(d["known"]),
            alias_source=str(d["alias_source"]),
            suggestions=tuple(d.get("suggestions", ())),
            refs=tuple(RefCoverage.from_json(r) for r in d.get("refs", ())),
            justification_zh=str(d.get("justification_zh", "")),
            justification_en=str(d.get("justification_en", "")),
            section_zh=str(d.get("section_zh", "")),
            section_en=str(d.get("section_en", "")),
        )
