"""``torchparity scaffold`` end to end; the scaffolded files through the collector, unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scaffold.conftest import CASES
from tests.scaffold.scaffold_fixtures import EXISTING, TWO_SPACE
from tests.scaffold.test_scaffold_insert import removed
from torchparity.cli import main

# the real end-to-end tests here are marked slow; the others answer the agent from recordings of the
# real one (the `agent` fixture, tests/fakeagent.py)


# -- bad input: one line, exit 2, before any interpreter starts ------------------------------------
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--into", "x.py", "--out", "d"], "pass either --into FILE (add to it) or --out DIR"),
        (["--into", "missing.py"], "test file not found: missing.py"),
        (["--into", "broken.py"], "broken.py does not parse (line "),
        (["--out", "plain.txt"], "--out plain.txt is not a folder"),
        (["--dtype", "fancy"], "--dtype 'fancy' names no dtype"),
        (["--emulate", "tpu"], "--emulate: no emulated backend 'tpu'; known: npu"),
        (["--emulate", "npu", "--device", "cuda"], "the emulated npu runs on device npu, not cuda"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(agent, tmp_path, monkeypatch, capsys, args, fragment):
    monkeypatch.chdir(tmp_path)
    Path("broken.py").write_text("class TestX:\n    def test_a(self)\n        pass\n")
    Path("plain.txt").write_text("not a folder")
    rc = main(["scaffold", "torch.add", *args, "--python", "/nonexistent/python"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.startswith("ERROR: ") and fragment in err and "\n" not in err


# -- the real thing ------------------------------------------------------------------------------------
def test_cli_writes_prints_and_refuses_to_overwrite(agent, tmp_path, capsys):
    out = tmp_path / "tests"
    assert (
        main(["scaffold", "torch._utils._get_device_index", "--out", str(out), "--device", "cpu"])
        == 0
    )
    text = capsys.readouterr().out
    path = out / "test_get_device_index.py"
    assert path.is_file()
    assert (
        f"wrote {path} (signature family, cpu): test_get_device_index, test_get_device_index_invalid_arguments"
        in text
    )
    assert f"run it: torchparity run {path}" in text

    assert (
        main(["scaffold", "torch._utils._get_device_index", "--out", str(out), "--device", "cpu"])
        == 2
    )
    assert "already exists; add to it with --into" in capsys.readouterr().err

    assert (
        main(
            [
                "scaffold",
                "Tensor.ndim",
                "--out",
                str(tmp_path / "dry"),
                "--dry-run",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert not (tmp_path / "dry").exists()
    assert printed.startswith('"""Validation cases for torch.Tensor.ndim on CPU.')
    assert "self.assertEqual(x.ndim, len(shape))" in printed

    # a private canonical home (torch._C.Generator) is named by its public spelling in the prose
    assert (
        main(
            [
                "scaffold",
                "torch.Generator.seed",
                "--out",
                str(tmp_path / "g"),
                "--dry-run",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert printed.startswith('"""Validation cases for torch.Generator.seed on CPU.')
    assert "This file validates torch.Generator.seed" in printed

    assert (
        main(
            [
                "scaffold",
                "torch.promote_types",
                "--out",
                str(tmp_path / "j"),
                "--json",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert (
        doc["family"] == "doctest" and doc["created"] and doc["complete"]
    )  # its docstring's examples
    assert doc["methods"] == ["test_promote_types_docstring_examples"]
    assert Path(doc["path"]).read_text() == doc["content"]


@pytest.mark.slow
def test_emulate_npu_writes_the_backend_s_conventions_and_the_file_runs_there(tmp_path, capsys):
    out = tmp_path / "tests"
    assert (
        main(["scaffold", "torch.nn.ModuleList.append", "--out", str(out), "--emulate", "npu"]) == 0
    )
    captured = capsys.readouterr()
    assert "EMULATED npu on CPU" in captured.err
    path = out / "test_modulelist_append.py"
    assert f"wrote {path} (module family, npu)" in captured.out
    text = path.read_text()
    # the torch_npu preset's conventions, since the config names no backend
    assert "from torch_npu.testing.testcase import TestCase, run_tests" in text
    assert 'DEVICE = torch.device("npu:0")' in text
    assert main(["run", str(path), "--emulate", "npu"]) == 0
    assert "PASS" in capsys.readouterr().out


def test_repo_config_decides_where_and_how(agent, tmp_path, capsys):
    repo = tmp_path / "backend"
    repo.mkdir()
    (repo / "torchparity.toml").write_text(
        'device = "cpu"\n[scaffold]\ntest_dir = "test/api"\ncoverage_table = true\n'
        'copyright = "# Copyright (c) {year} Example Org\\n# SPDX-License-Identifier: BSD-3-Clause\\n"\n'
    )
    assert main(["scaffold", "torch.cpu.device_count", "--repo", str(repo)]) == 0
    path = repo / "test/api/test_cpu_device_count.py"
    text = path.read_text()
    assert (
        text.startswith("# Copyright (c) ")
        and "Example Org\n# SPDX-License-Identifier: BSD-3-Clause\n\n" in text
    )
    assert "- 正常传参场景：" in text
    assert "        count = torch.cpu.device_count()\n" in text


def test_into_an_existing_file_keeps_it_and_the_collector_runs_all(agent, tmp_path, capsys):
    target = tmp_path / "test_grad_modes.py"
    target.write_text(EXISTING)
    rc = main(
        ["scaffold", "torch.set_grad_enabled.clone", "--into", str(target), "--device", "cpu"]
    )
    assert rc == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"added to TestGradModes in {target}" in out
    assert "imports added" not in out  # torch and the TestCase are there already
    # its docstring did not name the API: extended (its closing quotes go to a line of their own);
    # its copyright header is another one than the config's (none here): kept as it is
    assert (
        "added for the checklist: the module docstring naming "
        "torch.autograd.grad_mode.set_grad_enabled.clone (extended)" in out
    )
    new = target.read_text()
    kept = EXISTING.replace('tests."""\n', 'tests.\n"""\n', 1)
    assert removed(new, kept) == kept
    assert new.startswith("# Copyright (c) 2024 Someone\n# keep this comment exactly   as it is\n")
    assert 'DEVICE = torch.device("cpu")' in new  # the decorator test uses the device

    assert main(["run", str(target), "--store", str(tmp_path / "store"), "--json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert record["result"] == "PASS"
    outcomes = {t["id"].rsplit(".", 1)[-1]: t["outcome"] for t in record["full"][0]["tests"]}
    assert outcomes == {
        "test_no_grad": "passed",
        "test_enable_grad": "passed",  # the tests the file had
        "test_set_grad_enabled_clone": "passed",
        "test_set_grad_enabled_clone_decorator": "passed",
    }


def test_into_a_file_whose_device_is_a_string(agent, tmp_path, capsys):
    target = tmp_path / "test_two.py"
    target.write_text(TWO_SPACE)
    assert main(["scaffold", "torch.no_grad", "--into", str(target), "--device", "cpu"]) == 0
    new = target.read_text()
    assert "x = torch.tensor([1.0], device=torch.device(DEVICE), requires_grad=True)" in new
    assert main(["run", str(target), "--store", str(tmp_path / "store")]) == 0
    capsys.readouterr()


@pytest.mark.slow
def test_the_collector_runs_scaffolded_files_unchanged(generated, tmp_path, capsys):
    """``torchparity run FILE...``: the warm worker, PYTHONPATH unset, ``python FILE -v`` semantics."""
    picks = {}
    for case in CASES:
        picks.setdefault(case.family, generated[case.api].result.path)
    store = tmp_path / "store"
    rc = main(["run", *picks.values(), "--store", str(store), "--json"])
    records = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert len(picks) == len({c.family for c in CASES}) == 7
    (record,) = records
    assert record["result"] == "PASS"
    assert len(record["full"]) == 7
    assert all(step["exit_code"] == 0 and step["status"] == "OK" for step in record["full"]), (
        record["full"]
    )


def test_into_follows_the_file_s_own_device_variable_and_imports(agent, tmp_path, capsys):
    """A file that names its device ``device = "cpu"`` (lowercase) gets methods using it: no second
    device variable, and only the imports it lacks."""
    target = tmp_path / "test_own.py"
    target.write_text(
        "import torch\n"
        "from torch.testing._internal.common_utils import TestCase, run_tests\n\n"
        'device = "cpu"\n\n\n'
        "class TestOwn(TestCase):\n"
        "    def test_ones(self):\n"
        "        self.assertEqual(torch.ones(1, device=device).item(), 1.0)\n\n\n"
        'if __name__ == "__main__":\n    run_tests()\n'
    )
    assert main(["scaffold", "torch.nn.ModuleList", "--into", str(target), "--device", "cpu"]) == 0
    new = target.read_text()
    assert "DEVICE" not in new and "torch.nn.Linear(2, 3, device=torch.device(device))" in new
    assert new.count("import torch\n") == 1
    assert main(["run", str(target), "--store", str(tmp_path / "store")]) == 0
    capsys.readouterr()


#: a test file of the gradient modes, as ``verify --into`` is given it
_GRAD_TESTS = (
    "import torch\n"
    "from torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
    "class TestGrad(TestCase):\n"
    "    def test_no_grad(self):\n"
    "        with torch.no_grad():\n"
    "            self.assertFalse(torch.is_grad_enabled())\n\n\n"
    'if __name__ == "__main__":\n    run_tests()\n'
)


def _patched_copy(tmp_path: Path, name: str, original: str, patch: str) -> str:
    """``original`` as ``name`` in a new git folder, with ``git apply`` of ``patch``: the result."""
    import subprocess

    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / name).write_text(original)
    subprocess.run(["git", "init", "-q"], cwd=copy, check=True)
    (copy / "p.patch").write_text(patch)
    subprocess.run(["git", "apply", "p.patch"], cwd=copy, check=True)
    return (copy / name).read_text()


def test_verify_into_writes_a_patch_that_adds_the_methods(agent, tmp_path, monkeypatch, capsys):
    """``verify --into FILE`` (no repo): the methods go into the file, and the patch from the file as
    it was applies cleanly to a copy of it."""
    import sys

    monkeypatch.chdir(tmp_path)
    target = tmp_path / "test_grad.py"
    original = (
        '"""Gradient-mode tests, torch.autograd.grad_mode.set_grad_enabled.clone among them."""\n\n'
        + _GRAD_TESTS
    )
    target.write_text(original)
    rc = main(
        [
            "verify",
            "torch.autograd.grad_mode.set_grad_enabled.clone",
            "--python",
            sys.executable,
            "--into",
            str(target),
            "--scaffold",
        ]
    )
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    patches = list((tmp_path / "torchparity-out").rglob("*.patch"))
    assert len(patches) == 1, patches
    text = patches[0].read_text()
    assert text.startswith(
        "diff --git a/test_grad.py b/test_grad.py\n"
    )  # relative to where verify ran
    assert _patched_copy(tmp_path, "test_grad.py", original, text) == target.read_text()
    assert "def test_set_grad_enabled_clone(self):" in target.read_text()


def test_verify_into_adds_the_header_and_docstring_and_its_patch_shows_them(
    agent, tmp_path, monkeypatch, capsys
):
    """``verify --into FILE`` on a file without the configured copyright header and without a module
    docstring: both are added as a new file has them, the checklist's two items pass on the result,
    and the patch verify writes adds them too."""
    import sys

    from torchparity.checks.checklist import alias_table, check_copyright, check_docstring
    from torchparity.checks.pysource import SourceFile
    from torchparity.records.checklist import PASS

    monkeypatch.chdir(tmp_path)
    copyright = "# Copyright (c) {year} Example Org\n# SPDX-License-Identifier: BSD-3-Clause\n"
    config = tmp_path / "torchparity.toml"
    config.write_text(f"[scaffold]\ncopyright = {json.dumps(copyright)}\n")
    target = tmp_path / "test_grad.py"
    original = _GRAD_TESTS
    target.write_text(original)
    api = "torch.autograd.grad_mode.set_grad_enabled.clone"
    rc = main(
        ["verify", api, "--python", sys.executable, "--into", str(target), "--scaffold"]
        + ["--config", str(config)]
    )
    captured = capsys.readouterr()
    assert rc == 0, captured.out + captured.err
    new = target.read_text()
    src = SourceFile("test_grad.py", new)
    assert check_copyright(src, copyright).status == PASS
    assert check_docstring(src, api, alias_table(api)).status == PASS
    assert new.startswith("# Copyright (c) ") and removed(new, original) == original
    (patch,) = (tmp_path / "torchparity-out").rglob("*.patch")
    text = patch.read_text()
    assert "\n+# SPDX-License-Identifier: BSD-3-Clause\n" in text
    assert f'\n+"""Validation cases for {api} on CPU.\n' in text
    assert _patched_copy(tmp_path, "test_grad.py", original, text) == new
