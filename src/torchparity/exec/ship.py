"""Ship the agent into another interpreter: its source, a launcher, an isolated env.

The agent's files are copied (once per content hash) into a cache folder as a
top-level package ``_torchparity_agent`` beside a small launcher script; the
target interpreter runs ``python <cache>/torchparity_agent.py serve|once ...``.
Jobs put the test file's folder first on ``sys.path``, as ``python FILE`` does.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import stat
import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import EnvironmentBroken

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

AGENT_PACKAGE = "_torchparity_agent"
LAUNCHER = "torchparity_agent.py"
_LAUNCHER_SOURCE = f"""\
# torchparity agent launcher: python torchparity_agent.py serve|once ...
import sys
import {AGENT_PACKAGE}.main as main
import {AGENT_PACKAGE}.ops
import {AGENT_PACKAGE}.worker

sys.exit(main.main())
"""

#: variables a test never inherits from the controller: PYTHONPATH would shadow the
#: environment's packages; CI (any value) switches torch's ``run_tests`` into its
#: XML-report mode, which needs ``xmlrunner`` and writes ``test-reports/`` into the tree
UNSET_VARIABLES = ("PYTHONPATH", "CI")

#: what the evidence log writes before the interpreter: the command a reviewer reruns
ISOLATION_PREFIX = (
    "env " + " ".join(f"-u {name}" for name in UNSET_VARIABLES) + " PYTHONNOUSERSITE=1"
)


def _agent_sources() -> dict[str, bytes]:
    """The agent's module files, keyed by their path in the package (``facts/probe.py``)."""
    out: dict[str, bytes] = {}

    def walk(folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            if entry.is_dir() and _MODULE_NAME.fullmatch(entry.name):
                walk(entry, f"{prefix}{entry.name}/")
            elif entry.is_file() and entry.name.endswith(".py"):
                out[prefix + entry.name] = entry.read_bytes()

    walk(resources.files("torchparity.agent"), "")
    return out


_CACHED: Path | None = None
_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a shipped file: a module, possibly in package folders (``facts/probe.py``); no ``..``, no ``/`` first
_SHIPPED_PATH = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*/)*[A-Za-z0-9_]+\.py")


def _private_folder(path: Path) -> Path:
    """``path`` as a folder only this user can write: the code run in every environment lives there.

    On a shared host another user could otherwise make it first and plant their own launcher.
    """
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = path.lstat()
    except OSError as exc:
        raise EnvironmentBroken(f"cannot make the agent cache folder {path}: {exc}") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise EnvironmentBroken(
            f"the agent cache folder {path} is not a private folder of this user (owner uid "
            f"{info.st_uid}, mode {stat.filemode(info.st_mode)}); remove it or set TMPDIR elsewhere"
        )
    return path


def agent_sources() -> dict[str, bytes]:
    """The agent's files (name -> bytes), as a job to another host carries them."""
    return dict(_agent_sources())


def use_agent(sources: dict[str, bytes]) -> Path:
    """Run ``sources`` (another controller's agent, shipped with its jobs) as this process's agent."""
    global _CACHED
    bad = [n for n in sources if not _SHIPPED_PATH.fullmatch(n)]
    if bad:
        raise EnvironmentBroken(
            f"the shipped agent has a file named {bad[0]!r}; only module files (in package "
            "folders) are accepted"
        )
    _CACHED = _install(sources)
    return _CACHED


def agent_home() -> Path:
    """A folder holding ``_torchparity_agent/`` for this torchparity's agent source."""
    global _CACHED
    if _CACHED is not None and _CACHED.exists():
        return _CACHED
    _CACHED = _install(_agent_sources())
    return _CACHED


def _install(sources: dict[str, bytes]) -> Path:
    digest = hashlib.sha256(_LAUNCHER_SOURCE.encode())
    for name in sorted(sources):
        digest.update(name.encode() + b"\0" + sources[name] + b"\0")
    home = _private_folder(Path(tempfile.gettempdir()) / f"torchparity-agent-{os.getuid()}")
    root = home / digest.hexdigest()[:16]
    if not (root / LAUNCHER).exists():
        staging = Path(tempfile.mkdtemp(dir=root.parent, prefix=".staging-"))
        try:
            pkg = staging / AGENT_PACKAGE
            pkg.mkdir()
            for name, data in sources.items():
                (pkg / name).parent.mkdir(parents=True, exist_ok=True)
                (pkg / name).write_bytes(data)
            (staging / LAUNCHER).write_text(_LAUNCHER_SOURCE)
            try:
                os.rename(staging, root)
            except OSError:  # another process won the race: its copy is identical
                pass
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return root


def launcher() -> list[str]:
    """The arguments after the interpreter that start the agent."""
    return [str(agent_home() / LAUNCHER)]


def isolated_env(
    extra: dict[str, str] | None = None, unset: tuple[str, ...] = ()
) -> dict[str, str]:
    """The environment a test runs in: ``UNSET_VARIABLES`` (and ``unset``) unset, no user site."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET_VARIABLES and k not in unset}
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra or {})
    return env


def command_line(
    argv: list[str], extra: dict[str, str] | None = None, unset: tuple[str, ...] = ()
) -> str:
    """The literal command as the evidence log writes it (``extra``: variables set on top, e.g. the
    PYTHONPATH of an emulated backend, written after the unset ones as ``env`` applies them;
    ``unset``: variables unset besides ``UNSET_VARIABLES``, a backend's disabled-list variable)."""
    prefix = ISOLATION_PREFIX
    more = [n for n in unset if n not in UNSET_VARIABLES]
    if more:
        prefix = prefix.replace(
            " PYTHONNOUSERSITE=1", "".join(f" -u {n}" for n in more) + " PYTHONNOUSERSITE=1"
        )
    added = "".join(
        f" {name}={shlex.quote(value)}" for name, value in sorted((extra or {}).items())
    )
    return f"{prefix}{added} {shlex.join(argv)}"
