"""``torchparity upstream API``: resolve the API, run the upstream stage, keep the run's records.

The run holds the task, the API's resolution and the ``UpstreamRecord`` (each
target's evidence log inside it), so ``torchparity report RUN`` renders its
"PyTorch 官方用例" part like any other run's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..api import agent_session, resolve_api
from ..config import Config
from ..coverage.environment import resolved_table
from ..emulated import runner_settings
from ..errors import ExitCode
from ..fsutil import atomic_write
from ..records.upstream import UpstreamRecord
from ..store import Store
from ..store import put as put_record
from .stage import UpstreamHooks, UpstreamOptions, check_options, upstream_stage

#: a run's result -> the verb's exit code
EXIT_OF = {
    "PASS": ExitCode.OK,
    "FAIL": ExitCode.FAILED,
    "PARTIAL": ExitCode.FAILED,
    "NOT_RUN": ExitCode.FAILED,
    "ERROR": ExitCode.ENVIRONMENT_ERROR,
}


@dataclass(frozen=True)
class UpstreamOutcome:
    run_id: int
    record: UpstreamRecord

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_OF.get(self.record.result, ExitCode.FAILED)


def run_upstream(
    store: Store,
    cfg: Config,
    opt: UpstreamOptions,
    argv: list[str],
    hooks: UpstreamHooks | None = None,
) -> UpstreamOutcome:
    check_options(cfg, opt)
    env = opt.envs[0]
    hooks = hooks or UpstreamHooks()
    hooks.stage(f"resolve {opt.api} in {env.name}")
    first = runner_settings(
        env.emulated, cfg.backend_module, env.device or opt.device or cfg.device
    )
    with agent_session(
        env.python,
        first.backend_module,
        first.device,
        mode=opt.mode,
        allow_cpu_fallback=opt.allow_cpu_fallback,
        environ=first.environ,
    ) as session:
        (info,) = resolve_api(
            [opt.api], env.python, first.backend_module, trace=False, session=session
        )
    opt.api = info.canonical
    opt.operator = opt.operator or info.category == "operator"
    record = upstream_stage(store, cfg, opt, aliases=resolved_table([info.resolution]), hooks=hooks)
    run_id = store.new_run("upstream", argv)
    try:
        task = cfg.task_record(info.canonical, None, repo=opt.repo is not None)
        for rec in (task, info, record):
            put_record(store, rec, run_id, info.canonical)
    except BaseException:
        store.finish_run(run_id, "INCOMPLETE", status="incomplete")
        raise
    store.finish_run(
        run_id,
        record.result,
        status="complete",
        summary={"targets": [{"label": t.label, "result": t.result} for t in record.targets]},
    )
    return UpstreamOutcome(run_id, record)


def write_logs(record: UpstreamRecord, folder: Path) -> list[Path]:
    """Each target's evidence log as ``<label>.log`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for t in record.targets:
        path = folder / (re.sub(r"[^A-Za-z0-9._@-]+", "_", t.label) + ".log")
        atomic_write(path, t.log)
        out.append(path)
    return out


__all__ = ["EXIT_OF", "UpstreamOutcome", "run_upstream", "write_logs"]
