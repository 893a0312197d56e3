"""An NPU emulated on CPU, importable as ``torch_npu`` (torchparity's dry-run backend).

EMULATED: this is not Ascend's torch_npu and holds none of its code. Importing
it registers PyTorch's PrivateUse1 backend as ``npu`` (``torch.npu`` and
``torch_npu.npu`` are its device module). Tensors on ``npu:N`` are real
PrivateUse1 tensors and every operator on them really dispatches through the
PrivateUse1 key; the kernels are the CPU's, run on the tensors' memory (CPU
memory). So the device paths, dispatch and conventions of a backend's tests
run for real; kernel numerics and hardware do not. See docs/emulated-npu.md
in torchparity.

Importing does not initialise the device (the first use does), so a process
may import this and fork, as a warm worker does; a device initialised before
a fork is unusable in the child, as on hardware.
"""

import os

import torch

__version__ = "0.0.0+emulated"
#: what the emulated device runs on; the agent's probe reports it and evidence says EMULATED
__emulated__ = "cpu"

from . import (  # noqa: E402
    _autocast,
    _device,
    _dispatch,
    npu,  # noqa: E402
)


class _Hooks(torch._C._acc.PrivateUse1Hooks):
    def is_available(self):
        return npu.is_available()

    def has_primary_context(self, device_index):
        return _device.is_initialized()

    def is_built(self):
        return True


class _Guard(torch._C._acc.DeviceGuard):
    def type_(self):
        return torch._C._autograd.DeviceType.PrivateUse1


def _register():
    name = torch._C._get_privateuse1_backend_name()
    if name == "npu" and getattr(torch, "npu", None) is npu:
        return
    if name not in ("privateuseone", "npu"):
        raise RuntimeError(
            "the emulated torch_npu cannot load: PrivateUse1 is already %r in this process" % name
        )
    if name == "privateuseone":
        torch.utils.rename_privateuse1_backend("npu")
    torch._register_device_module("npu", npu)
    torch.utils.generate_methods_for_privateuse1_backend(for_storage=True)
    torch._C._acc.register_python_privateuseone_hook(_Hooks())
    torch._C._acc.register_python_privateuseone_device_guard(_Guard())
    _dispatch.install()
    _autocast.install()


_register()


def _autoload():
    """The ``torch.backends`` entry point a backend may declare: importing this module did the work."""


if os.environ.get(_device.INIT_ON_IMPORT_VARIABLE) == "1":
    _device.lazy_init()  # a backend that initialises its device on import (breaks the fork rule)

__all__ = ["npu", "__version__", "__emulated__"]
