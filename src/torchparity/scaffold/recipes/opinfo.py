"""Recipe data of the ``opinfo`` family (``scaffold/operators.py``)."""

from __future__ import annotations

#: an OpInfo entry that calls its operator as a method (``torch.Tensor.<leaf>(...)``) keeps that
#: call only for a member of this class; any other API with such an entry is called as a function
METHOD_CALL_OWNER = "torch.Tensor"
