"""``verify``: one command from an API name to a reviewed-ready result."""

from .pipeline import Pipeline, Stages, Verdict, VerifyOptions, slug

__all__ = ["Pipeline", "Stages", "Verdict", "VerifyOptions", "slug"]
