"""``--resume RUN`` for run, verify and batch: the run's own command line again, into the same run."""

from __future__ import annotations

import os
from pathlib import Path

from ..collect.resume import plan_resume
from ..store import Store


def resume(verb: str, run_id: str, store: Path) -> int:
    """Re-run interrupted run ``run_id`` of ``verb`` with its stored arguments, from its own folder."""
    from . import main

    plan = plan_resume(Store(store, create=False), run_id, verb)
    here = os.getcwd()
    if plan.cwd is not None:
        os.chdir(plan.cwd)
    try:
        return main([*plan.argv, "--continue-run", str(plan.run_id)])
    finally:
        os.chdir(here)
