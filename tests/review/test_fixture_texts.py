"""Three PR text shapes over a real squash-merged fixture repo: every claim kind true, then false.

Each test lists the verdict row it expects for every claim (kind, a piece of the
claim's text, verdict, a piece of the detail) and asserts that the review gives
exactly those rows: none missing, none extra, none with another verdict.
"""

from __future__ import annotations

import pytest

from tests.review import texts
from tests.review.fixtures import BackendRepo
from torchparity.config import load_preset
from torchparity.review import review_text
from torchparity.review.records import Review

CFG = load_preset("torch_npu")
V, C, U = "verified", "contradicted", "unverifiable"


def _review(r: BackendRepo, text: str) -> Review:
    return review_text(text, r.path, CFG, merge=r.merge)


def assert_rows(review: Review, expected: list[tuple[str, str, str, str]]) -> None:
    """Each row matches exactly one expectation (kind, text piece, verdict, detail piece), and back."""
    left = list(expected)
    unexpected = []
    for row in review.verdicts:
        hit = next((e for e in left if e[0] == row.kind and e[1] in row.text), None)
        if hit is None:
            unexpected.append(row)
            continue
        left.remove(hit)
        assert row.verdict == hit[2], (
            f"{row.kind} {row.text!r}: {row.verdict} ({row.detail}), expected {hit[2]}"
        )
        assert hit[3] in row.detail, (
            f"{row.kind} {row.text!r}: detail {row.detail!r} lacks {hit[3]!r}"
        )
    assert not unexpected, (
        f"rows nobody expected: {[(v.kind, v.text, v.verdict) for v in unexpected]}"
    )
    assert not left, f"expected rows not produced: {left}"


def test_seed_shape_true_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.seed_shape(texts.truth(r)))
    assert_rows(
        review,
        [
            ("scope", "面向 v2.7.1", V, "went into v2.7.1"),
            ("scope", "master、v2.7.1", V, "master is an active branch"),
            ("scope", "master、v2.7.1", V, "v2.7.1 is an active branch"),
            ("scope", "已进入维护阶段", V, "v2.9.0 is a maintenance branch"),
            ("scope", "已进入维护阶段", V, "v2.10.0 is a maintenance branch"),
            ("commit", "Commit：", U, "squash-merged"),
            ("sha256", "文件 SHA-256", V, "test/npu/test_grad.py (the nearest path above)"),
            ("submodule", "子模块从", V, f"{texts.SUB_OLD[:12]} -> {texts.SUB_NEW[:12]}"),
            ("commit", "在 origin/v2.7.1", V, "in v2.7.1's history"),
            ("grep", "git grep -n -E", V, f"0 matches at {r.base[:12]}"),
            (
                "docs",
                "缺少 clone() 子方法",
                V,
                f"no entry for {texts.API} at baseline {r.docs_base[:12]}",
            ),
            ("commit", "基线提交", V, "in master's history"),
            ("commit", "资料提交", U, "docs PR !202 was squash-merged as " + r.docs_merge[:12]),
            ("docs", "pytorch_2-7-1/torch.md", V, "has an entry"),
            ("docs", "pytorch_2-11-0/torch.md", V, "has an entry"),
            ("docs.status", "Atlas A2", V, "支持"),
            ("docs.status", "Atlas A3", V, "支持"),
            ("docs.status", "Ascend 950DT", V, "不支持"),
            ("version", "torch：2.7.1+cpu", V, "torch_version=2.7.1+cpu"),
            ("version", "torch-npu：2.7.1.post2", V, "torch_npu_version=2.7.1.post2"),
            ("commit", "COMMIT=", U, "squash-merged"),
            ("sha256", "TEST_FILE_SHA256=", V, "(the log's TEST_FILE)"),
            ("test.qualifier", "env -u PYTHONPATH", V, "`__main__`"),
            ("test.defined", "test_enable_grad (", V, "defined in test/npu/test_grad.py"),
            ("test.defined", "test_no_grad (", V, "defined in test/npu/test_grad.py"),
            (
                "test.defined",
                "test_set_grad_enabled_clone (",
                V,
                "defined in test/npu/test_grad.py",
            ),
            ("test.count", "Ran 3 tests", V, "defines 3 tests, all of them run"),
            ("test.result", "OK", V, "every listed test passed"),
        ],
    )
    assert review.ok and review.mode == "merge" and review.target_branch == "v2.7.1"


def test_seed_shape_false_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.seed_shape(texts.lies(r)))
    assert_rows(
        review,
        [
            ("scope", "面向 v2.11.0", C, "went into v2.7.1, not v2.11.0"),
            ("scope", "master、v2.9.0", V, "master is an active branch"),
            ("scope", "master、v2.9.0", C, "v2.9.0 is a maintenance branch"),
            ("scope", "已进入维护阶段", V, "v2.9.0 is a maintenance branch"),
            ("scope", "已进入维护阶段", C, "v2.7.1 is an active branch"),
            ("commit", "Commit：", U, "squash-merged"),
            ("sha256", "文件 SHA-256", C, f"hashes to {r.file_sha256}"),
            ("submodule", "子模块从", C, f"the merge records {texts.SUB_PATH} at {texts.SUB_NEW}"),
            ("commit", "在 origin/v2.7.1", V, "in v2.7.1's history"),
            ("grep", "git grep -n -E", C, "the text says 2; re-run: 0 at"),
            ("docs", "缺少 clone() 子方法", U, "baseline 444444444444 is not in the repository"),
            ("commit", "基线提交", C, "no such commit"),
            ("commit", "资料提交", U, "squash-merged"),
            ("docs", "pytorch_2-7-1/torch.md", V, "has an entry"),
            ("docs", "pytorch_2-11-0/torch.md", V, "has an entry"),
            ("docs.status", "Atlas A2", V, "支持"),
            ("docs.status", "Atlas A3", V, "支持"),
            ("docs.status", "Ascend 950DT", C, "不支持"),
            ("version", "torch：2.7.2+cpu", C, "prints torch_version=2.7.1+cpu"),
            ("version", "torch-npu：2.7.1.post2", V, "torch_npu_version"),
            ("commit", "COMMIT=", U, "squash-merged"),
            ("sha256", "TEST_FILE_SHA256=", C, "the stated value is the version at"),
            (
                "test.qualifier",
                "env -u PYTHONPATH",
                C,
                "the output prints `test.npu.test_grad` (4 lines)",
            ),
            ("test.defined", "test_enable_grad (", V, "defined"),
            ("test.defined", "test_no_grad (", V, "defined"),
            ("test.defined", "test_set_grad_enabled_clone (", V, "defined"),
            ("test.defined", "test_ghost (", C, "class TestGrad has no test test_ghost"),
            ("test.count", "Ran 4 tests", C, "defines 3 tests"),
            ("test.result", "OK", C, "1 listed FAIL"),
        ],
    )
    assert not review.ok


def test_markdown_shape_true_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.markdown_shape(texts.truth(r)))
    assert_rows(
        review,
        [
            ("scope", "面向 `v2.7.1`", V, "went into v2.7.1"),
            ("commit", "Commit：", U, "squash-merged"),
            ("sha256", "文件 SHA-256", V, "test/npu/test_grad.py"),
            ("submodule", "gitlink 从", V, "-> 222222222222"),
            ("commit", "在 `origin/v2.7.1`", V, "in v2.7.1's history"),
            ("grep", "git grep -c", V, "3 matches"),
            ("docs", "目标 API 已有对应条目", V, "at the tip of master"),
            ("version", "| torch |", V, "torch=2.7.1+cpu"),
            ("test.qualifier", "python test/npu/test_grad.py -v", V, "`__main__`"),
            ("test.defined", "test_enable_grad (", V, "defined"),
            ("test.defined", "test_no_grad (", V, "defined"),
            ("test.defined", "test_set_grad_enabled_clone (", V, "defined"),
            ("test.count", "Ran 3 tests", V, "all of them run"),
            ("test.result", "OK", V, "every listed test passed"),
            # a file that generates its tests: a generated name is found, an unknown one is not called false
            ("test.qualifier", "python test/npu/test_generated.py -v", V, "`__main__`"),
            ("test.defined", "test_add_npu", V, "generated from test_add"),
            ("test.defined", "test_sub_npu", U, "instantiate_device_type_tests"),
            ("test.count", "Ran 2 tests", V, "the output lists 2 tests"),
            ("test.result", "OK", V, "every listed test passed"),
        ],
    )


def test_markdown_shape_false_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.markdown_shape(texts.lies(r)))
    assert_rows(
        review,
        [
            ("scope", "面向 `v2.11.0`", C, "not v2.11.0"),
            ("commit", "Commit：", U, "squash-merged"),
            ("sha256", "文件 SHA-256", C, "the stated value is the version at"),
            ("submodule", "gitlink 从", C, "the merge records"),
            ("commit", "在 `origin/v2.7.1`", V, "in v2.7.1's history"),
            ("grep", "git grep -c", C, "the text says 5; re-run: 3"),
            (
                "docs",
                "目标 API 已有对应条目",
                C,
                "no entry for torch.autograd.grad_mode.set_grad_enabled.copy",
            ),
            ("version", "| torch |", C, "torch=2.7.1+cpu"),
            ("test.qualifier", "python test/npu/test_grad.py -v", C, "`test.npu.test_grad`"),
            ("test.defined", "test_enable_grad (", V, "defined"),
            ("test.defined", "test_no_grad (", V, "defined"),
            ("test.defined", "test_set_grad_enabled_clone (", V, "defined"),
            ("test.defined", "test_ghost (", C, "no file of the repository defines test_ghost"),
            ("test.count", "Ran 4 tests", C, "defines 3 tests"),
            ("test.result", "OK", C, "1 listed FAIL"),
            ("test.qualifier", "python test/npu/test_generated.py -v", V, "`__main__`"),
            ("test.defined", "test_add_npu", V, "generated from test_add"),
            ("test.defined", "test_sub_npu", U, "instantiate_device_type_tests"),
            ("test.count", "Ran 2 tests", V, "the output lists 2 tests"),
            ("test.result", "OK", V, "every listed test passed"),
        ],
    )


def test_english_shape_true_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.english_shape(texts.truth(r)))
    assert_rows(
        review,
        [
            ("scope", "Target branch: v2.7.1", V, "went into v2.7.1"),
            ("commit", "- Commit:", U, "squash-merged"),
            ("commit", "Baseline commit", V, "in v2.7.1's history"),
            ("sha256", "SHA-256 of test/npu/test_grad.py", V, "(named on the line)"),
            ("submodule", "Submodule third_party/op-plugin", V, "111111111111 -> 222222222222"),
            ("commit", "Searched in", V, "in v2.7.1's history"),
            ("grep", "git grep -n 'set_grad_enabled'", V, "0 matches"),
            ("docs", "already have an entry", V, "at the tip of master"),
            ("test.defined", "::test_enable_grad", V, "defined"),
            ("test.defined", "::test_no_grad", V, "defined"),
            ("test.defined", "::test_set_grad_enabled_clone", V, "defined"),
            ("test.count", "3 passed in 0.12s", V, "the output lists 3 tests"),
            ("test.result", "3 passed in 0.12s", V, "the summary's counts are the listed outcomes"),
        ],
    )


def test_english_shape_false_claims(backend: BackendRepo) -> None:
    r = backend
    review = _review(r, texts.english_shape(texts.lies(r)))
    assert_rows(
        review,
        [
            ("scope", "Target branch: v2.11.0", C, "not v2.11.0"),
            ("commit", "- Commit:", U, "squash-merged"),
            ("commit", "Baseline commit", C, "no such commit"),
            ("sha256", "SHA-256 of test/npu/test_grad.py", C, f"hashes to {r.file_sha256}"),
            ("submodule", "Submodule third_party/op-plugin", C, "the merge records"),
            ("commit", "Searched in", V, "in v2.7.1's history"),
            ("grep", "git grep -n 'set_grad_enabled'", C, "the text says 2"),
            (
                "docs",
                "already have an entry",
                C,
                "no entry for torch.autograd.grad_mode.set_grad_enabled.copy",
            ),
            ("test.defined", "::test_enable_grad", V, "defined"),
            ("test.defined", "::test_no_grad", V, "defined"),
            ("test.defined", "::test_set_grad_enabled_clone", V, "defined"),
            ("test.defined", "::test_ghost", C, "no file of the repository defines test_ghost"),
            ("test.count", "4 passed in 0.12s", V, "the output lists 4 tests"),
            ("test.result", "4 passed in 0.12s", C, "passed 4 but 3 listed; failed 0 but 1 listed"),
        ],
    )


def test_head_mode_is_the_target_branch_when_none_is_given(backend: BackendRepo) -> None:
    r = backend
    review = review_text(texts.seed_shape(texts.truth(r)), r.path, CFG)
    assert review.mode == "head" and review.commit == r.merge
    assert any("no --merge or --head" in n for n in review.notes)
    assert review.ok
    # a head is not a squash: the source commit is unverifiable for another reason
    row = next(v for v in review.verdicts if v.text.startswith("Commit："))
    assert row.verdict == U and "give --merge" in row.detail


@pytest.mark.parametrize("shape", ["seed_shape", "markdown_shape", "english_shape"])
def test_the_same_text_checked_before_the_merge_loses_its_test(
    backend: BackendRepo, shape: str
) -> None:
    """At the commit before the PR the new test is not in the file: the claim about it is contradicted."""
    r = backend
    review = review_text(
        getattr(texts, shape)(texts.truth(r)), r.path, CFG, head=r.base, target_branch="v2.7.1"
    )
    row = next(
        v
        for v in review.verdicts
        if v.kind == "test.defined" and "test_set_grad_enabled_clone" in v.text
    )
    assert row.verdict == C, row
