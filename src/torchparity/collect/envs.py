"""Which environments a verb runs in: --env names from the config, --python paths, or this one."""

from __future__ import annotations

import os
import sys

from ..config import Config
from ..errors import UsageError
from .collector import EnvSpec


def _absolute(python: str) -> str:
    """A path given relative to here stays right when steps run from a worktree."""
    return os.path.abspath(python) if os.sep in python else python


def select_envs(config: Config, names: list[str] | None, pythons: list[str] | None) -> list[EnvSpec]:
    """``--env`` and ``--python`` exclude each other; with neither, the config's envs or this interpreter."""
    names, pythons = list(names or []), list(pythons or [])
    if names and pythons:
        raise UsageError("pass either --env NAME or --python PY, not both")
    if names:
        return [EnvSpec(e.name, _absolute(e.python), e.device, e.hardware) for e in (config.env(n) for n in names)]
    if pythons:
        if len(set(pythons)) != len(pythons):
            raise UsageError("the same --python is given twice; drop the duplicate")
        return [EnvSpec(p, _absolute(p)) for p in pythons]
    if config.envs:
        return [EnvSpec(e.name, _absolute(e.python), e.device, e.hardware) for e in config.envs.values()]
    return [EnvSpec("python", sys.executable)]
