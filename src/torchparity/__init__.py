"""torchparity: prove, API by API, that PyTorch behaves on a device backend as upstream says.

The public surface is small; everything else is private to its part
(``collect``, ``exec``, ``store``, ``agent``, ...).
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
