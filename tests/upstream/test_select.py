"""Selecting a template's instances for the device, OpInfo-driven ones by OpInfo, the list applied."""

from __future__ import annotations

import json

from torchparity.config import load_preset
from torchparity.upstream.disabled import DisabledList
from torchparity.upstream.find import PYTEST, UNITTEST, FileCandidates, Wanted
from torchparity.upstream.select import Listing, select
from torchparity.upstream.settings import upstream_settings

PATH = "test/test_foo.py"


def _listing(api_opinfos: tuple[str, ...] = ()) -> Listing:
    classes = [
        {"attr": "TestFooCPU", "name": "TestFooCPU", "generic": "TestFoo", "device_type": "cpu"},
        {
            "attr": "TestFooPRIVATEUSE1",
            "name": "TestFooPRIVATEUSE1",
            "generic": "TestFoo",
            "device_type": "npu",
        },
        {"attr": "TestPlain", "name": "TestPlain", "generic": "TestPlain", "device_type": ""},
        {
            "attr": "TestOnlyNpuPRIVATEUSE1",
            "name": "TestOnlyNpuPRIVATEUSE1",
            "generic": "TestOnlyNpu",
            "device_type": "npu",
        },
    ]
    tests = [
        [0, "test_x_cpu_float32", "test_x", "test_x", ""],
        [0, "test_x_cpu_float64", "test_x", "test_x", ""],
        [1, "test_x_npu_float32", "test_x", "test_x", ""],
        [0, "test_op_add_cpu_float32", "test_op", "test_op_add", "add"],
        [0, "test_op_mul_cpu_float32", "test_op", "test_op_mul", "mul"],
        [2, "test_plain", "test_plain", "test_plain", ""],
        [2, "test_other", "test_other", "test_other", ""],
        [3, "test_y_npu", "test_y", "test_y_npu", ""],
    ]
    return Listing.from_result(
        {"classes": classes, "tests": tests, "api_opinfos": list(api_opinfos)}
    )


def _wanted(*names: str) -> FileCandidates:
    out = FileCandidates(PATH)
    for n in names:
        klass, name = n.split(".")
        out.wanted.append(Wanted(f"{PATH}::{klass}::{name}", PATH, klass, name))
    return out


def test_a_device_generic_template_runs_its_instances_for_the_device_only() -> None:
    sel = select(
        _listing(),
        _wanted("TestFoo.test_x", "TestPlain.test_plain"),
        PATH,
        UNITTEST,
        "cpu",
        None,
        "",
        99,
    )
    assert sel.run == [
        "TestFooCPU.test_x_cpu_float32",
        "TestFooCPU.test_x_cpu_float64",
        "TestPlain.test_plain",
    ]
    assert sel.tests_for_device == 6  # the cpu instances and the plain tests
    npu = select(_listing(), _wanted("TestFoo.test_x"), PATH, UNITTEST, "npu", None, "", 99)
    assert npu.run == ["TestFooPRIVATEUSE1.test_x_npu_float32"]
    assert [t.id for t in npu.tests] == ["__main__.TestFooPRIVATEUSE1.test_x_npu_float32"]


def test_no_instance_for_the_device_is_said_with_the_devices_it_has() -> None:
    sel = select(_listing(), _wanted("TestOnlyNpu.test_y"), PATH, UNITTEST, "cpu", None, "", 99)
    (t,) = sel.tests
    assert sel.run == [] and t.status == "not_started" and t.why is not None
    assert (t.why.code, t.why.args["devices"]) == ("upstream_no_instance", "npu")


def test_opinfo_driven_instances_are_chosen_by_the_apis_opinfo() -> None:
    sel = select(
        _listing(("add",)), _wanted("TestFoo.test_op"), PATH, UNITTEST, "cpu", None, "", 99
    )
    assert sel.run == ["TestFooCPU.test_op_add_cpu_float32"]
    other = select(_listing(), _wanted("TestFoo.test_op"), PATH, UNITTEST, "cpu", None, "", 99)
    assert (
        other.run == []
        and other.tests[0].why is not None
        and other.tests[0].why.code == "upstream_opinfo_other"
    )
    by_file = FileCandidates(PATH, opinfo=True)  # an operator: the file's instances for its OpInfo
    assert select(_listing(("mul",)), by_file, PATH, UNITTEST, "cpu", None, "", 99).run == [
        "TestFooCPU.test_op_mul_cpu_float32"
    ]


def test_the_disabled_list_removes_instances_and_counts_the_files() -> None:
    dl = DisabledList.parse(
        "l.json",
        json.dumps(
            {
                "test_x (__main__.TestFooCPU)": ["no float64", ["A2"]],
                "test_other (__main__.TestPlain)": ["", [""]],
            }
        ).encode(),
        upstream_settings(load_preset("torch_npu")).disabled,
    )
    sel = select(
        _listing(),
        _wanted("TestFoo.test_x", "TestPlain.test_plain"),
        PATH,
        UNITTEST,
        "cpu",
        dl,
        ";Linux",
        99,
    )
    assert sel.run == ["TestPlain.test_plain"]
    assert sel.disabled == ["TestFooCPU.test_x_cpu_float32", "TestFooCPU.test_x_cpu_float64"]
    assert {t.entry.reason for t in sel.tests if t.entry} == {"no float64"}
    assert (sel.tests_for_device, sel.disabled_for_device) == (6, 3)


def test_the_budget_and_pytest_node_ids() -> None:
    sel = select(_listing(), _wanted("TestFoo.test_x"), PATH, UNITTEST, "cpu", None, "", 1)
    assert sel.run == ["TestFooCPU.test_x_cpu_float32"]
    assert sel.tests[1].status == "not_started" and sel.tests[1].why is not None
    assert sel.tests[1].why.code == "upstream_budget"
    py = select(_listing(), _wanted("TestFoo.test_x"), PATH, PYTEST, "cpu", None, "", 9)
    assert py.run[0] == f"{PATH}::TestFooCPU::test_x_cpu_float32"
    # a pytest function test the unittest loader does not see: its node id selects it
    fn = FileCandidates(PATH, [Wanted(f"{PATH}::test_fn", PATH, "", "test_fn")])
    assert select(_listing(), fn, PATH, PYTEST, "cpu", None, "", 9).run == [f"{PATH}::test_fn"]
