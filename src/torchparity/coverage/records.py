"""The coverage records: which tests touch an API at each ref, and how (data, no search here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .grep import GrepResult
from .index import RefIndex


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
        return {"test": self.test, "path": self.path, "line": self.line,
                "end_line": self.end_line, "how": self.how, "at": self.at}


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
        grep = self.grep.to_json() if self.grep else {"command": "", "pattern": "", "count": 0,
                                                      "matches": [], "engine": "off"}
        grep["in_direct_tests"] = self.grep_in_direct
        return {
            "ref": self.ref, "commit": self.commit, "repo": self.repo, "upstream": self.upstream,
            "files": self.files, "tests": self.tests,
            "direct": [h.to_json() for h in self.direct],
            "related": [h.to_json() for h in self.related], "related_total": self.related_total,
            "weak": [h.to_json() for h in self.weak], "weak_total": self.weak_total,
            "grep": grep,
            "skipped_files": [{"path": p, "why": w} for p, w in self.skipped_files],
        }


@dataclass(frozen=True)
class ApiCoverage:
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
            "api": self.api, "canonical": self.canonical, "known": self.known,
            "alias_source": self.alias_source, "suggestions": list(self.suggestions),
            "refs": [r.to_json() for r in self.refs],
            "justification_zh": self.justification_zh, "justification_en": self.justification_en,
            "section_zh": self.section_zh, "section_en": self.section_en,
        }


@dataclass(frozen=True)
class CoverageReport:
    apis: tuple[ApiCoverage, ...]
    indexes: tuple[RefIndex, ...] = field(default=(), compare=False, repr=False)

    def to_json(self) -> list[dict[str, Any]]:
        return [a.to_json() for a in self.apis]

    def __getitem__(self, api: str) -> ApiCoverage:
        for a in self.apis:
            if api in (a.api, a.canonical):
                return a
        raise KeyError(api)
