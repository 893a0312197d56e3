"""``docs propose`` (issue 38, item 2): page cells proposed from runs, contradictions, cells left to a person.

The runs are stored the way the report fixtures store them (``propose_fixtures``: a probe that saw a
real ``npu`` device stands for the environment's product); the pages are the docs tests' fixture
folder (2.7.1 table, 2.9.0 yes/no, 2.11.0 and 2.12.0 list format).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from tests.docs.propose_fixtures import T, add_batch, add_run, new_store, record
from torchparity.cli import main
from torchparity.records.run import TargetEvidence
from torchparity.records.target import hardware_matches
from torchparity.report.model import target_report
from torchparity.store import Store

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"


def _propose(
    capsys: pytest.CaptureFixture[str],
    store: Store,
    docs: Path,
    *runs: int | str,
    extra: tuple[str, ...] = (),
) -> tuple[int, dict[str, Any]]:
    rc = main(
        [
            "docs",
            "propose",
            *map(str, runs),
            "--docs",
            str(docs),
            "--store",
            str(store.root),
            "--json",
            *extra,
        ]
    )
    return rc, json.loads(capsys.readouterr().out)


def _cell(doc: dict[str, Any], api: str, version: str, product: str) -> dict[str, Any]:
    [cell] = [
        c for c in doc["cells"] if (c["api"], c["version"], c["product"]) == (api, version, product)
    ]
    return cell


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.md"))
        if ".git" not in p.parts
    }


# -- contradictions ----------------------------------------------------------------------------------
def test_page_says_supported_but_the_apis_tests_fail_there_is_a_contradiction(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, "torch.is_tensor", [T("a2", "FAIL"), T("a3", "PASS")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 1  # the pages contradict the evidence
    a2 = _cell(doc, "torch.is_tensor", "2.7.1", "910b")
    assert a2["state"] == "contradiction" and a2["proposed"] is False
    assert a2["page"]["supported"] is True and a2["page"]["page"] == "pytorch_2-7-1/torch.md"
    assert "the page says ✔" in a2["why"] and "tests fail on Atlas A2" in a2["why"]
    a3 = _cell(doc, "torch.is_tensor", "2.7.1", "A3")
    assert a3["state"] == "agrees" and a3["proposed"] is True
    assert doc["summary"]["contradiction"] == 1 and doc["entries"] == [] and doc["diff"] == ""


def test_page_says_unsupported_but_the_apis_tests_pass_there_is_a_contradiction(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    # torch.numel is ✔ ✔ ✘ (A2, A3, 950) on the 2.7.1 page
    rid = add_run(st, "torch.numel", [T("a5", "PASS"), T("a2", "PASS")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 1
    a5 = _cell(doc, "torch.numel", "2.7.1", "950")
    assert a5["state"] == "contradiction" and a5["proposed"] is True
    assert a5["page"]["supported"] is False and "tests pass on Ascend 950DT" in a5["why"]
    assert _cell(doc, "torch.numel", "2.7.1", "910b")["state"] == "agrees"


def test_pages_that_agree_exit_0(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, "torch.numel", [T("a5", "FAIL"), T("a2", "PASS"), T("a3", "PASS")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0
    assert [c["state"] for c in doc["cells"]] == ["agrees", "agrees", "agrees"]


# -- evidence that proposes nothing -------------------------------------------------------------------
def test_an_emulated_run_proposes_nothing_and_says_why(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    # on the page (✔ where it failed) and missing from it: neither a contradiction nor a new entry
    rid = add_run(
        st,
        "torch.is_tensor",
        [T("a2", "FAIL", emulated=True), T("a3", "PASS", emulated=True)],
    )
    missing = add_run(st, CLONE, [T("a2", "PASS", emulated=True)])
    rc, doc = _propose(capsys, st, docs_dir, rid, missing)
    assert rc == 0
    for cell in doc["cells"]:
        assert cell["proposed"] is None and cell["state"] == "left", cell
    a2 = _cell(doc, "torch.is_tensor", "2.7.1", "910b")
    assert a2["why_code"] == "emulated" and "emulated npu" in a2["why"]
    assert "emulated evidence never proposes a cell" in a2["why"]
    assert a2["evidence"][0]["emulated"] == "npu" and a2["evidence"][0]["decides"] is False
    assert doc["entries"] == [] and doc["diff"] == "" and doc["summary"]["new"] == 0
    args = ["docs", "propose", str(rid), str(missing), "--docs", str(docs_dir)]
    assert main([*args, "--store", str(st.root)]) == 0
    said = capsys.readouterr().err
    assert "nothing proposed: no target decides a cell (3 emulated)" in said


def test_an_emulated_environment_without_hardware_is_bound_to_no_cell_and_says_why(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("local", "PASS", emulated=True, hardware="")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0 and doc["cells"] == [] and doc["diff"] == ""
    [unbound] = doc["unbound"]
    assert unbound["why_code"] == "emulated" and unbound["target"] == "v2.7.1@local"


def test_a_probe_that_saw_the_cpu_is_no_evidence_from_the_configured_hardware(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, "torch.is_tensor", [T("a2", "FAIL", cpu=True)])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0
    a2 = _cell(doc, "torch.is_tensor", "2.7.1", "910b")
    assert a2["state"] == "left" and a2["why_code"] == "hardware_mismatch"
    assert "probe saw device cpu" in a2["why"] and a2["evidence"][0]["hardware_matches"] is False


@pytest.mark.parametrize(
    "target",
    [T("a2"), T("a2", cpu=True), T("a2", emulated=True), T("a2", hardware="")],
    ids=["npu", "cpu", "emulated", "no-hardware"],
)
def test_hardware_matches_is_the_report_models(target: T) -> None:
    rec = record(target, "torch.is_tensor")
    model = target_report(TargetEvidence(rec, "", "0" * 64, "1" * 64), run_uid="ab" * 16)
    assert hardware_matches(rec) == model.hardware_matches
    assert bool(rec.emulated) == model.emulated


def test_a_run_where_the_apis_tests_never_ran_is_left_to_a_person(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "NONE_RAN"), T("a5", "MISMATCH")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0
    a2 = _cell(doc, CLONE, "2.7.1", "910b")
    assert (
        a2["state"] == "left"
        and a2["why_code"] == "NONE_RAN"
        and "none of the API's tests ran" in a2["why"]
    )
    a5 = _cell(doc, CLONE, "2.7.1", "950")
    assert a5["state"] == "left" and a5["why_code"] == "MISMATCH"
    a3 = _cell(doc, CLONE, "2.7.1", "A3")
    assert a3["why_code"] == "no_evidence" and "never ran on Atlas A3" in a3["why"]
    assert doc["entries"] == [] and doc["diff"] == ""


def test_results_that_differ_between_runs_are_left_to_a_person(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    one = add_run(st, "torch.is_tensor", [T("a2", "PASS")])
    two = add_run(st, "torch.is_tensor", [T("a2", "FAIL")])
    rc, doc = _propose(capsys, st, docs_dir, one, two)
    assert rc == 0  # not a contradiction: no verdict to hold against the page
    a2 = _cell(doc, "torch.is_tensor", "2.7.1", "910b")
    assert a2["state"] == "left" and a2["why_code"] == "results_differ"
    assert "PASS in v2.7.1@a2" in a2["why"] and "FAIL in v2.7.1@a2" in a2["why"]
    assert len(a2["evidence"]) == 2


def test_every_cell_names_its_evidence_run_target_and_log(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, "torch.is_tensor", [T("a2", "FAIL")])
    _, doc = _propose(capsys, st, docs_dir, rid)
    [row] = st.targets(rid)
    [ev] = _cell(doc, "torch.is_tensor", "2.7.1", "910b")["evidence"]
    assert ev["run_uid"] == st.run(rid).uid and ev["target"] == row.label == "v2.7.1@a2"
    assert ev["log_sha256"] == row.log_sha and len(ev["log_sha256"]) == 64
    assert ev["result"] == "FAIL" and ev["product"] == "910b" and ev["version"] == "2.7.1"


# -- new entries: the bytes docs add writes ----------------------------------------------------------
@pytest.mark.parametrize(
    ("apis", "torch"),
    [
        ((CLONE,), "2.7.1"),  # a sub-method, table format
        ((CLONE, "torch.is_nonzero"), "2.11.0"),  # list format (fresh ids), two entries on one page
    ],
)
def test_an_api_missing_from_the_pages_is_proposed_as_docs_add_writes_it(
    tmp_path: Path,
    docs_repo: Path,
    capsys: pytest.CaptureFixture[str],
    apis: tuple[str, ...],
    torch: str,
) -> None:
    by_docs_add = tmp_path / "by_docs_add"
    shutil.copytree(docs_repo, by_docs_add, ignore=shutil.ignore_patterns(".git"))
    st = new_store(tmp_path)
    runs = [
        add_run(st, api, [T("a2", "PASS", torch=torch), T("a5", "FAIL", torch=torch)])
        for api in apis
    ]
    diff_file = tmp_path / "proposal.diff"
    rc, doc = _propose(capsys, st, docs_repo, *runs, extra=("--diff", str(diff_file), "--write"))
    assert rc == 0 and doc["written"] is True
    for api in apis:
        assert _cell(doc, api, torch, "910b")["state"] == "new"
        assert _cell(doc, api, torch, "950")["state"] == "new"
        assert _cell(doc, api, torch, "A3")["why_code"] == "no_evidence"
        rc = main(
            [
                "docs",
                "add",
                api,
                "--docs",
                str(by_docs_add),
                "--version",
                torch,
                "--status",
                "910b=支持,950=不支持",
            ]
        )
        assert rc == 0
    capsys.readouterr()
    proposed, added = _tree_bytes(docs_repo), _tree_bytes(by_docs_add)
    assert proposed == added  # byte for byte what docs add writes for the same entries
    folder = "pytorch_" + torch.replace(".", "-")
    assert [e["page"] for e in doc["entries"]] == [f"{folder}/torch.md"] * len(apis)
    assert [e["docs_add"] for e in doc["entries"]] == [
        f"torchparity docs add {api} --version {torch} --status 910b=支持,950=不支持"
        for api in apis
    ]
    # the diff is the write: applied to the pages as they were, it gives the same bytes
    assert diff_file.read_text("utf-8") == doc["diff"] != ""
    git(docs_repo, "checkout", "--", ".")
    git(docs_repo, "apply", str(diff_file))
    assert _tree_bytes(docs_repo) == added


def test_without_write_nothing_is_written(
    tmp_path: Path, docs_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree_bytes(docs_repo)
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS")])
    rc, doc = _propose(capsys, st, docs_repo, rid)
    assert rc == 0 and doc["written"] is False and "+> <font" in doc["diff"]
    assert _tree_bytes(docs_repo) == before


def test_a_yes_no_page_gets_no_entry_from_evidence_on_some_products(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS", torch="2.9.0")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0 and doc["diff"] == ""
    [entry] = doc["entries"]
    assert entry["added"] is False and "one 是/否 for every product" in entry["refused"]
    a2 = _cell(doc, CLONE, "2.9.0", "910b")
    assert a2["state"] == "left" and a2["why_code"] == "not_added" and a2["proposed"] is True


def test_a_version_without_pages_is_left_to_a_person(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, "torch.is_tensor", [T("a2", "PASS", torch="2.13.0")])
    rc, doc = _propose(capsys, st, docs_dir, rid)
    assert rc == 0
    a2 = _cell(doc, "torch.is_tensor", "2.13.0", "910b")
    assert a2["state"] == "left" and a2["why_code"] == "no_pages" and "pytorch_2-13-0" in a2["why"]


# -- --write: only a clean docs folder, all or nothing -------------------------------------------------
def test_write_refuses_a_docs_folder_with_changes_not_committed(
    tmp_path: Path, docs_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (docs_repo / "pytorch_2-11-0" / "notes.md").write_text("draft\n", "utf-8")
    before = _tree_bytes(docs_repo)
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS")])
    rc = main(
        ["docs", "propose", str(rid), "--docs", str(docs_repo), "--store", str(st.root), "--write"]
    )
    assert rc == 2
    err = capsys.readouterr().err
    assert "changes not committed" in err and "nothing was written" in err
    assert _tree_bytes(docs_repo) == before


def test_write_refuses_a_docs_folder_outside_git(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _tree_bytes(docs_dir)
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS")])
    rc = main(
        ["docs", "propose", str(rid), "--docs", str(docs_dir), "--store", str(st.root), "--write"]
    )
    assert rc == 2 and "not in a git work tree" in capsys.readouterr().err
    assert _tree_bytes(docs_dir) == before


# -- runs, output, bad input ---------------------------------------------------------------------------
def test_a_batch_run_is_read_as_its_tasks_runs(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    one = add_run(st, "torch.is_tensor", [T("a2", "FAIL")])
    two = add_run(st, "torch.numel", [T("a5", "FAIL")])
    batch = add_batch(st, {"torch.is_tensor": one, "torch.numel": two})
    rc, doc = _propose(capsys, st, docs_dir, batch)
    assert rc == 1
    assert [r["id"] for r in doc["runs"]] == [one, two]
    assert {r["batch"] for r in doc["runs"]} == {st.run(batch).uid}
    assert _cell(doc, "torch.is_tensor", "2.7.1", "910b")["state"] == "contradiction"
    assert _cell(doc, "torch.numel", "2.7.1", "950")["state"] == "agrees"


def test_the_table_names_each_cell_and_the_diff_goes_to_stdout_with_dash(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS")])
    other = add_run(st, "torch.is_tensor", [T("a2", "FAIL")])
    args = [
        "docs",
        "propose",
        str(rid),
        str(other),
        "--docs",
        str(docs_dir),
        "--store",
        str(st.root),
    ]
    assert main(args) == 1
    shown = capsys.readouterr()
    assert "contradiction" in shown.out and "new" in shown.out and CLONE in shown.out
    assert "new entry: pytorch_2-7-1/torch.md:" in shown.out
    assert "1 contradiction(s)" in shown.err
    assert main([*args, "--diff", "-"]) == 1
    shown = capsys.readouterr()
    assert shown.out.startswith("--- a/pytorch_2-7-1/torch.md\n+++ b/pytorch_2-7-1/torch.md\n")
    assert "contradiction" in shown.err  # the table went to stderr


@pytest.mark.parametrize(
    "extra",
    [["--diff", "-", "--json"], ["--version", "2.13.0"]],
    ids=["two-on-stdout", "version-without-folder"],
)
def test_bad_input_is_exit_2(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    st = new_store(tmp_path)
    rid = add_run(st, CLONE, [T("a2", "PASS")])
    rc = main(
        ["docs", "propose", str(rid), "--docs", str(docs_dir), "--store", str(st.root), *extra]
    )
    assert rc == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("ERROR: ")


def test_an_unknown_run_is_exit_2(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    add_run(st, CLONE, [T("a2", "PASS")])
    rc = main(["docs", "propose", "99", "--docs", str(docs_dir), "--store", str(st.root)])
    assert rc == 2 and capsys.readouterr().err.startswith("ERROR: ")


def test_targets_that_name_no_cell_are_listed_with_why(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    st = new_store(tmp_path)
    no_api = add_run(st, None, [T("a2", "PASS")], kind="run")
    other = add_run(
        st, "torch.is_tensor", [T("a2", "FAIL", hardware="Atlas 300I"), T("a3", torch="2.11.0")]
    )
    rc, doc = _propose(capsys, st, docs_dir, no_api, other, extra=("--version", "2.7.1"))
    assert rc == 0 and doc["cells"] == []
    assert [u["why_code"] for u in doc["unbound"]] == [
        "no_api",
        "unknown_product",
        "version_not_asked",
    ]
    assert "'Atlas 300I'" in doc["unbound"][1]["why"]


def test_a_cpu_environment_declared_a_stand_in_decides_its_products_cells(
    tmp_path: Path, docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plain CPU environment standing for a product (--stand-in ENV) proposes, and says so; an
    emulated one never does, declared or not; a stand-in no target ran in is bad input."""
    st = new_store(tmp_path)
    rid = add_run(
        st, "torch.is_tensor", [T("a2", "FAIL", cpu=True), T("a3", "PASS", emulated=True)]
    )
    rc, doc = _propose(capsys, st, docs_dir, rid, extra=("--stand-in", "a2", "--stand-in", "a3"))
    a2 = _cell(doc, "torch.is_tensor", "2.7.1", "910b")
    assert a2["state"] != "left" and a2["proposed"] is False
    assert a2["evidence"][0]["stand_in"] is True and "(stand-in: device cpu)" in a2[
        "why"
    ] + json.dumps(a2)
    a3 = [c for c in doc["cells"] if c["product"] == "A3"] or doc["unbound"]
    assert all((c.get("why_code") == "emulated") for c in a3)
    rc = main(
        [
            "docs",
            "propose",
            str(rid),
            "--docs",
            str(docs_dir),
            "--store",
            str(st.root),
            "--stand-in",
            "a9",
        ]
    )
    assert rc == 2
    assert "--stand-in a9: no target of the runs ran in environment a9" in capsys.readouterr().err
