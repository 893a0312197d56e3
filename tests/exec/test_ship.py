"""Shipping the agent: a private cache folder, and the interpreters named as given."""

from __future__ import annotations

import os

import pytest

from torchparity.errors import EnvironmentBroken
from torchparity.exec import ship


def test_agent_cache_refuses_a_folder_others_can_write(tmp_path, monkeypatch):
    monkeypatch.setattr(ship.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(ship, "_CACHED", None)
    planted = tmp_path / f"torchparity-agent-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)
    with pytest.raises(EnvironmentBroken, match="not a private folder of this user"):
        ship.agent_home()


def test_agent_cache_is_made_private_and_holds_the_launcher(tmp_path, monkeypatch):
    monkeypatch.setattr(ship.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(ship, "_CACHED", None)
    home = ship.agent_home()
    assert (home / ship.LAUNCHER).is_file()
    assert (home / ship.AGENT_PACKAGE / "main.py").is_file()
    assert oct(home.parent.stat().st_mode & 0o777) == oct(0o700)
