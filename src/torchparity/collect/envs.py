"""Which environments a verb runs in: --env names from the config, --python paths, or this one."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from ..config import Config, EnvConfig
from ..emulated import emulation
from ..errors import UsageError
from .collector import EnvSpec


def _absolute(python: str) -> str:
    """A path given relative to here stays right when steps run from a worktree."""
    return os.path.abspath(python) if os.sep in python else python


def select_envs(
    config: Config, names: list[str] | None, pythons: list[str] | None, emulate: str | None = None
) -> list[EnvSpec]:
    """``--env`` and ``--python`` exclude each other; with neither, the config's envs or this interpreter.

    ``emulate`` (``--emulate npu``) runs every chosen environment with that emulated backend; an
    environment's own ``emulated`` key does so for that one."""
    names, pythons = list(names or []), list(pythons or [])
    if names and pythons:
        raise UsageError("pass either --env NAME or --python PY, not both")
    if emulate:
        emulation(emulate)
    if names:
        envs = [_spec(e) for e in (config.env(n) for n in names)]
    elif pythons:
        if len(set(pythons)) != len(pythons):
            raise UsageError("the same --python is given twice; drop the duplicate")
        envs = [EnvSpec(p, _absolute(p)) for p in pythons]
    elif config.envs:
        envs = [_spec(e) for e in config.envs.values()]
    else:
        envs = [EnvSpec("python", sys.executable)]
    return [replace(e, emulated=emulate) for e in envs] if emulate else envs


def _spec(env: EnvConfig) -> EnvSpec:
    return EnvSpec(
        env.name, _absolute(env.python), env.device, env.hardware, env.emulated, env.refs
    )


def emulation_notes(envs: list[EnvSpec]) -> list[str]:
    """What the run says about each emulated environment before it starts."""
    return [emulation(e.emulated).note(e.python) for e in envs if e.emulated]
