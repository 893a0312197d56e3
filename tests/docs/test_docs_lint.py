"""Lint rules: each fires on a planted defect and stays silent on clean pages; baselines."""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.docs.docs_pages import PRODUCTS, need_reference, torch_page
from torchparity.cli import main
from torchparity.docs import RULES, lint_page, lint_paths, parse_page, read_page
from torchparity.docs.model import status_of
from torchparity.docs.versions import link_api_problem, link_problem

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
    return t.replace(
        block, '- <!-- npu="910b" id1 --><term>Atlas A2训练系列产品</term>：支持<!-- end id1 -->'
    )


def _drop_first_close(t: str) -> str:
    i = t.index("</div>\n\n### torch.numel")
    return t[:i] + t[i + len("</div>\n\n") :]


def _move_restriction_up(t: str) -> str:
    head = f"**原生文档**：[torch.numel]({NUMEL_LINK})\n\n"
    restr = "**限制与说明**： `input`仅支持fp16，fp32\n\n"
    return t.replace(restr, "").replace(head, head + restr)


#: rule -> (planting function, the text of the line it should be reported on)
PLANTED: dict[str, tuple[Callable[[str], str], str]] = {
    "comment-own-line": (_inline, '- <!-- npu="910b" id1 -->'),
    "comment-pair": (
        lambda t: t.replace("<!-- end id2 -->", "<!-- end id9 -->"),
        "<!-- end id9 -->",
    ),
    "id-duplicate": (
        lambda t: t.replace('npu="910b" id4 -->', 'npu="910b" id1 -->').replace(
            "<!-- end id4 -->", "<!-- end id1 -->"
        ),
        '<!-- npu="910b" id1 -->\n- <term>Atlas A2训练系列产品</term>：支持\n<!-- end id1 -->\n<!-- npu="A3" id5',
    ),
    "field-order": (_move_restriction_up, '**产品支持情况**：\n\n<!-- npu="910b" id4'),
    "field-missing": (
        lambda t: t.replace(
            "**原生文档**：[torch.is_tensor](https://pytorch.org/docs/2.11/generated/torch.is_tensor.html)\n\n",
            "",
        ),
        "### torch.is_tensor",
    ),
    "restriction-empty": (
        lambda t: t.replace(
            "<!-- end id3 -->\n\n</div>", "<!-- end id3 -->\n\n**限制与说明**：无\n\n</div>"
        ),
        "**限制与说明**：无",
    ),
    "link-version": (
        lambda t: t.replace(NUMEL_LINK, NUMEL_LINK.replace("/2.11/", "/2.7/")),
        "**原生文档**：[torch.numel]",
    ),
    "link-api": (
        lambda t: t.replace(
            NUMEL_LINK, NUMEL_LINK.replace("torch.numel.html", "torch.nelement.html")
        ),
        "**原生文档**：[torch.numel]",
    ),
    "div-balance": (_drop_first_close, '<div style="margin-left: 2em">'),
    "product-unknown": (
        lambda t: t.replace('npu="950" id3', 'npu="960" id3'),
        '<!-- npu="960" id3 -->',
    ),
    "status-unknown": (
        lambda t: t.replace("：支持\n<!-- end id1 -->", "：待验证\n<!-- end id1 -->"),
        "：待验证",
    ),
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
    text = TABLE_PAGE.replace(
        "<term>Ascend 950DT</term> | ✘ |", "<term>Ascend 960X</term> | ✘ |", 1
    )
    text = text.replace("/docs/2.7/torch.html", "/docs/stable/torch.html")
    found = lint_text(text, "2.7.1")
    assert sorted({r for _, r in found}) == ["link-version", "product-unknown"]
    assert (line_of(text, "/docs/stable/torch.html"), "link-version") in found
    assert (line_of(text, "<term>Ascend 960X</term>"), "product-unknown") in found


def test_comment_in_inline_code_is_text() -> None:
    text = LIST_PAGE.replace(
        "## Tensors\n", '## Tensors\n\n用 `<!-- npu="910b" id1 -->` 包住产品行。\n'
    )
    assert lint_text(text) == []


def test_lint_cli_prints_path_line_rule_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "pytorch_2-11-0" / "torch.md"
    page.parent.mkdir()
    page.write_text(PLANTED["link-version"][0](LIST_PAGE), "utf-8")
    assert main(["docs", "lint", str(tmp_path)]) == 1
    cap = capsys.readouterr()
    (line,) = cap.out.strip().splitlines()
    assert re.fullmatch(
        rf"{re.escape(str(page))}:\d+: link-version link is for /docs/2\.7/ .*", line
    )
    assert "1 finding(s) in 1 of 1 page(s)" in cap.err
    assert main(["docs", "lint", str(page), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["pages"] == 1 and [f["rule"] for f in doc["findings"]] == ["link-version"]
    page.write_text(LIST_PAGE, "utf-8")
    assert main(["docs", "lint", str(page)]) == 0
    assert main(["docs", "lint", str(tmp_path / "missing.md")]) == 2


def test_baseline_lets_only_new_findings_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    assert "0 finding(s) in 0 of 1 page(s), 9 baselined" in capsys.readouterr().err
    # lines move (a new note on top) and one new defect arrives: only the new one is reported
    text = page.read_text("utf-8").replace("# torch\n", "# torch\n\n新增说明。\n", 1)
    text = text.replace(
        "/docs/2.9/generated/torch.numel.html", "/docs/2.8/generated/torch.numel.html"
    )
    page.write_text(text, "utf-8")
    assert main(["docs", "lint", str(tmp_path), "--baseline", str(base)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and ": link-version " in out[0]
    assert main(["docs", "lint", str(tmp_path), "--baseline", str(tmp_path / "none.json")]) == 2


def test_navigation_pages_are_skipped_in_folders(docs_dir: Path) -> None:
    findings, pages = lint_paths([docs_dir / "pytorch_2-11-0"], PRODUCTS)
    assert pages == 1 and findings == []


def test_real_pages_are_clean() -> None:
    pages = [need_reference("2.7.1", "torch"), need_reference("2.11.0", "torch-autograd")]
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


# -- link-api: the spellings upstream really uses are accepted; another API is not ----------------------

D = "https://pytorch.org/docs/2.11/"


@pytest.mark.parametrize(
    ("api", "kind", "url"),
    [
        # members may link their own page (upstream gives Tensor members pages) or the anchor form
        ("torch.Tensor.col_indices", "sub-method", D + "generated/torch.Tensor.col_indices.html"),
        (
            "torch.Tensor.col_indices",
            "sub-method",
            D + "generated/torch.Tensor.html#torch.Tensor.col_indices",
        ),
        # the page's class path differs from upstream's: the trailing Class.member decides
        (
            "torch.sparse.Tensor.col_indices",
            "sub-method",
            D + "generated/torch.Tensor.col_indices.html",
        ),
        # the defining-module path, longer than the public name
        ("torch.cuda.empty_cache", "function", D + "generated/torch.cuda.memory.empty_cache.html"),
        (
            "torch.cuda.CUDAPluggableAllocator",
            "class",
            D + "generated/torch.cuda.memory.CUDAPluggableAllocator.html",
        ),
        (
            "torch.autograd.FunctionCtx.mark_dirty",
            "sub-method",
            D + "generated/torch.autograd.function.FunctionCtx.mark_dirty.html",
        ),
        (
            "profile.key_averages",
            "function",
            D + "generated/torch.autograd.profiler.profile.key_averages.html",
        ),
        # module and topic pages: the anchor names the API, or the page is named after the class
        ("torch.Tensor", "class", D + "tensors.html"),
        ("torch.is_tensor", "function", D + "torch.html#torch.is_tensor"),
        (
            "torch.distributed.Store.__init__",
            "sub-method",
            D + "distributed.html#torch.distributed.Store.__init__",
        ),
        # Markdown escapes are not part of the name
        (
            r"torch.utils.tensorboard.writer.SummaryWriter.\_\_init\_\_",
            "sub-method",
            D + "tensorboard.html#torch.utils.tensorboard.writer.SummaryWriter.__init__",
        ),
    ],
)
def test_link_api_accepts_upstream_spellings(api: str, kind: str, url: str) -> None:
    assert link_api_problem(url, api, kind) == ""
    assert link_problem(url, api, "2.11.0", kind) == ""


@pytest.mark.parametrize(
    ("api", "kind", "url", "why"),
    [
        (
            "torch.numel",
            "function",
            D + "generated/torch.nelement.html",
            "does not name torch.numel",
        ),
        (
            "torch.cuda.empty_cache",
            "function",
            D + "generated/torch.mps.empty_cache.html",
            "does not name",
        ),
        ("torch.abs", "function", D + "generated/torch.special.abs.html", "does not name"),
        (
            "torch.sparse.Tensor.col_indices",
            "sub-method",
            D + "generated/torch.Tensor.row_indices.html",
            "does not name",
        ),
        ("torch.Generator.seed", "sub-method", D + "generated/torch.Generator.html", "anchor form"),
        (
            "torch.onnx.ONNXProgram.save",
            "sub-method",
            D + "onnx.html#torch-onnx-apis",
            "#torch-onnx-apis does not name",
        ),
        ("torch.is_tensor", "function", D + "torch.html#torch.numel", "does not name"),
        ("torch.Tensor.abs", "function", D + "tensors.html", "topic page"),
        (
            "torch.nn.utils.prune.identity",
            "function",
            D + "generated/torch.nn.utils.prune.identity_function.html",
            "does not name",
        ),
    ],
)
def test_link_api_fires_on_another_api(api: str, kind: str, url: str, why: str) -> None:
    assert why in link_api_problem(url, api, kind)


def test_link_problem_still_names_a_wrong_version() -> None:
    url = "https://pytorch.org/docs/2.7/generated/torch.cuda.memory.empty_cache.html"
    assert (
        link_problem(url, "torch.cuda.empty_cache", "2.11.0", "function")
        == "link is for /docs/2.7/, want /docs/2.11/"
    )


#: a page written like the real ones where the old rules saw false findings (table format, 2.11.0)
UPSTREAM_SPELLINGS = """\
# torch.x

## Things

### <code><i>class</i></code> torch.sparse.Tensor

<div style="margin-left: 2em">

> <font size="3">col_indices()</font>

<div style="margin-left: 2em">

**原生文档**：[Tensor.col_indices](https://pytorch.org/docs/2.11/generated/torch.Tensor.col_indices.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | &#10004; |
| <term>Atlas A3 训练系列产品</term> | &#10004; |
| <term>Ascend 950DT</term> | &#10008; |

</div>

</div>

### <code><i>class</i></code> torch.utils.tensorboard.writer.SummaryWriter

<div style="margin-left: 2em">

> <font size="3">\\_\\_init\\_\\_()</font>

<div style="margin-left: 2em">

**原生文档**：[SummaryWriter.\\_\\_init\\_\\_](https://pytorch.org/docs/2.11/tensorboard.html#torch.utils.tensorboard.writer.SummaryWriter.__init__)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✔ |

</div>

</div>

### torch.cuda.empty_cache

<div style="margin-left: 2em">

**原生文档**：[torch.cuda.empty_cache](https://pytorch.org/docs/2.11/generated/torch.cuda.memory.empty_cache.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✘ |

</div>

### <code><i>class</i></code> torch.Tensor

<div style="margin-left: 2em">

**原生文档**：[torch.Tensor](https://pytorch.org/docs/2.11/tensors.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✔ |

</div>
"""


def test_upstream_spellings_and_entities_lint_clean() -> None:
    assert lint_text(UPSTREAM_SPELLINGS) == []
    page = parse_page(UPSTREAM_SPELLINGS, "native_api/pytorch_2-11-0/torch-x.md", PRODUCTS)
    init = page.find("torch.utils.tensorboard.writer.SummaryWriter.__init__")
    assert (
        init is not None and init.kind == "sub-method"
    )  # the marker's escapes are gone from the name
    cols = page.find("torch.sparse.Tensor.col_indices")
    assert [(p.code, p.supported) for p in cols.products] == [
        ("910b", True),
        ("A3", True),
        ("950", False),
    ]


def test_html_entities_are_statuses() -> None:
    assert status_of("&#10004;") == ("支持", True)
    assert status_of("&#10008;") == ("不支持", False)
    assert status_of("&#x2714;") == ("支持", True)
    assert status_of("&#10067;") == ("❓", None)  # decoded, still not a status
    text = UPSTREAM_SPELLINGS.replace("| &#10008; |", "| &#10067; |")
    assert lint_text(text) == [(line_of(text, "&#10067;"), "status-unknown")]


# -- which pages a folder holds, and the summary line --------------------------------------------------


def test_folders_lint_module_pages_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = PLANTED["link-version"][0](LIST_PAGE)  # one finding wherever it is linted
    folder = tmp_path / "native_api" / "pytorch_2-11-0"
    folder.mkdir(parents=True)
    (folder / "torch.md").write_text(LIST_PAGE, "utf-8")
    (folder / "torch-cuda.md").write_text(bad, "utf-8")
    skipped = [
        folder / "overview.md",
        folder / "PyTorch-2-11-0.md",
        folder / "_menu_pt_native_apis.md",
        folder / "README.md",
        tmp_path / "native_api" / "README.md",
        tmp_path / "native_api" / "_writing_guide.md",
        tmp_path / "native_api" / "private_apis.md",
        tmp_path / "native_api" / "appendixes" / "notes.md",
    ]
    for p in skipped:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(bad, "utf-8")
    findings, pages = lint_paths([tmp_path / "native_api"], PRODUCTS)
    assert pages == 2 and {f.path for f in findings} == {str(folder / "torch-cuda.md")}
    assert main(["docs", "lint", str(tmp_path / "native_api")]) == 1
    assert "1 finding(s) in 1 of 2 page(s)" in capsys.readouterr().err
    # a page named on the command line is linted whatever its name
    assert main(["docs", "lint", str(folder / "overview.md"), str(folder / "README.md")]) == 1
    assert "2 finding(s) in 2 of 2 page(s)" in capsys.readouterr().err
    # a folder without module pages is bad input
    assert main(["docs", "lint", str(tmp_path / "native_api" / "appendixes")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("ERROR: no module pages (pytorch_<X-Y-Z>/<module>.md) under ")


def test_flattened_copies_count_as_module_pages(tmp_path: Path) -> None:
    (tmp_path / "pytorch_2-11-0_torch.md").write_text(LIST_PAGE, "utf-8")
    (tmp_path / "README.md").write_text("# about\n", "utf-8")
    findings, pages = lint_paths([tmp_path], PRODUCTS)
    assert (findings, pages) == ([], 1)
    assert read_page(tmp_path / "pytorch_2-11-0_torch.md", PRODUCTS).version == "2.11.0"


# -- the baseline is written atomically ---------------------------------------------------------------


def test_baseline_write_failure_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "pytorch_2-9-0" / "torch.md"
    page.parent.mkdir()
    page.write_text(torch_page("yesno", "2.9.0"), "utf-8")
    base = tmp_path / "base" / "lint-baseline.json"

    def full(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    assert (
        main(["docs", "lint", str(tmp_path), "--write-baseline", str(base)]) == 3
    )  # a full disk: environment
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"ERROR: no space left writing {base} (No space left on device)")
    assert list(base.parent.iterdir()) == []  # no temp file left behind
    monkeypatch.undo()
    old = os.umask(0o022)
    try:
        assert main(["docs", "lint", str(tmp_path), "--write-baseline", str(base)]) == 0
    finally:
        os.umask(old)
    assert [p.name for p in base.parent.iterdir()] == [base.name]
    assert stat.S_IMODE(base.stat().st_mode) == 0o644


def test_folders_are_linted_oldest_version_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = PLANTED["product-unknown"][0](LIST_PAGE)  # a finding whatever the folder
    versions = [
        "2.7.1",
        "2.9.0",
        "2.11.0",
        "2.12.0",
    ]  # by name, 2-11-0 and 2-12-0 come before 2-7-1
    for v in versions:
        folder = tmp_path / "native_api" / f"pytorch_{v.replace('.', '-')}"
        folder.mkdir(parents=True)
        for module in ("torch", "torch-cuda"):
            (folder / f"{module}.md").write_text(bad, "utf-8")
    assert main(["docs", "lint", str(tmp_path / "native_api"), "--json"]) == 1
    paths = list(dict.fromkeys(f["path"] for f in json.loads(capsys.readouterr().out)["findings"]))
    want = [
        str(tmp_path / "native_api" / f"pytorch_{v.replace('.', '-')}" / f"{m}.md")
        for v in versions
        for m in ("torch-cuda", "torch")
    ]
    assert paths == want
    # flattened copies (pytorch_X-Y-Z_<module>.md) too
    flat = tmp_path / "flat"
    flat.mkdir()
    for v in versions:
        (flat / f"pytorch_{v.replace('.', '-')}_torch.md").write_text(bad, "utf-8")
    findings, pages = lint_paths([flat], PRODUCTS)
    assert pages == 4
    assert list(dict.fromkeys(Path(f.path).name for f in findings)) == [
        f"pytorch_{v.replace('.', '-')}_torch.md" for v in versions
    ]
