"""Recipe data of the OpInfo facts: the dtypes tried, and how a low-precision one is compared."""

from __future__ import annotations

#: dtypes tried, in this order, when no list is asked for
DEFAULT_DTYPES = ("float32", "float16", "bfloat16", "int64", "bool")
#: tried, in this order, when the OpInfo lists none of DEFAULT_DTYPES for the device (an operator of
#: complex tensors only, such as view_as_real, or of some integer types only)
FALLBACK_DTYPES = (
    "complex64",
    "complex128",
    "complex32",
    "float64",
    "int32",
    "int16",
    "int8",
    "uint8",
)
#: dtypes a wider computation can serve as the reference for: the floating ones in float64, the
#: complex ones in complex128
LOW_PRECISION = ("float32", "float16", "bfloat16", "complex64", "complex32")
#: the dtype each LOW_PRECISION dtype's reference is computed in
WIDE = {
    "float32": "float64",
    "float16": "float64",
    "bfloat16": "float64",
    "complex64": "complex128",
    "complex32": "complex128",
}
#: per dtype (rtol, atol) for comparing with a reference; others use assert_close's defaults
TOLERANCES = {"float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
