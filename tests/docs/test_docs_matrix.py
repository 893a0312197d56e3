"""The API x version x product matrix: library, JSON, CSV, text."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS
from torchparity.cli import main
from torchparity.docs import build_matrix

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"


def test_matrix_cells(docs_dir: Path) -> None:
    m = build_matrix(docs_dir, products=PRODUCTS)
    assert m.versions == ("2.7.1", "2.9.0", "2.11.0", "2.12.0")
    assert m.products == ("910b", "A3", "950")
    assert len(m.apis) == 11 and m.apis[-1] == CLONE
    assert m.missing("2.7.1") == [CLONE] and m.missing("2.12.0") == []
    numel = m.cell("torch.numel", "2.11.0")
    assert numel.statuses == {
        "910b": ("支持", True),
        "A3": ("支持", True),
        "950": ("不支持", False),
    }
    assert (
        numel.page == "pytorch_2-11-0/torch.md" and numel.restrictions == "`input`仅支持fp16，fp32"
    )
    assert m.cell("torch.numel", "2.9.0").statuses["950"] == (
        "支持",
        True,
    )  # yes/no: one word for all
    only = build_matrix(docs_dir, ["2.11.0"], PRODUCTS)
    assert only.versions == ("2.11.0",) and len(only.apis) == 10


def test_matrix_csv_rows_every_api_version_product(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "matrix", "--docs", str(docs_dir), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 11 * 4 * 3
    missing = [r for r in rows if r["api"] == CLONE and r["present"] == "false"]
    assert {r["version"] for r in missing} == {"2.7.1", "2.9.0", "2.11.0"}
    row = next(
        r
        for r in rows
        if r["api"] == "torch.numel" and r["version"] == "2.7.1" and r["product"] == "950"
    )
    assert (row["status"], row["supported"], row["page"]) == (
        "不支持",
        "false",
        "pytorch_2-7-1/torch.md",
    )


def test_matrix_json_and_text(docs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "matrix", "--docs", str(docs_dir), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    clone = next(a for a in doc["apis"] if a["api"] == CLONE)
    assert clone["versions"]["2.7.1"] is None
    assert clone["versions"]["2.12.0"]["products"]["950"] == {
        "status": "不支持",
        "supported": False,
    }
    assert main(["docs", "matrix", "--docs", str(docs_dir)]) == 0
    text = capsys.readouterr().out
    assert "11 APIs x 4 versions" in text and "2.7.1: 1 of 11 APIs have no entry" in text
    clone_row = next(line for line in text.splitlines() if CLONE in line)
    assert clone_row.count("—") == 3 and "✔✔✘" in clone_row
    assert main(["docs", "matrix", "--docs", str(docs_dir), "--json", "--csv"]) == 2


def _add_unknown_product(docs_dir: Path) -> Path:
    """A fourth product row, named as no configured product is, under torch.numel of 2.7.1 (table format)."""
    page = docs_dir / "pytorch_2-7-1" / "torch.md"
    text = page.read_text("utf-8")
    row = "| <term>Ascend 950DT</term> | ✘ |\n"
    at = text.index(row, text.index("### torch.numel"))
    page.write_text(
        text[:at] + row + "| <term>Atlas 训练系列产品</term> | ✔ |\n" + text[at + len(row) :],
        "utf-8",
    )
    return page


def test_unknown_product_is_no_column(docs_dir: Path) -> None:
    page = _add_unknown_product(docs_dir)
    m = build_matrix(docs_dir, products=PRODUCTS)
    assert m.products == ("910b", "A3", "950")
    numel = m.cell("torch.numel", "2.7.1")
    assert numel.statuses == {
        "910b": ("支持", True),
        "A3": ("支持", True),
        "950": ("不支持", False),
    }
    line = page.read_text("utf-8").splitlines().index("| <term>Atlas 训练系列产品</term> | ✔ |") + 1
    assert m.unknown == {"Atlas 训练系列产品": (f"pytorch_2-7-1/torch.md:{line}",)}
    assert m.to_json()["unknown_products"] == [
        {"product": "Atlas 训练系列产品", "places": [f"pytorch_2-7-1/torch.md:{line}"]}
    ]
    # with no product configured, the names the pages use are the columns
    assert "Atlas 训练系列产品" in build_matrix(docs_dir).products


def test_unknown_product_cli_text_and_csv(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _add_unknown_product(docs_dir)
    assert main(["docs", "matrix", "--docs", str(docs_dir)]) == 0
    cap = capsys.readouterr()
    assert "each cell: 910b A3 950 (" in cap.out
    numel_row = next(line for line in cap.out.splitlines() if " torch.numel " in line)
    assert numel_row.split("│")[1].strip() == "✔✔✘"
    (note,) = [line for line in cap.err.splitlines() if line.strip()]
    assert (
        note.startswith("note: ")
        and "'Atlas 训练系列产品' 1 status" in note
        and "product-unknown" in note
    )
    assert main(["docs", "matrix", "--docs", str(docs_dir), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 11 * 4 * 3 and {r["product"] for r in rows} == {"910b", "A3", "950"}
