"""Streams and events of the emulated NPU.

The CPU kernels finish before they return, so every stream is always idle
and an event is complete once recorded; what is kept is the bookkeeping that
tests look at: which device and stream, identity, priority, timing.
"""

import itertools
import threading
import time

import torch

from .. import _device

_IDS = itertools.count(1)
_LOCAL = threading.local()


def _index(device):
    from . import _device_index

    return _device_index(device, optional=True)


#: c10::DeviceType of PrivateUse1 (what torch.Stream records as its device type)
_PRIVATEUSE1 = int(torch._C._autograd.DeviceType.PrivateUse1)


class Stream(torch.Stream):
    """An NPU stream (``torch.npu.Stream(device=None, priority=0)``); a ``torch.Stream``, so
    ``Tensor.record_stream`` and PyTorch's generic stream code take it."""

    def __new__(cls, device=None, priority=0, **kwargs):
        _device.lazy_init()
        index = _device.check_index(_index(device))
        stream_id = kwargs.get("stream_id")
        if stream_id is None:
            stream_id = next(_IDS)
        return super(Stream, cls).__new__(
            cls, stream_id=stream_id, device_index=index, device_type=_PRIVATEUSE1
        )

    def __init__(self, device=None, priority=0, **kwargs):
        self.priority = int(priority)

    @property
    def npu_stream(self):
        return self.stream_id

    def query(self):
        return True

    def synchronize(self):
        _device.lazy_init()

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        if not isinstance(stream, torch.Stream):
            raise TypeError("wait_stream expects a stream, got %r" % (stream,))

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __repr__(self):
        return "<torch_npu.npu.Stream device=npu:%d npu_stream=%#x (emulated)>" % (
            self.device_index,
            self.stream_id,
        )


class Event(torch.Event):
    """An NPU event (``torch.npu.Event(enable_timing=False, blocking=False, interprocess=False)``)."""

    def __new__(cls, enable_timing=False, blocking=False, interprocess=False):
        return super(Event, cls).__new__(
            cls,
            device=torch.device("npu", _device.current_index()),
            enable_timing=bool(enable_timing),
            blocking=bool(blocking),
        )

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self.interprocess = bool(interprocess)
        self._stream = None
        self._time = None

    def record(self, stream=None):
        if stream is None:
            stream = current_stream()
        self._stream = stream
        self._time = time.perf_counter()

    def wait(self, stream=None):
        _device.lazy_init()

    def query(self):
        return True

    def synchronize(self):
        _device.lazy_init()

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def ipc_handle(self):
        raise RuntimeError("emulated NPU: events cannot be shared between processes")

    def __repr__(self):
        return "<torch_npu.npu.Event %s (emulated)>" % (
            "recorded" if self._time is not None else "unrecorded"
        )


def _current_streams():
    streams = getattr(_LOCAL, "streams", None)
    if streams is None:
        streams = _LOCAL.streams = {}
    return streams


def default_stream(device=None):
    """The device's default stream (stream id 0)."""
    index = _device.check_index(_index(device))
    return Stream(index, stream_id=0)


def current_stream(device=None):
    index = _device.check_index(_index(device))
    return _current_streams().get(index) or default_stream(index)


def set_stream(stream):
    if stream is None:
        return
    _current_streams()[stream.device_index] = stream


class StreamContext(object):
    """``with torch.npu.stream(s):``: ``s`` is the current stream of its device inside the block."""

    def __init__(self, stream):
        self.stream = stream
        self._previous = None

    def __enter__(self):
        if self.stream is None:
            return None
        self._previous = _current_streams().get(self.stream.device_index)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        streams = _current_streams()
        if self._previous is None:
            streams.pop(self.stream.device_index, None)
        else:
            streams[self.stream.device_index] = self._previous
        return False


def stream(stream):
    return StreamContext(stream)
