"""``python -m torchparity`` is the ``torchparity`` command."""

from .cli import run

run()
