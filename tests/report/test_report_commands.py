"""A command a text shows runs from the repo root: no path of the temporary checkout it ran in (removed
after the run), and an emulated backend named as the emulation, not as a folder of the machine that ran.

The record and the evidence log keep the literal command (COMMAND=, as it ran); the texts show it
relative to the repo root. One slow test copies the shown command out of a real PR text and runs it.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import torchparity
from tests.report.report_fixtures import TEST_PATH, Fixture, make_pr_repo
from tests.report.upstream_fixture import upstream_record
from torchparity.cli import main
from torchparity.emulated import EMULATIONS
from torchparity.emulated.__main__ import main as emulated_main
from torchparity.records import TargetEvidence
from torchparity.report import build_report, render
from torchparity.report.commands import shown_command
from torchparity.store import read_run

WT = "/tmp/torchparity-wt-p4242-abcd/v2.7.1-1a2b3c4d"
PREFIX = "env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1"
EMU = "/tmp/torchparity-agent-x1/site/torchparity/emulated/npu"


@pytest.mark.parametrize(
    ("literal", "shown"),
    [
        # the file whole, and its tests by id: the path in the checkout
        (f"{PREFIX} /py {WT}/{TEST_PATH} -v", f"{PREFIX} /py {TEST_PATH} -v"),
        (
            f"{PREFIX} /py {WT}/{TEST_PATH} TestX.test_a TestX.test_b -v",
            f"{PREFIX} /py {TEST_PATH} TestX.test_a TestX.test_b -v",
        ),
        # pytest node ids
        (
            f"{PREFIX} /py -m pytest {WT}/{TEST_PATH}::TestX::test_a -v",
            f"{PREFIX} /py -m pytest {TEST_PATH}::TestX::test_a -v",
        ),
        # a file run as a module from its folder
        (
            f"cd {WT}/test/npu && {PREFIX} /py -m unittest test_grad_mode_clone.TestX.test_a -v",
            f"cd test/npu && {PREFIX} /py -m unittest test_grad_mode_clone.TestX.test_a -v",
        ),
        # no repo: a file on disk is run by its own path
        (f"{PREFIX} /py /home/me/t.py -v", f"{PREFIX} /py /home/me/t.py -v"),
    ],
)
def test_a_command_is_shown_from_the_repo_root(literal: str, shown: str) -> None:
    files = ["/home/me/t.py"] if "/home/me" in literal else [TEST_PATH]
    assert shown_command(literal, files) == shown


def test_an_emulated_backend_is_named_as_the_emulation() -> None:
    literal = f"{PREFIX} PYTHONPATH={EMU} /py {WT}/{TEST_PATH} -v"
    shown = shown_command(literal, [TEST_PATH], "npu")
    assert shown == (
        f'{PREFIX} PYTHONPATH="$(python3 -m torchparity.emulated npu)" /py {TEST_PATH} -v'
    )
    assert shown_command(f"{PREFIX} /py {WT}/{TEST_PATH} -v", [TEST_PATH], "") == (
        f"{PREFIX} /py {TEST_PATH} -v"
    )


def test_the_emulation_names_its_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert emulated_main(["npu"]) == 0
    assert capsys.readouterr().out.strip() == str(EMULATIONS["npu"].root)
    assert emulated_main(["tpu"]) == 2
    assert "no emulated backend 'tpu'" in capsys.readouterr().err


def _commands(text: str) -> list[str]:
    """The commands of the text's command blocks (命令 / Commands, and the official tests')."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        out += [ln for ln in block.splitlines() if ln.startswith(("env ", "cd "))]
    return out


def test_no_text_shows_a_path_of_the_checkout_or_the_emulations_folder(
    fixture_full: Fixture,
) -> None:
    runs = [read_run(fixture_full.store, i) for i in fixture_full.runs]
    out = []
    for r in runs:  # the first run's targets ran on the emulated npu, from a shipped agent's folder
        targets = []
        for ev in r.targets:
            rec = ev.record
            if r is runs[0]:
                rec = rec.replace(
                    emulated="npu",
                    full=[
                        replace(s, command=s.command.replace(PREFIX, f"{PREFIX} PYTHONPATH={EMU}"))
                        for s in rec.full
                    ],
                )
            targets.append(TargetEvidence(rec, ev.log, ev.log_sha256, ev.record_sha256))
        out.append(replace(r, targets=tuple(targets)))
    wt = "/tmp/torchparity-wt-fixture/v2.7.1"  # the fixture's checkout
    # the official tests: a3's file ran as a module from its folder, a2's by its path
    module = (
        f"cd {wt}/test && {PREFIX} /py -m unittest test_autograd.TestMultithreadAutograd.test_x -v"
    )
    up = upstream_record()
    up = replace(
        up,
        targets=tuple(
            replace(
                t,
                runs=tuple(
                    replace(
                        x,
                        command=module
                        if t.env == "a3"
                        else x.command.replace(x.file, f"{wt}/{x.file}"),
                    )
                    for x in t.runs
                ),
            )
            for t in up.targets
        ),
    )
    out[0] = replace(out[0], upstream=up)
    model = build_report(out)
    for lang in ("zh", "en"):
        text = render(model, "pr", lang)
        commands = _commands(text)
        assert len(commands) == 3 + 2  # a command per target, one per official-tests target
        for cmd in commands:
            assert wt not in cmd and EMU not in cmd, cmd
            if "-m unittest" in cmd:  # from the file's folder, below the repo root
                assert cmd.startswith("cd test && ")
            else:  # the file by its path from the repo root
                (py,) = [w for w in shlex.split(cmd) if w.endswith(".py") and "=" not in w]
                assert py in (TEST_PATH, "test/test_autograd.py")
        emulated = [c for c in commands if "PYTHONPATH=" in c.replace("-u PYTHONPATH", "")]
        assert len(emulated) == 2 and all(
            'PYTHONPATH="$(python3 -m torchparity.emulated npu)"' in c for c in emulated
        )
        assert wt in text  # the evidence log, quoted as it is, still says where it ran


REAL_TEST = """import torch
import torch_npu  # noqa: F401  (the emulation: importable only with its folder on PYTHONPATH)
from torch.testing._internal.common_utils import TestCase, run_tests


class TestGeneratorSeed(TestCase):
    def test_generator_seed(self):
        g = torch.Generator()
        seed = g.seed()
        self.assertEqual(g.initial_seed(), seed)


if __name__ == "__main__":
    run_tests()
"""


@pytest.mark.slow
def test_the_command_a_pr_shows_reruns_from_the_repo_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real emulated run by id: the PR's command, copied as it is, runs the test from the repo root
    after the run's checkout is gone."""
    repo = make_pr_repo(tmp_path / "repo", {"test/npu/test_seed.py": REAL_TEST})
    store = str(tmp_path / "store")
    rc = main(
        [
            *("run", "test/npu/test_seed.py", "--repo", str(repo), "--python", sys.executable),
            *("--emulate", "npu", "--store", store),
        ]
    )
    said = capsys.readouterr()
    assert rc == 0, said.out + said.err
    assert main(["report", "1", "--store", store, "--kind", "pr"]) == 0
    (cmd,) = _commands(capsys.readouterr().out)
    assert str(tmp_path) not in cmd and "torchparity.emulated npu" in cmd
    # python3 in the command is the tool's interpreter, with this torchparity
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": str(Path(torchparity.__file__).parents[1]),
    }
    done = subprocess.run(
        ["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Ran 1 test" in done.stderr and "OK" in done.stderr
