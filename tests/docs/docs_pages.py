"""Fixture pages for the docs tests, written here in the three formats the support pages have used."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

from torchparity.config import load_preset
from torchparity.docs import Product

#: names a native_api folder of real pages for the tests that read them (either layout below)
REFERENCE_ENV = "TORCHPARITY_REFERENCE_DIR"
_CHECKOUT = Path(__file__).resolve().parents[2]


def reference_dir() -> Path | None:
    """The folder of real pages: ``$TORCHPARITY_REFERENCE_DIR``, else ``shared/reference/native_api``
    inside this checkout or next to it; None when there is none (absent in CI)."""
    env = os.environ.get(REFERENCE_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    for base in (_CHECKOUT, _CHECKOUT.parent):
        found = base / "shared" / "reference" / "native_api"
        if found.is_dir():
            return found
    return None


def reference_page(version: str, module: str) -> Path | None:
    """A real page of ``version``: ``pytorch_<X-Y-Z>/<module>.md`` (a backend's native_api folder)
    or the flattened ``pytorch_<X-Y-Z>_<module>[.sample].md`` copies of the shared folder."""
    root = reference_dir()
    if root is None:
        return None
    folder = "pytorch_" + version.replace(".", "-")
    for p in (
        root / folder / f"{module}.md",
        root / f"{folder}_{module}.md",
        root / f"{folder}_{module}.sample.md",
    ):
        if p.is_file():
            return p
    return None


def need_reference(version: str, module: str, fmt: str | None = None) -> Path:
    """The real page, or skip the test; a ``$TORCHPARITY_REFERENCE_DIR`` that is not a folder fails it.

    ``fmt``: the support format the test is about (``list``...); a page in another format skips.
    """
    import pytest

    root = reference_dir()
    if root is None:
        pytest.skip(f"real pages not present: set {REFERENCE_ENV} to a native_api folder")
    if not root.is_dir():
        pytest.fail(f"{REFERENCE_ENV}={root} is not a folder; point it at a native_api folder")
    page = reference_page(version, module)
    if page is None:
        pytest.skip(f"no real {module} page of {version} in {root}")
    if fmt is not None:
        from torchparity.docs import read_page

        got = read_page(page, PRODUCTS).format
        if got != fmt:
            pytest.skip(
                f"the real {module} page of {version} in {root} is in the {got} format, not {fmt}"
            )
    return page


PRODUCTS = tuple(Product(p.code, p.name, p.aliases) for p in load_preset("torch_npu").products)
CODES = ("910b", "A3", "950")

#: how each format spells the products (the table format's names differ a little)
TABLE_NAMES = {
    "910b": "<term>Atlas A2 训练系列产品</term>",
    "A3": "<term>Atlas A3 训练系列产品</term>",
    "950": "<term>Ascend 950DT</term>",
}
LIST_NAMES = {
    "910b": "<term>Atlas A2训练系列产品</term>",
    "A3": "<term>Atlas A3训练系列产品</term>",
    "950": "<term>Ascend 950DT系列产品</term>",
}


def support_block(fmt: str, statuses: str, ids: Iterator[int]) -> str:
    """``statuses`` is one letter per product (y/n), in 910b, A3, 950 order."""
    if fmt == "yesno":
        return f"**是否支持**：{'是' if statuses[0] == 'y' else '否'}\n\n"
    if fmt == "table":
        rows = "".join(
            f"| {TABLE_NAMES[c]} | {'✔' if s == 'y' else '✘'} |\n"
            for c, s in zip(CODES, statuses, strict=True)
        )
        return f"**支持情况**：\n\n| 硬件 | 是否支持 |\n| ---- | :----: |\n{rows}\n"
    out = "**产品支持情况**：\n\n"
    for code, s in zip(CODES, statuses, strict=True):
        n = next(ids)
        word = "支持" if s == "y" else "不支持"
        out += f'<!-- npu="{code}" id{n} -->\n- {LIST_NAMES[code]}：{word}\n<!-- end id{n} -->\n'
    return out + "\n"


def entry(
    fmt: str,
    api: str,
    short: str,
    statuses: str,
    ids: Iterator[int],
    *,
    restriction: str = "",
    subs: tuple[tuple[str, str], ...] = (),
    sub: bool = False,
    link: str = "",
    heading: str = "",
) -> str:
    """One entry; ``subs`` are (name, statuses) of nested sub-methods."""
    if sub:
        parent, name = api.rsplit(".", 1)
        head = f'> <font size="3">{name}()</font>'
        url = link or f"https://pytorch.org/docs/{short}/generated/{parent}.html#{api}"
    else:
        head = heading or f"### {api}"
        url = link or f"https://pytorch.org/docs/{short}/generated/{api}.html"
    text = f'{head}\n\n<div style="margin-left: 2em">\n\n**原生文档**：[{api}]({url})\n\n'
    text += support_block(fmt, statuses, ids)
    if restriction:
        text += f"**限制与说明**：{restriction}\n\n"
    elif (
        fmt == "yesno"
    ):  # pages of that format wrote a placeholder (lint flags it; baselines exist for it)
        text += "**限制与说明**：-\n\n"
    for name, st in subs:
        text += entry(fmt, f"{api}.{name}", short, st, ids, sub=True)
    return text + "</div>\n\n"


def torch_page(fmt: str, version: str, *, with_clone: bool = False) -> str:
    """A ``torch`` module page in ``fmt`` with three sections, a class, and sub-methods."""
    short = ".".join(version.split(".")[:2])
    ids = itertools.count(1)
    e = lambda *a, **k: entry(fmt, *a, short=short, ids=ids, **k)  # noqa: E731
    grad_subs = (("clone", "yyn"),) if with_clone else ()
    return (
        "# torch\n\n"
        "> [!NOTE]\n>\n"
        "> - 下列API已在昇腾设备上验证；未列出的API尚未验证。\n"
        f"> - 模块说明请参见[PyTorch文档](https://pytorch.org/docs/{short}/torch.html)。\n\n"
        "## 目录\n\n- [Tensors](#tensors)\n- [Generators](#generators)\n"
        "- [Locally disabling gradient computation](#locally-disabling-gradient-computation)\n\n"
        "## Tensors\n\n"
        + e("torch.is_tensor", statuses="yyy")
        + e("torch.numel", statuses="yyn", restriction=" `input`仅支持fp16，fp32")
        + "## Generators\n\n"
        + e(
            "torch.Generator",
            statuses="yyy",
            heading="### <code><i>class</i></code> torch.Generator",
            subs=(("device", "yyn"), ("seed", "yyy")),
        )
        + "## Locally disabling gradient computation\n\n"
        + e("torch.no_grad", statuses="yyy")
        + e("torch.autograd.grad_mode.set_grad_enabled", statuses="yyn", subs=grad_subs)
        + e("torch.autograd.grad_mode.inference_mode", statuses="yyn", subs=(("clone", "yyn"),))
        + e("torch.is_grad_enabled", statuses="yyy")
    ).rstrip("\n") + "\n"


#: version -> format of its torch.md in the fixture folder
VERSIONS = {"2.7.1": "table", "2.9.0": "yesno", "2.11.0": "list", "2.12.0": "list"}


def folder_of(version: str) -> str:
    return "pytorch_" + version.replace(".", "-")


def write_docs(root: Path) -> Path:
    for version, fmt in VERSIONS.items():
        page = root / folder_of(version) / "torch.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(torch_page(fmt, version, with_clone=version == "2.12.0"), "utf-8")
    (root / "pytorch_2-11-0" / "_menu_pt_native_apis.md").write_text(
        "- [torch](torch.md)\n", "utf-8"
    )
    return root


def cuda_event_page(version: str = "2.11.0") -> str:
    """A ``torch.cuda`` page whose ``torch.cuda.Event`` entry states its NPU spelling."""
    short = ".".join(version.split(".")[:2])
    text = entry(
        "list",
        "torch.cuda.Event",
        short,
        "yyy",
        itertools.count(1),
        subs=(("elapsed_time", "yyn"),),
        heading="### <code><i>class</i></code> torch.cuda.Event",
    )
    marker = f"(https://pytorch.org/docs/{short}/generated/torch.cuda.Event.html)\n\n"
    assert marker in text
    return "# torch.cuda\n\n" + text.replace(
        marker, marker + "**NPU 形式名称**：torch_npu.npu.Event\n\n", 1
    )
