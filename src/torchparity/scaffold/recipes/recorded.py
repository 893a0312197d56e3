"""Recipe data of the ``recorded`` family (``scaffold/recorded.py``): where torch keeps its ATen
operators."""

from __future__ import annotations

#: namespaces of torch's private builtins whose functions are ATen operators
BUILTIN_MODULES = (
    "torch._C._nn.",
    "torch._C._linalg.",
    "torch._C._special.",
    "torch._C._fft.",
    "torch._C._VariableFunctions.",
)
