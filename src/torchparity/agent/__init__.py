"""The agent: the only torchparity code that runs inside the environment under test.

Rules that keep it shippable into any interpreter (Python >= 3.8, torch >= 2.1, any architecture, a
remote host):

* standard library only, plus torch and the configured backend module, both imported lazily by
  ``backend.py`` and never at import time of this package;
* relative imports only, and nothing from the controller: the controller copies this folder next to
  a launcher script and runs it as a top-level package;
* it talks JSON lines (``protocol.py``) on a channel of its own, so the tests' own output never
  mixes with the answers.
"""

AGENT_PROTOCOL = 1

#: the optional last argument of ``serve``/``once``: run on the cpu when the requested device is absent
ALLOW_CPU_FALLBACK = "allow-cpu-fallback"
