"""Report templates run no code on the controller (issue 36, item 6).

A template is Jinja2: unsandboxed, ``{{ cycler.__init__.__globals__.os.popen(...) }}`` runs a shell command.
Every template (built-in, a team's folder, ``--template``) is now rendered in Jinja2's immutable sandbox, and
``[report] templates`` named by the backend repository's own ``torchparity.toml`` is used only when the user
says so (``--allow-repo-templates``); otherwise it is ignored, with a note. Before, a ``verify --repo R``
of a repository whose config named such a template ran the command. The whole verify runs over the fake
runner: no interpreter starts (the exploit's ``touch`` is a plain program).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeagent import RecordedAgent, load
from tests.report.report_fixtures import Fixture
from torchparity.cli import main
from torchparity.errors import UsageError
from torchparity.exec.fake import Answer, answering
from torchparity.exec.runners import Job
from torchparity.report import build_report, render
from torchparity.store import read_run

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
EXPLOITS = (
    "{{ cycler.__init__.__globals__.os.popen('touch MARK').read() }}",
    "{{ joiner.__init__.__globals__.os.system('touch MARK') }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}{{ lipsum.__globals__.os.popen('touch MARK').read() }}",
    "{{ namespace.__init__.__globals__.os.popen('touch MARK').read() }}",
)


def _exploit(template: str, mark: Path) -> str:
    return template.replace("MARK", str(mark)) + "\n"


@pytest.mark.parametrize("template", EXPLOITS)
def test_a_template_cannot_reach_python(
    fixture_bare: Fixture, tmp_path: Path, template: str
) -> None:
    model = build_report([read_run(fixture_bare.store, 1)])
    mark = tmp_path / "ran"
    given = tmp_path / "evil.md.j2"
    given.write_text(_exploit(template, mark))
    with pytest.raises(UsageError, match=r"evil\.md\.j2.*(unsafe|sandbox)"):
        render(model, "pr", "en", template=given)
    team = tmp_path / "team"
    team.mkdir()
    (team / "pr_en.md.j2").write_text(_exploit(template, mark))
    with pytest.raises(UsageError, match=r"pr_en\.md\.j2.*(unsafe|sandbox)"):
        render(model, "pr", "en", templates_dir=team)
    assert not mark.exists()
    # a team's ordinary template still renders
    (team / "pr_en.md.j2").write_text(
        "{{ m.api }}: {{ m.targets | length }} {{ m.targets | map(attribute='label') "
        "| join(', ') }}\n"
    )
    assert render(model, "pr", "en", templates_dir=team).startswith(f"{model.api}: ")


def _repo(root: Path, template: str) -> Path:
    repo = root / "backend"
    (repo / "test").mkdir(parents=True)
    (repo / "test" / "test_grad.py").write_text(
        "import torch\n\n\nclass T:\n    def test_set_grad_enabled_clone(self):\n"
        "        torch.set_grad_enabled(False).clone()\n"
    )
    (repo / "torchparity.toml").write_text('[report]\ntemplates = "team"\n')
    (repo / "team").mkdir()
    (repo / "team" / "pr_zh.md.j2").write_text(template)
    for args in (
        ["init", "-q", "-b", "master"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "backend"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    return repo


def _verify(tmp_path: Path, repo: Path, *extra: str) -> int:
    recorded = {r.op: r.answer for r in load("verify_seed_api")}

    def same(op: str) -> Callable[[Job], Answer]:
        """The recorded answer whatever the file is named (the repository's test file is not the recorded one)."""
        return lambda job: recorded[op]

    agent = RecordedAgent.of(
        "verify_seed_api",
        run_file=same("run_file"),
        isolation=same("isolation"),
        trace=same("trace"),
    )
    with answering(agent):
        return main(
            [
                "verify",
                API,
                "--repo",
                str(repo),
                "--test-file",
                "test/test_grad.py",
                "--ref",
                "master",
                "--python",
                sys.executable,
                "--store",
                str(tmp_path / "store"),
                *extra,
            ]
        )


def test_a_repo_config_template_runs_no_code_during_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    mark = tmp_path / "ran"
    repo = _repo(tmp_path, _exploit(EXPLOITS[0], mark))
    assert _verify(tmp_path, repo) == 0, capsys.readouterr().err
    assert not mark.exists()
    err = capsys.readouterr().err
    assert "[report] templates" in err and "ignored" in err and "--allow-repo-templates" in err
    pr = (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "pr.zh.md").read_text()
    assert pr.startswith("# 【") or "【功能验证】" in pr  # the built-in template
    # asked for, the repository's template is rendered, in the sandbox: refused, nothing runs
    assert _verify(tmp_path, repo, "--allow-repo-templates") == 2
    assert "unsafe" in capsys.readouterr().err and not mark.exists()


def test_repo_templates_are_used_when_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    repo = _repo(tmp_path, "team pr for {{ m.api }}\n")
    assert _verify(tmp_path, repo, "--allow-repo-templates") == 0, capsys.readouterr().err
    pr = (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "pr.zh.md").read_text()
    assert pr == f"team pr for {API}\n"
    assert "--allow-repo-templates" not in capsys.readouterr().err
