"""The agent's answers, recorded from real runs and replayed through the fake runner.

A recording is JSON lines, one job a line: the op, its arguments and what the real agent answered
(result, printed output, status). ``RecordedAgent`` is a handler for ``torchparity.exec.fake``: it
answers each job with the recorded answer of the same op (and the same API or file where the op
names one), so verify, batch, report and store tests run the whole pipeline with no interpreter.

Recordings are made by the tool itself, never by hand::

    python -m tests.fakeagent tests/recordings/verify_seed_api.jsonl -- verify torch.autograd.grad_mode.set_grad_enabled.clone

and ``tests/exec/test_fake_runner.py`` (slow tier) records afresh and checks that every recording still
has the shape the real agent answers with today.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from torchparity.exec.fake import Answer, answering
from torchparity.exec.runners import Job

RECORDINGS = Path(__file__).resolve().parent / "recordings"


@dataclass(frozen=True)
class Recorded:
    op: str
    args: Mapping[str, Any]
    answer: Answer


def load(name: str | Path) -> list[Recorded]:
    path = Path(name) if os.sep in str(name) else RECORDINGS / f"{name}.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        d = json.loads(line)
        out.append(
            Recorded(
                d["op"],
                d.get("args", {}),
                Answer(
                    result=d.get("result", {}),
                    output=d.get("output", ""),
                    status=d.get("status", "OK"),
                    exit_code=d.get("exit_code"),
                    signal=d.get("signal"),
                    duration=float(d.get("duration", 0.0)),
                ),
            )
        )
    return out


def _key(op: str, args: Mapping[str, Any]) -> str:
    """What tells two jobs of one op apart: the APIs asked about, or the file run."""
    if op == "resolve":
        return json.dumps(sorted(args.get("names", [])))
    if op in ("scaffold_facts", "scaffold_check", "alias_facts"):
        return json.dumps(
            sorted(
                str(i.get("api", i.get("name", ""))) if isinstance(i, dict) else str(i)
                for i in args.get("items", [])
            )
        )
    if op in ("run_file", "isolation"):
        return os.path.basename(str(args.get("path", "")))
    if op == "trace":
        return os.path.basename(str(args.get("file", "")))
    return ""


@dataclass
class RecordedAgent:
    """A fake-runner handler answering from recordings; ``overrides`` answer chosen ops themselves."""

    recordings: list[Recorded]
    overrides: dict[str, Callable[[Job], Any]] = field(default_factory=dict)
    asked: list[Job] = field(default_factory=list)
    _used: dict[tuple[str, str], int] = field(default_factory=dict)

    @classmethod
    def of(cls, *names: str | Path, **overrides: Callable[[Job], Any]) -> RecordedAgent:
        recs: list[Recorded] = []
        for name in names:
            recs += load(name)
        return cls(recs, dict(overrides))

    def __call__(self, job: Job) -> Any:
        self.asked.append(job)
        if job.op in self.overrides:
            return self.overrides[job.op](job)
        same_op = [r for r in self.recordings if r.op == job.op]
        if not same_op:
            raise LookupError(
                f"no recorded answer to a {job.op!r} job ({sorted(job.args)}); record one with "
                "`python -m tests.fakeagent`"
            )
        key = _key(job.op, job.args)
        matching = [rec for rec in same_op if _key(rec.op, rec.args) == key]
        if matching:
            # answers in the order they were recorded; the last one again when they run out
            used = self._used.get((job.op, key), 0)
            self._used[(job.op, key)] = used + 1
            return matching[min(used, len(matching) - 1)].answer
        raise LookupError(
            f"no recorded {job.op!r} answer for {key!r}; recorded: "
            f"{sorted({_key(r.op, r.args) for r in same_op})}"
        )

    def ops(self) -> list[str]:
        return [job.op for job in self.asked]


@contextmanager
def recording(out: Path) -> Iterator[None]:
    """While active, every runner made is the real one, and every job it runs is written to ``out``
    with the real agent's answer."""
    from torchparity.exec.fake import wrapping

    lines: list[str] = []

    class Recording:
        def __init__(self, runner: Any) -> None:
            self.runner = runner
            self.mode, self.python = runner.mode, runner.python

        def run(self, job: Job) -> Any:
            res = self.runner.run(job)
            lines.append(
                json.dumps(
                    {
                        "op": job.op,
                        "args": job.args,
                        "status": res.status,
                        "exit_code": res.exit_code,
                        "signal": res.signal,
                        "result": res.result,
                        "output": res.output,
                    },
                    sort_keys=True,
                    default=str,
                )
            )
            return res

        def __getattr__(self, name: str) -> Any:
            return getattr(self.runner, name)

    try:
        with wrapping(Recording):
            yield
    finally:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def record(out: Path, argv: Iterable[str]) -> int:
    """Run ``torchparity ARGV`` for real and write every agent job it made, with its answer, to ``out``."""
    from torchparity.cli import main

    with recording(out):
        return main(list(argv))


#: set to record the real agent's answers for the tests that use the ``agent`` fixture (the slow way)
RECORD_VARIABLE = "TORCHPARITY_RECORD_AGENT"


def recording_path(nodeid_module: str, test_name: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", test_name).strip("_")
    return RECORDINGS / nodeid_module / f"{safe}.jsonl"


@pytest.fixture
def agent(request: pytest.FixtureRequest) -> Iterator[RecordedAgent | None]:
    """The agent of this test, answered from its recording (no interpreter); with
    TORCHPARITY_RECORD_AGENT=1 the real agent runs instead and the recording is written anew."""
    path = recording_path(request.module.__name__.rsplit(".", 1)[-1], request.node.name)
    if os.environ.get(RECORD_VARIABLE):
        with recording(path):
            yield None
        return
    if not path.exists():
        pytest.fail(
            f"no recording {path.relative_to(RECORDINGS.parent.parent)}: run this test once with "
            f"{RECORD_VARIABLE}=1 to record the real agent's answers"
        )
    replay = RecordedAgent.of(path)
    with answering(replay):
        yield replay


if __name__ == "__main__":
    if "--" not in sys.argv[2:3]:
        raise SystemExit("usage: python -m tests.fakeagent OUT.jsonl -- VERB ARGS...")
    raise SystemExit(record(Path(sys.argv[1]), sys.argv[3:]))
