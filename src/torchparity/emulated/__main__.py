"""``python3 -m torchparity.emulated NAME``: print the folder an emulated backend's runs put first on
``PYTHONPATH``, so that a command a text shows (``PYTHONPATH="$(python3 -m torchparity.emulated
npu)" ...``) reruns on any machine where torchparity is installed."""

from __future__ import annotations

import sys

from ..errors import TorchparityError
from . import emulation


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python3 -m torchparity.emulated NAME (e.g. npu)", file=sys.stderr)
        return 2
    try:
        print(emulation(args[0], "python3 -m torchparity.emulated").root)
    except TorchparityError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
