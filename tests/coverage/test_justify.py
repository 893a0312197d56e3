"""The 社区用例检索与新增必要性 paragraph, in Chinese and English, from the coverage record."""

from __future__ import annotations

from pathlib import Path

from tests.coverage import files
from tests.coverage.conftest import RepoFactory
from torchparity.coverage import coverage_for
from torchparity.store import Store


def test_no_direct_test_means_a_new_one_is_needed(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/npu/test_grad_mode.py": files.TWO_REFS_BASE}})
    cov = coverage_for([files.API], repo, ["master"], Store(tmp_path / "s"))[files.API]
    commit = cov.refs[0].commit
    zh, en = cov.justification_zh, cov.justification_en
    assert zh.startswith("【社区用例检索与新增必要性】")
    assert f"在 master（{commit}）中执行：" in zh
    assert "git grep -n -E 'set_grad_enabled.*clone|clone.*set_grad_enabled|test_.*set_grad_enabled.*clone' master -- test" in zh
    assert "正则匹配数：0" in zh and "的用例数：0" in zh
    assert "相关基础测试包括：\n• test/npu/test_grad_mode.py::TestGradMode::test_set_grad_enabled (L6-8; parent set_grad_enabled: with)" in zh
    assert zh.endswith("因此需要新增用例。")
    assert f"On master ({commit}):" in en and en.endswith("so a new test is needed.")


def test_direct_tests_and_what_the_regex_missed(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({"master": {"test/test_forms.py": files.FORMS}})
    cov = coverage_for([files.API], repo, None, Store(tmp_path / "s"))[files.API]
    ref = cov.refs[0]
    assert len(ref.direct) == 9
    # sge(True).clone(), ctx.clone(), _clone_check(...), make_ctx(...) + ctx.clone(): no line the regex sees
    assert "其中 4 个直接用例不含正则可匹配的行" in cov.justification_zh
    assert "4 of the direct tests have no line the regex matches" in cov.justification_en
    assert "HEAD 已有直接调用 torch.autograd.grad_mode.set_grad_enabled.clone 的用例" in cov.justification_zh
    assert "HEAD already has tests that call" in cov.justification_en


def test_refs_without_a_direct_test_are_named(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo({
        "master": {"test/npu/test_grad_mode.py": files.TWO_REFS_BASE},
        "v2.7.1": {"test/npu/test_grad_mode.py": files.TWO_REFS_ADDED},
    })
    cov = coverage_for([files.API], repo, ["v2.7.1", "master"], Store(tmp_path / "s"), grep="off")[files.API]
    assert f"master 中没有直接调用 {files.API} 的用例。" in cov.justification_zh
    assert f"v2.7.1 已有直接调用 {files.API} 的用例" in cov.justification_zh
    assert f"master: no test calls {files.API}." in cov.justification_en
    assert "git grep" not in cov.justification_zh  # --grep off: no baseline to quote
