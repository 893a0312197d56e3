"""The [upstream] config, which files are vendored, the PyTorch tag of a torch, a file's entry point."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from torchparity.cli import main
from torchparity.config import Config, load_preset
from torchparity.errors import UsageError
from torchparity.records.coverage import RefCoverage
from torchparity.records.coverage import TestHit as Hit
from torchparity.store import Store
from torchparity.upstream.find import (
    PYTEST,
    UNITTEST,
    entry_kind,
    from_coverage,
    parse_given,
    torch_tag,
)
from torchparity.upstream.settings import upstream_settings


def _cfg(**upstream: object) -> Config:
    return replace(load_preset("default"), upstream=upstream)


def test_ascend_vendored_files() -> None:
    s = upstream_settings(load_preset("torch_npu"))
    assert s.is_vendored("test/test_autograd.py") and s.is_vendored("test/autograd/test_complex.py")
    assert not s.is_vendored("test/npu/test_clone.py") and not s.is_vendored("test/test_npu.py")


@pytest.mark.parametrize(
    "table, said",
    [
        ({"vendored": "test/*.py"}, "vendored must be a list"),
        ({"max_tests": 0}, "max_tests must be a positive"),
        ({"surprise": 1}, "unknown key"),
        ({"disabled": {"platform_rule": "most"}}, "platform_rule 'most'"),
        ({"disabled": {"platforms": {"A2": "("}}}, "does not compile"),
        ({"disabled": {"class_aliases": [["PRIVATEUSE1"]]}}, "pairs of names"),
    ],
)
def test_bad_settings_are_one_line(table: dict[str, object], said: str) -> None:
    with pytest.raises(UsageError, match=said):
        upstream_settings(_cfg(**table))


def test_a_generic_backend_names_its_list() -> None:
    s = upstream_settings(_cfg(disabled_tests_file="tests/disabled.json"))
    assert s.disabled.file == "tests/disabled.json" and s.disabled.platform_rule == "any"
    assert "linux" in s.disabled.platforms


@pytest.mark.parametrize(
    "version, tag",
    [
        ("2.7.1+cpu", "v2.7.1"),
        ("2.13.0", "v2.13.0"),
        ("2.13.0a0+git1234", None),
        ("2.8.0.dev20250101", None),
    ],
)
def test_the_tag_of_a_torch_version(version: str, tag: str | None) -> None:
    assert torch_tag(version) == tag


def test_entry_points() -> None:
    assert (
        entry_kind(
            b"from torch.testing._internal.common_utils import run_tests\n"
            b"if __name__ == '__main__':\n    run_tests()\n"
        )
        == UNITTEST
    )
    assert (
        entry_kind(b'import unittest\nif __name__ == "__main__":\n    unittest.main()\n')
        == UNITTEST
    )
    assert (
        entry_kind(b"import pytest\nif __name__ == '__main__':\n    pytest.main([__file__])\n")
        == PYTEST
    )
    assert entry_kind(b"def test_x():\n    assert True\n") == PYTEST


def _hit(test: str) -> Hit:
    return Hit(test, test.split("::")[0], 1, 2, "calls", 1)


def test_direct_tests_else_the_parents_related_ones() -> None:
    ref = RefCoverage(
        "master",
        "c",
        "r",
        False,
        1,
        1,
        direct=(),
        related=(_hit("test/test_a.py::TestA::test_x"), _hit("test/npu/test_b.py::TestB::test_y")),
        related_total=2,
        weak=(),
        weak_total=0,
        grep=None,
        skipped_files=(),
    )
    how, wanted = from_coverage(ref, lambda p: not p.startswith("test/npu"))
    assert how == "related" and [(w.klass, w.name) for w in wanted] == [("TestA", "test_x")]
    ref2 = replace(ref, direct=(_hit("test/test_a.py::TestA::test_z"),))
    assert from_coverage(ref2)[0] == "direct"


def test_a_given_test_is_path_class_name() -> None:
    w = parse_given("test/test_autograd.py::TestMultithreadAutograd::test_x")
    assert (w.path, w.klass, w.name, w.how) == (
        "test/test_autograd.py",
        "TestMultithreadAutograd",
        "test_x",
        "given",
    )
    with pytest.raises(UsageError, match="PATH::Class::test_name"):
        parse_given("TestMultithreadAutograd.test_x")


@pytest.mark.parametrize(
    "args, said",
    [
        ([], "no test tree to search"),
        (["--repo", "/nonexistent/backend"], "repository folder not found"),
        (["--upstream-repo", "/"], "not a git repository"),
        (["--repo", ".", "--test", "TestX.test_y"], "PATH::Class::test_name"),
    ],
)
def test_bad_input_is_refused_before_any_interpreter_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    code = main(
        [
            "upstream",
            "torch.add",
            "--python",
            "/nonexistent/python",
            *args,
            "--store",
            str(tmp_path / "s"),
        ]
    )
    assert code == 2 and said in capsys.readouterr().err
    assert not (tmp_path / "s").exists() or Store(tmp_path / "s").runs() == []  # no run left behind
