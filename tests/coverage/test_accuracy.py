"""Accuracy: each form a test can use an API in is found as direct; mentions and parents are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.coverage import files
from tests.coverage.conftest import RepoFactory
from torchparity.coverage import coverage_for
from torchparity.store import Store

F = "test/test_forms.py::TestForms::"
N = "test/test_negatives.py::TestNegatives::"


@pytest.fixture
def forms_repo(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {"master": {"test/test_forms.py": files.FORMS, "test/test_negatives.py": files.NEGATIVES}}
    )


def _hits(report, api: str, section: str, ref: int = 0) -> dict[str, str]:
    doc = report[api].to_json()
    return {h["test"]: h["how"] for h in doc["refs"][ref][section]}


def test_every_form_of_use_is_direct(forms_repo: Path, tmp_path: Path) -> None:
    report = coverage_for([files.API], forms_repo, ["master"], Store(tmp_path / "s"), grep="off")
    direct = _hits(report, files.API, "direct")
    expected = {
        "test_chained_call": "chained call",
        "test_aliased_import": "import alias sge",
        "test_module_alias": "import alias t",
        "test_from_module": "chained call",
        "test_local_variable": "via ctx: set_grad_enabled from torch.set_grad_enabled(...)",
        "test_context_manager": "chained with",
        "test_decorator": "chained decorator",
        "test_helper_function": "via helper _clone_check()",
        "test_helper_return": "via helper make_ctx()",
    }
    for test, how in expected.items():
        assert F + test in direct, f"{test} not found as direct; direct: {sorted(direct)}"
        assert how in direct[F + test], (test, direct[F + test])
    assert set(direct) == {F + t for t in expected}


def test_inherited_method_counts_for_the_class_that_defines_it(
    forms_repo: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "s")
    api = "torch.optim.Optimizer.zero_grad"
    report = coverage_for(
        [api, "torch.optim.SGD.zero_grad", "torch.optim.SGD.step"],
        forms_repo,
        None,
        store,
        grep="off",
    )
    assert report[api].canonical == "torch.optim.optimizer.Optimizer.zero_grad"
    on_base = _hits(report, api, "direct")
    assert set(on_base) == {F + "test_inherited_method", F + "test_inherited_local"}
    assert "via self.opt" in on_base[F + "test_inherited_method"]
    assert "inherited via SGD" in on_base[F + "test_inherited_method"]
    assert "inherited via Adam" in on_base[F + "test_inherited_local"]
    # SGD.zero_grad: only the test whose optimizer is an SGD
    assert set(_hits(report, "torch.optim.SGD.zero_grad", "direct")) == {
        F + "test_inherited_method"
    }
    # nobody calls step(); SGD defines its own, so zero_grad users are only related to it
    assert _hits(report, "torch.optim.SGD.step", "direct") == {}
    assert F + "test_inherited_method" in _hits(report, "torch.optim.SGD.step", "related")


def test_decorator_on_the_test_itself(forms_repo: Path, tmp_path: Path) -> None:
    report = coverage_for(["torch.no_grad"], forms_repo, None, Store(tmp_path / "s"), grep="off")
    assert report["torch.no_grad"].canonical == "torch.autograd.grad_mode.no_grad"
    assert _hits(report, "torch.no_grad", "direct") == {F + "test_decorated_test": "decorator"}


def test_comments_strings_and_parents_are_never_direct(forms_repo: Path, tmp_path: Path) -> None:
    report = coverage_for([files.API], forms_repo, None, Store(tmp_path / "s"), grep="git")
    direct = _hits(report, files.API, "direct")
    related = _hits(report, files.API, "related")
    weak = _hits(report, files.API, "weak")
    for name in (
        "test_comment_only",
        "test_string_only",
        "test_parent_only",
        "test_other_clone",
        "test_tensor_clone",
    ):
        assert N + name not in direct, name
    assert related[N + "test_parent_only"] == "parent set_grad_enabled: with"
    assert N + "test_string_only" in weak and "string or docstring" in weak[N + "test_string_only"]
    assert N + "test_comment_only" not in related and N + "test_comment_only" not in weak
    assert N + "test_tensor_clone" not in related
    # the regex counts the comment and the string; the report says they are outside direct tests
    ref = report[files.API].to_json()["refs"][0]
    grep_lines = ref["grep"]["matches"]
    comment = next(
        i
        for i, line in enumerate(files.NEGATIVES.lstrip("\n").splitlines(), 1)
        if line.strip().startswith("# torch.set_grad_enabled")
    )
    assert any(f"test_negatives.py:{comment}:" in m for m in grep_lines)
    assert ref["grep"]["count"] > ref["grep"]["in_direct_tests"]


def test_same_file_on_two_refs(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo(
        {
            "master": {"test/npu/test_grad_mode.py": files.TWO_REFS_BASE},
            "v2.7.1": {"test/npu/test_grad_mode.py": files.TWO_REFS_ADDED},
        }
    )
    report = coverage_for([files.API], repo, ["v2.7.1", "master"], Store(tmp_path / "s"))
    refs = {r["ref"]: r for r in report[files.API].to_json()["refs"]}
    assert [h["test"] for h in refs["v2.7.1"]["direct"]] == [
        "test/npu/test_grad_mode.py::TestGradMode::test_set_grad_enabled_clone"
    ]
    assert refs["master"]["direct"] == []
    hit = refs["v2.7.1"]["direct"][0]
    start = (
        files.TWO_REFS_ADDED.lstrip("\n")
        .splitlines()
        .index("    def test_set_grad_enabled_clone(self):")
        + 1
    )
    assert (hit["line"], hit["end_line"]) == (start, start + 3)
    assert [h["test"] for h in refs["master"]["related"]] == [
        "test/npu/test_grad_mode.py::TestGradMode::test_set_grad_enabled"
    ]
    assert refs["v2.7.1"]["grep"]["count"] == 1 and refs["master"]["grep"]["count"] == 0


def test_pytest_fixture_feeds_the_test(cov_repo: RepoFactory, tmp_path: Path) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_fixture.py": """
        import pytest
        import torch


        @pytest.fixture
        def ctx():
            return torch.set_grad_enabled(False)


        def test_clone(ctx):
            assert ctx.clone().mode is False
    """
            }
        }
    )
    report = coverage_for([files.API], repo, None, Store(tmp_path / "s"), grep="off")
    assert _hits(report, files.API, "direct") == {
        "test/test_fixture.py::test_clone": "call, via fixture ctx"
    }


def test_resolve_results_plug_in(cov_repo: RepoFactory, tmp_path: Path) -> None:
    """What resolve learns in an environment (an alias, a class) changes what is direct."""
    repo = cov_repo(
        {
            "master": {
                "test/test_backend.py": """
        import torch_npu

        def test_stream_query():
            s = torch_npu.npu.Stream()
            assert s.query()
    """
            }
        }
    )
    api = "torch_npu.npu.streams.Stream.query"
    plain = coverage_for([api], repo, None, Store(tmp_path / "s"), grep="off")
    assert _hits(plain, api, "direct") == {}
    assert not plain[api].known
    resolved = coverage_for(
        [api],
        repo,
        None,
        Store(tmp_path / "s"),
        grep="off",
        aliases={"torch_npu.npu.Stream": "torch_npu.npu.streams.Stream"},
    )
    assert set(_hits(resolved, api, "direct")) == {"test/test_backend.py::test_stream_query"}


def test_related_tests_are_ranked_and_counted_beyond_the_list(
    forms_repo: Path, tmp_path: Path
) -> None:
    """The parent's own tests first; the total counts every related test, the list keeps the best."""
    from torchparity.coverage.aliases import static_table
    from torchparity.coverage.index import Indexer
    from torchparity.coverage.query import ApiName, RefQuery, query_ref

    table = static_table()
    ix = Indexer(Store(tmp_path / "s"), table).index(forms_repo, "HEAD", ["test"])
    api = ApiName.parse("torch.autograd.grad_mode.set_grad_enabled.__exit__", table)
    full = query_ref(RefQuery(ix, table), api)
    short = query_ref(RefQuery(ix, table), api, related_limit=2)
    assert full.related_total == short.related_total == len(full.related) > 2
    assert short.related == full.related[:2]
    assert [h.how.split(":")[0] for h in full.related[:1]] == ["parent set_grad_enabled"]
