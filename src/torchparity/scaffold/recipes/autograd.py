"""Recipe data of the ``autograd`` family (``scaffold/autograd.py``): where its calls are spelled.

The calls it has a test for are its snippets (``recipes/snippets/autograd.py``, ``test_<leaf>``)."""

from __future__ import annotations

#: the namespace the autograd calls are spelled under (all but the engine's)
AUTOGRAD_NAMESPACE = "torch.autograd."
#: what a name of the engine's calls holds (``Variable._execution_engine.run_backward``)
ENGINE_ATTRIBUTE = "_execution_engine"

#: the autograd calls (``recipes/snippets/autograd.py``) that are the engine's, spelled through
#: ``ENGINE_ATTRIBUTE``
ENGINE_CALLS = ("run_backward", "queue_callback")
