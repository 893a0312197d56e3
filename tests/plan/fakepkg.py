"""A package written by the tests, for the public-surface rules (``agent/api/surface.py``) and ``plan``
over a fake agent: plain Python, so that the fast tier can walk it in process."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

NAME = "tpfake"

FILES = {
    "__init__.py": """
        __all__ = ["add", "public_helper", "Base", "CONSTANT", "_hidden"]
        CONSTANT = 3
        _hidden = 1


        class Base:
            kind = "base"

            def shared(self):
                return 1

            def _private(self):
                return 2

            def __call__(self):
                return 3


        from . import nn, ops  # noqa: E402
        from ._impl import helper as public_helper  # noqa: E402
        from .ops import add  # noqa: E402
        """,
    "ops.py": """
        import enum
        import os
        from typing import Optional

        from ._impl import helper


        def add(x, y):
            return x + y


        def _sub(x, y):
            return x - y


        class Color(enum.Enum):
            RED = 1
        """,
    "_impl.py": """
        def helper():
            return 0


        class _Private:
            def inherited(self):
                return 4
        """,
    "nn/__init__.py": """
        from .. import Base
        from .._impl import _Private

        __all__ = ["Child1", "Child2", "Leaf"]


        class Child1(_Private):
            def own(self):
                return 5


        class Child2(_Private):
            pass


        class Leaf(Base):
            def shared(self):
                return 6
        """,
    "_private_pkg/__init__.py": "",
    "_private_pkg/mod.py": "def public_name():\n    return 7\n",
    "broken.py": "raise ImportError('this module cannot be imported here')\n",
}


def write_package(where: Path) -> Path:
    """The package's files under ``where`` (the folder to put on the path)."""
    for rel, text in FILES.items():
        path = where / NAME / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return where


@pytest.fixture(name="package")
def package_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The package, importable in this process while the test runs."""
    monkeypatch.syspath_prepend(str(write_package(tmp_path / "site")))
    yield NAME
    for name in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
        del sys.modules[name]
