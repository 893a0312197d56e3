"""The ``dtype`` family: a ``torch.dtype`` used as a value (``torch.float32``, ``torch.half``, ...)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..dtypes import canonical_dtype, dtype_plan

NAME = "dtype"
PRIORITY = 170
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(canonical_dtype(info))


plan = dtype_plan
