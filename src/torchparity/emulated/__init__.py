"""Backends emulated on CPU, for dry runs and the tool's own tests: where they are, how a run uses one.

``npu/`` holds ``torch_npu`` 0.0.0+emulated, an NPU emulated on CPU through
PyTorch's PrivateUse1 key (see its package docstring and docs/emulated-npu.md).
It ships inside torchparity as package data, so an installed torchparity
(editable or not) finds it beside this file; ``npu/pyproject.toml`` also makes
it an installable package of its own (``pip install <that folder>``).

``--emulate npu`` (``run``, ``verify``) or ``emulated = "npu"`` on an
environment in torchparity.toml runs that environment with the emulation's
folder first on its interpreter's path (``PYTHONPATH``, written in every
command the evidence log shows). Nothing is installed into the environment.
The folder also holds the package's ``.dist-info`` with Ascend's
``torch.backends`` entry point, so PyTorch's device autoload imports the
emulation on ``import torch`` there, as it does an installed torch_npu: a test
file that never imports torch_npu (PyTorch's own) still gets the npu when its
literal command is replayed by hand.
Every record and log of such a run says EMULATED.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Emulation:
    """One emulated backend: the device it stands for and the module it is imported as."""

    name: str  # as --emulate spells it
    device: str  # the device type its tensors carry
    module: str  # the backend module it is imported as
    folder: str  # its folder beside this file: the path entry that makes ``module`` importable

    @property
    def root(self) -> Path:
        """The folder put on the interpreter's path (it holds ``<module>/``)."""
        root = HERE / self.folder
        if not (root / self.module / "__init__.py").is_file():
            raise EnvironmentBroken(
                f"the emulated {self.name} backend is missing from this torchparity ({root / self.module}); "
                "reinstall torchparity"
            )
        return root

    def environ(self) -> dict[str, str]:
        """What a test process of this emulation gets in its environment."""
        return {"PYTHONPATH": str(self.root)}

    def backend_module(self, configured: str) -> str:
        """The backend module to import: the config's, else this emulation's."""
        return configured or self.module

    def device_for(self, requested: str) -> str:
        """The device to run on: a requested type other than ``auto``, else this emulation's."""
        if requested and requested not in ("auto", self.device):
            raise UsageError(
                f"the emulated {self.name} runs on device {self.device}, not {requested}; drop --device "
                f"or the environment's device, or drop the emulation"
            )
        return self.device

    def note(self, python: str) -> str:
        return (
            f"EMULATED {self.device} on CPU: {python} runs with {self.root} first on PYTHONPATH "
            f"({self.module} 0.0.0+emulated, nothing installed); a dry run, not hardware evidence"
        )


EMULATIONS: dict[str, Emulation] = {
    "npu": Emulation(name="npu", device="npu", module="torch_npu", folder="npu"),
}


def emulation(name: str, where: str = "--emulate") -> Emulation:
    """The emulation called ``name``, or a usage error listing the known ones."""
    try:
        return EMULATIONS[name]
    except KeyError:
        raise UsageError(
            f"{where}: no emulated backend {name!r}; known: {', '.join(sorted(EMULATIONS))}"
        ) from None


@dataclass(frozen=True)
class RunnerSettings:
    """How an environment's agent is started: the backend module, the device, extra variables."""

    backend_module: str
    device: str
    environ: dict[str, str]


def runner_settings(emulated: str, backend_module: str, device: str) -> RunnerSettings:
    """The settings of an environment that may be emulated (``emulated`` = "" when it is not)."""
    if not emulated:
        return RunnerSettings(backend_module, device, {})
    emu = emulation(emulated)
    return RunnerSettings(emu.backend_module(backend_module), emu.device_for(device), emu.environ())


#: the device line of an emulated run's log header and summary
def device_label(device: str, emulated: str) -> str:
    return f"{device} (emulated on CPU)" if emulated else device


__all__ = [
    "EMULATIONS",
    "Emulation",
    "RunnerSettings",
    "device_label",
    "emulation",
    "runner_settings",
]
