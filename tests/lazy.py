"""``torch`` for test modules, imported on first use instead of at collection.

A module of tests that need torch in-process (slow tier) may sit beside fast tests that do not; with
``from tests.lazy import torch`` collecting it imports nothing, and only a test that touches ``torch``
imports it (which the fast tier's guard refuses: such a test is marked slow).
"""

from __future__ import annotations

import importlib
import types
from typing import Any


class LazyModule(types.ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lazy_name = name

    def _load(self) -> types.ModuleType:
        import pytest

        return pytest.importorskip(self._lazy_name)

    def __getattr__(self, attr: str) -> Any:
        # introspection (pytest's collection asks for __test__, __wrapped__, ...) imports nothing;
        # a module's own dunders (torch.__version__) are the module's
        if (
            attr.startswith("__")
            and attr.endswith("__")
            and attr not in ("__version__", "__file__")
        ):
            import sys

            if self._lazy_name not in sys.modules:
                raise AttributeError(attr)
        return getattr(self._load(), attr)


torch: Any = LazyModule("torch")

__all__ = ["LazyModule", "torch", "importlib"]
