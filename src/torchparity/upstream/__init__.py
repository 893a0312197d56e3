"""The API's PyTorch official tests: found in the backend's vendored files (and a PyTorch clone), run
test by test on each target with the backend's disabled lists, each test's outcome said exactly."""

from .stage import UpstreamHooks, UpstreamOptions, has_candidates, upstream_stage

__all__ = ["UpstreamHooks", "UpstreamOptions", "has_candidates", "upstream_stage"]
