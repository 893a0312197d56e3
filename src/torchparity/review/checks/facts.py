"""What every check may consult: the repository view, the config, the whole text's claims, the inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...config import Config
from ..records import Claims
from ..repo import RepoView
from ..testdefs import SourceTests, read_tests


@dataclass
class Facts:
    view: RepoView
    config: Config
    claims: Claims
    bundle: Path | None = None
    attestation: Path | None = None
    allowed_signers: Path | None = None
    #: the PR text itself (what it says of its evidence: emulated or not)
    text: str = ""
    _tests: dict[tuple[str, str], SourceTests | None] = field(default_factory=dict)

    def test_file(self, path: str, commit: str | None = None) -> SourceTests | None:
        at = commit or self.view.commit
        key = (at, path)
        if key not in self._tests:
            data = self.view.blob(path, at)
            self._tests[key] = None if data is None else read_tests(path, data)
        return self._tests[key]

    def branch_commit(self, branch: str) -> str | None:
        """The tip of ``branch`` when the text talks about another branch than the reviewed one."""
        if not branch or branch == self.view.target_branch:
            return None
        tip = self.view.resolve(branch)
        return tip if tip and tip != self.view.commit else None

    @property
    def changed_py(self) -> list[str]:
        return [p for p in self.view.changed_paths if p.endswith(".py")]

    def only_changed_file(self) -> str | None:
        """The one test file the change is about: the merge's only changed .py file, else the text's only one."""
        changed = self.changed_py
        if len(changed) == 1:
            return changed[0]
        named = [p for p in (self.view.locate(f) for f in self.claims.files) if p]
        if len(set(named)) == 1:
            return named[0]
        return None

    def is_changed(self, path: str) -> bool:
        """Whether the reviewed change touches ``path`` (a head without a change set: its own files count)."""
        if self.view.mode == "head" and not self.view.changes:
            return True
        return path in self.view.changed_paths
