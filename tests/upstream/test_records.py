"""The UpstreamRecord: lossless through JSON and the store, its stale entries and results."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from torchparity.records import Note, UpstreamRecord
from torchparity.records.upstream import (
    DisabledEntry,
    Missing,
    UpstreamFile,
    UpstreamRun,
    UpstreamTarget,
    UpstreamTest,
)
from torchparity.store import Store, put, read_run
from torchparity.upstream.target import result_of

ENTRY = DisabledEntry(
    "test_x (__main__.TestFooCPU)",
    "test/list.json",
    "no float64",
    ("A2",),
    "DTYPE",
    "f64",
    "some data types cannot be supported",
)


def _test(
    i: str, status: str, rechecked: str = "", entry: DisabledEntry | None = ENTRY
) -> UpstreamTest:
    return UpstreamTest(
        test="test/test_foo.py::TestFoo::test_x",
        file="test/test_foo.py",
        id=f"__main__.TestFooCPU.test_x_cpu_{i}",
        selector=f"TestFooCPU.test_x_cpu_{i}",
        status=status,
        entry=entry if status == "disabled" else None,
        rechecked=rechecked,
        device_type="cpu",
    )


def _target(*tests: UpstreamTest) -> UpstreamTarget:
    return UpstreamTarget(
        label="master@a2",
        source="backend",
        ref="master",
        commit="c" * 40,
        env="a2",
        python="/py",
        device="cpu",
        torch_version="2.13.0+cpu",
        platform=";Linux",
        disabled_list="test/list.json",
        disabled_entries=3,
        files=(
            UpstreamFile(
                "test/test_foo.py", "s" * 64, "unittest", tests_for_device=8, disabled_for_device=2
            ),
            UpstreamFile(
                "test/test_bar.py",
                "t" * 64,
                "unittest",
                missing=Missing(
                    "module", "helpers.cases", "ModuleNotFoundError", True, "test/helpers/cases.py"
                ),
            ),
        ),
        tests=tests,
        runs=(
            UpstreamRun(
                "test/test_foo.py",
                "run",
                "env ... python test_foo.py -v",
                "child",
                "OK",
                0,
                "ok\n",
                ("TestFooCPU.test_x_cpu_float32",),
                "unittest",
                1,
                1,
                1,
            ),
        ),
    )


def test_the_record_is_lossless_through_json_and_the_store(tmp_path: Path) -> None:
    missing = UpstreamTest(
        test="test/test_bar.py::TestBar::test_y",
        file="test/test_bar.py",
        id="",
        selector="",
        status="not_started",
        why=Note.of("upstream_missing_module_repo", path="p", module="m"),
    )
    rec = UpstreamRecord(
        api="torch.x",
        selection="related",
        recheck=True,
        targets=(
            _target(_test("float32", "passed"), _test("float64", "disabled", "passed"), missing),
        ),
    )
    assert UpstreamRecord.from_json(rec.to_json()) == rec
    store = Store(tmp_path / "store")
    run = store.new_run("upstream", ["upstream", "torch.x"])
    put(store, rec, run, "torch.x")
    store.finish_run(run, "PASS")
    assert read_run(store, run).upstream == rec


def test_an_entry_is_stale_when_every_test_it_disables_passed() -> None:
    both = _target(_test("float32", "disabled", "passed"), _test("float64", "disabled", "passed"))
    assert both.stale == (ENTRY,)
    one_fails = _target(
        _test("float32", "disabled", "passed"), _test("float64", "disabled", "failed")
    )
    assert one_fails.stale == ()
    assert _target(_test("float32", "disabled")).stale == ()  # not rechecked


def test_results() -> None:
    assert result_of(_target(_test("a", "passed"), _test("b", "skipped"))) == "PASS"
    assert result_of(_target(_test("a", "passed"), _test("b", "failed"))) == "FAIL"
    assert result_of(_target(_test("a", "disabled"), _test("b", "not_started"))) == "NOT_RUN"
    # strict-xfail style: a stale entry fails the target
    assert result_of(_target(_test("a", "passed"), _test("b", "disabled", "passed"))) == "FAIL"
    rec = UpstreamRecord(
        api="x",
        selection="direct",
        targets=(
            replace(_target(), result="PASS"),
            replace(_target(), label="v2@a2", result="NOT_RUN"),
        ),
    )
    assert rec.result == "PASS"


def test_tests_that_apply_here_and_did_not_start_make_a_pass_partial() -> None:
    """Three tests passed, the four whose file lacks a module never started: not a pass. A test with
    no instance for the device, or OpInfo instances of other operators, does not apply here."""
    missing = Note.of("upstream_missing_module_env", module="expecttest")
    not_here = (
        Note.of("upstream_no_instance", device="cpu", devices="cuda"),
        Note.of("upstream_opinfo_other", count=540),
    )
    passed = [_test(f"p{i}", "passed") for i in range(3)]
    started_none = [replace(_test(f"m{i}", "not_started"), why=missing) for i in range(4)]
    partial = _target(*passed, *started_none)
    assert partial.missed == tuple(started_none) and result_of(partial) == "PARTIAL"
    elsewhere = [replace(_test(f"n{i}", "not_started"), why=w) for i, w in enumerate(not_here)]
    assert result_of(_target(*passed, *elsewhere)) == "PASS"
    # one target passed, another ran none of the tests that apply there: the record is no pass either
    none_ran = replace(_target(*started_none), label="v2@a3", result="NOT_RUN")
    rec = UpstreamRecord(
        api="x", selection="direct", targets=(replace(_target(*passed), result="PASS"), none_ran)
    )
    assert rec.result == "PARTIAL"
    assert replace(rec, targets=(replace(partial, result="PARTIAL"),)).result == "PARTIAL"


def test_a_stale_entry_on_an_emulated_device_does_not_fail_the_target() -> None:
    emulated = replace(
        _target(_test("a", "passed"), _test("b", "disabled", "passed")), emulated="npu"
    )
    assert emulated.stale == (ENTRY,) and result_of(emulated) == "PASS"


def test_a_run_of_only_official_tests_says_so_in_the_conclusion(tmp_path: Path) -> None:
    from torchparity.report import render
    from torchparity.report.build import build_report

    store = Store(tmp_path / "store")
    run = store.new_run("upstream", ["upstream", "torch.x"])
    put(
        store,
        UpstreamRecord(
            api="torch.x", selection="direct", targets=(_target(_test("float32", "passed")),)
        ),
        run,
        "torch.x",
    )
    store.finish_run(run, "PASS")
    model = build_report([read_run(store, run)])
    zh, en = render(model, "comment", "zh"), render(model, "comment", "en")
    assert "本次只运行了 PyTorch 官方用例" in zh and "没有运行记录。" not in zh
    assert "ran only PyTorch's official tests" in en and "there is no run record." not in en


def test_the_verbs_table_names_an_emulated_target_as_emulated() -> None:
    from rich.console import Console

    from torchparity.cli.upstream import _table

    def shown(rec: UpstreamRecord) -> str:
        console = Console(width=200, record=True, file=open("/dev/null", "w"))
        console.print(_table(1, rec))
        return console.export_text()

    real = UpstreamRecord(
        api="torch.x", selection="direct", targets=(_target(_test("float32", "passed")),)
    )
    emulated = replace(real, targets=(replace(real.targets[0], emulated="npu"),))
    assert "EMULATED" not in shown(real)
    text = shown(emulated)
    assert "(EMULATED npu on CPU)" in text and "a dry run, not hardware evidence" in text
    assert f"{emulated.result} (emulated)" in text
