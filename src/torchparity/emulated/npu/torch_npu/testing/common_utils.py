"""Skips and tensor helpers of the backend's tests, for the emulated device."""

import contextlib
import functools
import unittest

import numpy as np
import torch

from .. import npu

__all__ = [
    "SkipIfNotGteCANNVersion",
    "SupportedDevices",
    "create_common_tensor",
    "freeze_rng_state",
]


def _skip_unless(condition, reason):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not condition():
                raise unittest.SkipTest(reason)
            return fn(*args, **kwargs)

        return wrapper

    return decorator


def SupportedDevices(devices):
    """Run only on the named SoCs (``['Ascend910B']``): the emulated device is none of them."""
    names = list(devices)
    return _skip_unless(
        lambda: any(npu.get_device_name().startswith(n) for n in names),
        "needs one of %s; this is %s" % (", ".join(names), npu.DEVICE_NAME),
    )


def SkipIfNotGteCANNVersion(version):
    """Run only with CANN >= ``version``: the emulated device has no CANN."""
    return _skip_unless(lambda: False, "needs CANN >= %s; the emulated NPU has no CANN" % version)


def create_common_tensor(item, minvalue, maxvalue, device=None):
    """``item`` = [numpy dtype, format, shape]: the same uniform random data on CPU and on the NPU."""
    dtype, _format, shape = item[0], item[1], item[2]
    data = np.random.uniform(minvalue, maxvalue, shape).astype(dtype)
    cpu = torch.from_numpy(data)
    return cpu, cpu.to(device or "npu")


@contextlib.contextmanager
def freeze_rng_state():
    """Restore the CPU and NPU random states after the block."""
    cpu_state = torch.get_rng_state()
    npu_state = npu.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(cpu_state)
        npu.set_rng_state(npu_state)
