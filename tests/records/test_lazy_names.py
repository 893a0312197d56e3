"""``torchparity.records`` names every record type, and imports a record module only when asked."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import torchparity.records as records


def test_every_public_name_resolves_to_its_module_s_object() -> None:
    assert set(records._WHERE) == set(records.__all__)
    for name, module in records._WHERE.items():
        assert getattr(records, name) is getattr(
            importlib.import_module(f"torchparity.records.{module}"), name
        )


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchRecord"):
        records.NoSuchRecord  # noqa: B018


@pytest.mark.slow
def test_the_package_alone_imports_no_record_module() -> None:
    code = (
        "import sys, torchparity.records as r; "
        "print(sorted(m for m in sys.modules if m.startswith('torchparity.records.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
