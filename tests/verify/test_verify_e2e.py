"""verify end to end: a fixture backend repo (two branches), a docs folder missing one
version's entry, two environments (this interpreter and a venv the test creates)."""

from __future__ import annotations

import json
import re
import site
import sys
import textwrap
import venv
from pathlib import Path

import pytest

from tests.conftest import git
from tests.docs.docs_pages import torch_page
from torchparity.cli import main
from torchparity.store import Store, read_run

# The real end-to-end runs (slow tier) start interpreters with torch; the others answer the agent from
# recordings of those interpreters (the `agent` fixture, tests/fakeagent.py) and run in milliseconds.

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
MT_API = "torch.autograd.grad_mode.set_multithreading_enabled.clone"

# a backend test that uses set_grad_enabled but never clone(): related, not direct
EXISTING = """
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestLDGComputation(TestCase):
    def test_set_grad_enabled(self):
        with torch.set_grad_enabled(False):
            self.assertFalse(torch.is_grad_enabled())


if __name__ == "__main__":
    run_tests()
"""


@pytest.fixture(scope="module")
def second_python(tmp_path_factory) -> str:
    """A second environment: a new venv that sees this interpreter's torch through a .pth file."""
    home = tmp_path_factory.mktemp("env2")
    venv.EnvBuilder(with_pip=False).create(home / "venv")
    purelib = next((home / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "torchparity_tests.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return str(home / "venv" / "bin" / "python")


def _backend_repo(tmp_path: Path, make_repo, second_python: str) -> Path:
    config = textwrap.dedent(f'''
        device = "cpu"
        test_roots = ["test"]
        active_branches = ["master", "v2.7.1"]
        maintenance_branches = ["v2.9.0"]
        maintenance_reason = "in maintenance: takes no new tests"

        [envs.main]
        python = "{sys.executable}"
        hardware = "CPU host"

        [envs.second]
        python = "{second_python}"
        hardware = "CPU host (second venv)"

        [docs]
        root = "docs/zh/api/native_api"
        [[docs.products]]
        code = "910b"
        name = "Atlas A2训练系列产品"
        aliases = ["Atlas A2 训练系列产品"]
        [[docs.products]]
        code = "A3"
        name = "Atlas A3训练系列产品"
        aliases = ["Atlas A3 训练系列产品"]
        [[docs.products]]
        code = "950"
        name = "Ascend 950DT系列产品"
        aliases = ["Ascend 950DT"]
    ''')
    docs = "docs/zh/api/native_api"
    return make_repo(
        {
            "master": {
                "torchparity.toml": config,
                "test/npu/test_locally_disabling_gradient.py": EXISTING,
                f"{docs}/pytorch_2-7-1/torch.md": torch_page("table", "2.7.1", with_clone=True),
                f"{docs}/pytorch_2-11-0/torch.md": torch_page("list", "2.11.0", with_clone=False),
            },
            "v2.7.1": {"test/npu/test_other.py": "X = 1\n"},
        }
    )


@pytest.mark.slow
def test_verify_on_a_fixture_backend_repo(tmp_path, make_repo, second_python, capsys):
    repo = _backend_repo(tmp_path, make_repo, second_python)
    out = tmp_path / "out"
    store = tmp_path / "store"
    rc = main(["verify", API, "--repo", str(repo), "--out", str(out), "--store", str(store)])
    captured = capsys.readouterr()
    # the docs folder misses the entry in 2.11.0: that blocks, and says so
    assert rc == 1, captured.out + captured.err
    assert (
        "docs: no entry for torch.autograd.grad_mode.set_grad_enabled.clone in 2.11.0"
        in captured.out
    )
    st = Store(store)
    (run,) = st.runs()
    targets = {t.label: t.result for t in st.targets(run.id)}
    assert targets == {
        "master@main": "PASS",
        "master@second": "PASS",
        "v2.7.1@main": "PASS",
        "v2.7.1@second": "PASS",
    }

    # coverage found no direct test, so a test was scaffolded and run from the worktrees
    cov = read_run(st, run.id).coverage
    assert cov is not None and [len(r.direct) for r in cov.refs] == [0, 0]
    assert any("test_set_grad_enabled" in t.test for t in cov.refs[0].related)
    logs = [st.blobs.read(t.log_sha).decode() for t in st.targets(run.id)]
    for log in logs:
        assert "GRAD MODE ISOLATION PROBE" in log and "GRAD_MODE_ISOLATION_PROBE=PASS" in log
        assert "===== DISPATCH TRACE =====" in log
        assert "is not committed at" in log
    assert git(repo, "status", "--porcelain") == ""  # the scaffolded test is a patch, not a change
    patch = Path(next(out.glob("*.patch")))
    assert "new file mode" in patch.read_text()
    assert git(repo, "apply", "--check", str(patch)) == ""

    # reports written
    pr = (out / "pr.zh.md").read_text()
    for section in (
        "【合入来源】",
        "【社区用例检索与新增必要性】",
        "【资料变更】",
        "【功能验证】",
        "【CheckList】",
    ):
        assert section in pr
    assert "ISOLATION_RESULT=initial:False,before:False,after:False" in pr
    comment = (out / "comment.zh.md").read_text()
    assert "CPU host (second venv)" in comment
    model = json.loads((out / "report.json").read_text())
    assert model["api"] == API or model.get("canonical") == API or API in json.dumps(model)
    assert (out / "junit.xml").read_text().count("<testsuite ") == 4

    # --docs-add adds the missing entry like its parent; then everything passes
    rc = main(
        ["verify", API, "--repo", str(repo), "--out", str(out), "--store", str(store), "--docs-add"]
    )
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    page = (repo / "docs/zh/api/native_api/pytorch_2-11-0/torch.md").read_text()
    assert re.search(r'<font size="3">clone\(\)</font>', page)
    assert "RESULT" in captured.out and "PASS" in captured.out


def test_maintenance_branch_is_refused(agent, tmp_path, make_repo, second_python, capsys):
    repo = _backend_repo(tmp_path, make_repo, second_python)
    rc = main(
        ["verify", API, "--repo", str(repo), "--ref", "v2.9.0", "--store", str(tmp_path / "s")]
    )
    assert rc == 2
    assert (
        "v2.9.0 is a maintenance branch (in maintenance: takes no new tests)"
        in capsys.readouterr().err
    )


@pytest.mark.slow
@pytest.mark.parametrize("api", [API, MT_API])
def test_seed_apis_verify_with_the_embedded_default(tmp_path, monkeypatch, capsys, api):
    monkeypatch.chdir(tmp_path)
    rc = main(["verify", api, "--python", sys.executable])
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    st = Store(tmp_path / ".torchparity")
    (run,) = st.runs()
    assert run.result == "PASS" and run.kind == "verify"
    resolve = read_run(st, run.id).resolve
    assert resolve is not None and resolve.classification.category == "python-state"
    slug = api.split(".")[-2] + "_clone"
    pr = (tmp_path / "torchparity-out" / slug / "pr.zh.md").read_text()
    assert "【功能验证】" in pr and "RESULT=PASS" in pr


@pytest.mark.slow
def test_every_stage_runs_in_one_warm_worker(tmp_path, monkeypatch):
    """resolve, the scaffold's facts, the probe, the file, the isolation probe and the trace: one
    interpreter imported torch for all of them, and every step's log names that same worker."""
    from torchparity.collect import EnvSpec
    from torchparity.config import load_config
    from torchparity.verify import Pipeline, VerifyOptions
    from torchparity.verify.shared import Shared, pool_for

    monkeypatch.chdir(tmp_path)
    cfg = load_config(None, None)
    env = EnvSpec("python", sys.executable)
    store = Store(tmp_path / ".torchparity")
    pool = pool_for(cfg, [env], mode="warm", workers=1, ray_address=None, repo=None)
    shared = Shared(store, pool, test_roots=cfg.test_roots, owns_pool=False)
    try:
        verdict = Pipeline(store, cfg, VerifyOptions(api=API, envs=[env]), shared=shared).run()
        assert verdict.passed, verdict.blockers
        runner = pool.runner_for(env, "auto")
        assert pool.started == 1 and runner._counter >= 6  # type: ignore[attr-defined]
    finally:
        shared.close()
        pool.close()
    (rec,) = verdict.records
    steps = [rec.probe, *rec.full, *rec.isolation, *rec.trace]
    workers = {re.search(r"warm worker pid (\d+)", s.how)[1] for s in steps if s is not None}
    assert workers == {str(runner.worker_pid)}  # type: ignore[attr-defined]


def test_verify_twice_on_one_store_and_a_failed_stage_leaves_the_run_incomplete(
    agent, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    assert main(["verify", API, "--python", sys.executable]) == 0
    assert main(["verify", API, "--python", sys.executable]) == 0  # a work folder per run
    # a stage that stops the verify: the run is not left 'running' nor 'complete'
    import torchparity.verify.pipeline as pipeline

    def broken(*args, **kwargs):
        raise pipeline.UsageError("simulated bad input in the docs stage")

    monkeypatch.setattr(pipeline.Pipeline, "_docs", broken)
    assert main(["verify", API, "--python", sys.executable]) == 2
    st = Store(tmp_path / ".torchparity")
    assert [(r.status, r.result) for r in st.runs()] == [
        ("incomplete", "INCOMPLETE"),
        ("complete", "PASS"),
        ("complete", "PASS"),
    ]
    capsys.readouterr()
    (tmp_path / "afile").write_text("x")
    assert main(["verify", API, "--python", sys.executable, "--out", str(tmp_path / "afile")]) == 2
    assert "is a file; pass a folder for the reports" in capsys.readouterr().err


def test_docs_are_read_and_written_under_the_name_pytorch_documents(
    agent, tmp_path, make_repo, second_python, capsys
):
    # torch.Generator's canonical home is torch._C.Generator; the pages say torch.Generator
    repo = _backend_repo(tmp_path, make_repo, second_python)
    common = [
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--env",
        "main",
        "--store",
        str(tmp_path / "store"),
    ]
    main(["verify", "torch.Generator.seed", *common, "--out", str(tmp_path / "o1")])
    captured = capsys.readouterr()
    assert "docs: present in every version" in captured.err
    assert "docs: no entry" not in captured.out
    pages = [repo / f"docs/zh/api/native_api/pytorch_{v}/torch.md" for v in ("2-7-1", "2-11-0")]
    assert not any("manual_seed" in page.read_text() for page in pages)
    main(
        [
            "verify",
            "torch.Generator.manual_seed",
            *common,
            "--out",
            str(tmp_path / "o2"),
            "--docs-add",
        ]
    )
    captured = capsys.readouterr()
    assert "docs: added in 2.7.1, 2.11.0; present in every version" in captured.err
    assert "docs: no entry" not in captured.out
    for page in pages:
        text = page.read_text()
        assert "torch.Generator.html#torch.Generator.manual_seed" in text
        assert "torch._C" not in text


def test_docs_add_nests_under_the_parent_as_the_page_spells_it(
    agent, tmp_path, make_repo, second_python, capsys
):
    # asked as torch.set_grad_enabled.clone; the 2.11.0 page has torch.autograd.grad_mode.set_grad_enabled
    repo = _backend_repo(tmp_path, make_repo, second_python)
    page = repo / "docs/zh/api/native_api/pytorch_2-11-0/torch.md"
    assert "set_grad_enabled.clone" not in page.read_text()
    main(
        [
            "verify",
            "torch.set_grad_enabled.clone",
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--env",
            "main",
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
            "--docs-add",
        ]
    )
    captured = capsys.readouterr()
    assert "docs: added in 2.11.0; present in every version" in captured.err, captured.err
    text = page.read_text()
    assert (
        "torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled.clone"
        in text
    )
    assert "torch.set_grad_enabled.clone" not in text


def test_docs_add_without_a_parent_entry_asks_for_statuses(
    agent, tmp_path, make_repo, second_python, capsys
):
    repo = _backend_repo(tmp_path, make_repo, second_python)
    common = [
        "verify",
        "torch.is_nonzero",
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--env",
        "main",
        "--store",
        str(tmp_path / "store"),
        "--out",
        str(tmp_path / "out"),
        "--docs-add",
    ]
    assert main(common) == 2
    err = capsys.readouterr().err
    assert (
        "--docs-add: the parent torch has no entry in 2.7.1, 2.11.0 to copy statuses from; "
        "pass --docs-status S (e.g. 910b=支持,A3=支持,950=支持)" in err
    )
    assert git(repo, "status", "--porcelain") == ""
    assert main([*common, "--docs-status", "910b=支持,A3=支持,950=不支持"]) == 0
    assert (
        "torch.is_nonzero" in (repo / "docs/zh/api/native_api/pytorch_2-11-0/torch.md").read_text()
    )
    # the texts say the entries were added, not that none was needed
    assert "docs: added in 2.7.1, 2.11.0; present in every version" in capsys.readouterr().err
    pr = (tmp_path / "out" / "pr.zh.md").read_text("utf-8")
    assert "涉及：本次运行为 2.7.1、2.11.0 补齐了条目（见下），随资料 PR 提交。" in pr
    assert "不涉及：各版本资料均已有条目" not in pr


GENERATOR_TEST = """
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


def test_an_existing_test_of_a_member_whose_home_is_private_is_found(
    agent, tmp_path, make_repo, capsys
):
    # tests call torch.Generator().seed(); the canonical name is torch._C.Generator.seed
    repo = make_repo({"master": {"test/test_generator.py": GENERATOR_TEST}})
    rc = main(
        [
            "verify",
            "torch.Generator.seed",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    captured = capsys.readouterr()
    assert "coverage: HEAD: 1 direct" in captured.err, captured.err
    assert "scaffold" not in captured.err
    st = Store(tmp_path / "store")
    (run,) = st.runs()
    (target,) = st.targets(run.id)
    assert "test/test_generator.py" in st.blobs.read(target.log_sha).decode()
    assert rc == 0, captured.out


def test_a_bad_docs_version_is_refused_before_any_work(
    agent, tmp_path, make_repo, second_python, capsys
):
    repo = _backend_repo(tmp_path, make_repo, second_python)
    store = tmp_path / "store"
    rc = main(
        [
            "verify",
            API,
            "--repo",
            str(repo),
            "--docs-version",
            "2.9.0",
            "--docs-version",
            "v2.7.1",
            "--store",
            str(store),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("ERROR: --docs-version 2.9.0: no pytorch_2-9-0 in ")
    assert err.rstrip().endswith("versions there: 2.7.1, 2.11.0")
    assert "resolve" not in err
    assert not store.exists() or Store(store).runs() == []  # no run was started
    rc = main(
        [
            "verify",
            API,
            "--python",
            sys.executable,
            "--docs-version",
            "2.7.1",
            "--store",
            str(store),
        ]
    )
    assert rc == 2
    assert (
        "--docs-version given but there is no docs folder (no --repo); pass --docs DIR"
        in capsys.readouterr().err
    )


def test_verify_takes_the_pr_fields_its_draft_asks_for(agent, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["verify", API, "--python", sys.executable, "--source-type", "feature"]) == 2
    err = capsys.readouterr().err
    assert (
        "Invalid value for '--source-type'" in err
        and "'feature' is not one of 'requirement'" in err
    )
    assert "Traceback" not in err
    rc = main(
        [
            "verify",
            API,
            "--python",
            sys.executable,
            "--source-type",
            "issue",
            "--source-branch",
            "feat/clone-test",
            "--target-branch",
            "master",
        ]
    )
    assert rc == 0, capsys.readouterr().out
    pr = (tmp_path / "torchparity-out" / "set_grad_enabled_clone" / "pr.zh.md").read_text()
    assert "源分支：feat/clone-test" in pr
    assert "未采集（--source-branch）" not in pr and "未指定合入类型" not in pr


def test_the_output_folder_is_named_as_pytorch_documents_the_api(
    agent, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    main(["verify", "torch.cuda.Event", "--python", sys.executable, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert (doc["canonical"], doc["doc_name"]) == ("torch.cuda.streams.Event", "torch.cuda.Event")
    assert (tmp_path / "torchparity-out" / "cuda_event" / "pr.zh.md").is_file()  # not streams_event


def test_files_with_direct_tests_run_those_tests_by_id_and_test_file_runs_one_whole(
    agent, tmp_path, make_repo, capsys
):
    other = GENERATOR_TEST.replace(
        "    def test_generator_seed(self):",
        "    def test_unrelated(self):\n        raise RuntimeError('not the API')\n\n"
        "    def test_generator_seed(self):",
    )
    repo = make_repo(
        {
            "master": {
                f"test/test_gen{i}.py": (other if i == 3 else GENERATOR_TEST) for i in range(6)
            }
        }
    )
    common = [
        "verify",
        "torch.Generator.seed",
        "--repo",
        str(repo),
        "--python",
        sys.executable,
        "--store",
        str(tmp_path / "store"),
        "--out",
        str(tmp_path / "out"),
        "--json",
    ]
    assert main(common) == 0
    doc = json.loads(capsys.readouterr().out)
    st = Store(tmp_path / "store")
    (target,) = st.targets(doc["run_id"])
    (ev,) = read_run(st, doc["run_id"]).targets
    rec = ev.record
    # each file ran only the API's test, by id: the unrelated failing test of test_gen3 never ran
    assert [tf.selection for tf in rec.test_files] == ["id"] * 6
    assert sorted(t.id for t in rec.api_tests) == sorted(
        "__main__.TestGenerator.test_generator_seed" for _ in range(6)
    )
    assert {t.status for t in rec.api_tests} == {"passed"}
    assert not any("test_unrelated" in t.id for s in rec.full for t in s.tests)
    if agent is not None:  # replayed: the jobs asked of the agent name exactly the API's test
        runs = [j for j in agent.asked if j.op == "run_file"]
        assert [j.args["selectors"] for j in runs] == [["TestGenerator.test_generator_seed"]] * 6
        assert runs[3].literal[1:] == [
            runs[3].args["path"],
            "TestGenerator.test_generator_seed",
            "-v",
        ]
    # the task's own file (--test-file) runs whole: its other failing test is listed, not the verdict
    assert main([*common, "--test-file", "test/test_gen3.py"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (target,) = st.targets(doc["run_id"])
    (ev,) = read_run(st, doc["run_id"]).targets
    rec = ev.record
    assert [tf.selection for tf in rec.test_files] == ["whole"]
    assert rec.result == "PASS"
    assert [t.status for t in rec.api_tests] == ["passed"]
    assert rec.unrelated and "test_unrelated (error)" in rec.unrelated[0]
    log = st.blobs.read(target.log_sha).decode()
    assert "test/test_gen3.py" in log and "test_gen0.py" not in log
    assert (
        "UNRELATED_FAILURE=test/test_gen3.py: __main__.TestGenerator.test_unrelated (error)" in log
    )


NPU_EVENT_TESTS = """
import torch
import torch_npu
from torch_npu.testing.testcase import TestCase, run_tests



class TestEvent(TestCase):
    def test_event_query(self):
        event = torch_npu.npu.Event()
        self.assertTrue(event.query())

    def test_event_elapsed_time(self):
        start = torch.npu.Event(enable_timing=True)
        end = torch.npu.Event(enable_timing=True)
        start.record()
        end.record()
        end.synchronize()
        self.assertGreaterEqual(start.elapsed_time(end), 0)


if __name__ == "__main__":
    run_tests()
"""


def test_coverage_counts_the_backend_spelling_the_docs_state(agent, tmp_path, make_repo, capsys):
    # the page says torch.cuda.Event is torch_npu.npu.Event on NPU; the preset says torch.npu is torch_npu.npu
    from tests.docs.docs_pages import cuda_event_page

    config = (
        'preset = "torch_npu"\nbackend_module = ""\ndevice = "cpu"\nactive_branches = ["master"]\n'
    )
    repo = make_repo(
        {
            "master": {
                "torchparity.toml": config,
                "test/npu/test_event.py": NPU_EVENT_TESTS,
                "docs/zh/api/native_api/pytorch_2-11-0/torch-cuda.md": cuda_event_page(),
            }
        }
    )
    main(
        [
            "verify",
            "torch.cuda.Event",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert "coverage: master: 2 direct" in captured.err, captured.err
    doc = json.loads(captured.out)
    assert (
        "coverage counts the backend's spelling too: torch_npu.npu.Event (the docs' NPU 形式名称)"
        in doc["notes"]
    )
    # the backend's own tests need torch_npu, which this environment lacks: they never started, so
    # verify goes on as for an API without tests (a scaffolded test runs in their place)
    assert doc["scaffolded"]["path"] == "test/npu/test_cuda_event.py"
    assert any(
        "which this environment lacks, so their tests never started" in n for n in doc["notes"]
    )


def test_a_test_file_that_needs_a_missing_module_says_what_to_do(
    agent, tmp_path, make_repo, capsys
):
    test = GENERATOR_TEST.replace(
        "import torch\n", "import torch\nimport backend_module_not_here_xyz.sub\n", 1
    )
    repo = make_repo({"master": {"test/test_generator.py": test}})
    rc = main(
        [
            "verify",
            "torch.Generator.seed",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
            "--json",
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert any(
        "the test files import backend_module_not_here_xyz, which this environment lacks, so their "
        "tests never started; verify in an environment that has it (--env/--python)" in n
        for n in doc["notes"]
    ), doc["notes"]
    assert doc["scaffolded"] is not None  # and it went on with a test written for the API
