"""The parser's pieces on the shapes real PR texts take (no repository needed)."""

from __future__ import annotations

import textwrap

import pytest

from torchparity.review.checks.grep import split_args
from torchparity.review.checks.runs import expected_module
from torchparity.review.checks.scope import same_version
from torchparity.review.context import Context
from torchparity.review.document import Document
from torchparity.review.extract_runs import extract_runs
from torchparity.review.parse import parse_text
from torchparity.review.testdefs import read_tests


def _doc(text: str) -> Document:
    return Document(textwrap.dedent(text).lstrip("\n"))


def test_sections_from_template_markdown_and_english_headings() -> None:
    doc = _doc("""
        Description: # 【合入来源】
        text
        ## 【功能验证】
        〖CheckList〗
        ## Verification
        # Copyright (c) 2026 Huawei
        # https://opensource.org/licenses/BSD-3-Clause
        ### 资料修改文件
        ```python
        # 【资料变更】 inside a block is code
        ```
        """)
    sections = [ln.section for ln in doc]
    assert doc.at(1).text == "# 【合入来源】" and sections[:2] == ["source", "source"]
    assert sections[2] == "verify" and sections[3] == "checklist" and sections[4] == "verify"
    # a licence header written outside a code block opens no section; a level-3 heading neither
    assert sections[5:8] == ["verify", "verify", "verify"]
    assert doc.at(10).block == 1 and sections[9] == "verify"


def _runs(text: str):  # type: ignore[no-untyped-def]
    doc = _doc(text)
    return list(extract_runs(doc, Context(doc)))


def test_unittest_output_forms() -> None:
    [run] = _runs("""
        ```bash
        python test/npu/test_x.py -v
        ```
        ```text
        test_a (__main__.TestX.test_a) ... ok
        test_b (__main__.TestX)
        The docstring of b. ... FAIL
        test_c (__main__.TestX.test_c) ... /path/x.py:1: UserWarning: careful
          warnings.warn("careful")
        ok
        test_d (__main__.TestX.test_d) [subtest (i=1)] ... FAIL
        test_d (__main__.TestX.test_d) ... skipped 'no npu'
        ======================================================================
        FAIL: test_b (__main__.TestX.test_b)
        ----------------------------------------------------------------------
        Ran 4 tests in 0.1s

        FAILED (failures=1, skipped=1)
        ```
        """)
    assert [(t.name, t.cls, t.module, t.outcome) for t in run.tests] == [
        ("test_a", "TestX", "__main__", "ok"),
        ("test_b", "TestX", "__main__", "fail"),
        ("test_c", "TestX", "__main__", "ok"),
        ("test_d", "TestX", "__main__", "skip"),
    ]
    assert (
        run.ran == 4
        and run.status == "FAILED"
        and dict(run.footer) == {"failures": 1, "skipped": 1}
    )
    assert run.command == "python test/npu/test_x.py -v" and run.file == "test/npu/test_x.py"


def test_a_paste_whose_first_line_was_cut_still_counts_that_test() -> None:
    [run] = _runs("""
        ```text
        Keeps the history. ... ok
        test_b (__main__.TestX.test_b)
        Does b. ... ok
        ----------------------------------------------------------------------
        Ran 2 tests in 0.003s

        OK
        ```
        """)
    assert [(t.name, t.outcome) for t in run.tests] == [("", "ok"), ("test_b", "ok")]


def test_pytest_output_and_two_runs_in_one_block() -> None:
    runs = _runs("""
        ```
        $ python -m pytest test/a.py -v
        test/a.py::TestA::test_one PASSED                                  [ 50%]
        test/a.py::TestA::test_two[npu] FAILED                             [100%]
        ========================= 1 failed, 1 passed in 0.50s =========================
        FAILED test/a.py::TestA::test_two[npu] - AssertionError
        ...
        ----------------------------------------------------------------------
        Ran 3 tests in 0.1s

        OK
        ```
        """)
    assert [r.runner for r in runs] == ["pytest", "unittest"]
    assert [(t.file, t.cls, t.name, t.outcome) for t in runs[0].tests] == [
        ("test/a.py", "TestA", "test_one", "ok"),
        ("test/a.py", "TestA", "test_two", "fail"),
    ]
    assert (
        runs[0].ran == 2 and runs[0].status == "FAILED" and runs[1].ran == 3 and runs[1].tests == ()
    )


def test_the_log_step_command_is_the_runs_command_and_a_new_step_has_none() -> None:
    runs = _runs("""
        ==================================================
        TARGET_BRANCH=v2.7.1
        TEST_FILE=/tmp/w/v2.7.1/test/npu/test_x.py
        ==================================================
        ===== FULL TEST FILE =====
        COMMAND=env -u PYTHONPATH python /tmp/w/v2.7.1/test/npu/test_x.py -v
        test_a (__main__.TestX.test_a) ... ok
        ----------------------------------------------------------------------
        Ran 1 test in 0.1s

        OK
        ===== GRAD MODE ISOLATION PROBE =====
        test_a (probe_module.TestX.test_a) ... ok
        ----------------------------------------------------------------------
        Ran 1 test in 0.1s

        OK
        """)
    assert runs[0].command.startswith("env -u PYTHONPATH python") and runs[0].branch == "v2.7.1"
    assert runs[1].command == "" and runs[1].file == "/tmp/w/v2.7.1/test/npu/test_x.py"


def test_claims_the_parser_leaves_alone() -> None:
    claims = parse_text(
        textwrap.dedent("""
        # 【修改方案】
        见 https://gitcode.com/Ascend/op-plugin/commit/0123456789abcdef0123456789abcdef01234567
        镜像 digest sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
        Commit-by: abc1234
        # 【资料变更】
        不涉及。`torch.md` 中已有条目。
        """)
    )
    assert claims.commits == () and claims.sha256 == () and claims.docs == ()


def test_test_definitions_from_source() -> None:
    closed = read_tests(
        "t.py",
        textwrap.dedent("""
        from torch.testing._internal.common_utils import TestCase
        class _Base(TestCase):
            def test_base(self): pass
        class TestA(_Base):
            def test_a(self): pass
            if True:
                def test_cond(self): pass
            test_alias = test_a
        class Helper:
            def test_not_collected(self): pass
        """).encode(),
    )
    assert closed.closed and closed.tests_of("TestA") == {
        "test_base",
        "test_a",
        "test_cond",
        "test_alias",
    }
    assert closed.count() == 5  # _Base is a TestCase too: unittest runs its test as well
    opened = read_tests(
        "o.py",
        textwrap.dedent("""
        from common import TestSuiteBase, TestShared
        class TestB(TestSuiteBase):
            def test_b(self): pass
        """).encode(),
    )
    assert not opened.closed and "TestShared" in opened.open_reason and opened.count() is None
    assert opened.defines("test_b", "TestB") and opened.tests_of("TestB") is None
    assert read_tests("bad.py", b"def (:\n").syntax_error


@pytest.mark.parametrize(
    "command, module",
    [
        ("python test/npu/test_x.py -v", "__main__"),
        (
            "env -u PYTHONPATH PYTHONNOUSERSITE=1 envs/bin/python3.11 -u /tmp/a/test_x.py",
            "__main__",
        ),
        ("python -m unittest test.npu.test_x.TestX.test_a -v", "test.npu.test_x"),
        ("python -m unittest test/npu/test_x.py", "test.npu.test_x"),
        ("python -m pytest test/npu/test_x.py", "pytest"),
        ("torchrun --nproc 2 run.py", None),
    ],
)
def test_expected_module(command: str, module: str | None) -> None:
    assert expected_module(command) == module


@pytest.mark.parametrize(
    "stated, probed, same",
    [
        ("2.7.1+cpu", "2.7.1+cpu", True),
        ("2.7.1", "2.7.1+cpu", True),
        ("2.7.1", "2.7.1.post2", True),
        ("2.7.1.post2", "2.7.1.post3", False),
        ("2.7.2+cpu", "2.7.1+cpu", False),
        ("2.7.1+cpu", "2.7.1+cu121", False),
        ("True", "True", True),
        ("是", "True", True),
        ("1", "2", False),
    ],
)
def test_same_version(stated: str, probed: str, same: bool) -> None:
    assert same_version(stated, probed) is same


def test_grep_options_that_leave_the_objects_are_refused() -> None:
    assert split_args(("-n", "-E", "a|b", "--", "test")) == (
        ["-n", "-E", "-e", "a|b"],
        [],
        ["test"],
    )
    assert split_args(("-n", "x", "origin/v2.7.1", "--", "test")) == (
        ["-n", "-e", "x"],
        ["origin/v2.7.1"],
        ["test"],
    )
    for bad in (
        ("-Ovim", "x"),
        ("--open-files-in-pager", "x"),
        ("--no-index", "x"),
        ("-f", "patterns.txt"),
    ):
        assert split_args(bad) is None


@pytest.mark.parametrize(
    "second, footer, verdict, detail",
    [
        ("FAIL", "FAILED (failures=1)", "verified", "FAILED, as the listed outcomes say"),
        ("ok", "FAILED (errors=1)", "contradicted", "lists 0 FAIL and 0 ERROR"),
    ],
)
def test_failed_footer_against_the_listed_outcomes(
    second: str, footer: str, verdict: str, detail: str
) -> None:
    from torchparity.review.checks.runs import _result

    [run] = _runs(f"""
        ```text
        test_a (__main__.T.test_a) ... ok
        test_b (__main__.T.test_b) ... {second}
        ----------------------------------------------------------------------
        Ran 2 tests in 0.1s

        {footer}
        ```
        """)
    found = _result(run)
    assert (
        found is not None
        and found.verdict == verdict
        and detail in found.detail
        and found.text == footer
    )


def test_a_run_that_crashed_before_its_footer_is_not_counted_into_the_next_commands() -> None:
    runs = _runs("""
        ==================================================
        TARGET_BRANCH=master
        ==================================================
        ===== UPSTREAM TESTS =====
        COMMAND=env python /tmp/u/test/test_ops.py TestCommonNPU.test_a TestCommonNPU.test_b -v
        test_a (__main__.TestCommonNPU.test_a) ... ok
        test_b (__main__.TestCommonNPU.test_b) ...
        UPSTREAM_STATUS=CRASH
        COMMAND=env python /tmp/u/test/test_x.py TestX.test_c -v
        test_c (__main__.TestX.test_c) ... ok
        ----------------------------------------------------------------------
        Ran 1 test in 0.1s

        OK
        """)
    crashed, second = runs
    assert [t.name for t in crashed.tests] == ["test_a", "test_b"] and crashed.ran is None
    assert [t.name for t in second.tests] == ["test_c"] and second.ran == 1


def test_a_files_hash_in_a_log_step_is_paired_with_the_file_that_step_names() -> None:
    from torchparity.review.extract_hashes import extract_hashes
    from torchparity.review.records import Sha256Claim

    doc = _doc(f"""
        ==================================================
        TARGET_BRANCH=master
        TEST_FILE=/tmp/w/test/test_a.py
        TEST_FILE_SHA256={"a" * 64}
        TEST_FILE=/tmp/w/test/test_b.py
        TEST_FILE_SHA256={"b" * 64}
        ==================================================
        ===== UPSTREAM TESTS =====
        UPSTREAM_FILE=test/test_c.py
        UPSTREAM_FILE_SHA256={"c" * 64}
        UPSTREAM_FILE=test/test_d.py
        UPSTREAM_FILE_SHA256={"d" * 64}
        """)
    got = {
        c.digest[0]: c.path for c in extract_hashes(doc, Context(doc)) if isinstance(c, Sha256Claim)
    }
    assert got == {
        "a": "/tmp/w/test/test_a.py",
        "b": "/tmp/w/test/test_b.py",
        "c": "test/test_c.py",
        "d": "test/test_d.py",
    }
