"""``torchparity upstream`` end to end on the cpu and on the emulated npu (``--emulate npu``): a fixture
backend repo with vendored upstream-style files and Ascend's disabled-list shape, this interpreter's real
torch, the real store."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.report.test_report_consistency import _one_language
from tests.upstream import files
from tests.upstream.files import make_backend
from torchparity.cli import main
from torchparity.emulated import emulation
from torchparity.records import RunRecords, UpstreamRecord
from torchparity.records.upstream import UpstreamTarget, UpstreamTest
from torchparity.store import Store, read_run

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Device:
    """A device the fixture runs on: its type, the class suffix torch instantiates, the verb's flags."""

    type: str
    suffix: str
    args: tuple[str, ...]
    #: variables the run sets on top of the isolated environment (the emulation's path)
    environ: tuple[str, ...]

    @property
    def emulated(self) -> bool:
        return bool(self.environ)


DEVICES = {
    "cpu": Device("cpu", "CPU", (), ()),
    "npu": Device(
        "npu",
        "PRIVATEUSE1",
        ("--emulate", "npu", "--device", "npu"),
        (f"PYTHONPATH={emulation('npu').root}",),
    ),
}


@dataclass
class Ran:
    dev: Device
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


@pytest.fixture(scope="module", params=sorted(DEVICES))
def ran(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    dev = DEVICES[request.param]
    root = tmp_path_factory.mktemp(f"upstream-{dev.type}")
    repo = make_backend(root)
    store = root / "store"
    code = main(
        [
            "upstream",
            files.API,
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(store),
            "--recheck-disabled",
            "--out",
            str(root / "out"),
            *dev.args,
        ]
    )
    run = read_run(Store(store), 1)
    assert run.upstream is not None
    return Ran(dev, code, run.upstream, run, root, repo, store)


def test_the_selected_instances_run_and_only_they(ran: Ran) -> None:
    t, d = ran.target, ran.dev.type
    c = f"TestGradModeClone{ran.dev.suffix}"
    g = f"__main__.{c}."
    assert ran.record.selection == "direct" and t.device == d
    assert t.emulated == ("npu" if ran.dev.emulated else "")
    assert [f.path for f in t.files] == [
        files.DEVICE_GENERIC,
        files.NEEDS_FIXTURE,
    ]  # not the backend's own file
    assert (
        {x.id: x.status for x in t.tests if x.file == files.DEVICE_GENERIC}
        == {
            g
            + f"test_set_grad_enabled_clone_{d}": "passed",  # its entry is tagged 910A: not for this machine
            g + f"test_set_grad_enabled_clone_dtype_{d}_float32": "disabled",
            g + f"test_set_grad_enabled_clone_dtype_{d}_float64": "disabled",
            g + f"test_set_grad_enabled_clone_wrong_{d}": "disabled",
            g + f"test_set_grad_enabled_clone_skips_{d}": "skipped",
            "__main__.TestPlain.test_plain_clone": "passed",
        }
    )
    main_run, recheck = [r for r in t.runs if r.file == files.DEVICE_GENERIC]
    assert (main_run.purpose, main_run.tests_run, recheck.purpose, recheck.tests_run) == (
        "run",
        3,
        "recheck",
        3,
    )
    assert main_run.selected == (
        f"{c}.test_set_grad_enabled_clone_{d}",
        f"{c}.test_set_grad_enabled_clone_skips_{d}",
        "TestPlain.test_plain_clone",
    )
    assert "never selected" not in main_run.output + recheck.output
    assert "Ran 3 tests" in main_run.output
    (f, _) = t.files
    assert (f.tests_for_device, f.disabled_for_device) == (8, 4)


def test_a_disabled_test_is_reported_with_its_entry(ran: Ran) -> None:
    g, d = f"__main__.TestGradModeClone{ran.dev.suffix}.", ran.dev.type
    stale_key, holds_key = files.KEYS[d]
    wrong = ran.test(g + f"test_set_grad_enabled_clone_wrong_{d}")
    assert wrong.entry is not None
    assert (wrong.entry.key, wrong.entry.reason, wrong.entry.platforms, wrong.entry.category) == (
        holds_key,
        files.HOLDS_REASON,
        ("",),
        "VALUE",
    )
    assert wrong.entry.list_file == files.LIST and wrong.entry.category_meaning == "value error"
    assert wrong.rechecked == "failed"  # without the list it fails: the entry holds
    dtype = ran.test(g + f"test_set_grad_enabled_clone_dtype_{d}_float64")
    assert dtype.entry is not None and dtype.entry.key == stale_key
    assert (dtype.entry.platforms, dtype.entry.category) == (("A2",), "DTYPE")
    assert ran.test(g + f"test_set_grad_enabled_clone_skips_{d}").detail == "needs two devices"


def test_a_stale_entry_is_found_by_its_exact_key(ran: Ran) -> None:
    stale_key = files.KEYS[ran.dev.type][0]
    assert [e.key for e in ran.target.stale] == [stale_key]
    if ran.dev.emulated:
        # never called a stale entry to delete: it passed on CPU kernels
        assert "UPSTREAM_STALE_ENTRY=" not in ran.target.log
        assert (
            f"UPSTREAM_PASSES_WITHOUT_LIST_EMULATED={files.LIST}:{stale_key} (recheck on hardware)"
            in ran.target.log
        )
    else:
        assert f"UPSTREAM_STALE_ENTRY={files.LIST}:{stale_key}" in ran.target.log
    if ran.dev.emulated:
        # CPU kernels under an emulated npu say nothing of the hardware: found, said, not a failure;
        # the test whose fixture module the repo lacks did not start, so what passed is no full pass
        assert ran.target.result == "PARTIAL" and ran.code == 1
        assert [x.test for x in ran.target.missed] == [
            f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases"
        ]
        assert "EMULATED=npu emulated on CPU" in ran.target.log
        assert "UPSTREAM_DEVICE=npu (emulated on CPU)" in ran.target.log
    else:
        assert ran.target.result == "FAIL" and ran.code == 1  # strict-xfail style


def test_a_missing_fixture_module_is_named(ran: Ran) -> None:
    t = ran.test(f"{files.NEEDS_FIXTURE}::TestNeedsFixture::test_set_grad_enabled_clone_cases")
    assert t.status == "not_started" and t.why is not None
    assert t.why.code == "upstream_missing_module_repo"
    assert t.why.args == {
        "path": "test/fixture_helpers/grad_cases.py",
        "module": "fixture_helpers.grad_cases",
    }
    (_, f) = ran.target.files
    assert (
        f.missing is not None
        and f.missing.name == "fixture_helpers.grad_cases"
        and f.missing.in_repo
    )
    # the file's own command ran too: it stops at the import, as a reviewer would see it
    (r,) = [x for x in ran.target.runs if x.file == files.NEEDS_FIXTURE]
    assert "No module named 'fixture_helpers.grad_cases'" in r.output and r.exit_code == 1


def test_the_evidence_log_states_the_exact_command(ran: Ran, tmp_path: Path) -> None:
    log = ran.target.log
    assert "===== UPSTREAM TESTS =====" in log and f"RESULT={ran.target.result}" in log
    assert (ran.root / "out").glob("*.log") and next(
        (ran.root / "out").glob("*.log")
    ).read_text() == log
    assert f"DISABLED_LIST={files.LIST},sha256:" in log
    commands = re.findall(r"^COMMAND=(.*)$", log, re.M)
    prefix = (
        " ".join(
            ["env -u PYTHONPATH -u CI -u DISABLED_TESTS_FILE PYTHONNOUSERSITE=1", *ran.dev.environ]
        )
        + " "
    )
    assert commands and all(c.startswith(prefix) for c in commands)
    first = commands[0]
    m = re.match(re.escape(prefix) + r"(\S+) (\S+) ", first)
    assert m is not None and m.group(1) == sys.executable
    c, d = f"TestGradModeClone{ran.dev.suffix}", ran.dev.type
    assert first.endswith(
        f" {c}.test_set_grad_enabled_clone_{d} {c}.test_set_grad_enabled_clone_skips_{d} "
        "TestPlain.test_plain_clone -v"
    )
    # replayed by hand in the ref's own files, the command runs the same three tests (on the emulated npu
    # too: the file does not import torch_npu, PyTorch's backend autoload does, from the PYTHONPATH entry)
    tree = Path(m.group(2)).parents[1]
    data = subprocess.run(
        ["git", "-C", str(ran.repo), "archive", "HEAD", "test"], check=True, capture_output=True
    ).stdout
    tarfile.open(fileobj=io.BytesIO(data)).extractall(tmp_path / "tree", filter="data")
    replay = first.replace(str(tree), str(tmp_path / "tree"))
    out = subprocess.run(["bash", "-c", replay], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "Ran 3 tests" in out.stderr, out.stderr[-2000:]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("kind", ["pr", "comment"])
def test_the_pr_and_comment_show_the_part(ran: Ran, tmp_path: Path, kind: str, lang: str) -> None:
    out = tmp_path / f"{kind}.{lang}.md"
    assert (
        main(
            [
                "report",
                "1",
                "--kind",
                kind,
                "--lang",
                lang,
                "--store",
                str(ran.store),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    head = {
        "zh": {"pr": "## PyTorch 官方用例", "comment": "### PyTorch 官方用例"},
        "en": {"pr": "## PyTorch official tests", "comment": "### PyTorch official tests"},
    }[lang][kind]
    assert head in text
    for t in ran.target.tests:
        assert f"`{t.test}`" in text
    assert f"`{files.KEYS[ran.dev.type][0]}`" in text and f"`{files.HOLDS_REASON}`" in text
    assert "`fixture_helpers.grad_cases`" in text and "`test/fixture_helpers/grad_cases.py`" in text
    said = {
        "zh": ["已禁用", "未启动", "用例自身跳过", "通过", "禁用清单移除其中 4 个"],
        "en": [
            "disabled",
            "not started",
            "skipped by the test",
            "passed",
            "the disabled list removes 4 of them",
        ],
    }
    for word in said[lang]:
        assert word in text
    if kind == "pr":
        assert "-u DISABLED_TESTS_FILE" in text  # the commands, as run
    _one_language(text, lang, [ran.run])
