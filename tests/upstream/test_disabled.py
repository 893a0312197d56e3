"""The disabled list read and applied as the backend applies it (no torch, no interpreter)."""

from __future__ import annotations

import json

import pytest

from tests.upstream import files
from torchparity.config import load_preset
from torchparity.errors import UsageError
from torchparity.upstream.disabled import DisabledList, parse_key
from torchparity.upstream.settings import DisabledSettings, upstream_settings

ASCEND = upstream_settings(load_preset("torch_npu")).disabled
A2 = "Ascend910B3;Linux-5.10-aarch64"
A910 = "Ascend910A;Linux-5.10-aarch64"


def _list(entries: dict[str, list[object]], settings: DisabledSettings = ASCEND) -> DisabledList:
    return DisabledList.parse(
        "list.json",
        json.dumps(entries).encode(),
        settings,
        json.dumps(files.TYPES_DOC).encode(),
        json.dumps(files.NAMES_DOC).encode(),
    )


def test_a_key_names_the_test_and_its_class() -> None:
    assert parse_key("test_x_npu (__main__.TestFooPRIVATEUSE1)") == (
        "test_x_npu",
        "TestFooPRIVATEUSE1",
    )
    assert parse_key("test_y (fx.test_matcher_utils.TestMatcher)") == ("test_y", "TestMatcher")
    assert parse_key("not a key") is None


def test_method_or_its_name_less_the_device_and_dtype_and_a_class_prefix() -> None:
    dl = _list({"test_add (__main__.TestFoo)": ["", [""]]})
    # TestFoo disables the instances of TestFoo (TestFooCPU), by the name less the dtype suffix
    assert dl.match("TestFooCPU", "test_add_cpu_float32", "test_add", A2) is not None
    assert dl.match("TestFooCPU", "test_add_other_cpu", "test_add_other_cpu", A2) is None
    assert dl.match("TestBar", "test_add", "test_add", A2) is None


def test_the_class_name_aliases_of_device_generic_tests() -> None:
    dl = _list(
        {
            "test_x_npu (__main__.TestFooNPU)": ["", [""]],
            "test_y_npu (__main__.TestFooPRIVATEUSE1)": ["", [""]],
        }
    )
    assert dl.match("TestFooPRIVATEUSE1", "test_x_npu", "test_x_npu", A2) is not None
    assert dl.match("TestFooNPU", "test_y_npu", "test_y_npu", A2) is not None
    plain = _list({"test_x_npu (__main__.TestFooNPU)": ["", [""]]}, DisabledSettings(file="x"))
    assert plain.match("TestFooPRIVATEUSE1", "test_x_npu", "test_x_npu", A2) is None


def test_ascend_platform_tags() -> None:
    dl = _list(
        {
            "test_a (__main__.T)": ["", ["A2"]],
            "test_b (__main__.T)": ["", ["910A"]],
            "test_c (__main__.T)": ["", [""]],
            "test_d (__main__.T)": ["", ["A1"]],
            "test_e (__main__.T)": ["", ["A2", "910A"]],
        }
    )
    on_a2 = {n for n in "abcde" if dl.match("T", f"test_{n}", f"test_{n}", A2)}
    on_910a = {n for n in "abcde" if dl.match("T", f"test_{n}", f"test_{n}", A910)}
    assert on_a2 == {
        "a",
        "c",
        "d",
    }  # a 910A entry is not for the A2; an unknown tag narrows nothing
    assert on_910a == {"b", "c", "d"}  # an A2 entry is not for the 910A
    assert dl.find("T", "test_e", "test_e") is not None  # named, but it applies nowhere


def test_pytorch_platform_rule() -> None:
    dl = _list(
        {
            "test_a (__main__.T)": ["https://issue", ["linux"]],
            "test_b (__main__.T)": ["", ["mac", "rocm"]],
            "test_c (__main__.T)": ["", ["A2"]],
        },
        DisabledSettings(file="x"),
    )
    linux = ";Linux-6.1-x86_64"
    assert dl.match("T", "test_a", "test_a", linux) is not None
    assert dl.match("T", "test_b", "test_b", linux) is None
    assert (
        dl.match("T", "test_c", "test_c", linux) is not None
    )  # a tag PyTorch does not know: everywhere


def test_an_entry_keeps_its_reason_platforms_and_category() -> None:
    dl = _list(files.DISABLED)
    hit = dl.match(
        "TestGradModeCloneCPU",
        "test_set_grad_enabled_clone_dtype_cpu_float64",
        "test_set_grad_enabled_clone_dtype",
        ";Linux",
    )
    assert hit is not None
    rec = dl.record(hit)
    assert (rec.key, rec.platforms, rec.category, rec.category_detail, rec.category_meaning) == (
        files.STALE_KEY,
        ("A2",),
        "DTYPE",
        "float64 not supported",
        "some data types cannot be supported",
    )
    assert dl.malformed == 1 and len(dl.entries) == len(files.DISABLED) - 1


def test_a_broken_list_is_one_clear_line() -> None:
    with pytest.raises(UsageError, match="not valid JSON"):
        DisabledList.parse("l.json", b"{", ASCEND, where=" at abc")
    with pytest.raises(UsageError, match="not a JSON object"):
        DisabledList.parse("l.json", b"[]", ASCEND)


def test_the_per_version_variant_is_tried_first() -> None:
    assert ASCEND.list_for("2.11.0+cpu") == [
        "test/unsupported_test_cases/.pytorch-disabled-tests-2.11.json",
        "test/unsupported_test_cases/.pytorch-disabled-tests.json",
    ]
