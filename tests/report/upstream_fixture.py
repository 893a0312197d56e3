"""An upstream stage's record for the report tests: every status, quoted English reasons, a stale entry."""

from __future__ import annotations

from torchparity.phrases import phrase
from torchparity.records import Note, UpstreamRecord
from torchparity.records.upstream import (
    DisabledEntry,
    Missing,
    UpstreamFile,
    UpstreamRun,
    UpstreamTarget,
    UpstreamTest,
)

API = "torch.autograd.grad_mode.set_multithreading_enabled.clone"
FILE = "test/test_autograd.py"
OFFICIAL = f"{FILE}::TestMultithreadAutograd::test_set_multithreading_enabled_as_context_manager_and_function"
GENERIC = f"{FILE}::TestAutogradDeviceType::test_multithreading_clone"
LIST = "test/unsupported_test_cases/.pytorch-disabled-tests.json"
KEY = "test_multithreading_clone_npu (__main__.TestAutogradDeviceTypePRIVATEUSE1)"
STALE = "test_multithreading_clone_npu_float64 (__main__.TestAutogradDeviceTypeNPU)"
NOTE = "官方测试因精简源码缺少 test/test_autograd.py 未启动"


def _t(test: str, id_: str, status: str, **more: object) -> UpstreamTest:
    return UpstreamTest(
        test=test, file=FILE, id=id_, selector=id_.split(".", 1)[-1], status=status, **more
    )  # type: ignore[arg-type]


def _target(
    env: str, device: str, tests: tuple[UpstreamTest, ...], **more: object
) -> UpstreamTarget:
    fields: dict[str, object] = {
        "files": (
            UpstreamFile(FILE, "b" * 64, "unittest", tests_for_device=632, disabled_for_device=44),
        ),
        "runs": (
            UpstreamRun(
                FILE,
                "run",
                f"env -u PYTHONPATH -u CI PYTHONNOUSERSITE=1 /py {FILE} "
                "TestMultithreadAutograd.test_x -v",
                "child",
                "OK",
                0,
                "OK\n",
            ),
        ),
        **more,
    }
    return UpstreamTarget(
        label=f"v2.7.1@{env}",
        source="backend",
        ref="v2.7.1",
        commit="a" * 40,
        env=env,
        python="/py",
        device=device,
        torch_version="2.7.1+cpu",
        platform="Ascend910B3;Linux",
        disabled_list=LIST,
        disabled_entries=32068,
        tests=tests,
        **fields,
    )  # type: ignore[arg-type]


def upstream_record(emulated: str = "") -> UpstreamRecord:
    held = DisabledEntry(
        KEY,
        LIST,
        "the kernel is not implemented for double on this chip",
        ("disabled during the move from one chip to the next",),
        "DTYPE",
        "double is not supported there",
        "some data types cannot be supported",
    )
    stale = DisabledEntry(STALE, LIST, "", ("A2",))
    missing = Note.of("upstream_missing_module_env", module="torch_npu")
    a2 = _target(
        "a2",
        "npu",
        (
            _t(
                OFFICIAL,
                "__main__.TestMultithreadAutograd.test_set_multithreading_enabled_as_context_manager_and_function",
                "passed",
                outcome="passed",
            ),
            _t(
                GENERIC,
                "__main__.TestAutogradDeviceTypePRIVATEUSE1.test_multithreading_clone_npu_float32",
                "disabled",
                entry=held,
                rechecked="failed",
                device_type="npu",
            ),
            _t(
                GENERIC,
                "__main__.TestAutogradDeviceTypePRIVATEUSE1.test_multithreading_clone_npu_float64",
                "disabled",
                entry=stale,
                rechecked="passed",
                device_type="npu",
            ),
        ),
        result="PASS" if emulated else "FAIL",
        emulated=emulated,
    )
    a3 = _target(
        "a3",
        "cpu",
        (
            _t(OFFICIAL, "", "not_started", why=missing, detail=phrase(missing)),
            _t(
                GENERIC,
                "",
                "skipped",
                outcome="skipped",
                detail="only runs when two devices are present",
            ),
        ),
        result="NOT_RUN",
        files=(UpstreamFile(FILE, "b" * 64, "unittest", missing=Missing("module", "torch_npu")),),
    )
    a5 = UpstreamTarget(
        label="v2.7.1@a5",
        source="backend",
        ref="v2.7.1",
        commit="a" * 40,
        env="a5",
        python="/py",
        device="npu",
        result="ERROR",
        error="the environment probe ended before it could answer",
    )
    return UpstreamRecord(api=API, selection="related", recheck=True, targets=(a2, a3, a5))
