"""Scaffolded tests for real APIs: the right family, ruff-clean, the API called explicitly, they
pass on the CPU, and each fails once its API is replaced by a wrong implementation."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RUFF_BIN
from tests.scaffold.conftest import ALL_CASES, CASES, FAMILY_CASES, FILL_IN, run_files
from torchparity.checks.checklist import (
    PASS,
    alias_table,
    check_calls,
    check_docstring,
    check_testcase,
)
from torchparity.checks.pysource import SourceFile
from torchparity.config import load_preset

pytestmark = pytest.mark.slow

RUFF = [
    RUFF_BIN,
    "check",
    "--isolated",
    "--select",
    "E,F,W,I,B,UP",
    "--line-length",
    "100",
    "--target-version",
    f"py3{sys.version_info[1]}",
]


def test_at_least_twelve_apis_across_every_family(generated):
    families = {c.family for c in ALL_CASES}
    assert families == {
        "context",
        "opinfo",
        "tensor",
        "signature",
        "storage",
        "runtime",
        "module",
        "graph",
        "serialization",
        "optim",
        "data",
        "generator",
        "doctest",
        "measured",
        "autograd",
        "checkpoint",
        "pipelining",
    }
    assert len(CASES) >= 12
    for family in (
        "module",
        "graph",
        "serialization",
        "optim",
        "data",
        "pipelining",
    ):  # several APIs of each kind
        assert sum(1 for c in FAMILY_CASES if c.family == family) >= 3, family
    wrong = [
        (c.api, generated[c.api].result.family, generated[c.api].result.fill_in[:1])
        for c in ALL_CASES
        if generated[c.api].result.family != c.family
    ]
    assert not wrong, wrong
    for case in ALL_CASES:
        result = generated[case.api].result
        assert result.complete and result.created and result.methods
        assert Path(result.path).read_text() == result.content


def test_fill_in_when_no_family_decides(generated):
    result = generated[FILL_IN].result
    assert result.family == "fill-in" and not result.complete
    assert "self.fail(" in result.content and "torch.hub.help" in result.content
    assert "no call" in result.content  # the reason: no measured call of it worked here
    g = generated[FILL_IN]
    table = alias_table(
        g.info.canonical, (g.info.resolution.path, *g.info.resolution.aliases), g.info.canonical
    )
    calls = check_calls(SourceFile(result.path, result.content), g.info.canonical, table)
    assert calls.status != PASS and "fails on purpose" in calls.en  # a placeholder is not a call


def test_generated_files_pass_ruff(generated):
    paths = [g.result.path for g in generated.values()]
    proc = subprocess.run([*RUFF, *paths], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]


def test_generated_files_call_the_api_explicitly(generated):
    """The reports part's checker: the API (or an alias of it) is called inside a test method."""
    config = load_preset("default")
    from torchparity.checks.checklist import _Context

    ctx = _Context(
        config=config, repo=None, base=None, head=None, rev_range=None, targets=[], records=[]
    )
    for name, g in generated.items():
        if name == FILL_IN:
            continue  # fails on purpose until someone writes the calls
        src = SourceFile(g.result.path, g.result.content)
        names = (g.info.resolution.path, *g.info.resolution.aliases, g.result.spelling)
        table = alias_table(g.info.canonical, names, g.info.canonical)
        if (
            g.info.resolution.kind == "property"
        ):  # read, not called: the checker looks at calls only
            assert _reads_attribute(src, name.rsplit(".", 1)[1]), name
        else:
            calls = check_calls(src, g.info.canonical, table)
            # the checker does not follow every member alias (torch.UntypedStorage.copy_ for
            # torch.storage.UntypedStorage.copy_): then the API's own spelling is called in a test
            assert calls.status == PASS or _calls_spelling(src, g.result.spelling), (name, calls.en)
        doc = check_docstring(src, g.info.canonical, table)
        assert doc.status == PASS, (name, doc.en)
        assert check_testcase(ctx, src).status == PASS, name


def _calls_spelling(src: SourceFile, spelling: str) -> bool:
    """Whether a test method calls ``spelling`` written out (``torch.UntypedStorage.copy_(s, t)``)."""
    assert src.tree is not None
    for node in ast.walk(src.tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and ast.unparse(inner.func) == spelling:
                    return True
    return False


def _reads_attribute(src: SourceFile, attr: str) -> bool:
    """Whether a test method reads ``<tensor>.attr``."""
    assert src.tree is not None
    for node in ast.walk(src.tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Attribute)
                    and inner.attr == attr
                    and isinstance(inner.ctx, ast.Load)
                ):
                    return True
    return False


def test_every_generated_test_passes_and_fails_once_broken(generated, tmp_path):
    jobs = [{"file": generated[c.api].result.path, "patch": ""} for c in ALL_CASES]
    jobs += [{"file": generated[c.api].result.path, "patch": c.breakage} for c in ALL_CASES]
    jobs.append({"file": generated[FILL_IN].result.path, "patch": ""})
    results = run_files(jobs, tmp_path)
    n = len(ALL_CASES)
    clean, broken, fill_in = results[:n], results[n : 2 * n], results[-1]
    for case, res in zip(ALL_CASES, clean, strict=True):
        assert res["exit_code"] == 0 and res["summary"] == "OK", (case.api, res["output"])
    for case, res in zip(ALL_CASES, broken, strict=True):
        assert res["exit_code"] != 0, (
            case.api,
            "passed with a wrong implementation",
            res["output"],
        )
        assert res["summary"].startswith("FAILED ("), (case.api, res["summary"], res["output"])
    assert fill_in["exit_code"] != 0 and fill_in["summary"] == "FAILED (failures=1)"


def test_the_other_device_paths_run(generated, tmp_path):
    """The code a test takes on another device (CPU results as the reference, CPU comparison of
    Tensor members), rendered from the same facts and run with the CPU standing in for it."""
    import copy

    from torchparity.scaffold import build_plan, conventions_from
    from torchparity.scaffold.render import render_file

    conv = conventions_from(load_preset("default"))
    jobs, plans = [], []
    for api in (
        "torch.nn.functional.relu",
        "torch.Tensor.add_",
        "torch.cat",
        "torch.Tensor.ndim",
        "torch.Tensor.item",
    ):
        g = generated.get(api)
        if g is None:
            continue
        facts = copy.deepcopy(g.facts)
        facts["device_type"] = "npu"
        if facts.get("opinfo"):
            facts["opinfo"]["reference"] = "cpu"
        plan = build_plan(g.info, facts, "DEVICE")
        text = render_file(
            plan,
            conv,
            device_line='DEVICE = torch.device("cpu")',
            device_type="npu",
            torch_version="2.13.0",
        )
        path = tmp_path / plan.file_name
        path.write_text(text)
        plans.append(plan)
        jobs.append({"file": str(path), "patch": ""})
    assert any('cpu = self._sample_to(sample, "cpu")' in m.source for p in plans for m in p.methods)
    assert any("x.cpu().ndim" in m.source for p in plans for m in p.methods)
    for job, res in zip(jobs, run_files(jobs, tmp_path), strict=True):
        assert res["exit_code"] == 0 and res["summary"] == "OK", (job["file"], res["output"])


def test_the_coverage_index_finds_every_generated_test_as_direct(generated, tmp_path):
    """Committed into a backend repo, each scaffolded file is direct coverage of its API."""
    from tests.conftest import git
    from torchparity.coverage import coverage_for
    from torchparity.store import Store

    repo = tmp_path / "backend"
    (repo / "test").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")

    # a property read on a receiver whose type coverage cannot follow (node.next) is not indexed; a
    # test through the device's own module (torch.cpu.current_device for torch.cuda.current_device)
    # covers the backend's spelling, which the repo's config names ([backend_aliases])
    def spelled_as_resolved(g) -> bool:
        r = g.info.resolution
        return g.result.spelling in (r.canonical, r.path, *r.aliases)

    apis = [
        c.api
        for c in ALL_CASES
        if generated[c.api].info.resolution.kind != "property"
        and spelled_as_resolved(generated[c.api])
    ]
    for api in apis:
        path = Path(generated[api].result.path)
        (repo / "test" / f"{path.parent.name}_{path.name}").write_text(path.read_text())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "scaffolded tests")
    report = coverage_for(apis, repo, ["master"], Store(tmp_path / "store"))
    for api in apis:
        (ref,) = report[api].to_json()["refs"]
        path = Path(generated[api].result.path)
        name = f"{path.parent.name}_{path.name}"
        direct = [d for d in ref["direct"] if d["path"] == f"test/{name}"]
        assert direct, f"{api}: {name} is not found as direct coverage"
