"""Recipe data of the ``doctest`` family (``scaffold/doctest.py``): how it recognizes, in a docstring
example, the calls it moves to the device."""

from __future__ import annotations

#: the namespace an example calls the tensor factories through (``torch.zeros(2)``)
FACTORY_NAMESPACE = "torch"
#: the tensor factories that get ``device=`` where an example's call has none
FACTORIES = (
    "tensor",
    "as_tensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "rand",
    "randn",
    "randint",
    "randperm",
    "complex",
    "sparse_coo_tensor",
)
#: the keyword a factory takes its device by
DEVICE_KEYWORD = "device"

#: how an example spells the namespace of the module classes (``nn.Linear``, ``torch.nn.Linear``):
#: a module it builds there is moved to the device
MODULE_NAMESPACES = ("nn", "torch.nn")
#: classes of that namespace that are no module: ``.to(device)`` would turn a parameter into a plain
#: tensor
NOT_MODULES = ("Parameter", "UninitializedParameter", "Buffer", "UninitializedBuffer")
