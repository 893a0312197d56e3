"""The "PyTorch 官方用例" part says what became of the official tests, each target in a line of its own.

A test the runner never reported says how the run ended: its exit code, the signal that killed it, or
that it had none (never an empty ``退出码 ）``, also from a record written before that was said). A
target where tests passed while others that apply there did not start is partly run, not a pass.
"""

from __future__ import annotations

from dataclasses import replace

from tests.report.report_fixtures import Fixture
from tests.report.upstream_fixture import upstream_record
from torchparity.records import Note, RunRecords, UpstreamRecord
from torchparity.records.upstream import UpstreamTest
from torchparity.report import build_report, render
from torchparity.store import read_run
from torchparity.upstream.evidence import section
from torchparity.upstream.target import result_of

FILE = "test/test_binary_ufuncs.py"


def _test(name: str, status: str, why: Note | None = None) -> UpstreamTest:
    return UpstreamTest(
        test=f"{FILE}::TestBinaryUfuncs::{name}",
        file=FILE,
        id=f"__main__.TestBinaryUfuncsCPU.{name}_cpu" if status != "not_started" else "",
        selector=f"TestBinaryUfuncsCPU.{name}_cpu",
        status=status,
        outcome="passed" if status == "passed" else "",
        why=why,
    )


def _runs(fx: Fixture, *tests: UpstreamTest) -> tuple[list[RunRecords], UpstreamRecord]:
    (a2, *_) = upstream_record().targets
    target = replace(a2, tests=tests, emulated="")
    target = replace(target, result=result_of(target))
    rec = UpstreamRecord(api="torch.special.xlog1py", selection="direct", targets=(target,))
    runs = [read_run(fx.store, i) for i in fx.runs]
    return [replace(runs[0], upstream=rec), *runs[1:]], rec


def test_a_test_the_runner_never_reported_says_how_the_run_ended(fixture_full: Fixture) -> None:
    # the first two as records before this change wrote them (no exit code: "", or "none")
    notes = {
        "test_a": Note.of("upstream_unreported", status="CRASH", exit_code=""),
        "test_b": Note.of("upstream_unreported", status="TIMEOUT", exit_code="none"),
        "test_c": Note.of("upstream_unreported", status="CRASH", exit_code="SIGSEGV"),
        "test_d": Note.of("upstream_unreported_no_exit", status="TIMEOUT"),
        "test_e": Note.of("upstream_unreported", status="FAIL", exit_code="1"),
    }
    runs, _ = _runs(fixture_full, *(_test(n, "not_started", w) for n, w in notes.items()))
    model = build_report(runs)
    for kind in ("pr", "comment"):
        zh, en = render(model, kind, "zh"), render(model, kind, "en")
        for empty in ("退出码 ）", "退出码 none", "退出码 None", "退出码 SIG"):
            assert empty not in zh, (kind, empty)
        for empty in ("exit code )", "exit code none", "exit code None", "exit code SIG"):
            assert empty not in en, (kind, empty)
        assert "运行结束状态 `CRASH`，被信号 `SIGSEGV` 终止" in zh and "退出码 1）" in zh
        assert zh.count("，没有退出码）") == 3  # test_a, test_b, test_d
        assert "killed by `SIGSEGV`" in en and en.count(" with no exit code)") == 3


def test_a_few_passed_tests_beside_tests_that_did_not_start_are_no_pass(
    fixture_full: Fixture,
) -> None:
    """xlog1py's direct tests cannot start (a name their file imports is missing); three other tests
    ran and passed. The part, the record and the evidence log say partly run, never PASS."""
    missing = Note.of("upstream_missing_name", module="torch.testing._internal.common_utils")
    tests = [_test(f"test_sample_{i}", "passed") for i in range(3)]
    tests += [_test(f"test_xlog1py_{i}", "not_started", missing) for i in range(4)]
    runs, rec = _runs(fixture_full, *tests)
    (target,) = rec.targets
    assert (target.result, rec.result, len(target.missed)) == ("PARTIAL", "PARTIAL", 4)
    assert "UPSTREAM_RESULT=PARTIAL" in section(target)
    model = build_report(runs)
    assert model.official is not None and model.official["result"] == "PARTIAL"
    for lang, line, not_said in (
        (
            "zh",
            "- v2.7.1@a2：部分运行，不能算作通过（通过 3，未启动 4；其中 4 个适用于本环境的用例未启动，"
            "已通过的用例不能算作官方用例通过）",
            "全部通过",
        ),
        (
            "en",
            "- v2.7.1@a2: partly run, not a pass (passed 3, not started 4; 4 of the tests that apply "
            "here did not start, so those that passed are no pass of the official tests)",
            "every test passed",
        ),
    ):
        for kind in ("pr", "comment"):
            text = render(model, kind, lang)
            assert line in text and not_said not in text, (kind, lang)
