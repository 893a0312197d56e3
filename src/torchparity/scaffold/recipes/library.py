"""The ``torch.library`` APIs the ``library`` family tests, and the role of each (which test it gets).

``library.py`` reads it.
"""

from __future__ import annotations

#: canonical -> role
ROLES = {
    "torch.library.custom_op": "custom_op",
    "torch._library.custom_ops.custom_op": "custom_op",
    "torch.library.Library": "Library",
    "torch.library.Library.define": "Library.define",
    "torch.library.Library.impl": "Library.impl",
    "torch.library.define": "define",
    "torch.library.impl": "impl",
    "torch.library.register_autograd": "register_autograd",
    "torch.library.impl_abstract": "impl_abstract",
}
