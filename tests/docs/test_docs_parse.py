"""Parsing the three page formats into the support model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS, VERSIONS, folder_of, need_reference, torch_page
from torchparity.docs import Product, parse_page, read_page
from torchparity.docs.model import CLASS, FUNCTION, SUB_METHOD

APIS = [
    "torch.is_tensor",
    "torch.numel",
    "torch.Generator",
    "torch.Generator.device",
    "torch.Generator.seed",
    "torch.no_grad",
    "torch.autograd.grad_mode.set_grad_enabled",
    "torch.autograd.grad_mode.inference_mode",
    "torch.autograd.grad_mode.inference_mode.clone",
    "torch.is_grad_enabled",
]


@pytest.mark.parametrize("version", ["2.7.1", "2.9.0", "2.11.0"])
def test_each_format_parses_to_the_same_entries(version: str) -> None:
    fmt = VERSIONS[version]
    page = parse_page(torch_page(fmt, version), f"x/{folder_of(version)}/torch.md", PRODUCTS)
    assert page.format == fmt
    assert page.version == version
    assert [e.api for e in page.entries] == APIS
    kinds = {e.api: e.kind for e in page.entries}
    assert kinds["torch.Generator"] == CLASS
    assert kinds["torch.autograd.grad_mode.inference_mode"] == CLASS  # it has a sub-method
    assert kinds["torch.autograd.grad_mode.set_grad_enabled"] == FUNCTION
    assert [a for a, k in kinds.items() if k == SUB_METHOD] == [
        "torch.Generator.device",
        "torch.Generator.seed",
        "torch.autograd.grad_mode.inference_mode.clone",
    ]
    assert [(s.title, len(s.entries)) for s in page.sections] == [
        ("torch", 0),
        ("目录", 0),
        ("Tensors", 2),
        ("Generators", 1),
        ("Locally disabling gradient computation", 4),
    ]
    gen = page.find("torch.Generator")
    assert gen is not None and [c.api for c in gen.children] == [
        "torch.Generator.device",
        "torch.Generator.seed",
    ]
    assert page.find("torch.Generator.seed").parent == "torch.Generator"
    assert page.find("torch.numel").section == "Tensors"
    assert not page.div_problems


@pytest.mark.parametrize("version", ["2.7.1", "2.9.0", "2.11.0"])
def test_line_spans_are_exact(version: str) -> None:
    text = torch_page(VERSIONS[version], version)
    lines = text.split("\n")
    page = parse_page(text, "torch.md", PRODUCTS)
    for e in page.entries:
        assert lines[e.start - 1].startswith("### " if e.kind != SUB_METHOD else "> <font"), e.api
        assert lines[e.end - 1] == "</div>", e.api
        assert lines[e.div_line - 1] == '<div style="margin-left: 2em">'
        assert lines[e.link_line - 1].startswith("**原生文档**：")
    gen = page.find("torch.Generator")
    assert gen.start < gen.children[0].start < gen.children[0].end < gen.children[1].start < gen.end


def test_statuses_map_names_of_each_format_to_product_codes() -> None:
    table = parse_page(torch_page("table", "2.7.1"), "t.md", PRODUCTS).find("torch.numel")
    listed = parse_page(torch_page("list", "2.11.0"), "l.md", PRODUCTS).find("torch.numel")
    for e in (table, listed):
        assert [(p.code, p.status, p.supported, p.known) for p in e.products] == [
            ("910b", "支持", True, True),
            ("A3", "支持", True, True),
            ("950", "不支持", False, True),
        ]
    assert [p.raw for p in table.products] == ["✔", "✔", "✘"]
    assert table.products[2].name == "Ascend 950DT"
    assert [p.comment_id for p in listed.products] == ["4", "5", "6"]
    assert table.format == "table" and listed.format == "list"


def test_yes_no_line_applies_to_every_product() -> None:
    page = parse_page(torch_page("yesno", "2.9.0"), "y.md", PRODUCTS)
    e = page.find("torch.autograd.grad_mode.set_grad_enabled")
    assert e.format == "yesno"
    assert [(p.code, p.status, p.raw) for p in e.products] == [
        ("910b", "支持", "是"),
        ("A3", "支持", "是"),
        ("950", "支持", "是"),
    ]
    assert e.restrictions == "-"


def test_restrictions_same_line_and_list_and_code_fence() -> None:
    text = (
        '## S\n\n### torch.a\n\n<div style="margin-left: 2em">\n\n'
        "**原生文档**：[torch.a](https://pytorch.org/docs/2.11/generated/torch.a.html)\n\n"
        "**产品支持情况**：\n\n- <term>Atlas A2训练系列产品</term>：支持\n\n"
        "**限制与说明**：\n\n- `x`仅支持fp32\n- 针对<term>Ascend 950DT</term>：不支持complex\n"
        "  ```python\n  ### not a heading\n  <div>\n  ```\n\n</div>\n\n"
        '### torch.b\n\n<div style="margin-left: 2em">\n\n'
        "**原生文档**：[torch.b](https://pytorch.org/docs/2.11/generated/torch.b.html)\n\n"
        "**产品支持情况**：\n\n- <term>Atlas A3训练系列产品</term>：支持\n\n"
        "**限制与说明**： 仅支持`dim=0`\n\n</div>\n"
    )
    page = parse_page(text, "p.md", PRODUCTS)
    a, b = page.entries
    assert a.restrictions.splitlines()[:2] == [
        "- `x`仅支持fp32",
        "- 针对<term>Ascend 950DT</term>：不支持complex",
    ]
    assert "### not a heading" in a.restrictions
    assert [p.code for p in a.products] == ["910b"]  # the restriction's <term> line is not a status
    assert b.restrictions == "仅支持`dim=0`"
    assert not page.div_problems and [e.api for e in page.entries] == ["torch.a", "torch.b"]


def test_crlf_and_bom_pages_parse_like_lf(tmp_path: Path) -> None:
    text = torch_page("list", "2.11.0")
    f = tmp_path / "pytorch_2-11-0" / "torch.md"
    f.parent.mkdir()
    f.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    crlf = read_page(f, PRODUCTS)
    lf = parse_page(text, str(f), PRODUCTS)
    assert crlf.version == "2.11.0"
    assert [(e.api, e.start, e.end, e.restrictions) for e in crlf.entries] == [
        (e.api, e.start, e.end, e.restrictions) for e in lf.entries
    ]
    assert [p.status for p in crlf.entries[1].products] == ["支持", "支持", "不支持"]


def test_unknown_product_names_are_kept_and_marked() -> None:
    text = torch_page("table", "2.7.1").replace(
        "<term>Ascend 950DT</term>", "<term>Ascend 960X</term>", 1
    )
    e = parse_page(text, "t.md", PRODUCTS).find("torch.is_tensor")
    assert [(p.code, p.known) for p in e.products] == [
        ("910b", True),
        ("A3", True),
        ("Ascend 960X", False),
    ]


def test_bad_utf8_is_a_usage_error(tmp_path: Path) -> None:
    from torchparity.errors import UsageError

    f = tmp_path / "bad.md"
    f.write_bytes(b"# t\n\xff\xfe\n")
    with pytest.raises(UsageError, match="not UTF-8"):
        read_page(f)


def test_real_table_page() -> None:
    page = read_page(need_reference("2.7.1", "torch", "table"), PRODUCTS)
    assert page.version == "2.7.1" and page.format == "table"
    subs = [e for e in page.entries if e.kind == SUB_METHOD]
    assert len(page.entries) > 300 and len(subs) >= 10
    clone = page.find("torch.autograd.grad_mode.set_grad_enabled.clone")
    assert clone is not None and clone.parent == "torch.autograd.grad_mode.set_grad_enabled"
    assert [p.status for p in clone.products] == ["支持", "支持", "不支持"]
    with_status = [e for e in page.entries if e.products]
    assert all(p.known for e in with_status for p in e.products)
    assert all(len(e.products) == 3 for e in with_status)
    assert not page.div_problems


def test_real_list_sample() -> None:
    page = read_page(need_reference("2.11.0", "torch-autograd", "list"), PRODUCTS)
    assert page.version == "2.11.0" and page.format == "list"
    assert all(p.comment_id and p.known for e in page.entries for p in e.products)
    assert any(e.kind == SUB_METHOD for e in page.entries)


def test_a_long_page_keeps_every_entry() -> None:
    """Speed is benchmarks/bench_docs.py's job; here: 50 pages' worth in one text, nothing dropped."""
    one = parse_page(torch_page("table", "2.7.1"), "t.md", PRODUCTS)
    page = parse_page(torch_page("table", "2.7.1") * 50, "t.md", PRODUCTS)
    assert len(page.entries) == 50 * len(one.entries) == 500


def test_product_names_match_without_aliases() -> None:
    from torchparity.docs import Products

    prods = Products(
        [
            Product("910b", "Atlas A2训练系列产品"),
            Product("A3", "Atlas A3训练系列产品"),
            Product("950", "Ascend 950DT系列产品"),
        ]
    )
    assert prods.by_name("<term>Atlas A2 训练系列产品</term>").code == "910b"  # blanks do not count
    assert prods.by_name("Ascend 950DT").code == "950"  # the one name it begins
    assert prods.by_name("Atlas A") is None  # begins two names: no guess
