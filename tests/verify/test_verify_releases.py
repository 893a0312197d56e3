"""Each ref runs in the environments whose torch is the release the ref targets (its version.txt).

The agent answers from a recording of a real verify (``test_verify_e2e``); the probe's torch version is
answered per environment, so that two environments with different torch releases meet two refs.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from tests.fakeagent import RECORDINGS, RecordedAgent
from torchparity.cli import main
from torchparity.collect.envspec import EnvSpec
from torchparity.collect.releases import fit, parse_release_file, release_of
from torchparity.exec.fake import answering, current_runner
from torchparity.store import Store, read_run

RECORDING = (
    RECORDINGS
    / "test_verify_e2e"
    / "test_files_with_direct_tests_run_those_tests_by_id_and_test_file_runs_one_whole.jsonl"
)

GEN = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestGenerator(TestCase):
    def test_generator_seed(self):
        g = torch.Generator()
        s = g.seed()
        self.assertEqual(g.initial_seed(), s)


if __name__ == "__main__":
    run_tests()
"""

VERSION_FILE = "# the torch releases this branch builds for\n{}\n"


def _agent(versions: dict[str, str]) -> RecordedAgent:
    """The recorded agent, its probe saying the torch version of the environment asked."""
    agent = RecordedAgent.of(RECORDING)
    probe = next(r.answer for r in agent.recordings if r.op == "probe")

    def answer_probe(job: object) -> object:
        runner = current_runner()
        assert runner is not None
        version = versions[os.path.basename(runner.python)]
        facts = [[k, version if k == "torch_version" else v] for k, v in probe.result["facts"]]
        return replace(probe, result={**probe.result, "facts": facts})

    agent.overrides["probe"] = answer_probe
    return agent


@pytest.fixture
def two_branches(tmp_path: Path, make_repo) -> Path:
    repo = make_repo(
        {
            "master": {"test/test_gen0.py": GEN, "version.txt": VERSION_FILE.format("2.13.0")},
            "v2.7.1": {"version.txt": VERSION_FILE.format("2.7.1.post9")},
        }
    )
    pythons = tmp_path / "pythons"
    pythons.mkdir()
    for name in ("py213", "py271"):
        (pythons / name).symlink_to(sys.executable)
    (repo.parent / "cfg.toml").write_text(
        'preset = "default"\n[torch_release]\nfile = "version.txt"\n'
        f'[envs.a]\npython = "{pythons / "py213"}"\n'
        f'[envs.b]\npython = "{pythons / "py271"}"\n',
        encoding="utf-8",
    )
    return repo


def _verify(repo: Path, tmp_path: Path, *more: str) -> list[str]:
    return [
        "verify",
        "torch.Generator.seed",
        "--repo",
        str(repo),
        "--config",
        str(repo.parent / "cfg.toml"),
        "--ref",
        "master",
        "--ref",
        "v2.7.1",
        "--store",
        str(tmp_path / "store"),
        "--out",
        str(tmp_path / "out"),
        *more,
    ]


def test_release_of_and_the_version_file():
    assert release_of("2.7.1.post9") == "2.7.1"
    assert release_of("2.13.0+cpu") == "2.13.0"
    assert release_of("v2.11.0") == "2.11.0"
    assert release_of("master") == ""
    assert parse_release_file("# c\n2.15.0\n\n2.13.0  # ok\n2.7.1.post9\n2.13.0\n") == (
        "2.15.0",
        "2.13.0",
        "2.7.1",
    )
    a, b = EnvSpec("a", "/p/a"), EnvSpec("b", "/p/b", refs=("v2.7.1",))
    got = fit("master", ("2.13.0",), [a, b], {"a": "2.13.0+cpu", "b": "2.13.0"})
    # b fits the release but is bound to another ref
    assert got.fitting == (a,) and got.others[0][2] == "bound to v2.7.1"
    assert fit("x", ("2.7.1",), [a], {"a": "2.13.0"}).mismatch
    assert fit("x", (), [a], {}).fitting == (a,)  # a ref that names no release: any environment


def test_with_two_environments_each_ref_runs_in_the_one_with_its_torch(tmp_path, two_branches):
    agent = _agent({"py213": "2.13.0+cpu", "py271": "2.7.1+cpu"})
    with answering(agent):
        rc = main([*_verify(two_branches, tmp_path, "--env", "a", "--env", "b", "--json")])
    st = Store(tmp_path / "store")
    (run,) = st.runs()
    labels = sorted(t.label for t in st.targets(run.id))
    assert labels == ["master@a", "v2.7.1@b"]
    records = {ev.record.label: ev.record for ev in read_run(st, run.id).targets}
    assert records["master@a"].version_check == "match"
    assert records["v2.7.1@b"].torch_wanted == ["2.7.1"]
    assert records["v2.7.1@b"].result == "PASS"
    assert rc == 0


def test_a_ref_no_environment_fits_is_mismatch_in_every_text(tmp_path, two_branches, capsys):
    agent = _agent({"py213": "2.13.0+cpu", "py271": "2.7.1+cpu"})
    with answering(agent):
        rc = main(_verify(two_branches, tmp_path, "--env", "a"))
    err = capsys.readouterr()
    assert rc == 3, err
    st = Store(tmp_path / "store")
    (run,) = st.runs()
    records = {ev.record.label: ev for ev in read_run(st, run.id).targets}
    mism = records["v2.7.1@a"]
    assert mism.record.result == "MISMATCH" and not mism.record.full  # nothing ran there
    assert "TORCH_VERSION_CHECK=mismatch" in mism.log and "RESULT=MISMATCH" in mism.log
    assert records["master@a"].record.result == "PASS"
    # only master's test file ran: one run_file job
    assert [j.op for j in agent.asked].count("run_file") == 1
    out = tmp_path / "out"
    comment = (out / "comment.zh.md").read_text("utf-8")
    assert "没有环境具备分支面向的 torch 版本：v2.7.1@a" in comment
    assert "v2.7.1 面向 torch 2.7.1；本环境为 2.13.0+cpu：没有匹配的环境：未运行" in comment
    assert "全部" not in comment.split("### 结论", 1)[1]
    pr = (out / "pr.v2.7.1.zh.md").read_text("utf-8")
    assert "torch 版本与分支不匹配（未运行）" in pr
    assert "未运行的分支：v2.7.1（没有环境具备其面向的 torch 版本）。" in pr
    whole = (out / "pr.zh.md").read_text("utf-8")
    assert "本次验证覆盖分支：master。" in whole and "未运行的分支：v2.7.1" in whole
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert report["result"] == "MISMATCH"
    assert report["conclusion"]["mismatch"] == ["v2.7.1@a"]
    assert "target v2.7.1@a: MISMATCH (v2.7.1 targets torch 2.7.1; a: torch 2.13.0+cpu)" in err.out
    junit = (out / "junit.xml").read_text("utf-8")
    assert 'type="MISMATCH"' in junit and "v2.7.1 targets torch 2.7.1" in junit
    # the English texts and the summary say it too
    with answering(_agent({"py213": "2.13.0+cpu", "py271": "2.7.1+cpu"})):
        assert main(_verify(two_branches, tmp_path, "--env", "a", "--lang", "en")) == 3
    comment_en = (out / "comment.en.md").read_text("utf-8")
    assert (
        "Not run, no environment has the torch release the branch targets: v2.7.1@a" in comment_en
    )
    assert "v2.7.1 targets torch 2.7.1; this environment has 2.13.0+cpu" in comment_en
    capsys.readouterr()
    assert (
        main(
            [
                "report",
                str(run.id),
                "--kind",
                "markdown-summary",
                "--store",
                str(tmp_path / "store"),
            ]
        )
        == 0
    )
    summary = capsys.readouterr().out
    assert "**MISMATCH**" in summary


def test_allow_version_mismatch_runs_anyway_and_every_text_says_so(tmp_path, two_branches):
    agent = _agent({"py213": "2.13.0+cpu", "py271": "2.7.1+cpu"})
    with answering(agent):
        rc = main(_verify(two_branches, tmp_path, "--env", "a", "--allow-version-mismatch"))
    assert rc == 1  # ran, and said: not evidence for the release the branch targets
    st = Store(tmp_path / "store")
    (run,) = st.runs()
    ev = next(e for e in read_run(st, run.id).targets if e.record.ref == "v2.7.1")
    assert ev.record.result == "PASS" and ev.record.version_check == "allowed"
    assert "TORCH_VERSION_CHECK=allowed" in ev.log
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    assert "- 在与分支面向版本不同的 torch 上运行（--allow-version-mismatch）：v2.7.1@a" in comment
    assert "个验证目标通过，证据支持" not in comment
    assert "--allow-version-mismatch" in (tmp_path / "out" / "pr.v2.7.1.zh.md").read_text("utf-8")


def test_the_texts_list_targets_in_the_order_given_not_the_order_they_finished(
    tmp_path, two_branches
):
    agent = _agent({"py213": "2.13.0+cpu", "py271": "2.13.0+cpu"})
    answer_probe = agent.overrides["probe"]

    def slow_for_b(job):
        runner = current_runner()
        if runner is not None and runner.python.endswith("py271") and job.op == "probe":
            time.sleep(0.5)  # b, given first, finishes last
        return answer_probe(job)

    agent.overrides["probe"] = slow_for_b
    cfg = two_branches.parent / "cfg.toml"
    cfg.write_text(cfg.read_text("utf-8").replace('file = "version.txt"\n', ""), "utf-8")
    argv = [
        "verify",
        "torch.Generator.seed",
        "--repo",
        str(two_branches),
        "--config",
        str(cfg),
        "--ref",
        "master",
        "--env",
        "b",
        "--env",
        "a",
        "--store",
        str(tmp_path / "store"),
        "--out",
        str(tmp_path / "out"),
    ]
    with answering(agent):
        main(argv)
    st = Store(tmp_path / "store")
    (run,) = st.runs()
    finished = [t.label for t in sorted(st.targets(run.id), key=lambda t: t.finished)]
    assert finished[0] == "master@a"  # a finished first ...
    comment = (tmp_path / "out" / "comment.zh.md").read_text("utf-8")
    # ... and b, given first, is listed first
    assert comment.index("（master@b）") < comment.index("（master@a）")


def test_the_target_branch_given_is_the_prs_when_the_ref_is_a_commit(tmp_path, make_repo):
    from tests.conftest import git

    repo = make_repo({"master": {"test/test_gen0.py": GEN}})
    sha = git(repo, "rev-parse", "HEAD").strip()
    with answering(RecordedAgent.of(RECORDING)):
        main(
            [
                "verify",
                "torch.Generator.seed",
                "--repo",
                str(repo),
                "--python",
                sys.executable,
                "--ref",
                sha,
                "--target-branch",
                "v2.7.1",
                "--store",
                str(tmp_path / "store"),
                "--out",
                str(tmp_path / "out"),
            ]
        )
    (pr,) = (tmp_path / "out").glob(f"pr.{sha}.zh.md")
    text = pr.read_text("utf-8")
    assert "本 PR 面向目标分支 v2.7.1。" in text
    assert f"面向目标分支 {sha}" not in text
