"""One error hierarchy and the exit codes every verb shares.

::

    TorchparityError            root; never raised itself
    ├── UsageError              bad input from the user          -> exit 2
    ├── EnvironmentBroken       an interpreter / torch / device  -> exit 3
    └── StoreCorrupt            the evidence store is damaged    -> exit 3
        └── EvidenceTampered    evidence disagrees with its own  -> exit 3
                                hashes, seal or signature

A failing *verification* is not an error: verbs return ``ExitCode.FAILED``.
The CLI catches ``TorchparityError`` once and prints ``ERROR: <message>``
(one line: what, where, what to do) without a traceback unless ``--debug``.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    #: every target verified and nothing required is missing
    OK = 0
    #: verified: something fails (a test, a restored state, a lint rule)
    FAILED = 1
    #: bad input: unknown file, ref, API name, flag value
    USAGE_ERROR = 2
    #: the environment under test is broken: no interpreter, no torch, no device
    ENVIRONMENT_ERROR = 3
    #: a bug in torchparity itself; please report it with --debug output
    INTERNAL_ERROR = 4
    #: the user interrupted the work (Ctrl-C); finished parts are kept
    INTERRUPTED = 130


class TorchparityError(Exception):
    """Root of every error torchparity raises on purpose."""

    exit_code: ExitCode = ExitCode.INTERNAL_ERROR


class UsageError(TorchparityError):
    """Bad input: the message says what, where and what to do."""

    exit_code = ExitCode.USAGE_ERROR


class EnvironmentBroken(TorchparityError):
    """The environment under test cannot run the work (no interpreter, no torch, ...)."""

    exit_code = ExitCode.ENVIRONMENT_ERROR


class StoreCorrupt(TorchparityError):
    """The evidence store cannot be read as written."""

    exit_code = ExitCode.ENVIRONMENT_ERROR


class EvidenceTampered(StoreCorrupt):
    """Stored or bundled evidence disagrees with its own hashes, its run's seal or its signature.

    Its message starts with ``tampered evidence:`` and names the run / target / file and
    what disagrees; the evidence is never rendered.
    """

    def __init__(self, message: str) -> None:
        super().__init__(
            message if message.startswith("tampered evidence:") else f"tampered evidence: {message}"
        )
