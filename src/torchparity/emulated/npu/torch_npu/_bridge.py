"""Memory shared between an ``npu`` tensor and a CPU tensor, both ways, without a copy.

An emulated ``npu:N`` tensor is a real PrivateUse1 tensor whose storage is
CPU memory. Both directions go through DLPack: a capsule made by
``to_dlpack`` is re-labelled (the device field of its DLTensor) and read back
with ``from_dlpack``. The capsule's owner keeps the other side's storage
alive, so either tensor may outlive the other.
"""

import ctypes

import torch
import torch.utils.dlpack as _dlpack

#: DLPack device types
KDL_CPU = 1
KDL_EXT_DEV = 12  # torch reads it as PrivateUse1

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

_POINTER = ctypes.sizeof(ctypes.c_void_p)
#: DLManagedTensorVersioned: {uint32 major, uint32 minor}, manager_ctx, deleter, uint64 flags, DLTensor
_VERSIONED_HEADER = 8 + 2 * _POINTER + 8


def _relabel(capsule, device_type, index):
    """Write ``(device_type, index)`` into the capsule's DLTensor (its ``device`` follows ``data``)."""
    name = _capsule_name(capsule)
    address = _capsule_pointer(capsule, name)
    if name == b"dltensor_versioned":
        address += _VERSIONED_HEADER
    elif name != b"dltensor":
        raise RuntimeError("emulated NPU: unexpected DLPack capsule %r" % (name,))
    device = (ctypes.c_int32 * 2).from_address(address + _POINTER)
    device[0] = device_type
    device[1] = index
    return capsule


def to_npu(cpu, index):
    """An ``npu:index`` tensor over ``cpu``'s memory (same sizes, strides and offset)."""
    if cpu.is_conj():
        return to_npu(cpu.conj(), index).conj()
    if cpu.is_neg():
        return to_npu(cpu._neg_view(), index)._neg_view()
    return _dlpack.from_dlpack(_relabel(_dlpack.to_dlpack(cpu.detach()), KDL_EXT_DEV, index))


def to_cpu(npu):
    """A CPU tensor over ``npu``'s memory: what the CPU kernels compute on."""
    if npu.is_conj():
        return to_cpu(npu.conj()).conj()
    if npu.is_neg():
        return to_cpu(npu._neg_view())._neg_view()
    return _dlpack.from_dlpack(_relabel(_dlpack.to_dlpack(npu), KDL_CPU, 0))


def new_storage(nbytes, index):
    """A fresh ``npu:index`` UntypedStorage of ``nbytes`` (zero-filled CPU memory underneath)."""
    return to_npu(torch.zeros(int(nbytes), dtype=torch.uint8), index).untyped_storage()
