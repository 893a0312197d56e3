"""Records made by hand for the api tests (no torch)."""

from __future__ import annotations

from typing import Any

from torchparity.api import Resolution


def clone_resolution(api: str, at: str, /, **kw: Any) -> Resolution:
    """The resolution of a context manager's ``clone`` (``api``, defined ``at``), ``kw`` changed."""
    owner = api.rsplit(".", 1)[0]
    base: dict[str, Any] = dict(
        query=api,
        path=api,
        canonical=api,
        aliases=(),
        kind="method",
        kind_detail="Python method",
        signature="(self)",
        module="torch.autograd.grad_mode",
        source=at,
        public=True,
        public_reason="",
        docs_name="",
        docs_url="",
        owner_class=owner,
        owner_kind="context-manager",
        defined_in=None,
        resolved_via="",
        torch_version="2.13.0+cpu",
    )
    base.update(kw)
    return Resolution(**base)
