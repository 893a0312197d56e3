"""Which environment runs which ref: each ref's target torch release against each environment's torch.

A backend's branch builds for chosen torch releases: torch_npu says which in each
ref's ``version.txt`` (one a line, ``2.7.1.post9`` being a build for torch
2.7.1; ``#`` starts a comment); another backend names them in the config
(``[torch_release.refs]``). An environment fits a ref when its probed torch
(``2.7.1+cpu``) is one of those releases, and, where the config binds it to refs
(``[envs.X] refs``), the ref is one of them. A ref that no environment fits is
not run there: its target is MISMATCH, saying what it needs and what each
environment has.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..config import Config
from ..gitrepo import blob_bytes
from .envspec import EnvSpec

_RELEASE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:[.+a-z-].*)?$")  # 2.13.0a0+git.., 2.7.1.post9


def release_of(version: str) -> str:
    """The release a version is of: ``2.7.1.post9`` -> ``2.7.1``, ``2.13.0+cpu`` -> ``2.13.0``; "" when
    it names none."""
    m = _RELEASE.match(version.strip())
    return f"{m.group(1)}.{m.group(2)}.{m.group(3)}" if m else ""


def parse_release_file(text: str) -> tuple[str, ...]:
    """The releases a version file lists (one a line; blank lines and ``#`` comments skipped)."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        rel = release_of(line) if line else ""
        if rel and rel not in out:
            out.append(rel)
    return tuple(out)


def wanted_releases(cfg: Config, repo: Path | None, ref: str, commit: str) -> tuple[str, ...]:
    """The torch releases ``ref`` targets: the config's ``[torch_release.refs]`` entry, else its version
    file at ``commit``; () when neither says (any environment fits)."""
    table = cfg.torch_release
    given = (table.get("refs") or {}).get(ref)
    if given:
        values = [given] if isinstance(given, str) else list(given)
        return tuple(dict.fromkeys(r for r in (release_of(v) for v in values) if r))
    name = str(table.get("file") or "")
    if not name or repo is None or not commit:
        return ()
    data = blob_bytes(repo, commit, name)
    if data is None:
        return ()
    return parse_release_file(data.decode("utf-8", "replace"))


@dataclass(frozen=True)
class Fit:
    """One ref against the environments: what it needs, who fits, what each one has."""

    ref: str
    wanted: tuple[str, ...]
    fitting: tuple[EnvSpec, ...]
    #: (environment, its torch version, why it does not fit) for each that does not
    others: tuple[tuple[EnvSpec, str, str], ...]

    @property
    def mismatch(self) -> bool:
        return not self.fitting


def fit(ref: str, wanted: Sequence[str], envs: Sequence[EnvSpec], versions: dict[str, str]) -> Fit:
    """Which of ``envs`` (torch ``versions`` by name) run ``ref``."""
    fitting: list[EnvSpec] = []
    others: list[tuple[EnvSpec, str, str]] = []
    for env in envs:
        have = versions.get(env.name, "")
        if env.refs and ref not in env.refs:
            others.append((env, have, f"bound to {', '.join(env.refs)}"))
        elif wanted and release_of(have) not in wanted:
            others.append((env, have, f"torch {have or 'unknown'}"))
        else:
            fitting.append(env)
    return Fit(ref, tuple(wanted), tuple(fitting), tuple(others))


__all__ = ["Fit", "fit", "parse_release_file", "release_of", "wanted_releases"]
