"""An environment's Ray needs and the [ray] table."""

from __future__ import annotations

import pytest

from torchparity.collect import EnvSpec
from torchparity.config import RayNeeds, load_config
from torchparity.errors import UsageError
from torchparity.exec.pool import LocalPool
from torchparity.verify.shared import pool_for


def _cfg(tmp_path, text):
    f = tmp_path / "torchparity.toml"
    f.write_text(text)
    return load_config(f)


def test_env_names_resources_and_labels(tmp_path):
    cfg = _cfg(
        tmp_path,
        '[ray]\naddress = "10.0.0.1:6379"\nship = ["test_upstream"]\n'
        '[envs.a2]\npython = "/p"\nhardware = "Atlas A2"\n'
        'ray = { resources = { NPU = 1 }, labels = { product = "A2" } }\n[envs.local]\npython = "/q"\n',
    )
    assert cfg.env("a2").ray == RayNeeds((("NPU", 1.0),), (("product", "A2"),))
    assert cfg.env("a2").ray.describe() == "NPU=1, product=A2"
    assert cfg.env("local").ray is None
    assert cfg.ray == {"address": "10.0.0.1:6379", "ship": ["test_upstream"]}


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '[envs.a]\npython = "/p"\nray = { resources = { NPU = 0 } }\n',
            "ray.resources must map names to positive numbers",
        ),
        (
            '[envs.a]\npython = "/p"\nray = { labels = { product = 2 } }\n',
            "ray.labels must map names to strings",
        ),
        (
            '[envs.a]\npython = "/p"\nray = { nodes = 2 }\n',
            "ray must be a table of resources and labels",
        ),
        ("[ray]\nport = 1\n", "[ray] unknown key(s) port"),
        ('[ray]\nship = "test"\n', "ship must be a list of strings"),
    ],
)
def test_bad_ray_values_are_refused(tmp_path, text, message):
    with pytest.raises(UsageError) as err:
        _cfg(tmp_path, text)
    assert message in str(err.value)


def test_no_address_is_the_local_pool_and_an_address_needs_a_ray_env(tmp_path):
    cfg = _cfg(tmp_path, '[envs.a]\npython = "/p"\n')
    envs = [EnvSpec("a", "/p")]
    assert isinstance(
        pool_for(cfg, envs, mode="warm", workers=1, ray_address=None, repo=None), LocalPool
    )
    with pytest.raises(UsageError, match="no chosen environment says what it needs there"):
        pool_for(cfg, envs, mode="warm", workers=1, ray_address="127.0.0.1:1", repo=None)
