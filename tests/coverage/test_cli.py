"""``torchparity coverage`` end to end: text, JSON, batch, store records, upstream, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.coverage import files
from tests.coverage.conftest import RepoFactory
from tests.coverage.test_grep import PERL
from torchparity.cli import main
from torchparity.coverage import BlobCache, coverage_for, resolve_targets
from torchparity.errors import UsageError
from torchparity.store import Store


@pytest.fixture
def repo(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {
            "master": {
                "test/npu/test_grad_mode.py": files.TWO_REFS_BASE,
                "test/test_forms.py": files.FORMS,
            },
            "v2.7.1": {"test/npu/test_grad_mode.py": files.TWO_REFS_ADDED},
        }
    )


@pytest.fixture
def upstream(cov_repo: RepoFactory) -> Path:
    return cov_repo({"main": {"test/test_autograd.py": files.UPSTREAM}}, name="pytorch")


def _cov(tmp_path: Path, *args: str) -> int:
    return main(["coverage", *args, "--store", str(tmp_path / "store")])


@pytest.mark.slow
def test_one_api_prints_sections_grep_and_both_paragraphs(
    repo: Path, upstream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = _cov(
        tmp_path,
        "torch.set_grad_enabled.clone",
        "--repo",
        str(repo),
        "--ref",
        "v2.7.1",
        "--ref",
        "master",
        "--upstream",
        f"{upstream}@main",
    )
    text = capsys.readouterr()
    assert rc == 0, text.err
    out = text.out
    assert out.startswith(
        "torch.set_grad_enabled.clone -> torch.autograd.grad_mode.set_grad_enabled.clone\n"
    )
    assert "test/npu/test_grad_mode.py::TestGradMode::test_set_grad_enabled_clone" in out
    assert (
        "git grep -n -E 'set_grad_enabled.*clone|clone.*set_grad_enabled|test_.*set_grad_enabled.*clone' v2.7.1 -- test"
        in out
    )
    assert f"v2.7.1 -- test (run as {PERL})\n" in out  # what ran, after the command to rerun
    assert "  upstream main @ " in out
    assert "test/test_autograd.py::TestAutograd::test_set_grad_enabled_wraps" in out
    assert (
        "【社区用例检索与新增必要性】" in out
        and "Existing coverage and why a new test is needed" in out
    )
    assert "indexed repo@v2.7.1:" in text.err and "indexed pytorch@main:" in text.err


def test_json_shape_and_store_records(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = _cov(
        tmp_path, files.API, "--repo", str(repo), "--ref", "v2.7.1", "--ref", "master", "--json"
    )
    assert rc == 0
    docs = json.loads(capsys.readouterr().out)
    assert [d["api"] for d in docs] == [files.API]
    doc = docs[0]
    assert {"api", "canonical", "refs", "justification_zh", "justification_en"} <= set(doc)
    ref = doc["refs"][0]
    assert {"ref", "commit", "direct", "related", "weak", "grep", "skipped_files"} <= set(ref)
    assert {"test", "path", "line", "end_line", "how"} <= set(ref["direct"][0])
    assert {"command", "pattern", "count", "matches"} <= set(ref["grep"])
    # the forms file has 9 direct tests on both refs; v2.7.1 adds one more
    assert [(r["ref"], len(r["direct"])) for r in doc["refs"]] == [("v2.7.1", 10), ("master", 9)]
    assert len(ref["commit"]) == 40
    assert Store(tmp_path / "store").latest_record("coverage", files.API)["body"] == doc


def test_batch_from_a_file_is_answered_from_one_index(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    apis = tmp_path / "apis.txt"
    apis.write_text(
        f"# grad mode\n{files.API}\n\ntorch.optim.Optimizer.zero_grad  # inherited\ntorch.no_grad\n"
    )
    rc = _cov(tmp_path, "--from", str(apis), "--repo", str(repo), "--json")
    docs = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert [(d["api"], len(d["refs"][0]["direct"])) for d in docs] == [
        (files.API, 9),
        ("torch.optim.Optimizer.zero_grad", 2),
        ("torch.no_grad", 1),
    ]
    # three APIs on one ref: few enough to run git grep itself
    assert {d["refs"][0]["grep"]["engine"] for d in docs} == {PERL}
    rc = _cov(
        tmp_path,
        "--from",
        str(apis),
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--ref",
        "v2.7.1",
        "--grep",
        "fast",
        "--json",
    )
    captured = capsys.readouterr()
    fast = json.loads(captured.out)
    assert rc == 0
    # master is HEAD's tree: its built index is loaded in one read; v2.7.1 parses only its new blob
    assert "indexed repo@master: 2 test files (the index built before, loaded)" in captured.err
    assert "indexed repo@v2.7.1: 2 test files (1 parsed, 1 from cache)" in captured.err
    for d, f in zip(docs, fast, strict=True):
        assert f["refs"][0]["grep"]["engine"] == "in-process"
        # the first run asked for HEAD (master), this one for master: same lines, other prefix
        assert [m.replace("master:", "HEAD:", 1) for m in f["refs"][0]["grep"]["matches"]] == d[
            "refs"
        ][0]["grep"]["matches"]
        assert f["refs"][0]["direct"] == d["refs"][0]["direct"]
    rc = _cov(tmp_path, "--from", str(apis), "--repo", str(repo))
    table = capsys.readouterr().out
    assert rc == 0 and "torch.optim.Optimizer.zero_grad" in table and "【" not in table


def test_an_api_the_table_does_not_know_is_searched_literally(
    cov_repo: RepoFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_npu.py": """
        import torch
        import torch_npu

        def test_custom():
            torch_npu.npu_custom_op(torch.ones(1))
    """
            }
        }
    )
    rc = _cov(tmp_path, "torch_npu.npu_custom_op", "--repo", str(repo))
    out = capsys.readouterr().out
    assert rc == 0
    # found as written: the 'not in the table' note is only for a name nothing was found for
    assert "not in the static alias table" not in out and "不在别名表中" not in out
    assert "test/test_npu.py::test_custom" in out


def test_a_misspelt_api_gets_suggestions(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = _cov(
        tmp_path,
        "torch.autograd.grad_mode.set_grad_enable.clone",
        "--repo",
        str(repo),
        "--grep",
        "off",
    )
    text = capsys.readouterr()
    assert rc == 0
    assert "did you mean: torch.autograd.grad_mode.set_grad_enabled.clone" in text.out
    assert (
        "note: torch.autograd.grad_mode.set_grad_enable.clone is not in the static alias table"
        in text.err
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["torch.no_grad", "--ref", "v9.9"], "unknown ref 'v9.9'"),
        # every ref is resolved before any is indexed: no 'indexed master' line before the error
        (["torch.no_grad", "--ref", "master", "--ref", "v9.9"], "unknown ref 'v9.9'"),
        (
            [
                "torch.no_grad",
                "--ref",
                "master",
                "--python",
                "/nonexistent/python",
                "--ref",
                "v9.9",
            ],
            "unknown ref 'v9.9'",
        ),
        (["torch..no_grad"], "not an API name: 'torch..no_grad'"),
        (["torch.no_grad", "--grep", "sometimes"], "--grep 'sometimes' is not one of"),
        (["--from", "missing.txt"], "API list not found: missing.txt"),
        ([], "no API name given"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    rc = _cov(tmp_path, *args, "--repo", str(repo))
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and err[0].startswith("ERROR: ") and message in err[0]


@pytest.mark.slow
def test_not_a_git_repo_exits_2_in_a_subprocess(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torchparity",
            "coverage",
            "torch.no_grad",
            "--repo",
            str(plain),
            "--store",
            str(tmp_path / "s"),
        ],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"ERROR: {plain} is not a git repository; pass a git checkout (or a bare repository) to --repo"
    )
    assert proc.stdout == ""


def test_resolve_results_from_a_json_file(
    cov_repo: RepoFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_stream.py": """
        import torch_npu

        def test_query():
            torch_npu.npu.Stream().query()
    """
            }
        }
    )
    api = "torch_npu.npu.streams.Stream.query"
    learnt = tmp_path / "resolve.json"
    learnt.write_text(
        json.dumps(
            {
                "aliases": {"torch_npu.npu.Stream": "torch_npu.npu.streams.Stream"},
                "is_class": {"torch_npu.npu.streams.Stream": True},
            }
        )
    )
    assert _cov(tmp_path, api, "--repo", str(repo), "--json") == 0
    assert json.loads(capsys.readouterr().out)[0]["refs"][0]["direct"] == []
    assert _cov(tmp_path, api, "--repo", str(repo), "--json", "--aliases", str(learnt)) == 0
    doc = json.loads(capsys.readouterr().out)[0]
    assert [h["test"] for h in doc["refs"][0]["direct"]] == ["test/test_stream.py::test_query"]
    assert doc["alias_source"] == "static+file resolve.json"
    learnt.write_text("{not json")
    assert _cov(tmp_path, api, "--repo", str(repo), "--aliases", str(learnt)) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_a_bad_upstream_names_the_upstream_flag(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = _cov(
        tmp_path,
        "torch.no_grad",
        "--repo",
        str(repo),
        "--upstream",
        str(tmp_path / "nowhere@v2.7.1"),
    )
    err = capsys.readouterr().err
    assert rc == 2
    assert (
        f"repository folder not found: {tmp_path / 'nowhere'}; pass an existing folder to --upstream"
        in err
    )


@pytest.fixture
def ndim_repo(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {
            "master": {
                "test/test_shape.py": """
        import torch
        from torch.testing._internal.common_utils import TestCase


        class TestShape(TestCase):
            def test_ndim(self):
                x = torch.ones(2, 3)
                self.assertEqual(x.ndim, 2)

            def test_relu(self):
                torch.nn.functional.relu(torch.ones(1))
    """
            }
        }
    )


def test_a_short_form_maps_through_the_table_like_resolve(
    ndim_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cov(tmp_path, "Tensor.ndim", "--repo", str(ndim_repo), "--grep", "off") == 0
    out = capsys.readouterr().out
    assert out.startswith("Tensor.ndim -> torch.Tensor.ndim\n")
    assert "not in the static alias table" not in out
    assert "test/test_shape.py::TestShape::test_ndim" in out.split("related")[0]  # a direct test
    # several names end so: searched literally, and those names are the suggestions
    assert _cov(tmp_path, "relu", "--repo", str(ndim_repo), "--grep", "off", "--json") == 0
    doc = json.loads(capsys.readouterr().out)[0]
    assert (doc["canonical"], doc["known"]) == ("relu", False)
    assert doc["suggestions"] == ["torch.Tensor.relu", "torch.nn.functional.relu", "torch.relu"]


@pytest.mark.slow
def test_with_python_the_names_are_resolved_there_first(
    ndim_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    rc = _cov(
        tmp_path,
        "torch.Generator.manual_seed",
        "Tensor.ndim",
        "--repo",
        str(ndim_repo),
        "--grep",
        "off",
        "--json",
        "--python",
        sys.executable,
    )
    docs = json.loads(capsys.readouterr().out)
    assert rc == 0
    # resolve's canonical wins where it differs from the static table's (torch.Generator is torch._C.Generator)
    assert [d["canonical"] for d in docs] == ["torch._C.Generator.manual_seed", "torch.Tensor.ndim"]
    # the environment's type facts (read once, cached per torch version) and resolve's answers
    assert all(
        d["alias_source"].startswith("static+environment (torch ")
        and d["alias_source"].endswith("+resolve")
        for d in docs
    ), [d["alias_source"] for d in docs]
    assert [h["test"] for h in docs[1]["refs"][0]["direct"]] == [
        "test/test_shape.py::TestShape::test_ndim"
    ]
    assert (
        _cov(
            tmp_path,
            "torch.nn.functional.relux",
            "--repo",
            str(ndim_repo),
            "--python",
            sys.executable,
        )
        == 2
    )
    assert "did you mean" in capsys.readouterr().err


def test_a_bad_ref_fails_before_any_ref_is_indexed(
    repo: Path, upstream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clone = tmp_path / "clone"  # v2.7.1 is only a remote branch there (origin/v2.7.1)
    assert (
        subprocess.run(
            ["git", "clone", "-q", str(repo), str(clone)], capture_output=True
        ).returncode
        == 0
    )
    rc = _cov(tmp_path, "torch.no_grad", "--repo", str(clone), "--ref", "master", "--ref", "v2.7.1")
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1
    assert (
        err[0].startswith("ERROR: unknown ref 'v2.7.1'") and "did you mean origin/v2.7.1?" in err[0]
    )
    # a bad upstream ref too, though the backend's refs come first
    rc = _cov(
        tmp_path,
        "torch.no_grad",
        "--repo",
        str(repo),
        "--ref",
        "master",
        "--ref",
        "v2.7.1",
        "--upstream",
        f"{upstream}@nightly",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("ERROR: unknown ref 'nightly'")
    # nothing was parsed into the store's cache
    assert BlobCache(Store(tmp_path / "store")).count() == 0
    # the library call alike: no ref is indexed (no progress report) before the bad one is found
    indexed: list[str] = []
    with pytest.raises(UsageError, match="unknown ref 'v9.9'"):
        coverage_for(
            ["torch.no_grad"],
            repo,
            ["master", "v2.7.1", "v9.9"],
            Store(tmp_path / "store"),
            progress=lambda ix, _s: indexed.append(ix.ref),
        )
    assert indexed == []
    targets = resolve_targets(repo, ["master", "v2.7.1"], ["test"], [(upstream, "main")])
    assert [(t.ref, t.upstream, len(t.commit)) for t in targets] == [
        ("master", False, 40),
        ("v2.7.1", False, 40),
        ("main", True, 40),
    ]


NPU_EVENTS = """
import torch
import torch_npu


class TestEvents:
    def test_module_spelling(self):
        assert torch_npu.npu.Event().query()

    def test_torch_spelling(self):
        assert torch.npu.Event().query()
"""


def test_the_configured_backend_aliases_join_two_spellings(
    cov_repo: RepoFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = cov_repo(
        {
            "master": {
                "test/test_events.py": NPU_EVENTS,
                "torchparity.toml": 'preset = "torch_npu"\n',
            }
        }
    )
    assert (
        _cov(tmp_path, "torch_npu.npu.Event", "torch.npu.Event", "--repo", str(repo), "--json") == 0
    )
    docs = json.loads(capsys.readouterr().out)
    assert [len(d["refs"][0]["direct"]) for d in docs] == [2, 2]  # torch.npu is torch_npu.npu
    (repo / "torchparity.toml").write_text(
        'preset = "cuda"\n'
    )  # a config without the alias: one each
    assert (
        _cov(
            tmp_path,
            "torch_npu.npu.Event",
            "torch.npu.Event",
            "--repo",
            str(repo),
            "--json",
            "--config",
            str(repo / "torchparity.toml"),
        )
        == 0
    )
    docs = json.loads(capsys.readouterr().out)
    assert [len(d["refs"][0]["direct"]) for d in docs] == [1, 1]
