"""Recipe data of the ``captured`` family (``scaffold/captured.py``): where torch keeps the ATen
operators whose calls it captures."""

from __future__ import annotations

#: the namespace of the ATen operators by their ``torch.ops`` name
ATEN_NAMESPACE = "torch.ops.aten."
#: namespaces of torch's private builtins whose functions the family takes for ATen operators
BUILTIN_MODULES = ("torch._C._nn.", "torch._C._VariableFunctions.")
