"""Where the emulation lives and how a run is pointed at it (no torch needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from torchparity.cli import main
from torchparity.collect import emulation_notes, select_envs
from torchparity.config import load_config, load_preset
from torchparity.emulated import EMULATIONS, emulation, runner_settings
from torchparity.errors import UsageError
from torchparity.exec.ship import command_line, isolated_env


def test_the_emulated_package_ships_inside_torchparity() -> None:
    npu = emulation("npu")
    root = npu.root
    assert (root / "torch_npu" / "__init__.py").is_file()
    assert (root / "torch_npu" / "testing" / "testcase.py").is_file()
    assert 'version = "0.0.0+emulated"' in (root / "pyproject.toml").read_text()
    assert npu.environ() == {"PYTHONPATH": str(root)}
    assert '__version__ = "0.0.0+emulated"' in (root / "torch_npu" / "__init__.py").read_text()


def test_an_unknown_emulation_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UsageError, match=r"--emulate: no emulated backend 'gpu'; known: npu"):
        emulation("gpu")


def test_runner_settings_fill_in_the_backend_module_and_device() -> None:
    plain = runner_settings("", "", "auto")
    assert (plain.backend_module, plain.device, plain.environ) == ("", "auto", {})
    emu = runner_settings("npu", "", "auto")
    assert (emu.backend_module, emu.device) == ("torch_npu", "npu")
    assert emu.environ["PYTHONPATH"] == str(EMULATIONS["npu"].root)
    assert runner_settings("npu", "torch_npu", "npu").device == "npu"
    with pytest.raises(UsageError, match="runs on device npu, not cuda"):
        runner_settings("npu", "", "cuda")


def test_the_literal_command_shows_the_emulation_path() -> None:
    cmd = command_line(["/py", "t.py", "-v"], {"PYTHONPATH": "/x/emulated/npu"})
    assert (
        cmd == "env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1 PYTHONPATH=/x/emulated/npu /py t.py -v"
    )
    assert command_line(["/py", "t.py"]) == "env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1 /py t.py"
    assert isolated_env({"PYTHONPATH": "/x"})["PYTHONPATH"] == "/x"


def test_an_environment_may_be_emulated_in_the_config(tmp_path: Path) -> None:
    f = tmp_path / "torchparity.toml"
    f.write_text(
        'preset = "torch_npu"\n[envs.dry]\npython = "/p"\nemulated = "npu"\n[envs.a2]\npython = "/q"\n'
    )
    cfg = load_config(f)
    assert cfg.envs["dry"].emulated == "npu" and cfg.envs["a2"].emulated == ""
    envs = {e.name: e for e in select_envs(cfg, None, None)}
    assert envs["dry"].emulated == "npu" and envs["a2"].emulated == ""
    (note,) = emulation_notes(list(envs.values()))
    assert note.startswith("EMULATED npu on CPU: /p runs with ") and "nothing installed" in note


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('emulated = "gpu"', r"\[envs.dry\] emulated: no emulated backend 'gpu'; known: npu"),
        (
            'emulate = "npu"',
            r"\[envs.dry\]: unknown key\(s\) emulate; known keys: device, emulated, hardware, python",
        ),
        ("emulated = 1", "emulated must be a string"),
    ],
)
def test_a_bad_emulated_key_is_refused(tmp_path: Path, body: str, message: str) -> None:
    f = tmp_path / "torchparity.toml"
    f.write_text(f'[envs.dry]\npython = "/p"\n{body}\n')
    with pytest.raises(UsageError, match=message):
        load_config(f)


def test_emulate_applies_to_every_chosen_environment() -> None:
    cfg = load_preset("default")
    (env,) = select_envs(cfg, None, [sys.executable], "npu")
    assert env.emulated == "npu"
    (plain,) = select_envs(cfg, None, [sys.executable])
    assert plain.emulated == ""


def test_the_cli_refuses_an_unknown_emulation(tmp_path: Path, capsys) -> None:
    test = tmp_path / "test_x.py"
    test.write_text("X = 1\n")
    rc = main(["run", str(test), "--emulate", "gpu", "--store", str(tmp_path / "store")])
    assert rc == 2
    assert "--emulate: no emulated backend 'gpu'; known: npu" in capsys.readouterr().err
