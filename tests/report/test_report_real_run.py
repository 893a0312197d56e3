"""End to end: a real ``torchparity run`` (torch CPU, real git, a real unittest file), then its reports."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from xmlschema import XMLSchema

from tests.report.report_fixtures import make_pr_repo
from torchparity.cli import main

#: every test here starts interpreters with torch (seconds each): the slow tier
pytestmark = pytest.mark.slow

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
TEST = '''"""Checks torch.autograd.grad_mode.set_grad_enabled.clone on the CPU."""

import torch
from torch.testing._internal.common_utils import TestCase, run_tests



class TestClone(TestCase):
    def test_set_grad_enabled_clone(self):
        before = torch.is_grad_enabled()
        cloned = torch.set_grad_enabled(False).clone()
        torch.set_grad_enabled(before)
        self.assertFalse(cloned.mode)

    def test_mode_flag_wrong(self):
        self.assertTrue(torch.set_grad_enabled(False).clone().mode)


if __name__ == "__main__":
    run_tests()
'''


@pytest.mark.slow
def test_reports_of_a_real_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = make_pr_repo(
        tmp_path / "repo", {"test/test_clone.py": TEST}, messages=("test: add clone test",)
    )
    store = str(tmp_path / "store")
    rc = main(
        [
            "run",
            "test/test_clone.py",
            "--repo",
            str(repo),
            "--python",
            sys.executable,
            "--isolation",
            "--api",
            API,
            "--store",
            store,
        ]
    )
    capsys.readouterr()
    assert rc == 1  # one test fails on purpose
    common = ["1", "--store", store, "--repo", str(repo), "--range", "master..HEAD"]

    assert main(["report", *common, "--kind", "json"]) == 0
    model = json.loads(capsys.readouterr().out)
    (target,) = model["targets"]
    assert target["result"] == "FAIL" and target["counts"] == {
        "passed": 1,
        "failed": 1,
        "error": 0,
        "skipped": 0,
        "xfail": 0,
        "xpass": 0,
        "total": 2,
    }
    assert target["isolation_passed"] is True and target["torch_version"].startswith("2.")
    items = {i["id"]: i["status"] for i in model["checklist"]["items"]}
    assert items == {
        "copyright": "n.a.",
        "docstring_api": "pass",
        "calls_api": "pass",
        "no_noqa_import": "pass",
        "testcase": "pass",
        "state_restored": "pass",
        "single_commit": "pass",
        "only_target_files": "pass",
        "type_tag": "pass",
        "hardware_evidence": "pass",
    }

    assert main(["report", *common, "--kind", "pr", "--lang", "en"]) == 0
    pr = capsys.readouterr().out
    assert main(["show", "1", "--store", store]) == 0
    log = capsys.readouterr().out.split("# log sha256")[0]
    assert log.rstrip("\n") in pr  # the complete raw evidence log, as stored
    assert "`__main__.TestClone.test_mode_flag_wrong`: FAILED" in pr  # the id the runner printed

    assert main(["report", "1", "--store", store, "--kind", "junit"]) == 0
    xml = capsys.readouterr().out
    XMLSchema(str(Path(__file__).parent / "junit.xsd")).validate(xml)
    failed = [c for c in ET.fromstring(xml).iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["test_mode_flag_wrong"]
