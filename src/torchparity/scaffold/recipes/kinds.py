"""Recipe data of the ``kinds`` family (``scaffold/families/kinds.py``)."""

from __future__ import annotations

#: the tensor class, by the names it goes by: its properties take or give tensors of another kind
TENSOR_CLASSES = ("torch.Tensor", "torch._C.TensorBase")
