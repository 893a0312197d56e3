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


def test_the_agent_ships_its_subpackages_and_they_import(tmp_path, monkeypatch):
    monkeypatch.setattr(ship.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(ship, "_CACHED", None)
    sources = ship.agent_sources()
    assert "facts/probe.py" in sources and "api/resolve.py" in sources and "main.py" in sources
    assert "facts/recipes/instances.py" in sources  # a package two folders down
    home = ship.agent_home()
    pkg = home / ship.AGENT_PACKAGE
    shipped = {p.relative_to(pkg).as_posix() for p in pkg.rglob("*.py")}
    assert shipped == set(sources)


@pytest.mark.parametrize(
    "name", ["../evil.py", "/abs.py", "facts/../x.py", "facts/x.txt", "a b.py"]
)
def test_a_shipped_agent_with_a_path_outside_its_package_is_refused(name, tmp_path, monkeypatch):
    monkeypatch.setattr(ship.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(ship, "_CACHED", None)
    with pytest.raises(EnvironmentBroken, match="only module files"):
        ship.use_agent({"main.py": b"", name: b"print(1)"})
    assert not list(tmp_path.rglob("evil.py"))
