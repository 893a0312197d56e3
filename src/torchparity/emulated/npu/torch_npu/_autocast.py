"""Autocast on the emulated NPU: the operators PyTorch runs in lower precision on a GPU do so here.

PyTorch leaves a PrivateUse1 backend to give its own autocast kernels. Every
operator passes through the AutocastPrivateUse1 key untouched except the
matrix-multiply and convolution family, whose floating-point ``npu``
arguments are cast to the autocast dtype (``torch.get_autocast_dtype("npu")``)
as CUDA's autocast does.
"""

import torch

#: overloads that run in the autocast dtype (CUDA's lower-precision list, its core)
LOWER_PRECISION = (
    "mm",
    "bmm",
    "matmul",
    "addmm",
    "addmv",
    "addbmm",
    "baddbmm",
    "linear",
    "prelu",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d.input",
    "conv_transpose3d.input",
    "convolution",
    "_convolution",
    "chain_matmul",
)
_KEY = "AutocastPrivateUse1"
_LIBRARIES = []


def _eligible(value, dtype):
    return (
        isinstance(value, torch.Tensor)
        and value.device.type == "npu"
        and value.is_floating_point()
        and value.dtype != dtype
        and value.dtype != torch.float64
    )


def _cast(value, dtype):
    if _eligible(value, dtype):
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def _lower_precision(op):
    excluded = torch._C.DispatchKeySet(torch._C.DispatchKey.AutocastPrivateUse1)

    def kernel(*args, **kwargs):
        dtype = torch.get_autocast_dtype("npu")
        with torch._C._ExcludeDispatchKeyGuard(excluded):
            return op(
                *[_cast(a, dtype) for a in args], **{k: _cast(v, dtype) for k, v in kwargs.items()}
            )

    return kernel


def install():
    if _LIBRARIES:
        return
    everything = torch.library.Library("_", "IMPL")
    everything.fallback(torch.library.fallthrough_kernel, _KEY)
    aten = torch.library.Library("aten", "IMPL")
    for name in LOWER_PRECISION:
        packet, _, overload = name.partition(".")
        found = getattr(torch.ops.aten, packet, None)
        op = getattr(found, overload or "default", None) if found is not None else None
        if op is None:
            continue
        aten.impl(name, _lower_precision(op), _KEY)
    _LIBRARIES.extend([everything, aten])
