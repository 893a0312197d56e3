"""The ``package`` family: ``PackageExporter.close`` gets a real test that reads the package back only
after it, and fails when ``close`` writes nothing.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow


def test_package_exporter_close_gets_a_real_test_that_fails_when_close_writes_nothing(
    tmp_path_factory, tmp_path
):
    """``PackageExporter.close`` writes the rest of the package: the test reads a package back only after it;
    a close that writes nothing (and a ``with`` block that therefore leaves an unreadable buffer) fails."""
    pytest.importorskip("torch")
    cases = (
        Case(
            "torch.package.PackageExporter.close",
            "package",
            "torch.package.PackageExporter.close = lambda self: None",
        ),
    )
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("close"))
    assert results[cases[0].api].family == "package", results[cases[0].api].fill_in
    _passes_and_fails_once_broken(cases, results, tmp_path)
