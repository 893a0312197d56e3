"""Fixtures for the scaffold tests: real APIs, scaffolded once per session, and a patched runner."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from torchparity.exec.ship import isolated_env

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Case:
    api: str
    family: str
    #: code run before the generated file: replaces the API with a wrong implementation
    breakage: str


#: real APIs across the families, each with a realistic wrong implementation
CASES = (
    Case("torch.autograd.grad_mode.set_grad_enabled.clone", "context",
         "torch.autograd.grad_mode.set_grad_enabled.clone = lambda self: self"),
    Case("torch.autograd.grad_mode.set_multithreading_enabled.clone", "context",
         "cls = torch.autograd.grad_mode.set_multithreading_enabled\n"
         "cls.clone = lambda self: cls(True)"),
    Case("torch.autograd.grad_mode.inference_mode.clone", "context",
         "cls = torch.autograd.grad_mode.inference_mode\n"
         "cls.clone = lambda self: cls(not self.mode)"),
    Case("torch.no_grad", "context",
         "torch.autograd.grad_mode.no_grad.__enter__ = lambda self: None"),
    Case("torch.inference_mode", "context",
         "cls = torch.autograd.grad_mode.inference_mode\n"
         "init = cls.__init__\n"
         "cls.__init__ = lambda self, mode=True: init(self, True)"),
    Case("torch.autograd.grad_mode.set_grad_enabled.__enter__", "context",
         "torch.autograd.grad_mode.set_grad_enabled.__enter__ = (\n"
         "    lambda self: torch._C._set_grad_enabled(not self.mode))"),
    Case("torch.nn.functional.relu", "opinfo",
         "torch.nn.functional.relu = lambda input, inplace=False: input.abs()"),
    Case("torch.add", "opinfo",
         "add = torch.add\n"
         "torch.add = lambda input, other, *, alpha=1, out=None: add(input, other, alpha=alpha) * 2"),
    Case("torch.mul", "opinfo",  # wrong for float32 only (float64, the reference, stays right)
         "mul = torch.mul\n"
         "def wrong(a, b, **kw):\n"
         "    out = mul(a, b, **kw)\n"
         "    return out + 1 if out.dtype == torch.float32 else out\n"
         "torch.mul = wrong"),
    Case("torch.Tensor.add_", "opinfo",
         "torch.Tensor.add_ = lambda self, other, *, alpha=1: self"),
    Case("torch.Tensor.ndim", "tensor",
         "torch.Tensor.ndim = property(lambda self: 2)"),
    Case("torch.Tensor.ndimension", "tensor",
         "torch.Tensor.ndimension = lambda self: self.numel()"),
    Case("torch.Tensor.item", "tensor",
         "torch.Tensor.item = lambda self: 0.0"),
    Case("torch._utils._get_device_index", "signature",
         "torch._utils._get_device_index = lambda device, optional=False, allow_cpu=False: 0"),
    Case("torch.promote_types", "signature",
         "torch.promote_types = lambda type1, type2: type1"),
    Case("torch.is_nonzero", "signature",
         "torch.is_nonzero = lambda input: bool(input.sum())"),
    Case("torch.set_default_dtype", "signature",
         "torch.set_default_dtype = lambda d: None"),
    Case("torch.BoolStorage", "storage",
         "torch.storage.TypedStorage.tolist = lambda self: [False] * self.size()"),
    Case("torch.UntypedStorage", "storage",
         "torch.UntypedStorage.fill_ = lambda self, value: self"),
    Case("torch.cpu.device_count", "runtime", "torch.cpu.device_count = lambda: 0"),
    Case("torch.cpu.synchronize", "runtime", "torch.cpu.synchronize = lambda device=None: False"),
    Case("torch.cpu.current_stream", "runtime", "torch.cpu.current_stream = lambda device=None: object()"),
    Case("torch.Stream", "runtime",  # a stream that never reports its work complete
         "real = torch.Stream\n"
         "class Stream:\n"
         "    def __init__(self, device=None, priority=0):\n"
         "        self.inner = real(device=device, priority=priority)\n"
         "        self.device = self.inner.device\n"
         "    def synchronize(self):\n"
         "        return self.inner.synchronize()\n"
         "    def query(self):\n"
         "        return False\n"
         "torch.Stream = Stream"),
)
#: an API no family can decide on: its test must fail as written
FILL_IN = "torch.nn.Linear"


@dataclass(frozen=True)
class Generated:
    info: object  # ApiInfo
    result: object  # ScaffoldResult
    facts: dict


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> dict[str, Generated]:
    """{api: (ApiInfo, ScaffoldResult)} for every case and the fill-in API, written under one folder."""
    pytest.importorskip("torch")
    from torchparity.api import agent_session, resolve_api
    from torchparity.config import load_preset
    from torchparity.scaffold import scaffold_facts_many, scaffold_test

    out = tmp_path_factory.mktemp("scaffolded")
    names = [c.api for c in CASES] + [FILL_IN]
    config = load_preset("default")
    with agent_session(sys.executable, "", "cpu") as session:
        infos = resolve_api(names, sys.executable, "", "cpu", trace=False, session=session)
        facts = scaffold_facts_many(infos, session)
    results = {}
    for name, info, f in zip(names, infos, facts, strict=True):
        result = scaffold_test(info, config, python=sys.executable, device="cpu", out_dir=out, facts=f)
        results[name] = Generated(info, result, f)
    return results


def run_files(jobs: list[dict[str, str]], tmp: Path) -> list[dict]:
    """Run each ``{"file", "patch"}`` job through run_patched.py in the environment the collector gives a test."""
    spec, results = tmp / "jobs.json", tmp / "results.json"
    spec.write_text(json.dumps(jobs))
    env = isolated_env()
    proc = subprocess.run([sys.executable, str(HERE / "run_patched.py"), str(spec), str(results)],
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(results.read_text())
