"""What a file lacked, and a selector's outcome among the runner's reports (no interpreter)."""

from __future__ import annotations

from pathlib import Path

from torchparity.records.target import TestOutcome
from torchparity.upstream.target import missing_note, missing_of, outcome_for


def test_a_missing_module_of_the_test_tree_names_the_file_the_repo_lacks(tmp_path: Path) -> None:
    (tmp_path / "test" / "autograd").mkdir(parents=True)
    m = missing_of(
        {"kind": "module", "name": "autograd.test_complex", "detail": "ModuleNotFoundError"},
        "test/test_autograd.py",
        tmp_path,
    )
    assert (m.in_repo, m.path) == (True, "test/autograd/test_complex.py")
    assert missing_note(m).args == {
        "path": "test/autograd/test_complex.py",
        "module": "autograd.test_complex",
    }
    env = missing_of({"kind": "module", "name": "torch_npu"}, "test/test_autograd.py", tmp_path)
    assert (env.in_repo, missing_note(env).code) == (False, "upstream_missing_module_env")


def test_a_missing_file_is_named_relative_to_the_repo(tmp_path: Path) -> None:
    m = missing_of(
        {"kind": "file", "name": str(tmp_path / "test" / "expect" / "x.expect")},
        "test/test_jit.py",
        tmp_path,
    )
    assert (m.name, m.in_repo, missing_note(m).code) == (
        "test/expect/x.expect",
        True,
        "upstream_missing_file",
    )
    assert (
        missing_note(
            missing_of(
                {"kind": "exit", "name": "SystemExit", "detail": "exits (code 0)"},
                "test/t.py",
                tmp_path,
            )
        ).code
        == "upstream_file_error"
    )


def test_a_selectors_outcome() -> None:
    got = {
        ("TestFooCPU", "test_x_cpu"): TestOutcome("__main__.TestFooCPU.test_x_cpu", "passed"),
        ("test_p.py", "test_y[1]"): TestOutcome("test_p.py::test_y[1]", "passed"),
        ("test_p.py", "test_y[2]"): TestOutcome("test_p.py::test_y[2]", "failed"),
    }
    assert outcome_for("TestFooCPU.test_x_cpu", got) == got[("TestFooCPU", "test_x_cpu")]
    # a pytest node id for parametrized cases, named from another rootdir: the worst of them
    found = outcome_for("test/test_p.py::test_y", got)
    assert found is not None and found.outcome == "failed"
    assert outcome_for("TestFooCPU.test_z_cpu", got) is None


def test_a_run_that_stopped_before_its_runner_says_the_files_own_error() -> None:
    from torchparity.exec import JobResult
    from torchparity.upstream.target import _unreported

    res = JobResult(
        "upstream_run",
        "FAIL",
        1,
        None,
        1.0,
        'Traceback (most recent call last):\n  File "test_torch.py", line 10714\n'
        "AttributeError: module 'torch_npu.npu' has no attribute 'config'\n",
        result={"runner": {"kind": "", "sessions": 0, "finished": 0, "tests_run": 0}},
    )
    note = _unreported(res)
    assert note.code == "upstream_no_runner"
    assert note.args["detail"] == "AttributeError: module 'torch_npu.npu' has no attribute 'config'"
    started = JobResult(
        "upstream_run", "CRASH", None, 9, 1.0, "", result={"runner": {"sessions": 1, "finished": 0}}
    )
    assert _unreported(started).code == "upstream_unreported_signal"


def test_a_run_that_ended_without_an_exit_code_says_how_it_ended() -> None:
    """An exit code when there is one; a signal's name, or that there was none, never an empty or an
    English ``none`` in its place."""
    from torchparity.exec import JobResult
    from torchparity.phrases import phrase
    from torchparity.upstream.target import _unreported

    runner = {"runner": {"sessions": 1, "finished": 0}}
    said = {}
    for exit_code, sig in ((3, None), (None, 9), (None, None)):
        res = JobResult("upstream_run", "CRASH", exit_code, sig, 1.0, "", result=runner)
        note = _unreported(res)
        said[(exit_code, sig)] = (note.code, phrase(note, "zh", markdown=True), phrase(note, "en"))
    assert said == {
        (3, None): (
            "upstream_unreported",
            "运行器没有报告该用例（运行结束状态 `CRASH`，退出码 3）",
            "the runner did not report it (the run ended CRASH, exit code 3)",
        ),
        (None, 9): (
            "upstream_unreported_signal",
            "运行器没有报告该用例（运行结束状态 `CRASH`，被信号 `SIGKILL` 终止）",
            "the runner did not report it (the run ended CRASH, killed by SIGKILL)",
        ),
        (None, None): (
            "upstream_unreported_no_exit",
            "运行器没有报告该用例（运行结束状态 `CRASH`，没有退出码）",
            "the runner did not report it (the run ended CRASH with no exit code)",
        ),
    }
