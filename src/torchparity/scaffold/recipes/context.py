"""Recipe data of the ``context`` family (``scaffold/context.py``, ``templates/context.py.j2``): the
members of a context-manager class it tests (the class itself: ``None``), each with

* ``use``: how the test uses it: ``construct`` builds the class and enters it, ``clone`` builds it,
  clones it and enters the clone, ``explicit`` calls ``__enter__`` and ``__exit__`` by hand;
* ``what``: what the test checks, for its summary;
* ``normal``: what its coverage row of normal use says before the states it checks.
"""

from __future__ import annotations

CONTEXT_MEMBERS: dict[str | None, dict[str, str]] = {
    None: {
        "use": "construct",
        "what": "the context manager's construction, entry and exit",
        "normal": "",
    },
    "__call__": {
        "use": "construct",
        "what": "the context manager's construction, entry and exit",
        "normal": "",
    },
    "clone": {
        "use": "clone",
        "what": "clone object independence, type and mode preservation",
        "normal": "clone 后对象独立、类型与 mode 保持；",
    },
    "__enter__": {
        "use": "explicit",
        "what": "explicit __enter__/__exit__ calls",
        "normal": "",
    },
    "__exit__": {
        "use": "explicit",
        "what": "explicit __enter__/__exit__ calls",
        "normal": "",
    },
}
