"""Recipe data of the ``autograd`` family (``scaffold/autograd.py``): the calls it has a test for."""

from __future__ import annotations

#: the namespace the autograd calls are spelled under (all but the engine's)
AUTOGRAD_NAMESPACE = "torch.autograd."
#: what a name of the engine's calls holds (``Variable._execution_engine.run_backward``)
ENGINE_ATTRIBUTE = "_execution_engine"

#: leaf -> what its test checks (the test is the template's macro of that name)
AUTOGRAD_CALLS: dict[str, str] = {
    "grad": "first and second derivatives and weighted outputs",
    "backward": "gradients accumulated into .grad",
    "run_backward": "the engine's backward pass, into .grad and as returned gradients",
    "queue_callback": "a callback queued from a hook runs after it, within backward",
    "gradcheck": "true for functions with correct gradients, false for a wrong backward",
    "gradgradcheck": "true for functions with correct gradients, false for a wrong backward",
}
#: the leaves of ``AUTOGRAD_CALLS`` that are the engine's calls, spelled through ``ENGINE_ATTRIBUTE``
ENGINE_CALLS = ("run_backward", "queue_callback")
