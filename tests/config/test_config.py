"""torchparity.toml: presets, overrides, and bad values refused with one line."""

from __future__ import annotations

import re

import pytest

from torchparity.config import load_config, load_preset
from torchparity.errors import UsageError


def test_presets_load_and_a_file_overrides_its_preset(tmp_path):
    npu = load_preset("torch_npu")
    assert npu.backend_module == "torch_npu" and npu.device == "npu"
    assert npu.is_maintenance("v2.9.0") and npu.is_maintenance("origin/v2.10.0")
    assert [p.code for p in npu.products] == ["910b", "A3", "950"]
    f = tmp_path / "torchparity.toml"
    f.write_text(
        'preset = "torch_npu"\ndevice = "cpu"\n[envs.a2]\npython = "/opt/py"\nhardware = "Atlas A2"\n'
    )
    cfg = load_config(f)
    assert (cfg.preset, cfg.device, cfg.backend_module) == ("torch_npu", "cpu", "torch_npu")
    assert cfg.env("a2").hardware == "Atlas A2"
    assert cfg.scaffold["testcase_import"].startswith("from torch_npu.testing")


@pytest.mark.parametrize(
    "text, message",
    [
        ('test_roots = "test"', "test_roots must be a list of strings"),
        ('active_branches = ["master", 2]', "active_branches must be a list of strings"),
        ("device = 3", "device must be a string"),
        ('[envs.a]\npython = "/p"\nhardware = 2', "hardware must be a string"),
        ('[envs.a]\ndevice = "npu"', "[envs.a] needs python"),
        ('[[docs.products]]\nname = "A2"', "needs code"),
        ("colour = 1", "unknown key(s) colour"),
        ('preset = "npu"', "unknown preset 'npu'"),
        ("device = ", "not valid TOML"),
        (
            '[backend_aliases]\n"torch.npu" = 3',
            "[backend_aliases] torch.npu must name a module or API",
        ),
    ],
)
def test_bad_values_are_refused(tmp_path, text, message):
    f = tmp_path / "torchparity.toml"
    f.write_text(text + "\n")
    with pytest.raises(UsageError) as info:
        load_config(f)
    assert message in str(info.value)
    assert str(f) in str(info.value) or "preset" in message


def test_unknown_env_names_the_known_ones(tmp_path):
    f = tmp_path / "torchparity.toml"
    f.write_text('[envs.a2]\npython = "/p"\n')
    with pytest.raises(UsageError, match=r"unknown environment 'a3' .* \(known: a2\)"):
        load_config(f).env("a3")


def test_backend_aliases_come_from_the_preset_and_the_file(tmp_path):
    assert load_preset("torch_npu").backend_aliases == {"torch.npu": "torch_npu.npu"}
    assert load_preset("cuda").backend_aliases == {}
    f = tmp_path / "torchparity.toml"
    f.write_text('preset = "torch_npu"\n[backend_aliases]\n"torch.xla" = "torch_xla.core"\n')
    assert load_config(f).backend_aliases == {
        "torch.npu": "torch_npu.npu",
        "torch.xla": "torch_xla.core",
    }


@pytest.mark.parametrize("name", ["default", "torch_npu"])
def test_a_presets_maintenance_reason_is_worded_once_per_language(name):
    """A zh text shows the Chinese wording and an en text the English one: neither mixes the two."""
    cfg = load_preset(name)
    cjk = re.compile(r"[\u4e00-\u9fff]")
    assert cfg.maintenance_reason and not cjk.search(cfg.maintenance_reason)
    assert cfg.maintenance_reason_zh and not re.search(r"[A-Za-z]{3,}", cfg.maintenance_reason_zh)
    task = cfg.task_record("torch.x", None, repo=True)
    assert (task.maintenance_reason, task.maintenance_reason_zh) == (
        cfg.maintenance_reason,
        cfg.maintenance_reason_zh,
    )


def test_a_maintenance_reason_given_in_one_language_drops_the_presets_other(tmp_path):
    (tmp_path / "torchparity.toml").write_text(
        'preset = "torch_npu"\nmaintenance_reason = "frozen for the 2.9 release"\n'
    )
    cfg = load_config(tmp_path / "torchparity.toml")
    # the preset's Chinese wording is of its own reason, not of this one
    assert (cfg.maintenance_reason, cfg.maintenance_reason_zh) == ("frozen for the 2.9 release", "")
    (tmp_path / "torchparity.toml").write_text(
        'preset = "torch_npu"\nmaintenance_reason = "frozen"\nmaintenance_reason_zh = "已冻结"\n'
    )
    cfg = load_config(tmp_path / "torchparity.toml")
    assert (cfg.maintenance_reason, cfg.maintenance_reason_zh) == ("frozen", "已冻结")
