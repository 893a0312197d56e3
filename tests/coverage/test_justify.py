"""The 社区用例检索与新增必要性 section and its paragraph, in Chinese and English, from the record."""

from __future__ import annotations

from pathlib import Path

from tests.coverage import files
from tests.coverage.conftest import RepoFactory
from torchparity.coverage import coverage_for
from torchparity.store import Store

SEED_COMMAND = (
    "git grep -n -E 'set_grad_enabled.*clone|clone.*set_grad_enabled|"
    "test_.*set_grad_enabled.*clone' master -- test"
)


def test_no_direct_test_means_a_new_one_is_needed(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/npu/test_grad_mode.py": files.TWO_REFS_BASE}})
    cov = coverage_for([files.API], repo, ["master"], Store(tmp_path / "s"))[files.API]
    commit = cov.refs[0].commit
    # the section: heading, the command and counts per ref, the tests, then the paragraph
    zh, en = cov.section_zh, cov.section_en
    assert zh.startswith("【社区用例检索与新增必要性】\n\n")
    assert f"在 master（{commit}）中执行：\n\n{SEED_COMMAND}\n\n正则匹配数：0" in zh
    assert (
        "相关基础测试包括：\n• test/npu/test_grad_mode.py::TestGradMode::test_set_grad_enabled (L6-8; parent set_grad_enabled: with)"
        in zh
    )
    assert zh.endswith(cov.justification_zh) and en.endswith(cov.justification_en)
    assert f"On master ({commit}):" in en
    # the paragraph alone: what was found and why a new test is needed
    para = cov.justification_zh
    assert "master 直接用例 0 个、相关用例 1 个，正则匹配 0 行" in para
    assert (
        "相关基础测试（test_set_grad_enabled 等）使用 torch.autograd.grad_mode.set_grad_enabled"
        in para
    )
    assert para.endswith("因此需要新增用例。") and "\n" not in para
    assert cov.justification_en.endswith("so a new test is needed.")


def test_direct_tests_and_what_the_regex_missed(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/test_forms.py": files.FORMS}})
    cov = coverage_for([files.API], repo, None, Store(tmp_path / "s"))[files.API]
    assert len(cov.refs[0].direct) == 9
    # sge(True).clone(), ctx.clone(), _clone_check(...), make_ctx(...) + ctx.clone(): no line the regex sees
    assert "其中 4 个直接用例不含正则可匹配的行" in cov.section_zh
    assert "正则匹配不到的直接用例（别名、链式或数据流写法）：HEAD 4 个。" in cov.justification_zh
    assert (
        "Direct tests the regex cannot match (aliases, chains, data flow): HEAD 4."
        in cov.justification_en
    )
    assert (
        "HEAD 已有直接调用 torch.autograd.grad_mode.set_grad_enabled.clone 的用例"
        in cov.justification_zh
    )
    assert "HEAD already has tests that call" in cov.justification_en


def test_comments_and_strings_are_called_out(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/test_negatives.py": files.NEGATIVES}})
    cov = coverage_for([files.API], repo, None, Store(tmp_path / "s"))[files.API]
    assert cov.refs[0].grep is not None and cov.refs[0].grep.count == 3
    assert (
        "正则匹配中不在直接调用用例内的行（注释、字符串或其他名称，不计为已有用例）：HEAD 3 行。"
        in cov.justification_zh
    )
    assert (
        "Regex lines outside any test that calls the API (comments, strings, other names; not coverage): HEAD 3."
        in cov.justification_en
    )


def test_refs_without_a_direct_test_are_named(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo(
        {
            "master": {"test/npu/test_grad_mode.py": files.TWO_REFS_BASE},
            "v2.7.1": {"test/npu/test_grad_mode.py": files.TWO_REFS_ADDED},
        }
    )
    cov = coverage_for([files.API], repo, ["v2.7.1", "master"], Store(tmp_path / "s"), grep="off")[
        files.API
    ]
    assert f"master 中没有直接调用 {files.API} 的用例。" in cov.justification_zh
    assert f"v2.7.1 已有直接调用 {files.API} 的用例" in cov.justification_zh
    assert f"master: no test calls {files.API}." in cov.justification_en
    assert "git grep" not in cov.section_zh and "正则" not in cov.justification_zh  # --grep off
