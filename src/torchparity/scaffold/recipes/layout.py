"""Recipe data shared by families: where torch keeps what several families recognise."""

from __future__ import annotations

#: the namespace of the operator overloads and packets (``torch.ops.aten.squeeze_.dims``)
OPS_NAMESPACE = "torch.ops."
#: the tensor class, whose methods and attributes take the tensor families
TENSOR_CLASS = "torch.Tensor"
#: the device constructor, a module-level value usable as a ``torch.device`` as is
DEVICE_CALL = "torch.device"
