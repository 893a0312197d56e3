"""One spelling assembly: the coverage verb, verify and the checklist count the same names, the docs'
NPU 形式名称 among them (an API reached only through it is found by every one of them)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.coverage.conftest import RepoFactory
from tests.docs.docs_pages import cuda_event_page
from torchparity.cli import main
from torchparity.config import load_config
from torchparity.coverage import coverage_for
from torchparity.coverage.spellings import assemble
from torchparity.store import Store

CONFIG = 'preset = "torch_npu"\nbackend_module = ""\ndevice = "cpu"\nactive_branches = ["master"]\n'

#: the backend's own spelling only: nothing here says torch.cuda, and torch_npu.npu is no alias of it
EVENT_TESTS = """
import torch_npu
from torch_npu.testing.testcase import TestCase, run_tests


class TestEvent(TestCase):
    def test_event_query(self):
        event = torch_npu.npu.Event()
        self.assertTrue(event.query())

    def test_event_elapsed_time(self):
        start = torch_npu.npu.Event(enable_timing=True)
        end = torch_npu.npu.Event(enable_timing=True)
        start.record()
        end.record()
        self.assertGreaterEqual(start.elapsed_time(end), 0)

    def test_other_thing(self):
        self.assertTrue(torch_npu.npu.is_available() in (True, False))


if __name__ == "__main__":
    run_tests()
"""

EXPECTED = {
    "test/npu/test_event.py::TestEvent::test_event_query",
    "test/npu/test_event.py::TestEvent::test_event_elapsed_time",
}


@pytest.fixture
def repo(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {
            "master": {
                "torchparity.toml": CONFIG,
                "test/npu/test_event.py": EVENT_TESTS,
                "docs/zh/api/native_api/pytorch_2-11-0/torch-cuda.md": cuda_event_page(),
            }
        }
    )


def test_the_docs_spelling_joins_and_is_said(repo: Path, tmp_path: Path) -> None:
    cfg = load_config(None, repo)
    sp = assemble(["torch.cuda.Event"], cfg, repo=repo)
    assert sp.from_docs == {"torch_npu.npu.Event": "torch.cuda.streams.Event"}
    assert sp.notes() == [
        "coverage counts the backend's spelling too: torch_npu.npu.Event (the docs' NPU 形式名称)"
    ]
    assert "docs" in sp.sources and "[backend_aliases]" in sp.sources
    report = coverage_for(
        ["torch.cuda.Event"], repo, ["master"], Store(tmp_path / "s"), aliases=sp.table, grep="off"
    )
    assert {h.test for h in report["torch.cuda.Event"].refs[0].direct} == EXPECTED
    # without the docs, nothing says torch_npu.npu.Event is torch.cuda.Event
    bare = coverage_for(["torch.cuda.Event"], repo, ["master"], Store(tmp_path / "s"), grep="off")
    assert bare["torch.cuda.Event"].refs[0].direct == ()


def test_the_verb_reads_the_docs_of_the_repo(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(
        [
            "coverage",
            "torch.cuda.Event",
            "--repo",
            str(repo),
            "--grep",
            "off",
            "--json",
            "--store",
            str(tmp_path / "s"),
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0
    doc = json.loads(captured.out)[0]
    assert {h["test"] for h in doc["refs"][0]["direct"]} == EXPECTED
    assert "torch_npu.npu.Event (the docs' NPU 形式名称)" in captured.err


def test_the_checklist_counts_the_docs_spelling(repo: Path) -> None:
    from torchparity.checks import evaluate_checklist

    result = evaluate_checklist(
        repo,
        None,
        ["test/npu/test_event.py"],
        api="torch.cuda.Event",
        config=load_config(None, repo),
    )
    item = next(i for i in result.items if i.id == "calls_api")
    assert item.status == "pass", item.reason
    assert "test_event_query" in item.reason


@pytest.mark.slow
def test_coverage_and_verify_list_the_same_direct_tests(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same API and ref: the verb (static table) and verify (resolve in a real torch) agree."""
    main(
        [
            "coverage",
            "torch.cuda.Event",
            "--repo",
            str(repo),
            "--grep",
            "off",
            "--json",
            "--store",
            str(tmp_path / "c"),
        ]
    )
    verb = {h["test"] for h in json.loads(capsys.readouterr().out)[0]["refs"][0]["direct"]}
    main(
        [
            "coverage",
            "torch.cuda.Event",
            "--repo",
            str(repo),
            "--grep",
            "off",
            "--json",
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "p"),
        ]
    )
    with_python = {h["test"] for h in json.loads(capsys.readouterr().out)[0]["refs"][0]["direct"]}
    main(
        [
            "verify",
            "torch.cuda.Event",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--store",
            str(tmp_path / "v"),
            "--out",
            str(tmp_path / "out"),
            "--json",
        ]
    )
    capsys.readouterr()
    record = Store(tmp_path / "v").latest_record("coverage", "torch.cuda.Event")
    assert record is not None
    from_verify = {h["test"] for h in record["body"]["refs"][0]["direct"]}
    assert verb == with_python == from_verify == EXPECTED
