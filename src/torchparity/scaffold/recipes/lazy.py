"""Recipe data of the ``lazy`` family (``scaffold/lazy.py``): the uninitialized parameter and buffer
classes and their members, each with the role its tests take (``parameter`` or ``buffer``, and
``.materialize`` for the method that gives a tensor its shape)."""

from __future__ import annotations

#: API name -> role
LAZY_ROLES: dict[str, str] = {
    "torch.nn.parameter.UninitializedParameter": "parameter",
    "torch.nn.parameter.UninitializedBuffer": "buffer",
    "torch.nn.parameter.UninitializedParameter.materialize": "parameter.materialize",
    "torch.nn.parameter.UninitializedBuffer.materialize": "buffer.materialize",
    "torch.nn.parameter.UninitializedTensorMixin.materialize": "parameter.materialize",
    "torch.nn.parameter.UninitializedParameter.cls_to_become": "parameter",
    "torch.nn.parameter.UninitializedBuffer.cls_to_become": "buffer",
}
