"""The collector end to end: real git repos, real interpreters with torch, the real store."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.collect import files
from tests.conftest import git
from torchparity.cli import main
from torchparity.collect.evidence import render_log
from torchparity.records import Note
from torchparity.store import Store

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow


TEST = "test/npu/test_grad.py"


def _run(tmp_path: Path, *args: str) -> int:
    return main(["run", *args, "--store", str(tmp_path / "store")])


def _logs(tmp_path: Path, run_id: int = 1) -> dict[str, str]:
    st = Store(tmp_path / "store")
    return {t.label: st.blobs.read(t.log_sha).decode() for t in st.targets(run_id)}


def _records(tmp_path: Path, run_id: int = 1) -> dict[str, dict]:
    st = Store(tmp_path / "store")
    return {t.label: st.read_json(t.record_sha) for t in st.targets(run_id)}


def _keys(log: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in log.splitlines():
        m = re.match(r"^([A-Za-z0-9_.]+)=(.*)$", line)
        if m:
            out.setdefault(m[1], m[2])
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_two_refs_logs_hashes_and_cleanup(tmp_path, make_repo, python_with_torch):
    changed = files.SEED_LIKE.replace(
        "def test_no_grad(self):",
        "def test_no_grad(self):\n        pass\n\n    def test_extra(self):",
    )
    repo = make_repo({"master": {TEST: files.SEED_LIKE}, "v2.7.1": {TEST: changed}})
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--ref",
        "v2.7.1",
        "--python",
        python_with_torch,
    )
    assert rc == 0
    logs = _logs(tmp_path)
    assert set(logs) == {f"master@{python_with_torch}", f"v2.7.1@{python_with_torch}"}
    shas = set()
    for ref in ("master", "v2.7.1"):
        log = logs[f"{ref}@{python_with_torch}"]
        keys = _keys(log)
        blob = subprocess.run(
            ["git", "-C", str(repo), "cat-file", "blob", f"{ref}:{TEST}"],
            capture_output=True,
            check=True,
        ).stdout
        assert keys["TEST_FILE_SHA256"] == hashlib.sha256(blob).hexdigest()
        shas.add(keys["TEST_FILE_SHA256"])
        assert keys["TARGET_BRANCH"] == ref
        assert keys["COMMIT"] == git(repo, "rev-parse", ref)
        assert keys["PYTHON"] == python_with_torch
        assert keys["RUN_MODE"] == "warm-worker"
        for section in (
            "===== ENVIRONMENT PROBE =====",
            "===== FULL TEST FILE =====",
            "===== STATE LEAK CHECK =====",
        ):
            assert section in log
        assert keys["ENVIRONMENT_PROBE_EXIT_CODE"] == "0"
        assert keys["FULL_TEST_EXIT_CODE"] == "0"
        assert keys["COMMAND"].startswith(
            f"env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1 {python_with_torch} "
        )
        assert keys["COMMAND"].endswith(f"{TEST} -v")
        assert keys["torch_version"].startswith("2.13.0")
        assert keys["initial_grad_enabled"] == "True"
        assert keys["RESULT"] == "PASS"
        assert keys[f"{ref}_TEST_COLLECTOR_EXIT_CODE"] == "0"
        assert keys[f"{ref}_WORKTREE_REMOVE_EXIT_CODE"] == "0"
        assert "Ran 3 tests" in log if ref == "master" else "Ran 4 tests" in log
        # the worker and its children are gone
        pid = int(re.search(r"warm worker pid (\d+)", log)[1])
        assert not _alive(pid)
    assert len(shas) == 2  # the file differs between the refs
    assert git(repo, "worktree", "list").count("\n") == 0  # only the main checkout
    rec = _records(tmp_path)[f"v2.7.1@{python_with_torch}"]
    assert [t["outcome"] for t in rec["full"][0]["tests"]] == ["passed"] * 4


def test_failing_test_exits_1(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {"test/test_broken.py": files.FAILING}})
    rc = _run(tmp_path, "test/test_broken.py", "--repo", str(repo), "--python", python_with_torch)
    assert rc == 1
    log = next(iter(_logs(tmp_path).values()))
    keys = _keys(log)
    assert keys["FULL_TEST_EXIT_CODE"] == "1"
    assert keys["RESULT"] == "FAIL"
    rec = next(iter(_records(tmp_path).values()))
    outcomes = {t["id"]: t["outcome"] for t in rec["full"][0]["tests"]}
    assert outcomes == {
        "__main__.TestBroken.test_ok": "passed",
        "__main__.TestBroken.test_wrong": "failed",
    }
    wrong = [t for t in rec["full"][0]["tests"] if t["outcome"] == "failed"][0]
    assert "AssertionError: 1 != 2" in wrong["detail"]


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_timeout_kills_the_whole_process_group(tmp_path, make_repo, python_with_torch, mode):
    repo = make_repo({"master": {"test/test_spawn.py": files.SPAWNS_CHILD}})
    extra = ["--fresh"] if mode == "fresh" else []
    # the test writes its child's pid next to the file in the worktree; keep it by reading the log
    started = time.monotonic()
    # 10 s: the probe itself (interpreter start + import torch) must fit, also on a loaded machine
    rc = _run(
        tmp_path,
        "test/test_spawn.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--timeout",
        "10",
        *extra,
    )
    assert rc == 1
    assert time.monotonic() - started < 60
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["FULL_TEST_STATUS"] == "TIMEOUT signal=SIGKILL"
    assert keys["RESULT"] == "FAIL"
    assert git(repo, "worktree", "list").count("\n") == 0
    # the grandchild (sleep 600) died with the group: no process of it is left
    leftovers = subprocess.run(
        ["pgrep", "-f", "import time; time.sleep(600)"], capture_output=True, text=True
    ).stdout.split()
    assert [p for p in leftovers if _alive(int(p))] == []


def test_crash_is_recorded_with_its_signal(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {"test/test_abort.py": files.ABORTING}})
    rc = _run(
        tmp_path,
        "test/test_abort.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        "--fresh",
    )
    assert rc == 1
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["FULL_TEST_STATUS"] == "CRASH signal=SIGABRT"
    assert keys["FULL_TEST_EXIT_CODE"] == ""


def test_python_without_torch_exits_3(tmp_path, make_repo, python_without_torch, capsys):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    rc = _run(tmp_path, TEST, "--repo", str(repo), "--python", python_without_torch)
    assert rc == 3
    rec = next(iter(_records(tmp_path).values()))
    assert rec["result"] == "ERROR"
    details = [
        n["args"].get("detail", "") for n in rec["notes"] if n["code"] == "environment_broken"
    ]
    assert any("import torch failed" in d and "No module named 'torch'" in d for d in details)
    assert git(repo, "worktree", "list").count("\n") == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["test/missing.py", "--repo", "{repo}"],
            "test file test/missing.py does not exist at HEAD",
        ),
        ([TEST, "--repo", "{repo}", "--ref", "nope"], "unknown ref 'nope'"),
        ([TEST, "--repo", "{tmp}"], "is not a git repository"),
        (
            [TEST, "--repo", "{repo}", "--python", "/no/such/python"],
            "python interpreter not found: /no/such/python",
        ),
        (["missing.py"], "test file not found: missing.py"),
        (
            [TEST, "--repo", "{repo}", "--isolation", "--state", "gradmode"],
            "unknown state 'gradmode'; known states: grad_mode",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, make_repo, capsys, args, message):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    plain = tmp_path / "plain"
    plain.mkdir()
    args = [a.format(repo=repo, tmp=plain) for a in args]
    rc = _run(tmp_path, *args)
    err = capsys.readouterr().err
    assert rc == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ERROR: ") and message in lines[0], err
    assert "Traceback" not in err
    assert git(repo, "worktree", "list").count("\n") == 0


def test_without_repo_uses_files_on_disk(tmp_path, python_with_torch, monkeypatch):
    test_file = tmp_path / "work" / "test_local.py"
    test_file.parent.mkdir()
    test_file.write_text(files.SEED_LIKE)
    monkeypatch.chdir(tmp_path / "work")
    rc = _run(tmp_path, "test_local.py", "--python", python_with_torch)
    assert rc == 0
    keys = _keys(next(iter(_logs(tmp_path).values())))
    assert keys["TARGET_BRANCH"] == "local"
    assert keys["TEST_FILE_SHA256"] == hashlib.sha256(test_file.read_bytes()).hexdigest()
    assert "WORKTREE_REMOVE_EXIT_CODE" not in "".join(_logs(tmp_path).values())


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_ci_in_the_controller_does_not_reach_torch_run_tests(
    tmp_path, make_repo, python_with_torch, monkeypatch, mode
):
    # CI=<anything> turns torch's run_tests into XML-report mode (needs xmlrunner,
    # writes test-reports/): the test must run as a contributor runs it by hand
    monkeypatch.setenv("CI", "true")
    repo = make_repo({"master": {"test/test_torch_runner.py": files.TORCH_RUN_TESTS}})
    extra = ["--fresh"] if mode == "fresh" else []
    rc = _run(
        tmp_path,
        "test/test_torch_runner.py",
        "--repo",
        str(repo),
        "--python",
        python_with_torch,
        *extra,
    )
    log = next(iter(_logs(tmp_path).values()))
    assert rc == 0, log
    assert "-u CI " in _keys(log)["COMMAND"]
    assert not list(repo.rglob("test-reports"))


def test_pytest_style_file(tmp_path, make_repo, python_with_torch):
    repo = make_repo({"master": {"test/test_pyt.py": files.PYTEST_STYLE}})
    rc = _run(tmp_path, "test/test_pyt.py", "--repo", str(repo), "--python", python_with_torch)
    assert rc == 0
    rec = next(iter(_records(tmp_path).values()))
    assert sorted(t["outcome"] for t in rec["full"][0]["tests"]) == ["passed"] * 3


def test_runs_and_show_and_corrupt_log(tmp_path, make_repo, python_with_torch, capsys):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}})
    assert _run(tmp_path, TEST, "--repo", str(repo), "--python", python_with_torch) == 0
    capsys.readouterr()
    assert main(["runs", "--json", "--store", str(tmp_path / "store")]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert runs[0]["id"] == 1 and runs[0]["result"] == "PASS" and runs[0]["status"] == "complete"
    assert main(["show", "1", "--store", str(tmp_path / "store")]) == 0
    shown = capsys.readouterr().out
    assert "===== FULL TEST FILE =====" in shown and "verified" in shown
    # tamper with the stored log: show refuses it as evidence
    st = Store(tmp_path / "store")
    path = st.blobs.path(st.targets(1)[0].log_sha)
    path.chmod(0o644)
    path.write_bytes(path.read_bytes().replace(b"RESULT=PASS", b"RESULT=FAIL"))
    assert main(["show", "1", "--store", str(tmp_path / "store")]) == 3
    err = capsys.readouterr().err
    assert "is corrupt" in err and "cannot be shown as valid" in err
    assert main(["show", "7", "--store", str(tmp_path / "store")]) == 2


@pytest.mark.parametrize("mode", ["warm", "fresh"])
def test_interrupted_run_cleans_up_and_is_marked_incomplete(
    tmp_path, make_repo, python_with_torch, mode
):
    pidfile = tmp_path / "test.pid"
    hangs = files.HANGING.replace(
        "    def test_hang(self):\n",
        f"    def test_hang(self):\n        import os\n        open({str(pidfile)!r}, 'w').write(str(os.getpid()))\n",
    )
    repo = make_repo({"master": {"test/test_hang.py": hangs}})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "torchparity",
            "run",
            "test/test_hang.py",
            "--repo",
            str(repo),
            "--python",
            python_with_torch,
            "--store",
            str(tmp_path / "store"),
        ]
        + (["--fresh"] if mode == "fresh" else []),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # wait until the test itself is running
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (pidfile.exists() and pidfile.read_text()):
        time.sleep(0.1)
    test_pid = int(pidfile.read_text())
    assert _alive(test_pid)
    proc.send_signal(signal.SIGINT if mode == "warm" else signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert git(repo, "worktree", "list").count("\n") == 0
    st = Store(tmp_path / "store")
    run = st.run(1)
    assert run.status == "incomplete" and run.result == "INCOMPLETE"
    targets = st.targets(1)
    assert [t.result for t in targets] == ["INCOMPLETE"]
    # the process that ran the test is gone with its worker, not left behind as an orphan
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(test_pid):
        time.sleep(0.1)
    assert not _alive(test_pid)


def test_maintenance_branch_warns(tmp_path, make_repo, python_with_torch, capsys):
    repo = make_repo({"master": {TEST: files.SEED_LIKE}, "v2.9.0": {}})
    (tmp_path / "cfg.toml").write_text(
        'preset = "torch_npu"\nbackend_module = ""\ndevice = "cpu"\n'
    )
    rc = _run(
        tmp_path,
        TEST,
        "--repo",
        str(repo),
        "--ref",
        "v2.9.0",
        "--python",
        python_with_torch,
        "--config",
        str(tmp_path / "cfg.toml"),
    )
    assert rc == 0
    assert "warning: v2.9.0 is a maintenance branch" in capsys.readouterr().err


def test_overlay_file_runs_in_the_worktree_and_is_noted(tmp_path, make_repo, python_with_torch):
    from torchparity.collect import CollectOptions, Collector, EnvSpec, Target

    repo = make_repo({"master": {"test/other.py": "x = 1\n"}})
    opts = CollectOptions(files=[], repo=repo, envs=[EnvSpec("py", python_with_torch)])
    collector = Collector(Store(tmp_path / "store"), opts)
    commit = git(repo, "rev-parse", "master")
    target = Target(
        "master",
        commit,
        opts.envs[0],
        files=("test/test_new.py",),
        overlay=(("test/test_new.py", files.SEED_LIKE.encode()),),
    )
    outcome = collector.run(["test"], [target])
    rec = outcome.records[0]
    assert rec.result == "PASS"
    assert rec.test_files[0].added and rec.test_files[0].blob_sha256 is None
    assert rec.test_files[0].sha256 == hashlib.sha256(files.SEED_LIKE.encode()).hexdigest()
    assert Note.of("not_committed", path="test/test_new.py", ref="master") in rec.notes
    assert "not committed at master" in render_log(rec)
    assert git(repo, "status", "--porcelain") == ""  # the repo itself is untouched


def test_interrupted_run_resumes_without_redoing_finished_targets(
    tmp_path, make_repo, python_with_torch
):
    marker = tmp_path / "hang-while-this-exists"
    marker.write_text("")
    started = tmp_path / "v2-is-hanging"
    hangs_on_marker = files.HANGING.replace(
        "    def test_hang(self):\n        time.sleep(600)",
        f"    def test_hang(self):\n        import os\n        if os.path.exists({str(marker)!r}):\n"
        f"            open({str(started)!r}, 'w').close()\n            time.sleep(600)",
    )
    repo = make_repo(
        {"master": {"test/t.py": files.SEED_LIKE}, "v2": {"test/t.py": hangs_on_marker}}
    )
    cmd = [
        sys.executable,
        "-m",
        "torchparity",
        "run",
        "test/t.py",
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--ref",
        "v2",
        "--python",
        python_with_torch,
        "--jobs",
        "1",
        "--store",
        str(tmp_path / "store"),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    st = Store(tmp_path / "store")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # master is stored, v2 is hanging
        try:
            if [t.label for t in st.targets(1)] and started.exists():
                break
        except Exception:
            pass
        time.sleep(0.2)
    assert started.exists(), "the v2 target never started its hanging test"
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    before = {t.label: t for t in st.targets(1)}
    assert before[f"master@{python_with_torch}"].result == "PASS"
    assert before[f"v2@{python_with_torch}"].result == "INCOMPLETE"
    marker.unlink()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchparity",
            "run",
            "--resume",
            "1",
            "--store",
            str(tmp_path / "store"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    after = {t.label: t for t in st.targets(1)}
    assert {k: v.result for k, v in after.items()} == {
        f"master@{python_with_torch}": "PASS",
        f"v2@{python_with_torch}": "PASS",
    }
    # the finished target was kept as it was, not run again
    assert (
        after[f"master@{python_with_torch}"].finished
        == before[f"master@{python_with_torch}"].finished
    )
    assert st.run(1).status == "complete" and st.run(1).result == "PASS"
    assert len(st.runs()) == 1


def test_the_summary_counts_files_that_never_ran_a_test(
    tmp_path, make_repo, python_with_torch, capsys
):
    repo = make_repo(
        {"master": {TEST: files.SEED_LIKE, "test/test_broken.py": "import no_such_backend_xyz\n"}}
    )
    rc = _run(
        tmp_path, TEST, "test/test_broken.py", "--repo", str(repo), "--python", python_with_torch
    )
    assert rc == 1
    row = next(line for line in capsys.readouterr().out.splitlines() if "FAIL" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[3:5] == ["1/2", "3/3"]  # files, tests: the import failure is not hidden
