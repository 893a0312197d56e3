"""Checking an API across version folders: library results, JSON record, CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS, cuda_event_page, need_reference
from torchparity.cli import main
from torchparity.docs import DocsTree, check_api, docs_short, folder_name, normalize_version
from torchparity.docs.versions import link_problem
from torchparity.errors import UsageError
from torchparity.store import Store

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"
PARENT = "torch.autograd.grad_mode.set_grad_enabled"


def test_versions_map_to_folders_and_docs_segments() -> None:
    assert folder_name("2.7.1") == "pytorch_2-7-1"
    assert folder_name("v2.11.0") == "pytorch_2-11-0"
    assert normalize_version("pytorch_2-12-0") == "2.12.0"
    assert docs_short("2.11.0") == "2.11"
    with pytest.raises(UsageError, match="X.Y.Z"):
        normalize_version("2.7")


def test_check_reports_each_version(docs_dir: Path) -> None:
    result = check_api(CLONE, docs_dir, products=PRODUCTS)
    assert [v.version for v in result.versions] == ["2.7.1", "2.9.0", "2.11.0", "2.12.0"]
    assert result.missing_versions == ["2.7.1", "2.9.0", "2.11.0"]
    present = result.versions[-1]
    assert (
        present.present
        and present.page == "pytorch_2-12-0/torch.md"
        and present.kind == "sub-method"
    )
    lines = (docs_dir / "pytorch_2-12-0" / "torch.md").read_text("utf-8").split("\n")
    assert lines[present.line - 1] == '> <font size="3">clone()</font>'
    assert present.link_ok and present.link_problem == ""
    missing = result.versions[0]
    assert missing.hint.startswith(f"{PARENT} is at pytorch_2-7-1/torch.md:")


def test_to_json_has_the_record_shape(docs_dir: Path) -> None:
    doc = check_api("torch.numel", docs_dir, ["2.7.1", "2.9.0"], products=PRODUCTS).to_json()
    assert set(doc) == {"api", "docs_dir", "versions", "missing_versions"}
    assert doc["api"] == "torch.numel" and doc["missing_versions"] == []
    v = doc["versions"][0]
    assert set(v) == {
        "version",
        "folder",
        "present",
        "page",
        "line",
        "kind",
        "products",
        "restrictions",
        "link",
        "link_ok",
        "link_problem",
        "found_as",
    }
    assert v["found_as"] is None
    assert v["folder"] == "pytorch_2-7-1" and v["kind"] == "function"
    assert v["products"] == {
        "910b": {"name": "Atlas A2训练系列产品", "status": "支持", "supported": True},
        "A3": {"name": "Atlas A3训练系列产品", "status": "支持", "supported": True},
        "950": {"name": "Ascend 950DT系列产品", "status": "不支持", "supported": False},
    }
    assert v["restrictions"] == "`input`仅支持fp16，fp32"
    assert v["link"] == "https://pytorch.org/docs/2.7/generated/torch.numel.html"
    yesno = doc["versions"][1]["products"]
    assert {c: p["status"] for c, p in yesno.items()} == {
        "910b": "支持",
        "A3": "支持",
        "950": "支持",
    }
    json.dumps(doc, ensure_ascii=False)


def test_link_problems_name_the_version_and_the_api(docs_dir: Path) -> None:
    page = docs_dir / "pytorch_2-11-0" / "torch.md"
    text = page.read_text("utf-8")
    text = text.replace(
        "docs/2.11/generated/torch.numel.html", "docs/2.7/generated/torch.numel.html"
    )
    text = text.replace(
        "generated/torch.Generator.html#torch.Generator.seed", "generated/torch.Generator.html"
    )
    page.write_text(text, "utf-8")
    numel = check_api("torch.numel", docs_dir, ["2.11.0"], PRODUCTS).versions[0]
    assert not numel.link_ok and "/docs/2.7/, want /docs/2.11/" in numel.link_problem
    seed = check_api("torch.Generator.seed", docs_dir, ["2.11.0"], PRODUCTS).versions[0]
    assert not seed.link_ok and "anchor form" in seed.link_problem
    assert (
        link_problem(
            "https://pytorch.org/docs/2.11/generated/torch.x.html#torch.x.y",
            "torch.x.y",
            "2.11.0",
            "sub-method",
        )
        == ""
    )


def test_a_version_without_folder_is_bad_input(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(
        UsageError,
        match=r"no folder pytorch_2-13-0 in .*; versions found: 2\.7\.1, 2\.9\.0, "
        r"2\.11\.0, 2\.12\.0",
    ):
        check_api("torch.numel", docs_dir, ["2.7.1", "2.13.0"], PRODUCTS)
    shutil.rmtree(docs_dir / "pytorch_2-9-0")
    assert (
        main(["docs", "check", "torch.numel", "--docs", str(docs_dir), "--version", "2.9.0"]) == 2
    )
    cap = capsys.readouterr()
    (line,) = cap.err.strip().splitlines()
    assert cap.out == ""
    assert line.startswith("ERROR: no folder pytorch_2-9-0 in ")
    assert "versions found: 2.7.1, 2.11.0, 2.12.0" in line


# -- other spellings of the same API -------------------------------------------------------------------


def test_an_entry_under_another_spelling_is_present(docs_dir: Path) -> None:
    alias = "torch.set_grad_enabled.clone"
    result = check_api(alias, docs_dir, products=PRODUCTS, spellings=[CLONE])
    assert result.missing_versions == ["2.7.1", "2.9.0", "2.11.0"]
    present = result.versions[-1]
    assert present.present and present.found_as == CLONE and present.kind == "sub-method"
    assert result.to_json()["versions"][-1]["found_as"] == CLONE
    # nothing matches in the older versions: the hint is kept, about the spelling that has a relative
    missing = result.versions[0]
    assert (
        missing.hint.startswith(f"{PARENT} is at pytorch_2-7-1/torch.md:")
        and missing.hint_api == CLONE
    )
    # the API's own spelling needs no found_as
    assert (
        check_api(CLONE, docs_dir, ["2.12.0"], PRODUCTS, spellings=[alias]).versions[0].found_as
        is None
    )
    assert not check_api(alias, docs_dir, ["2.12.0"], PRODUCTS).ok  # without spellings: not found


def test_check_cli_follows_the_static_aliases(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "docs",
                "check",
                "torch.set_grad_enabled.clone",
                "--docs",
                str(docs_dir),
                "--version",
                "2.12.0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"2.12.0  present  pytorch_2-12-0/torch.md:160  (as {CLONE})  sub-method" in out
    assert main(["docs", "check", "torch.autograd.set_grad_enabled", "--docs", str(docs_dir)]) == 0
    assert capsys.readouterr().out.count(f"(as {PARENT})") == 4
    assert (
        main(["docs", "check", "torch.set_grad_enabled.clone", "--docs", str(docs_dir), "--json"])
        == 1
    )
    cap = capsys.readouterr()
    doc = json.loads(cap.out)[0]
    assert doc["api"] == "torch.set_grad_enabled.clone" and doc["missing_versions"] == [
        "2.7.1",
        "2.9.0",
        "2.11.0",
    ]
    assert [v["found_as"] for v in doc["versions"]] == [None, None, None, CLONE]
    assert main(["docs", "check", "torch.set_grad_enabled.clone", "--docs", str(docs_dir)]) == 1
    # the add command it proposes names the spelling whose parent is on the page
    assert f"add with: torchparity docs add {CLONE} --docs" in capsys.readouterr().err


@pytest.mark.slow
def test_the_docs_package_imports_no_higher_part() -> None:
    code = (
        "import sys, torchparity.docs; "
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('torchparity'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    ).stdout.split()
    outside = [
        m
        for m in out
        if not m.startswith(("torchparity.docs", "torchparity.records"))
        and m not in {"torchparity", "torchparity.errors", "torchparity.fsutil"}
    ]
    assert outside == []


def test_check_cli_exit_codes_text_and_json(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "check", "torch.numel", "--docs", str(docs_dir)]) == 0
    text = capsys.readouterr().out
    assert "2.7.1   present  pytorch_2-7-1/torch.md:" in text and "link ok" in text
    assert (
        main(
            [
                "docs",
                "check",
                CLONE,
                "--docs",
                str(docs_dir),
                "--version",
                "2.7.1",
                "--version",
                "2.12.0",
            ]
        )
        == 1
    )
    cap = capsys.readouterr()
    assert "2.7.1   MISSING" in cap.out and "2.12.0  present" in cap.out
    assert f"--version 2.7.1 --like {PARENT}" in cap.err
    assert main(["docs", "check", CLONE, "torch.numel", "--docs", str(docs_dir), "--json"]) == 1
    docs = json.loads(capsys.readouterr().out)
    assert [d["api"] for d in docs] == [CLONE, "torch.numel"]
    assert docs[0]["missing_versions"] == ["2.7.1", "2.9.0", "2.11.0"]


def test_check_cli_stores_the_record(
    docs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    assert (
        main(["docs", "check", "torch.numel", "--docs", str(docs_dir), "--store", str(store)]) == 0
    )
    rec = Store(store).latest_record("docs-check", "torch.numel")
    assert (
        rec is not None
        and rec["body"]["api"] == "torch.numel"
        and len(rec["body"]["versions"]) == 4
    )


def test_check_cli_finds_docs_under_repo(
    docs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "backend"
    shutil.copytree(docs_dir, repo / "docs" / "zh" / "api" / "native_api")
    assert main(["docs", "check", "torch.numel", "--repo", str(repo), "--version", "2.7.1"]) == 0
    assert "pytorch_2-7-1/torch.md" in capsys.readouterr().out
    assert main(["docs", "check", "torch.numel", "--repo", str(tmp_path)]) == 2
    assert "pass --docs DIR" in capsys.readouterr().err


def test_check_cli_bad_input_is_one_line(
    docs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "check", "torch.numel", "--docs", str(tmp_path / "nope")]) == 2
    assert main(["docs", "check", "torch.numel", "--docs", str(docs_dir), "--version", "2.7"]) == 2
    errs = capsys.readouterr().err.strip().splitlines()
    assert len(errs) == 2 and all(e.startswith("ERROR: ") for e in errs)


def test_check_on_the_real_pages(tmp_path: Path) -> None:
    torch_md, autograd_md = (
        need_reference("2.7.1", "torch"),
        need_reference("2.11.0", "torch-autograd"),
    )
    (tmp_path / "pytorch_2-7-1").mkdir()
    (tmp_path / "pytorch_2-11-0").mkdir()
    shutil.copy(torch_md, tmp_path / "pytorch_2-7-1" / "torch.md")
    shutil.copy(autograd_md, tmp_path / "pytorch_2-11-0" / "torch-autograd.md")
    result = check_api(CLONE, tmp_path, products=PRODUCTS)
    assert result.missing_versions == ["2.11.0"]
    v = result.versions[0]
    assert v.link_ok and v.kind == "sub-method"
    assert [(p.code, p.status) for p in v.products] == [
        ("910b", "支持"),
        ("A3", "支持"),
        ("950", "不支持"),
    ]


def test_the_backend_spelling_an_entry_states_finds_it(tmp_path: Path) -> None:
    page = tmp_path / "native_api" / "pytorch_2-11-0" / "torch-cuda.md"
    page.parent.mkdir(parents=True)
    page.write_text(cuda_event_page(), "utf-8")
    result = check_api("torch_npu.npu.Event", tmp_path / "native_api", products=PRODUCTS)
    (v,) = result.versions
    assert v.present and v.found_as == "torch.cuda.Event" and v.kind == "class"
    (sub,) = check_api(
        "torch_npu.npu.Event.elapsed_time", tmp_path / "native_api", products=PRODUCTS
    ).versions
    assert (
        sub.present and sub.found_as == "torch.cuda.Event.elapsed_time" and sub.kind == "sub-method"
    )
    assert not check_api("torch_npu.npu.Stream", tmp_path / "native_api", products=PRODUCTS).ok


def test_the_backend_name_of_an_entry_and_of_its_members(tmp_path: Path) -> None:
    page = tmp_path / "native_api" / "pytorch_2-11-0" / "torch-cuda.md"
    page.parent.mkdir(parents=True)
    page.write_text(cuda_event_page(), "utf-8")
    tree = DocsTree(tmp_path / "native_api")
    assert tree.backend_name("torch.cuda.Event", "2.11.0") == "torch_npu.npu.Event"
    assert (
        tree.backend_name("torch.cuda.Event.elapsed_time", "2.11.0")
        == "torch_npu.npu.Event.elapsed_time"
    )
    assert tree.backend_name("torch.cuda.Stream", "2.11.0") is None
