"""Lint rules: each fires on a planted defect and stays silent on clean pages; baselines."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from docs_pages import PRODUCTS, REFERENCE, torch_page

from torchparity.cli import main
from torchparity.docs import RULES, lint_page, lint_paths, parse_page

LIST_PAGE = torch_page("list", "2.11.0")
TABLE_PAGE = torch_page("table", "2.7.1")
NUMEL_LINK = "https://pytorch.org/docs/2.11/generated/torch.numel.html"


def lint_text(text: str, version: str = "2.11.0") -> list[tuple[int, str]]:
    path = f"native_api/pytorch_{version.replace('.', '-')}/torch.md"
    return [(f.line, f.rule) for f in lint_page(parse_page(text, path, PRODUCTS), PRODUCTS)]


def line_of(text: str, needle: str, start: int = 0) -> int:
    return text[: text.index(needle, start)].count("\n") + 1


@pytest.mark.parametrize("version", ["2.7.1", "2.11.0", "2.12.0"])
def test_clean_pages_have_no_findings(version: str) -> None:
    fmt = "table" if version == "2.7.1" else "list"
    assert lint_text(torch_page(fmt, version, with_clone=version == "2.12.0"), version) == []


def test_yes_no_placeholders_are_the_only_findings_there() -> None:
    found = lint_text(torch_page("yesno", "2.9.0"), "2.9.0")
    assert found and {rule for _, rule in found} == {"restriction-empty"}


def _inline(t: str) -> str:
    block = '<!-- npu="910b" id1 -->\n- <term>Atlas A2训练系列产品</term>：支持\n<!-- end id1 -->'
    return t.replace(block, '- <!-- npu="910b" id1 --><term>Atlas A2训练系列产品</term>：支持<!-- end id1 -->')


def _drop_first_close(t: str) -> str:
    i = t.index("</div>\n\n### torch.numel")
    return t[:i] + t[i + len("</div>\n\n"):]


def _move_restriction_up(t: str) -> str:
    head = f"**原生文档**：[torch.numel]({NUMEL_LINK})\n\n"
    restr = "**限制与说明**： `input`仅支持fp16，fp32\n\n"
    return t.replace(restr, "").replace(head, head + restr)


#: rule -> (planting function, the text of the line it should be reported on)
PLANTED: dict[str, tuple[Callable[[str], str], str]] = {
    "comment-own-line": (_inline, '- <!-- npu="910b" id1 -->'),
    "comment-pair": (lambda t: t.replace("<!-- end id2 -->", "<!-- end id9 -->"), "<!-- end id9 -->"),
    "id-duplicate": (lambda t: t.replace('npu="910b" id4 -->', 'npu="910b" id1 -->').replace(
        "<!-- end id4 -->", "<!-- end id1 -->"), '<!-- npu="910b" id1 -->\n- <term>Atlas A2训练系列产品</term>：支持\n<!-- end id1 -->\n<!-- npu="A3" id5'),
    "field-order": (_move_restriction_up, "**产品支持情况**：\n\n<!-- npu=\"910b\" id4"),
    "field-missing": (lambda t: t.replace(
        "**原生文档**：[torch.is_tensor](https://pytorch.org/docs/2.11/generated/torch.is_tensor.html)\n\n", ""),
        "### torch.is_tensor"),
    "restriction-empty": (lambda t: t.replace("<!-- end id3 -->\n\n</div>", "<!-- end id3 -->\n\n**限制与说明**：无\n\n</div>"),
                          "**限制与说明**：无"),
    "link-version": (lambda t: t.replace(NUMEL_LINK, NUMEL_LINK.replace("/2.11/", "/2.7/")), "**原生文档**：[torch.numel]"),
    "link-api": (lambda t: t.replace(NUMEL_LINK, NUMEL_LINK.replace("torch.numel.html", "torch.nelement.html")),
                 "**原生文档**：[torch.numel]"),
    "div-balance": (_drop_first_close, '<div style="margin-left: 2em">'),
    "product-unknown": (lambda t: t.replace('npu="950" id3', 'npu="960" id3'), '<!-- npu="960" id3 -->'),
    "status-unknown": (lambda t: t.replace("：支持\n<!-- end id1 -->", "：待验证\n<!-- end id1 -->"), "：待验证"),
}


def test_every_rule_has_a_planted_defect() -> None:
    assert set(PLANTED) == set(RULES)


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_rule_fires_on_its_planted_defect_only(rule: str) -> None:
    plant, needle = PLANTED[rule]
    text = plant(LIST_PAGE)
    assert text != LIST_PAGE
    found = lint_text(text)
    assert found, rule
    assert {r for _, r in found} == {rule}
    assert line_of(text, needle) in {line for line, _ in found}


def test_table_format_defects() -> None:
    text = TABLE_PAGE.replace("<term>Ascend 950DT</term> | ✘ |", "<term>Ascend 960X</term> | ✘ |", 1)
    text = text.replace("/docs/2.7/torch.html", "/docs/stable/torch.html")
    found = lint_text(text, "2.7.1")
    assert sorted({r for _, r in found}) == ["link-version", "product-unknown"]
    assert (line_of(text, "/docs/stable/torch.html"), "link-version") in found
    assert (line_of(text, "<term>Ascend 960X</term>"), "product-unknown") in found


def test_comment_in_inline_code_is_text() -> None:
    text = LIST_PAGE.replace("## Tensors\n", "## Tensors\n\n用 `<!-- npu=\"910b\" id1 -->` 包住产品行。\n")
    assert lint_text(text) == []


def test_lint_cli_prints_path_line_rule_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "pytorch_2-11-0" / "torch.md"
    page.parent.mkdir()
    page.write_text(PLANTED["link-version"][0](LIST_PAGE), "utf-8")
    assert main(["docs", "lint", str(tmp_path)]) == 1
    cap = capsys.readouterr()
    (line,) = cap.out.strip().splitlines()
    assert re.fullmatch(rf"{re.escape(str(page))}:\d+: link-version link is for /docs/2\.7/ .*", line)
    assert "1 finding(s) in 1 page(s)" in cap.err
    assert main(["docs", "lint", str(page), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["pages"] == 1 and [f["rule"] for f in doc["findings"]] == ["link-version"]
    page.write_text(LIST_PAGE, "utf-8")
    assert main(["docs", "lint", str(page)]) == 0
    assert main(["docs", "lint", str(tmp_path / "missing.md")]) == 2


def test_baseline_lets_only_new_findings_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "pytorch_2-9-0" / "torch.md"
    page.parent.mkdir()
    page.write_text(torch_page("yesno", "2.9.0"), "utf-8")
    base = tmp_path / "lint-baseline.json"
    assert main(["docs", "lint", str(tmp_path)]) == 1
    capsys.readouterr()
    assert main(["docs", "lint", str(tmp_path), "--write-baseline", str(base)]) == 0
    doc = json.loads(base.read_text("utf-8"))
    assert {f["path"] for f in doc["findings"]} == {"pytorch_2-9-0/torch.md"}
    assert main(["docs", "lint", str(tmp_path), "--baseline", str(base)]) == 0
    assert "0 finding(s) in 1 page(s), 9 baselined" in capsys.readouterr().err
    # lines move (a new note on top) and one new defect arrives: only the new one is reported
    text = page.read_text("utf-8").replace("# torch\n", "# torch\n\n新增说明。\n", 1)
    text = text.replace("/docs/2.9/generated/torch.numel.html", "/docs/2.8/generated/torch.numel.html")
    page.write_text(text, "utf-8")
    assert main(["docs", "lint", str(tmp_path), "--baseline", str(base)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and ": link-version " in out[0]
    assert main(["docs", "lint", str(tmp_path), "--baseline", str(tmp_path / "none.json")]) == 2


def test_navigation_pages_are_skipped_in_folders(docs_dir: Path) -> None:
    findings, pages = lint_paths([docs_dir / "pytorch_2-11-0"], PRODUCTS)
    assert pages == 1 and findings == []


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="shared reference pages not present")
def test_real_pages_are_clean() -> None:
    pages = [REFERENCE / "pytorch_2-7-1_torch.md", REFERENCE / "pytorch_2-11-0_torch-autograd.sample.md"]
    findings, n = lint_paths(pages, PRODUCTS)
    assert n == 2 and findings == []


def test_damaged_pages_never_crash_parse_or_lint() -> None:
    import random

    rng = random.Random(7)
    sources = [LIST_PAGE, TABLE_PAGE, torch_page("yesno", "2.9.0")]
    for _ in range(200):
        lines = rng.choice(sources).split("\n")
        for _ in range(rng.randint(1, 5)):
            i = rng.randrange(len(lines))
            op = rng.random()
            if op < 0.4:
                del lines[i]
            elif op < 0.7:
                lines.insert(i, lines[rng.randrange(len(lines))])
            else:
                lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        page = parse_page("\n".join(lines), "x/pytorch_2-11-0/torch.md", PRODUCTS)
        lint_page(page, PRODUCTS)
        assert all(1 <= e.start <= e.end <= page.line_count + 1 for e in page.entries)
