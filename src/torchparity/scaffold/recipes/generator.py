"""Recipe data of the ``generator`` family (``scaffold/families/generator.py``)."""

from __future__ import annotations

#: the random-number generator class, by the names it goes by (the API or its owner class is one)
GENERATOR_CLASSES = ("torch.Generator", "torch._C.Generator")
