"""What PyTorch documents of each dtype (``torch.dtype``'s attribute table, ``torch.finfo``/``torch.iinfo``).

``DTYPES`` maps a dtype's canonical name to its facts, the fields of ``dtypes.DtypeFacts``
(``kind``: float, complex, int, uint, bool or quantized; ``itemsize``; finfo/iinfo ``bits``;
finfo ``max`` and ``eps``; a quantized dtype's ``storage`` dtype and ``zero_point``); fields
left out take DtypeFacts' defaults. ``ALIASES`` maps the documented short aliases to the
canonical names. ``dtypes.py`` reads them.
"""

from __future__ import annotations

from typing import Any

#: canonical name -> facts (torch's documented dtypes)
DTYPES: dict[str, dict[str, Any]] = {
    "torch.float16": {
        "kind": "float",
        "itemsize": 2,
        "bits": 16,
        "max": 65504.0,
        "eps": 0.0009765625,
    },
    "torch.bfloat16": {
        "kind": "float",
        "itemsize": 2,
        "bits": 16,
        "max": 3.3895313892515355e38,
        "eps": 0.0078125,
    },
    "torch.float32": {
        "kind": "float",
        "itemsize": 4,
        "bits": 32,
        "max": 3.4028234663852886e38,
        "eps": 1.1920928955078125e-07,
    },
    "torch.float64": {
        "kind": "float",
        "itemsize": 8,
        "bits": 64,
        "max": 1.7976931348623157e308,
        "eps": 2.220446049250313e-16,
    },
    "torch.float8_e4m3fn": {"kind": "float", "itemsize": 1, "bits": 8, "max": 448.0, "eps": 0.125},
    "torch.float8_e5m2": {"kind": "float", "itemsize": 1, "bits": 8, "max": 57344.0, "eps": 0.25},
    # the fnuz formats: no infinities, no negative zero, one NaN (exponent bias one more than e4m3fn/e5m2)
    "torch.float8_e4m3fnuz": {
        "kind": "float",
        "itemsize": 1,
        "bits": 8,
        "max": 240.0,
        "eps": 0.125,
    },
    "torch.float8_e5m2fnuz": {
        "kind": "float",
        "itemsize": 1,
        "bits": 8,
        "max": 57344.0,
        "eps": 0.125,
    },
    # complex: the finfo of the real and imaginary parts (float16, float32, float64)
    "torch.complex32": {
        "kind": "complex",
        "itemsize": 4,
        "bits": 16,
        "max": 65504.0,
        "eps": 0.0009765625,
    },
    "torch.complex64": {
        "kind": "complex",
        "itemsize": 8,
        "bits": 32,
        "max": 3.4028234663852886e38,
        "eps": 1.1920928955078125e-07,
    },
    "torch.complex128": {
        "kind": "complex",
        "itemsize": 16,
        "bits": 64,
        "max": 1.7976931348623157e308,
        "eps": 2.220446049250313e-16,
    },
    "torch.uint8": {"kind": "uint", "itemsize": 1, "bits": 8},
    "torch.uint16": {"kind": "uint", "itemsize": 2, "bits": 16},
    "torch.uint32": {"kind": "uint", "itemsize": 4, "bits": 32},
    "torch.uint64": {"kind": "uint", "itemsize": 8, "bits": 64},
    "torch.int8": {"kind": "int", "itemsize": 1, "bits": 8},
    "torch.int16": {"kind": "int", "itemsize": 2, "bits": 16},
    "torch.int32": {"kind": "int", "itemsize": 4, "bits": 32},
    "torch.int64": {"kind": "int", "itemsize": 8, "bits": 64},
    "torch.bool": {"kind": "bool", "itemsize": 1},
    "torch.quint8": {
        "kind": "quantized",
        "itemsize": 1,
        "storage": "torch.uint8",
        "zero_point": 10,
    },
    "torch.qint8": {"kind": "quantized", "itemsize": 1, "storage": "torch.int8"},
    "torch.qint32": {"kind": "quantized", "itemsize": 4, "storage": "torch.int32"},
    "torch.quint4x2": {"kind": "quantized", "itemsize": 1},
    "torch.quint2x4": {"kind": "quantized", "itemsize": 1},
}

#: the documented short aliases
ALIASES = {
    "torch.float": "torch.float32",
    "torch.double": "torch.float64",
    "torch.half": "torch.float16",
    "torch.cfloat": "torch.complex64",
    "torch.cdouble": "torch.complex128",
    "torch.chalf": "torch.complex32",
    "torch.short": "torch.int16",
    "torch.int": "torch.int32",
    "torch.long": "torch.int64",
}
