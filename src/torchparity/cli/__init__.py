"""Command-line entry point: ``torchparity VERB ...``.

One module per verb group registers its commands on the shared Typer app;
``main`` turns torchparity's errors into one ``ERROR:`` line and an exit code.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import typer


def _click_exception() -> type[Exception]:
    """Click's usage-error base: typer >= 0.2x carries its own copy of click, older typer uses click."""
    try:
        cls: type[Exception] = importlib.import_module("typer._click.exceptions").ClickException
    except ImportError:  # pragma: no cover - older typer on top of click
        cls = importlib.import_module("click").ClickException
    return cls


from ..errors import ExitCode, TorchparityError  # noqa: E402 - after the helper above
from ..exec.interrupt import stop_on_signals  # noqa: E402
from ..fsutil import DISK_FULL  # noqa: E402
from . import _app  # noqa: E402
from ._app import app, err  # noqa: E402

ClickException = _click_exception()

#: verbs registered by a module of another name (every other verb lives in the module named after it)
VERB_MODULES = {"trace": "resolve", "runs": "store", "show": "store"}
#: options of the root command that come before the verb and take no value
_ROOT_FLAGS = ("--debug",)


def _verb_modules() -> list[str]:
    return [info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]


def _registered() -> set[str]:
    names: list[object] = [
        c.name or (c.callback.__name__.replace("_", "-") if c.callback else "")
        for c in app.registered_commands
    ]
    names += [
        g.name or (g.typer_instance.info.name if g.typer_instance else "")
        for g in app.registered_groups
    ]
    return {str(n) for n in names if n}


def _load_verbs(argv: list[str] | None = None) -> None:
    """Import the module of the verb ``argv`` runs, and only it (``--help``, no verb, or a verb its
    module does not register: every verb module, so that help and errors list every verb)."""
    verb = next((a for a in argv or [] if a not in _ROOT_FLAGS), None) if argv is not None else None
    modules = _verb_modules()
    if verb is not None and not verb.startswith("-"):
        module = VERB_MODULES.get(verb, verb.replace("-", "_"))
        if module in modules:
            importlib.import_module(f"{__name__}.{module}")
            if verb in _registered():
                return
    for name in modules:
        importlib.import_module(f"{__name__}.{name}")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _load_verbs(argv)
    _app.INVOCATION[:] = argv
    _app.Session.debug = False
    _app.Session.notices = []
    try:
        # SIGINT/SIGTERM: every process tree killed at once, worktrees and folders removed, exit 130
        with stop_on_signals():
            rv = app(args=argv, prog_name="torchparity", standalone_mode=False)
        for notice in _app.Session.notices:
            err.print(f"note: {notice}", markup=False)
    except TorchparityError as exc:
        if _app.Session.debug:
            raise
        err.print(f"ERROR: {exc}", markup=False)
        return int(exc.exit_code)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except typer.Abort:
        err.print("interrupted", markup=False)
        return int(ExitCode.INTERRUPTED)
    except ClickException as exc:
        exc.show()  # type: ignore[attr-defined]
        return int(getattr(exc, "exit_code", ExitCode.USAGE_ERROR) or ExitCode.USAGE_ERROR)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        return int(ExitCode.INTERRUPTED)
    except OSError as exc:
        if exc.errno not in DISK_FULL:
            return _internal(exc, _app.Session.debug)
        if _app.Session.debug:
            raise
        where = exc.filename or "a file (the system did not say which)"
        err.print(
            f"ERROR: no space left writing {where} ({exc.strerror}); free space there and rerun",
            markup=False,
        )
        return int(ExitCode.ENVIRONMENT_ERROR)
    except Exception as exc:  # a bug in torchparity: still one line, and its own exit code
        return _internal(exc, _app.Session.debug)
    return int(rv or 0)


def _internal(exc: Exception, debug: bool) -> int:
    """A bug in torchparity: still one line, and its own exit code."""
    if debug:
        raise exc
    err.print(
        f"ERROR: internal error: {type(exc).__name__}: {exc} (this is a torchparity bug; "
        "rerun with --debug for the traceback and report it)",
        markup=False,
    )
    return int(ExitCode.INTERNAL_ERROR)


def run() -> None:
    sys.exit(main())
