"""Fixtures for the report tests (builders in ``report_fixtures.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.report.report_fixtures import Fixture, build_fixture


@pytest.fixture
def fixture_full(tmp_path: Path) -> Fixture:
    return build_fixture(tmp_path, with_records=True)


@pytest.fixture
def fixture_bare(tmp_path: Path) -> Fixture:
    return build_fixture(tmp_path, with_records=False)
