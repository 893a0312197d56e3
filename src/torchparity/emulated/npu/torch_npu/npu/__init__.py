"""``torch.npu`` (also ``torch_npu.npu``): the device module of the emulated NPU.

Device selection, the runtime's life cycle, random generators, streams and
events, with the calls PyTorch's device-generic code and the backend's tests
make. Nothing here touches hardware; what a call cannot emulate it says so.
"""

import os

import torch

from .. import _device, _random
from . import amp  # noqa: E402,F401  (torch.npu.amp)
from .streams import (
    Event,
    Stream,
    StreamContext,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

#: the device name every probe and log shows: it says what this is
DEVICE_NAME = "Emulated NPU (CPU)"


def _device_index(device, optional=False, allow_cpu=False):
    """An ordinal for ``device`` (int, "npu:1", torch.device); the current one when it names none.

    The same contract (and messages) as PyTorch's ``torch.cuda._get_device_index`` for ``npu``."""
    if device is None:
        if not optional:
            raise ValueError("Expected a npu device, but got: None")
        return _device.current_index()
    if isinstance(device, str):
        device = torch.device(device if not device.isdigit() else "npu:" + device)
    if isinstance(device, torch.device):
        if allow_cpu and device.type == "cpu":
            return -1
        if device.type != "npu":
            raise ValueError("Expected a npu device, but got: %s" % device)
        if device.index is None:
            if not optional:
                raise ValueError(
                    "Expected a npu device with a specified index or an integer, but got:%s"
                    % device
                )
            return _device.current_index()
        return device.index
    if isinstance(device, int):
        return device
    raise ValueError("Expected a npu device, but got: %r" % (device,))


_get_device_index = _device_index


def is_available():
    """True while at least one emulated device is visible (the runtime is not initialised)."""
    return _device.device_count() > 0


def device_count():
    return _device.device_count()


def is_initialized():
    return _device.is_initialized()


def _is_in_bad_fork():
    return _device.in_bad_fork()


def init():
    _device.lazy_init()


_lazy_init = init


def current_device():
    _device.lazy_init()
    return _device.current_index()


def set_device(device):
    index = _device_index(device)
    if index < 0:
        return
    _device.lazy_init()
    _device.set_current_index(_device.check_index(index))


def synchronize(device=None):
    """Wait for the device's work: the CPU kernels are done when they return."""
    _device.lazy_init()
    _device.check_index(_device_index(device, optional=True))


def get_device_name(device=None):
    _device.check_index(_device_index(device, optional=True))
    return DEVICE_NAME


class _DeviceProperties(object):
    def __init__(self, index):
        self.index = index
        self.name = DEVICE_NAME
        pages = os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 0
        self.total_memory = pages * (os.sysconf("SC_PAGE_SIZE") if pages else 0)

    def __repr__(self):
        return "_NPUDeviceProperties(name='%s', total_memory=%dMB)" % (
            self.name,
            self.total_memory >> 20,
        )


def get_device_properties(device=None):
    return _DeviceProperties(_device.check_index(_device_index(device, optional=True)))


class device(object):
    """``with torch.npu.device(1):``: the current device inside the block."""

    def __init__(self, device):
        self.idx = _device_index(device, optional=True) if device is not None else -1
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return self
        _device.lazy_init()
        self.prev_idx = _device.current_index()
        _device.set_current_index(_device.check_index(self.idx))
        return self

    def __exit__(self, *exc):
        if self.idx >= 0:
            _device.set_current_index(self.prev_idx)
        return False


class device_of(device):
    """The device of ``obj`` (a tensor) as a context manager; a no-op for a CPU tensor."""

    def __init__(self, obj):
        device.__init__(self, obj.get_device() if obj.device.type == "npu" else -1)


# -- random ------------------------------------------------------------------------------------
def manual_seed(seed):
    _random.generator(_device.current_index()).manual_seed(int(seed))


def manual_seed_all(seed):
    for i in range(_device.device_count()):
        _random.generator(i).manual_seed(int(seed))


def seed():
    _random.generator(_device.current_index()).seed()


def seed_all():
    for i in range(_device.device_count()):
        _random.generator(i).seed()


def initial_seed():
    return _random.generator(_device.current_index()).initial_seed()


def get_rng_state(device="npu"):
    return _random.generator(_device_index(device, optional=True)).get_state()


def set_rng_state(new_state, device="npu"):
    _random.generator(_device_index(device, optional=True)).set_state(new_state.cpu())


def get_rng_state_all():
    return [get_rng_state(i) for i in range(_device.device_count())]


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


class _DefaultGenerators(object):
    def __getitem__(self, index):
        return _random.default_generators()[index]

    def __len__(self):
        return _device.device_count()

    def __iter__(self):
        return iter(_random.default_generators())


default_generators = _DefaultGenerators()


# -- memory: the emulation keeps no allocator statistics ----------------------------------------
def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_stats(device=None):
    return {}


def empty_cache():
    pass


def reset_peak_memory_stats(device=None):
    pass


def set_per_process_memory_fraction(fraction, device=None):
    if not 0 <= fraction <= 1:
        raise ValueError("Invalid fraction value: %s. Allowed range: 0~1" % fraction)


# -- autocast ----------------------------------------------------------------------------------
def get_amp_supported_dtype():
    return [torch.float16, torch.bfloat16]


def is_bf16_supported():
    return True


def is_autocast_enabled():
    return torch.is_autocast_enabled("npu")


def set_autocast_enabled(enabled):
    torch.set_autocast_enabled("npu", bool(enabled))


def get_autocast_dtype():
    return torch.get_autocast_dtype("npu")


def set_autocast_dtype(dtype):
    torch.set_autocast_dtype("npu", dtype)


# -- legacy tensor types: torch.npu.FloatTensor(2, 3), isinstance(t, torch.npu.FloatTensor) --------
class _LegacyType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, torch.Tensor) and obj.device.type == "npu" and obj.dtype == cls.dtype

    def __call__(cls, *args, **kwargs):
        where = torch.device("npu", _device_index(kwargs.pop("device", None), optional=True))
        if kwargs:
            raise TypeError(
                "%s() got unexpected keyword argument(s): %s" % (cls.__name__, ", ".join(kwargs))
            )
        if not args:
            return torch.empty(0, dtype=cls.dtype, device=where)
        if (
            len(args) == 1
            and isinstance(args[0], torch.Size)
            or all(isinstance(a, int) for a in args)
        ):
            return torch.empty(*args, dtype=cls.dtype, device=where)
        if len(args) == 1:
            return torch.tensor(args[0], dtype=cls.dtype, device=where)
        raise TypeError("%s(): pass sizes or one sequence of data" % cls.__name__)


def _legacy(name, dtype):
    return _LegacyType(name, (object,), {"dtype": dtype, "is_cuda": False, "__module__": __name__})


FloatTensor = _legacy("FloatTensor", torch.float32)
DoubleTensor = _legacy("DoubleTensor", torch.float64)
HalfTensor = _legacy("HalfTensor", torch.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", torch.bfloat16)
ByteTensor = _legacy("ByteTensor", torch.uint8)
CharTensor = _legacy("CharTensor", torch.int8)
ShortTensor = _legacy("ShortTensor", torch.int16)
IntTensor = _legacy("IntTensor", torch.int32)
LongTensor = _legacy("LongTensor", torch.int64)
BoolTensor = _legacy("BoolTensor", torch.bool)


# -- storage spellings: torch_npu.npu.FloatStorage(...) is a storage on the current NPU --------------
class _StorageType(type):
    def __instancecheck__(cls, obj):
        return (
            isinstance(obj, torch.TypedStorage)
            and obj.device.type == "npu"
            and obj.dtype == cls.dtype
        )

    def __call__(cls, *args, **kwargs):
        where = torch.device("npu", _device_index(kwargs.pop("device", None), optional=True))
        return torch.TypedStorage(*args, dtype=cls.dtype, device=where, **kwargs)


def _storage(name, dtype):
    return _StorageType(name, (object,), {"dtype": dtype, "__module__": __name__})


FloatStorage = _storage("FloatStorage", torch.float32)
DoubleStorage = _storage("DoubleStorage", torch.float64)
HalfStorage = _storage("HalfStorage", torch.float16)
BFloat16Storage = _storage("BFloat16Storage", torch.bfloat16)
ByteStorage = _storage("ByteStorage", torch.uint8)
CharStorage = _storage("CharStorage", torch.int8)
ShortStorage = _storage("ShortStorage", torch.int16)
IntStorage = _storage("IntStorage", torch.int32)
LongStorage = _storage("LongStorage", torch.int64)
BoolStorage = _storage("BoolStorage", torch.bool)


# -- runtime options the backend's tests set: accepted, with nothing to steer ----------------------
_OPTIONS = {}


def set_option(option):
    if not isinstance(option, dict):
        raise TypeError("torch.npu.set_option() expects a dict of option names to values")
    _OPTIONS.update((str(k), str(v)) for k, v in option.items())


def set_compile_mode(jit_compile=False):
    _OPTIONS["jitCompile"] = "enable" if jit_compile else "disable"


def is_jit_compile_false():
    return _OPTIONS.get("jitCompile", "disable") == "disable"


__all__ = [
    "BFloat16Storage",
    "BFloat16Tensor",
    "BoolStorage",
    "BoolTensor",
    "ByteStorage",
    "ByteTensor",
    "CharStorage",
    "CharTensor",
    "DoubleStorage",
    "DoubleTensor",
    "Event",
    "FloatStorage",
    "FloatTensor",
    "HalfStorage",
    "HalfTensor",
    "IntStorage",
    "IntTensor",
    "LongStorage",
    "LongTensor",
    "ShortStorage",
    "ShortTensor",
    "Stream",
    "StreamContext",
    "current_device",
    "current_stream",
    "default_generators",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_amp_supported_dtype",
    "get_autocast_dtype",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "is_autocast_enabled",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_autocast_dtype",
    "set_autocast_enabled",
    "set_compile_mode",
    "set_device",
    "set_option",
    "set_per_process_memory_fraction",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "synchronize",
]
