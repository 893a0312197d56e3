"""The kernels of the emulated NPU: one PrivateUse1 fallback that runs every operator on CPU.

Every operator that reaches the PrivateUse1 dispatch key with no kernel of
its own comes here. Its ``npu`` tensors are read as CPU tensors over the same
memory (``_bridge``), the CPU kernel runs, and new results are handed back as
``npu`` tensors on the inputs' device. In-place and ``out=`` operators write
into the ``npu`` tensors' own memory and return them. View operators run the
CPU kernel on the ``npu`` tensors themselves (it only sets sizes and strides),
so views share the base's storage exactly as on a device.

Checks a device makes are kept: tensors on two devices (``npu:0`` and
``npu:1``, or ``npu`` and a CPU tensor that is not a scalar) are refused, and
the first use in a process initialises the runtime (``_device``; after a fork
that raises). Random operators draw from the device's own generator.
"""

import torch

from . import _bridge, _device, _random

DEVICE_TYPE = "npu"
_CPU_KEYS = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)

#: operators whose CPU kernel only reads or rewrites sizes, strides or the storage itself: run it on
#: the npu tensors (a CPU alias would be another storage: is_set_to would be False)
_METADATA_OPS = {
    "aten::view",
    "aten::as_strided",
    "aten::as_strided_",
    "aten::_reshape_alias",
    "aten::unfold",
    "aten::view_as_real",
    "aten::view_as_complex",
    "aten::set_",
    "aten::_unsafe_view",
    "aten::is_set_to",
    "aten::_has_same_storage_numel",
}
#: operators that take tensors of two devices by design
_COPY_OPS = {"aten::_copy_from", "aten::_copy_from_and_resize"}
#: operators that accept CPU index tensors beside device tensors (as CUDA's do)
_CPU_INDEX_OK = {"aten::index", "aten::index_put_", "aten::_index_put_impl_", "aten::index_put"}


class _Schema(object):
    """What the fallback needs to know about one operator overload (cached per overload)."""

    def __init__(self, op):
        schema = op._schema
        self.name = schema.name
        self.returns = list(schema.returns)
        arguments = list(schema.arguments)
        self.positional = [a for a in arguments if not a.kwarg_only]
        self.out_names = [
            a.name
            for a in arguments
            if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
        ]
        self.generators = [
            (i, a.name, a.kwarg_only) for i, a in enumerate(arguments) if "Generator" in str(a.type)
        ]
        # each returned alias of a mutated argument -> (positional index or None, kwarg name)
        self.writes = []
        for ret in self.returns:
            hit = None
            if ret.alias_info is not None and ret.alias_info.is_write:
                for i, a in enumerate(arguments):
                    if (
                        a.alias_info is not None
                        and a.alias_info.before_set == ret.alias_info.before_set
                    ):
                        hit = (None if a.kwarg_only else i, a.name)
                        break
            self.writes.append(hit)
        self.is_view = any(
            r.alias_info is not None and not r.alias_info.is_write for r in self.returns
        )
        self.mutates = [
            i
            for i, a in enumerate(self.positional)
            if a.alias_info is not None and a.alias_info.is_write
        ]


_SCHEMAS = {}


def _schema(op):
    found = _SCHEMAS.get(op)
    if found is None:
        found = _SCHEMAS[op] = _Schema(op)
    return found


class _Call(object):
    """The devices one call touches, learnt while its arguments are read as CPU tensors."""

    def __init__(self):
        self.tensor_indices = []
        self.device_index = None
        self.cpu_tensors = 0

    def unwrap(self, value):
        if isinstance(value, torch.Tensor):
            if value.device.type == DEVICE_TYPE:
                self.tensor_indices.append(value.device.index)
                return _bridge.to_cpu(value)
            if value.dim() > 0:
                self.cpu_tensors += 1
            return value
        if isinstance(value, torch.device) and value.type == DEVICE_TYPE:
            index = value.index if value.index is not None else _device.current_index()
            if self.device_index is None:
                self.device_index = _device.check_index(index)
            return torch.device("cpu")
        if isinstance(value, (list, tuple)):
            return type(value)(self.unwrap(v) for v in value)
        return value

    @property
    def index(self):
        if self.device_index is not None:
            return self.device_index
        if self.tensor_indices:
            return self.tensor_indices[0]
        return _device.current_index()


def _check_devices(spec, call):
    devices = sorted(set(call.tensor_indices))
    if len(devices) > 1 and spec.name not in _COPY_OPS:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, npu:%d and "
            "npu:%d! (emulated NPU, in %s)" % (devices[0], devices[1], spec.name)
        )
    if (
        devices
        and call.cpu_tensors
        and spec.name not in _COPY_OPS
        and spec.name not in _CPU_INDEX_OK
    ):
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, npu:%d and "
            "cpu! (emulated NPU, in %s)" % (devices[0], spec.name)
        )


def _wrap(value, index):
    if isinstance(value, torch.Tensor):
        return value if value.device.type == DEVICE_TYPE else _bridge.to_npu(value, index)
    if isinstance(value, (list, tuple)):
        return type(value)(_wrap(v, index) for v in value)
    return value


def _flat_bytes(storage, index):
    """An npu uint8 tensor over the whole of ``storage``."""
    flat = _bridge.to_npu(torch.empty(0, dtype=torch.uint8), index)
    torch.ops.aten.set_.source_Storage.redispatch(_CPU_KEYS, flat, storage)
    return flat


def repoint(npu, cpu):
    """Make ``npu`` show ``cpu``'s memory with ``cpu``'s sizes, strides and offset."""
    whole = torch.empty(0, dtype=torch.uint8).set_(cpu.untyped_storage())
    storage = _bridge.to_npu(whole, npu.device.index).untyped_storage()
    torch.ops.aten.set_.source_Storage_storage_offset.redispatch(
        _CPU_KEYS, npu, storage, cpu.storage_offset(), cpu.size(), cpu.stride()
    )


def _view_of(t):
    return (t.data_ptr(), tuple(t.size()), tuple(t.stride()))


def _copy_from(args, kwargs):
    src, dst = args[0], args[1]
    cpu_src = _bridge.to_cpu(src) if src.device.type == DEVICE_TYPE else src
    cpu_dst = _bridge.to_cpu(dst) if dst.device.type == DEVICE_TYPE else dst
    cpu_dst.copy_(cpu_src)
    return dst


def _copy_from_and_resize(args, kwargs):
    src, dst = args[0], args[1]
    if dst.size() != src.size():
        dst.resize_(src.size())
    return _copy_from(args, kwargs)


def _fill_uninitialized(self, old_nbytes):
    """Under ``torch.utils.deterministic.fill_uninitialized_memory``, new memory of a resize gets NaN
    (floating point, complex) or the dtype's largest value (integers, bool), as PyTorch documents."""
    if not (
        torch.are_deterministic_algorithms_enabled()
        and getattr(torch.utils.deterministic, "fill_uninitialized_memory", False)
    ):
        return
    first = -(-old_nbytes // self.element_size()) - self.storage_offset()
    flat = self.view(-1) if self.is_contiguous() else None
    if flat is None or first >= flat.numel():
        return
    if self.is_floating_point() or self.is_complex():
        value = float("nan")
    elif self.dtype == torch.bool:
        value = True
    else:
        value = torch.iinfo(self.dtype).max
    flat[max(first, 0) :].fill_(value)


def _resize_(args, kwargs):
    """``resize_`` as PyTorch does it; a storage too small to hold the result moves onto new memory
    that holds the old bytes (an emulated storage cannot grow in place)."""
    self, size = args[0], list(args[1])
    memory_format = kwargs.get("memory_format", args[2] if len(args) > 2 else None)
    native = torch.ops.aten.resize_.default
    try:
        return native.redispatch(_CPU_KEYS, self, size, memory_format=memory_format)
    except RuntimeError as exc:
        if "not resizable" not in str(exc):
            raise
    numel = 1
    for n in size:
        numel *= n
    old = self.untyped_storage()
    grown = torch.zeros((self.storage_offset() + numel) * self.element_size(), dtype=torch.uint8)
    if old.nbytes():
        grown[: old.nbytes()].copy_(_bridge.to_cpu(_flat_bytes(old, self.device.index)))
    cpu = torch.empty(0, dtype=self.dtype).set_(
        grown.untyped_storage(), self.storage_offset(), self.size(), self.stride()
    )
    repoint(self, cpu)
    native.redispatch(_CPU_KEYS, self, size, memory_format=memory_format)
    _fill_uninitialized(self, old.nbytes())
    return self


def _set_empty(args, kwargs):
    self = args[0]
    cpu = torch.empty(0, dtype=self.dtype)
    repoint(self, cpu)
    return self


def _record_stream(args, kwargs):
    """The kernels finish before they return: no stream can still be using the memory."""
    return None


_SPECIAL = {
    "aten::_copy_from": _copy_from,
    "aten::_copy_from_and_resize": _copy_from_and_resize,
    "aten::resize_": _resize_,
    "aten::record_stream": _record_stream,
}


#: entry points a backend must implement itself: their composite kernel only raises (``_cpu_twin``)
_OWN_KERNELS = ("aten::convolution_overrideable", "aten::convolution_backward_overrideable")


def _cpu_twin(name, op, args):
    """The CPU operator that computes what a PrivateUse1-only entry point asks for: a backend's
    convolution is ``convolution_overrideable``, which the CPU has no kernel of."""
    if name == "aten::convolution_overrideable":
        return torch.ops.aten.convolution.default, list(args)
    if name == "aten::convolution_backward_overrideable":
        grad, inp, weight, stride, padding, dilation, transposed, output_padding, groups, mask = (
            args
        )
        bias_sizes = [weight.size(1) * groups] if transposed else [weight.size(0)]
        return torch.ops.aten.convolution_backward.default, [
            grad,
            inp,
            weight,
            bias_sizes,
            stride,
            padding,
            dilation,
            transposed,
            output_padding,
            groups,
            mask,
        ]
    return op, args


def _rewrap_numbers(op, args, kwargs):
    """A composite kernel's wrapped scalar (``x % 1``: remainder.Scalar calls remainder.Tensor_out with
    the 1 as a 0-dim tensor) reaches a Python fallback as a Python number: a tensor again, for the CPU
    kernel whose schema asks for one."""
    numbers = (bool, int, float, complex)
    for i, arg in enumerate(op._schema.arguments):
        if str(arg.type) != "Tensor":
            continue
        if i < len(args) and isinstance(args[i], numbers):
            args[i] = torch.tensor(args[i])
        elif arg.name in kwargs and isinstance(kwargs[arg.name], numbers):
            kwargs[arg.name] = torch.tensor(kwargs[arg.name])


def fallback(op, *args, **kwargs):
    """The PrivateUse1 kernel of every operator that has none of its own."""
    _device.lazy_init()
    spec = _schema(op)
    special = _SPECIAL.get(spec.name)
    if special is not None:
        return special(args, kwargs)
    if spec.name == "aten::set_" and len(args) == 1 and not kwargs:
        return _set_empty(args, kwargs)
    if spec.name in _METADATA_OPS or spec.is_view:
        try:
            return op.redispatch(_CPU_KEYS, *args, **kwargs)
        except (RuntimeError, NotImplementedError):
            if spec.name in _METADATA_OPS:
                raise
    call = _Call()
    cpu_args = [call.unwrap(a) for a in args]
    cpu_kwargs = {k: call.unwrap(v) for k, v in kwargs.items()}
    _check_devices(spec, call)
    index = call.index
    for i, name, kwarg_only in spec.generators:
        if kwarg_only and cpu_kwargs.get(name) is None:
            cpu_kwargs[name] = _random.generator(index)
        elif not kwarg_only and i < len(cpu_args) and cpu_args[i] is None:
            cpu_args[i] = _random.generator(index)
    # an out= tensor may be resized by the kernel: it writes into a CPU temporary, copied back after
    temps = {}
    for name in spec.out_names:
        target = cpu_kwargs.get(name)
        if isinstance(target, torch.Tensor):
            temp = target.clone() if target.numel() else torch.empty_like(target)
            temps[name] = (target, temp, _view_of(temp))
            cpu_kwargs[name] = temp
    _rewrap_numbers(op, cpu_args, cpu_kwargs)
    op, cpu_args = _cpu_twin(spec.name, op, cpu_args)
    mutated = [
        (i, _view_of(cpu_args[i]))
        for i in spec.mutates
        if i < len(cpu_args) and isinstance(cpu_args[i], torch.Tensor)
    ]
    result = op(*cpu_args, **cpu_kwargs)
    for name, (target, temp, laid) in temps.items():
        # the values go back into the out tensor's own memory (a view of another tensor too, whose
        # clone has other strides); one the kernel resized or restrided (as the CPU's does to a
        # channels-last result) shows the temporary's memory and layout instead
        if _view_of(temp) == laid:
            target.copy_(temp)
        else:
            repoint(kwargs[name], temp)
    for i, before in mutated:  # an in-place kernel that moved its tensor onto new memory
        if _view_of(cpu_args[i]) != before:
            repoint(args[i], cpu_args[i])
    if not spec.returns:
        return None
    results = (result,) if len(spec.returns) == 1 else tuple(result)
    out = []
    for value, write in zip(results, spec.writes):
        if write is not None:
            position, name = write
            out.append(
                args[position] if position is not None and position < len(args) else kwargs[name]
            )
        else:
            out.append(_wrap(value, index))
    return out[0] if len(spec.returns) == 1 else tuple(out)


def _storage_new(original):
    def __new__(cls, *args, **kwargs):
        device = kwargs.get("device")
        if device is not None:
            device = torch.device(device)
        if device is None or device.type != DEVICE_TYPE:
            return original(cls, *args, **kwargs)
        _device.lazy_init()
        index = _device.check_index(
            device.index if device.index is not None else _device.current_index()
        )
        rest = dict(kwargs)
        rest.pop("device")
        cpu = original(torch.UntypedStorage, *args, **rest)
        storage = _bridge.new_storage(cpu.nbytes(), index)
        if cpu.nbytes():
            storage.copy_(cpu)
        return storage

    return __new__


_LIBRARIES = []

#: a kernel for one of these keys serves PrivateUse1 before any fallback does
_SERVED_BY = (
    "PrivateUse1",
    "CompositeExplicitAutograd",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
)


class _OpKernel(object):
    """The fallback registered as one aten operator's own PrivateUse1 kernel."""

    def __init__(self, name):
        self.name = name
        self.op = None

    def __call__(self, *args, **kwargs):
        if self.op is None:
            packet, _, overload = self.name.partition(".")
            self.op = getattr(getattr(torch.ops.aten, packet), overload or "default")
        return fallback(self.op, *args, **kwargs)


def install():
    """Register the kernels (once per process).

    One boxed fallback serves every operator; the aten operators that would reach it also get it
    as their own kernel, because PyTorch cannot call a Python fallback while a TorchDispatchMode
    is on the stack with the Python key excluded (as ``torch.tensor(data, device=...)`` does under
    a dispatch mode, e.g. the dispatch-trace recorder)."""
    if _LIBRARIES:
        return
    lib = torch.library.Library("_", "IMPL")
    lib.fallback(fallback, "PrivateUse1")
    aten = torch.library.Library("aten", "IMPL")
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    for name in torch._C._dispatch_get_all_op_names():
        if name.startswith("aten::") and (
            name in _OWN_KERNELS or not any(has(name, key) for key in _SERVED_BY)
        ):
            aten.impl(name[len("aten::") :], _OpKernel(name[len("aten::") :]), "PrivateUse1")
    _LIBRARIES.extend([lib, aten])
    # torch.UntypedStorage(n, device="npu") would ask a C++ allocator the emulation cannot register
    torch.UntypedStorage.__new__ = staticmethod(_storage_new(torch._C.StorageBase.__new__))
