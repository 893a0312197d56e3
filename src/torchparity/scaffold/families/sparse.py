"""The ``sparse`` family: the sparse constructors (``torch.sparse_coo_tensor``, ``sparse_csr_tensor``, ...)."""

from __future__ import annotations

from ...api.records import ApiInfo
from ..sparse import sparse_leaf, sparse_plan

NAME = "sparse"
PRIORITY = 180
WANTS: tuple[str, ...] = ()


def applies(info: ApiInfo, backend_module: str) -> bool:
    return bool(sparse_leaf(info))


plan = sparse_plan
