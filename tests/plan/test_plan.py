"""``torchparity plan`` over a fake agent (issue 38): the surface job is answered in this process by the
agent's own code, walking a package written here (``tests/plan/fakepkg.py``), against fixture pages and
a fixture repo's tests. No interpreter starts.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.docs.docs_pages import entry
from tests.plan.fakepkg import NAME, package_fixture  # noqa: F401 - the fixture `package`
from torchparity.agent.api.surface import op_surface
from torchparity.batch.tasks import read_tasks
from torchparity.cli import main
from torchparity.dashboard.plan import plan_summary
from torchparity.exec.fake import answering
from torchparity.exec.runners import Job

CONFIG = """\
backend_module = ""
device = "cpu"
test_roots = ["test"]

[docs]
root = "docs/native_api"

[[docs.products]]
code = "910b"
name = "Atlas A2训练系列产品"

[[docs.products]]
code = "A3"
name = "Atlas A3训练系列产品"

[[docs.products]]
code = "950"
name = "Ascend 950DT系列产品"
"""

TESTS = """\
import unittest

import tpfake


class TestFake(unittest.TestCase):
    def test_add(self):
        self.assertEqual(tpfake.add(1, 2), 3)

    def test_helper(self):
        self.assertEqual(tpfake.public_helper(), 0)


if __name__ == "__main__":
    unittest.main()
"""


def list_page(title: str, *entries: tuple[str, str, tuple[tuple[str, str], ...]]) -> str:
    """A 2.13 page in the list format: (API, statuses in 910b A3 950 order, its sub-methods)."""
    ids = itertools.count(1)
    body = "".join(
        entry("list", api, "2.13", statuses, ids, subs=subs) for api, statuses, subs in entries
    )
    return f"# {title}\n\n## Functions\n\n{body}"


def page() -> str:
    return list_page(
        NAME,
        (f"{NAME}.add", "yyy", ()),
        (f"{NAME}.Base", "yyn", (("shared", "yyy"),)),
        # a class's member written through another class that reaches the same object
        (f"{NAME}.nn.Child2.inherited", "yyy", ()),
        (f"{NAME}.ops.gone", "yyy", ()),  # in no version of the package
        (f"{NAME}.ops._sub", "nnn", ()),  # private
    )


def plan_cli(repo: Path, tasks: Path, store: Path, *extra: str) -> int:
    """``torchparity plan`` of ``repo``'s 2.13.0 pages, the task file at ``tasks``."""
    return main(
        [
            *("plan", "--repo", str(repo), "--version", "2.13.0", "--tasks", str(tasks)),
            *("--store", str(store), *extra),
        ]
    )


@pytest.fixture
def repo(make_repo: Any) -> Path:
    return make_repo(
        {
            "master": {
                "torchparity.toml": CONFIG,
                f"docs/native_api/pytorch_2-13-0/{NAME}.md": page(),
                "docs/native_api/pytorch_2-7-1/other.md": "# other\n",
                f"test/test_{NAME}.py": TESTS,
            }
        }
    )


def plan_in_this_torch(
    make_repo: Any, tmp_path: Path, capsys: Any, module: str, page: str, tests: str, families: int
) -> tuple[dict[str, Any], Path, str]:
    """``plan --module MODULE`` in this interpreter (its torch) over a repo of one page and one test
    file: (the summary, the task file, what it printed)."""
    leaf = module.rsplit(".", 1)[-1]
    repo = make_repo(
        {
            "master": {
                "torchparity.toml": CONFIG,
                f"docs/native_api/pytorch_2-13-0/{module.replace('.', '-')}.md": page,
                f"test/test_{leaf}.py": tests,
            }
        }
    )
    out = tmp_path / "plan.toml"
    rc = plan_cli(
        repo,
        out,
        tmp_path / "store",
        *("--module", module, "--python", sys.executable, "--families", str(families)),
    )
    said = capsys.readouterr()
    assert rc == 0, said.err
    return json.loads(out.with_suffix(".json").read_text()), out, said.out


class _Ctx:
    class torch:  # noqa: N801 - the torch module the job reports the version of
        __version__ = "2.13.0+fake"


def surface_job(job: Job) -> dict[str, Any]:
    """The real ``surface`` job, run here (the package is importable in this process)."""
    assert job.op == "surface", job.op
    return op_surface(_Ctx, job.args)


def run_plan(repo: Path, tmp_path: Path, *extra: str) -> tuple[int, list[Job]]:
    asked: list[Job] = []

    def handler(job: Job) -> dict[str, Any]:
        asked.append(job)
        return surface_job(job)

    with answering(handler):
        rc = plan_cli(
            repo,
            tmp_path / "out" / "plan.toml",
            tmp_path / "store",
            *("--module", NAME, "--families", "0", *extra),
        )
    return rc, asked


def _rows(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in summary["apis"]}


def test_each_api_is_documented_unsupported_or_missing(
    package: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, asked = run_plan(repo, tmp_path)
    said = capsys.readouterr()
    assert rc == 0, said.err
    assert [j.op for j in asked] == ["surface"]
    # the pages' names went to the agent, to be reached by the object they name
    assert f"{NAME}.nn.Child2.inherited" in asked[0].args["names"]
    doc = json.loads((tmp_path / "out" / "plan.json").read_text())
    rows = _rows(doc)
    # an API missing from the pages is planned, with its direct test at the ref
    helper = rows[f"{NAME}.public_helper"]
    assert (helper["state"], helper["planned"], helper["direct"]) == ("missing", True, 1)
    assert helper["direct_tests"] == [f"test/test_{NAME}.py::TestFake::test_helper"]
    assert helper["canonical"] == f"{NAME}._impl.helper" and helper["page"] is None
    # an API on the pages with ✘ is planned as such, the product named
    base = rows[f"{NAME}.Base"]
    assert (base["state"], base["planned"], base["unsupported_on"]) == (
        "unsupported",
        True,
        ["950"],
    )
    assert (
        base["page"] == f"pytorch_2-13-0/{NAME}.md"
        and base["products"]["950"]["supported"] is False
    )
    # documented: not planned; found under another class's name of the same member too
    assert (rows[f"{NAME}.add"]["state"], rows[f"{NAME}.add"]["planned"]) == ("documented", False)
    assert rows[f"{NAME}.add"]["direct"] == 1
    inherited = rows[f"{NAME}.nn.Child1.inherited"]
    assert (inherited["state"], inherited["entry"]) == ("documented", f"{NAME}.nn.Child2.inherited")
    assert rows[f"{NAME}.Base.shared"]["state"] == "documented"
    assert doc["counts"] == {
        "missing": len(rows) - 4,
        "unsupported": 1,
        "documented": 3,
        "total": len(rows),
        "planned": len(rows) - 3,
    }
    assert doc["states"] == {k: doc["counts"][k] for k in ("missing", "unsupported", "documented")}
    # the counts the dashboard shows (``dashboard --plan``) are read from this file as it is
    shown = plan_summary(doc, "plan.json")
    assert dict(shown.states) == doc["states"]
    assert dict(dict(shown.modules)[f"{NAME}.nn"]) == doc["modules"][f"{NAME}.nn"]
    assert doc["docs"]["not_in_surface"] == [
        {"api": f"{NAME}.ops._sub", "why": "its name reaches an object that is no public API"},
        {"api": f"{NAME}.ops.gone", "why": "its name reaches nothing in this torch"},
    ]
    assert doc["modules"][f"{NAME}.nn"]["missing"] >= 3
    assert doc["products"]["950"] == {
        "name": "Ascend 950DT系列产品",
        "supported": 3,
        "unsupported": 1,
        "not understood": 0,
    }
    # ranked: planned first, those with direct tests first, then ✘ before missing
    planned = [a["name"] for a in sorted(doc["apis"], key=lambda a: a["rank"]) if a["planned"]]
    assert planned[:2] == [f"{NAME}.public_helper", f"{NAME}.Base"]
    assert "missing" in said.out and "unsupported" in said.out and "tasks:" in said.out
    assert f"{NAME}.nn" in said.out  # the modules table


def test_the_task_file_is_read_by_batch_in_rank_order(
    package: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _ = run_plan(repo, tmp_path)
    assert rc == 0, capsys.readouterr().err
    doc = json.loads((tmp_path / "out" / "plan.json").read_text())
    ranked = [a for a in sorted(doc["apis"], key=lambda a: a["rank"]) if a["planned"]]
    tasks = read_tasks(tmp_path / "out" / "plan.toml")
    assert tasks.form == "toml"
    assert [t.api for t in tasks.tasks] == [a["api"] for a in ranked]
    assert doc["tasks"] == {"file": str(tmp_path / "out" / "plan.toml"), "written": len(ranked)}
    text = (tmp_path / "out" / "plan.toml").read_text()
    assert "# #2 unsupported on 950" in text and "1 direct test(s)" in text
    # the first N, one API a line: the text form batch reads
    rc, _ = run_plan(repo, tmp_path, "--tasks", str(tmp_path / "first.txt"), "--limit", "2")
    assert rc == 0
    first = read_tasks(tmp_path / "first.txt")
    assert first.form == "text" and [t.api for t in first.tasks] == [a["api"] for a in ranked[:2]]
    assert (tmp_path / "first.json").is_file()


def test_the_states_planned_are_chosen(
    package: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, _ = run_plan(repo, tmp_path, "--state", "unsupported", "--state", "documented")
    assert rc == 0, capsys.readouterr().err
    apis = [t.api for t in read_tasks(tmp_path / "out" / "plan.toml").tasks]
    assert apis[0] == f"{NAME}.add"  # documented, with a direct test
    assert set(apis) == {
        f"{NAME}.add",
        f"{NAME}.Base",
        f"{NAME}.Base.shared",
        f"{NAME}.nn.Child2.inherited",  # as the page writes it
    }


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--version", "2.99.0"], "no folder pytorch_2-99-0 in"),
        (["--version", "2.13.0", "--ref", "no-such-branch"], "unknown ref 'no-such-branch'"),
        (["--version", "2.13.0", "--docs", "{tmp}/nowhere"], "docs folder not found"),
        (["--version", "2.13.0", "--state", "gone"], "--state 'gone' is not one of"),
        (["--version", "2.13.0", "--module", "torch..x"], "is not a module name"),
        (["--version", "2.13.0", "--grep", "git"], "--grep 'git' is not one of"),
        (["--version", "2.13.0", "--limit", "0"], "--limit 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_interpreter(
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    def handler(job: Job) -> dict[str, Any]:
        raise AssertionError(f"no job may run: {job.op}")

    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    with answering(handler):
        rc = main(["plan", "--repo", str(repo), "--store", str(tmp_path / "store"), *argv])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("ERROR: ") and says in lines[0], err


def test_a_repo_without_a_docs_folder_is_one_line_and_exit_2(
    make_repo: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = make_repo({"master": {"torchparity.toml": CONFIG, "test/test_x.py": "x = 1\n"}})
    rc = main(["plan", "--repo", str(repo), "--version", "2.13.0"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert f"ERROR: no docs folder at {repo}/docs/native_api; pass --docs DIR" in err


def test_a_module_with_no_public_api_is_one_line_and_exit_2(
    package: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with answering(surface_job):
        rc = plan_cli(repo, tmp_path / "plan.toml", tmp_path / "store", "--module", "tpfake.nope")
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("ERROR")]
    assert rc == 2 and len(lines) == 1, err
    assert lines[0].startswith("ERROR: no public API under tpfake.nope in ")
    assert "tpfake.nope: ModuleNotFoundError" in lines[0] and "pass --module" in lines[0]
    assert not (tmp_path / "plan.toml").exists()
