"""Recipe data of the ``tensor`` family: what a Tensor member gives, worked out from the shape."""

from __future__ import annotations

#: Tensor members whose value follows from the shape alone
TENSOR_FORMULAS = {
    "ndim": "len(shape)",
    "ndimension": "len(shape)",
    "dim": "len(shape)",
    "numel": "math.prod(shape)",
    "nelement": "math.prod(shape)",
    "shape": "torch.Size(shape)",
    "size": "torch.Size(shape)",
    "is_contiguous": "True",
    "is_floating_point": "True",
    "is_complex": "False",
    "dtype": "torch.float32",
}
