"""A recorded command as a text shows it: one a reader can copy and run from the repo root.

The record keeps the literal command (the evidence log's ``COMMAND=``): the test file's path in the
checkout it ran in (a temporary worktree, removed after the run), ``cd`` into a folder of it for a
file run as a module, and an emulated backend's folder on ``PYTHONPATH`` as a path of the machine
that ran it. A text shows the same command with the checkout's paths relative to the repo root and
the emulation named as such (``python3 -m torchparity.emulated npu`` prints its folder).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable

from ..emulated import EMULATIONS

#: the variable an emulated backend's runs set (``exec.ship.command_line`` writes it after ``-u``s)
_EMULATED_PATH = re.compile(r"(?<=\s)PYTHONPATH=(?:'[^']*'|\S+)")


def _root_of(command: str, rel: str) -> str | None:
    """The checkout the command ran ``rel`` (a repo-relative test file) in: the folder its path, or
    the ``cd`` into the file's folder, starts with; None when the command names neither."""
    if not rel or rel.startswith("/"):
        return None  # a file on disk, no repo: its path is the one to run
    m = re.search(r"(/[^\s']*?)/" + re.escape(rel) + r"(?=::|['\s]|$)", command)
    if m:
        return m.group(1)
    parent = posixpath.dirname(rel)
    if parent:
        m = re.match(r"cd '?(/[^\s']*?)/" + re.escape(parent) + r"'? && ", command)
        if m:
            return m.group(1)
    return None


def emulation_path(device: str) -> str:
    """How a text names the folder an emulated ``device``'s runs put on PYTHONPATH."""
    name = next((n for n, e in EMULATIONS.items() if e.device == device), device)
    return f'"$(python3 -m torchparity.emulated {shlex.quote(name)})"'


def shown_command(command: str, files: Iterable[str], emulated: str = "") -> str:
    """``command`` runnable from the repo root: the checkout each of ``files`` (repo-relative) ran in
    left out of its paths, and, for a run of an emulated device, its PYTHONPATH named as the emulation."""
    for rel in files:
        root = _root_of(command, rel)
        if root:
            command = command.replace(root + "/", "")
    if emulated:
        command = _EMULATED_PATH.sub(
            lambda _: f"PYTHONPATH={emulation_path(emulated)}", command, count=1
        )
    return command


__all__ = ["emulation_path", "shown_command"]
