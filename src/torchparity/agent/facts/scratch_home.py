"""A ``TORCH_HOME`` of the agent's own while facts are measured.

A guessed call (``load_state_dict_from_url("cpu")``, ``hub.load(...)``) downloads into
``$TORCH_HOME/hub``; measured under a temporary one, nothing lands in the user's ``~/.cache``, and a file
left there by one API cannot make a later API's guessed call succeed. Nested uses each get their own.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Iterator


@contextlib.contextmanager
def scratch_torch_home() -> Iterator[str]:
    """Point ``TORCH_HOME`` at a fresh temporary folder; remove it and put the old value back after."""
    home, scratch = os.environ.get("TORCH_HOME"), tempfile.mkdtemp(prefix="torchparity-home-")
    os.environ["TORCH_HOME"] = scratch
    try:
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if home is None:
            os.environ.pop("TORCH_HOME", None)
        else:
            os.environ["TORCH_HOME"] = home
