"""One fixture backend repository for the review tests (real git, built once per session, read-only)."""

from __future__ import annotations

import pytest

from tests.review.fixtures import BackendRepo, build


@pytest.fixture(scope="session")
def backend(tmp_path_factory: pytest.TempPathFactory) -> BackendRepo:
    return build(tmp_path_factory.mktemp("review"))
