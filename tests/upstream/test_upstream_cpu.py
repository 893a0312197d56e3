"""``torchparity upstream`` end to end on the cpu: a fixture backend repo with vendored upstream-style
files and Ascend's disabled-list shape, this interpreter's real torch, the real store."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import git, write
from tests.report.test_report_consistency import _one_language
from tests.upstream import files
from torchparity.cli import main
from torchparity.records import RunRecords, UpstreamRecord
from torchparity.records.upstream import UpstreamTarget, UpstreamTest
from torchparity.store import Store, read_run

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


@dataclass
class Ran:
    code: int
    record: UpstreamRecord
    run: RunRecords
    root: Path
    repo: Path
    store: Path

    @property
    def target(self) -> UpstreamTarget:
        (t,) = self.record.targets
        return t

    def test(self, id_or_test: str) -> UpstreamTest:
        (t,) = [x for x in self.target.tests if id_or_test in (x.id, x.test)]
        return t


def make_backend(root: Path) -> Path:
    repo = root / "backend"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    for rel, text in files.repo_files().items():
        write(repo / rel, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "vendored upstream tests and the disabled list")
    return repo


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    root = tmp_path_factory.mktemp("upstream")
    repo = make_backend(root)
    store = root / "store"
    code = main(["upstream", files.API, "--repo", str(repo), "--python", sys.executable, "--store", str(store),
                 "--recheck-disabled", "--out", str(root / "out")])
    run = read_run(Store(store), 1)
    assert run.upstream is not None
    return Ran(code, run.upstream, run, root, repo, store)


G = "__main__.TestGradModeCloneCPU."


def test_the_selected_instances_run_and_only_they(ran: Ran) -> None:
    t = ran.target
    assert ran.record.selection == "direct" and t.device == "cpu"
    assert [f.path for f in t.files] == [files.DEVICE_GENERIC, files.NEEDS_FIXTURE]  # not the backend's own file
    assert {x.id: x.status for x in t.tests if x.file == files.DEVICE_GENERIC} == {
        G + "test_set_grad_enabled_clone_cpu": "passed",  # its entry is tagged 910A: not for this machine
        G + "test_set_grad_enabled_clone_dtype_cpu_float32": "disabled",
        G + "test_set_grad_enabled_clone_dtype_cpu_float64": "disabled",
        G + "test_set_grad_enabled_clone_wrong_cpu": "disabled",
        G + "test_set_grad_enabled_clone_skips_cpu": "skipped",
        "__main__.TestPlain.test_plain_clone": "passed",
    }
    main_run, recheck = [r for r in t.runs if r.file == files.DEVICE_GENERIC]
    assert (main_run.purpose, main_run.tests_run, recheck.purpose, recheck.tests_run) == ("run", 3, "recheck", 3)
    assert main_run.selected == ("TestGradModeCloneCPU.test_set_grad_enabled_clone_cpu",
                                 "TestGradModeCloneCPU.test_set_grad_enabled_clone_skips_cpu", "TestPlain.test_plain_clone")
    assert "never selected" not in main_run.output + recheck.output
    assert "Ran 3 tests" in main_run.output
    (f, _) = t.files
    assert (f.tests_for_device, f.disabled_for_device) == (8, 4)


def test_a_disabled_test_is_reported_with_its_entry(ran: Ran) -> None:
    wrong = ran.test(G + "test_set_grad_enabled_clone_wrong_cpu")
    assert wrong.entry is not None
    assert (wrong.entry.key, wrong.entry.reason, wrong.entry.platforms, wrong.entry.category) == (
        files.HOLDS_KEY, files.HOLDS_REASON, ("",), "VALUE")
    assert wrong.entry.list_file == files.LIST and wrong.entry.category_meaning == "value error"
    assert wrong.rechecked == "failed"  # without the list it fails: the entry holds
    dtype = ran.test(G + "test_set_grad_enabled_clone_dtype_cpu_float64")
    assert dtype.entry is not None and (dtype.entry.platforms, dtype.entry.category) == (("A2",), "DTYPE")
    assert ran.test(G + "test_set_grad_enabled_clone_skips_cpu").detail == "needs two devices"


def test_a_stale_entry_is_found_by_its_exact_key(ran: Ran) -> None:
    assert [e.key for e in ran.target.stale] == [files.STALE_KEY]
    assert ran.target.result == "FAIL" and ran.code == 1  # strict-xfail style
    assert f"UPSTREAM_STALE_ENTRY={files.LIST}:{files.STALE_KEY}" in ran.target.log


def test_a_missing_fixture_module_is_named(ran: Ran) -> None:
    t = ran.test(f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases")
    assert t.status == "not_started" and t.why is not None
    assert t.why.code == "upstream_missing_module_repo"
    assert t.why.args == {"path": "test/fixture_helpers/grad_cases.py", "module": "fixture_helpers.grad_cases"}
    (_, f) = ran.target.files
    assert f.missing is not None and f.missing.name == "fixture_helpers.grad_cases" and f.missing.in_repo
    # the file's own command ran too: it stops at the import, as a reviewer would see it
    (r,) = [x for x in ran.target.runs if x.file == files.NEEDS_FIXTURE]
    assert "No module named 'fixture_helpers.grad_cases'" in r.output and r.exit_code == 1


def test_the_evidence_log_states_the_exact_command(ran: Ran, tmp_path: Path) -> None:
    log = ran.target.log
    assert "===== UPSTREAM TESTS =====" in log and "RESULT=FAIL" in log
    assert (ran.root / "out").glob("*.log") and next((ran.root / "out").glob("*.log")).read_text() == log
    assert f"DISABLED_LIST={files.LIST},sha256:" in log
    commands = re.findall(r"^COMMAND=(.*)$", log, re.M)
    assert all(c.startswith("env -u PYTHONPATH -u CI -u DISABLED_TESTS_FILE PYTHONNOUSERSITE=1 ") for c in commands)
    first = commands[0]
    m = re.match(r"env -u PYTHONPATH -u CI -u DISABLED_TESTS_FILE PYTHONNOUSERSITE=1 (\S+) (\S+) ", first)
    assert m is not None and m.group(1) == sys.executable
    assert first.endswith(" TestGradModeCloneCPU.test_set_grad_enabled_clone_cpu "
                          "TestGradModeCloneCPU.test_set_grad_enabled_clone_skips_cpu TestPlain.test_plain_clone -v")
    # replayed by hand in the ref's own files, the command runs the same three tests
    tree = Path(m.group(2)).parents[1]
    data = subprocess.run(["git", "-C", str(ran.repo), "archive", "HEAD", "test"], check=True,
                          capture_output=True).stdout
    tarfile.open(fileobj=io.BytesIO(data)).extractall(tmp_path / "tree", filter="data")
    replay = first.replace(str(tree), str(tmp_path / "tree"))
    out = subprocess.run(["bash", "-c", replay], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "Ran 3 tests" in out.stderr, out.stderr[-2000:]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("kind", ["pr", "comment"])
def test_the_pr_and_comment_show_the_part(ran: Ran, tmp_path: Path, kind: str, lang: str) -> None:
    out = tmp_path / f"{kind}.{lang}.md"
    assert main(["report", "1", "--kind", kind, "--lang", lang, "--store", str(ran.store), "--out", str(out)]) == 0
    text = out.read_text()
    head = {"zh": {"pr": "## PyTorch 官方用例", "comment": "### PyTorch 官方用例"},
            "en": {"pr": "## PyTorch official tests", "comment": "### PyTorch official tests"}}[lang][kind]
    assert head in text
    for t in ran.target.tests:
        assert f"`{t.test}`" in text
    assert f"`{files.STALE_KEY}`" in text and f"`{files.HOLDS_REASON}`" in text
    assert "`fixture_helpers.grad_cases`" in text and "`test/fixture_helpers/grad_cases.py`" in text
    said = {"zh": ["已禁用", "未启动", "用例自身跳过", "通过", "禁用清单移除其中 4 个"],
            "en": ["disabled", "not started", "skipped by the test", "passed", "the disabled list removes 4 of them"]}
    for word in said[lang]:
        assert word in text
    if kind == "pr":
        assert "-u DISABLED_TESTS_FILE" in text  # the commands, as run
    _one_language(text, lang, [ran.run])
