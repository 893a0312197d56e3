"""torch's tensor-attribute classes the ``typeobject`` family tests (``torch.dtype``, ``torch.device``, ...).

Each canonical class name maps to the writer of its tests in ``typeobjects.py`` (by name), what
the tests assert, and whether they use the device.
"""

from __future__ import annotations

#: canonical class -> (its writer in typeobjects.py, what the tests assert, whether they use the device)
TYPE_OBJECTS: dict[str, tuple[str, str, bool]] = {
    "torch.dtype": (
        "dtype",
        "which values are dtypes (a tensor's, the default, each documented one), the class's "
        "itemsize/is_floating_point/is_complex/is_signed descriptors, not constructible",
        True,
    ),
    "torch.device": (
        "device",
        "device strings parsed (type, index, str, equality, hash), invalid ones refused, "
        "tensors made on it and the default device inside a with block",
        True,
    ),
    "torch.layout": (
        "layout",
        "which values are layouts (a device tensor's, the documented ones), sparse layouts "
        "of a CPU tensor",
        True,
    ),
    "torch.memory_format": (
        "memory_format",
        "the documented formats, channels_last strides and values on the device",
        True,
    ),
    "torch.finfo": (
        "finfo",
        "float32/16/bf16/64 limits as documented (eps, tiny, max, resolution), the default "
        "dtype, integer types refused, eps on the device",
        True,
    ),
    "torch.iinfo": (
        "iinfo",
        "int8/uint8/int16/32/64 limits, floating types refused, the int32 maximum on the device",
        True,
    ),
}
