"""One random generator per emulated device (CPU generators: the kernels are the CPU's)."""

import threading

import torch

from . import _device

_GENERATORS = {}
_LOCK = threading.Lock()


def generator(index):
    """The default generator of ``npu:index``, made on first use with torch's default seed."""
    found = _GENERATORS.get(index)
    if found is None:
        with _LOCK:
            found = _GENERATORS.get(index)
            if found is None:
                found = _GENERATORS[index] = torch.Generator()
    return found


def default_generators():
    return tuple(generator(i) for i in range(_device.device_count()))
