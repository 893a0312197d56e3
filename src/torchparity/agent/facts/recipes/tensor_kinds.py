"""Recipe data of the tensor kinds' facts (``tensor_kinds.py``). Data only (see ``__init__.py``)."""

from __future__ import annotations

#: sparse APIs whose dense namesake (``torch.<name>``, the name without a leading ``_`` or ``sparse_``)
#: is no dense counterpart of their result, where a torch has one: the conversions between layouts and
#: the parts of a sparse tensor
NO_DENSE_COUNTERPART = ("to_dense", "to_sparse", "coalesce", "values", "indices")
