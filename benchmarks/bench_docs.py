"""Parse every native API page of four versions (about 7 MB) and report the time.

    PYTHONPATH=src python benchmarks/bench_docs.py             # generates ~7 MB of pages in a temp folder
    PYTHONPATH=src python benchmarks/bench_docs.py DIR         # a real native_api folder (pytorch_X-Y-Z/*.md)
    PYTHONPATH=src python benchmarks/bench_docs.py --mb 14     # a bigger generated set

Wall time depends on what else the machine runs; the CPU time beside it does less.
Generated pages use the three formats (table for 2.7.1, yes/no for 2.9.0,
conditional-comment list for 2.11.0 and 2.12.0), with classes, sub-methods and
restrictions, so the parser walks every kind of line. Timing: time.perf_counter,
best of --repeat runs, each run reading and parsing every page from disk.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

from torchparity.config import load_preset
from torchparity.docs import DocsTree, build_matrix, check_in_tree, lint_paths
from torchparity.docs.lint import summary
from torchparity.docs.parse import is_module_page

VERSIONS = {"2.7.1": "table", "2.9.0": "yesno", "2.11.0": "list", "2.12.0": "list"}
TABLE = {"910b": "Atlas A2 训练系列产品", "A3": "Atlas A3 训练系列产品", "950": "Ascend 950DT"}
LISTED = {
    "910b": "Atlas A2训练系列产品",
    "A3": "Atlas A3训练系列产品",
    "950": "Ascend 950DT系列产品",
}


def _support(fmt: str, k: int, ids: itertools.count) -> str:
    ok = [True, True, k % 3 != 0]
    if fmt == "yesno":
        return f"**是否支持**：{'是' if all(ok) else '否'}\n\n"
    if fmt == "table":
        rows = "".join(
            f"| <term>{TABLE[c]}</term> | {'✔' if s else '✘'} |\n"
            for c, s in zip(TABLE, ok, strict=True)
        )
        return f"**支持情况**：\n\n| 硬件 | 是否支持 |\n| ---- | :----: |\n{rows}\n"
    out = "**产品支持情况**：\n\n"
    for code, s in zip(LISTED, ok, strict=True):
        n = next(ids)
        out += f'<!-- npu="{code}" id{n} -->\n- <term>{LISTED[code]}</term>：{"支持" if s else "不支持"}\n<!-- end id{n} -->\n'
    return out + "\n"


def _entry(fmt: str, api: str, short: str, k: int, ids: itertools.count, sub: bool = False) -> str:
    if sub:
        parent, name = api.rsplit(".", 1)
        head, url = (
            f'> <font size="3">{name}()</font>',
            f"https://pytorch.org/docs/{short}/generated/{parent}.html#{api}",
        )
    else:
        head, url = f"### {api}", f"https://pytorch.org/docs/{short}/generated/{api}.html"
    text = (
        f'{head}\n\n<div style="margin-left: 2em">\n\n**原生文档**：[{api}]({url})\n\n'
        + _support(fmt, k, ids)
    )
    if k % 4 == 1:
        text += "**限制与说明**： `input`仅支持bf16，fp16，fp32，int64，bool\n\n"
    elif k % 7 == 2:
        text += "**限制与说明**：\n\n- `input`仅支持fp16，fp32\n- 可能回退至CPU执行\n\n"
    if k % 25 == 0 and not sub:
        for name in ("clone", "state"):
            text += _entry(fmt, f"{api}.{name}", short, k + 1, ids, sub=True)
    return text + "</div>\n\n"


def _page(module: str, fmt: str, version: str, size: int) -> str:
    short = ".".join(version.split(".")[:2])
    ids = itertools.count(1)
    out = [
        f"# {module}\n\n> [!NOTE]\n>\n> - 模块说明见[文档](https://pytorch.org/docs/{short}/{module}.html)。\n\n"
    ]
    length, k = len(out[0]), 0
    while length < size:
        if k % 40 == 0:
            out.append(f"## Section {k // 40}\n\n")
        text = _entry(fmt, f"{module}.op_{k}", short, k, ids)
        out.append(text)
        length += len(text.encode("utf-8"))
        k += 1
    return "".join(out).rstrip("\n") + "\n"


def generate(root: Path, megabytes: float) -> None:
    modules = [
        "torch",
        "torch.nn",
        "torch.nn.functional",
        "torch.Tensor",
        "torch.autograd",
        "torch.linalg",
        "torch.fft",
        "torch.special",
        "torch.distributed",
        "torch.cuda",
    ]
    per_page = int(megabytes * 1024 * 1024 / (len(VERSIONS) * len(modules)))
    for version, fmt in VERSIONS.items():
        folder = root / ("pytorch_" + version.replace(".", "-"))
        folder.mkdir(parents=True, exist_ok=True)
        for module in modules:
            (folder / f"{module.replace('.', '-')}.md").write_text(
                _page(module, fmt, version, per_page), "utf-8"
            )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("docs", nargs="?", help="a native_api folder; default: generate one")
    ap.add_argument("--mb", type=float, default=7.0, help="size of the generated set (default 7)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    products = load_preset("torch_npu").products
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.docs) if args.docs else Path(tmp) / "native_api"
        if not args.docs:
            generate(root, args.mb)
        files = [f for f in sorted(root.glob("pytorch_*/*.md")) if is_module_page(f)]
        size = sum(f.stat().st_size for f in files)
        times, cpu = [], []
        entries = 0
        for _ in range(max(1, args.repeat)):
            tree = DocsTree(root, products)
            t0, c0 = time.perf_counter(), time.process_time()
            entries = sum(len(p.entries) for v in tree.versions() for p in tree.pages(v))
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        t0 = time.perf_counter()
        check_in_tree(tree, tree.pages(tree.versions()[-1])[0].entries[-1].api)
        t_check = time.perf_counter() - t0
        t0 = time.perf_counter()
        m = build_matrix(tree=tree)
        t_matrix = time.perf_counter() - t0
        t0 = time.perf_counter()
        findings, pages = lint_paths([root], products)
        t_lint = time.perf_counter() - t0
        print(
            f"pages: {len(files)} in {len(tree.versions())} versions, {size / 1e6:.2f} MB, {entries} entries"
        )
        print(
            f"parse all pages: best {min(times):.3f} s wall ({min(cpu):.3f} s CPU), "
            f"runs {', '.join(f'{t:.3f}' for t in times)}"
        )
        print(
            f"check one API (parsed tree): {t_check * 1000:.1f} ms; matrix ({len(m.apis)} APIs): {t_matrix:.3f} s"
        )
        print(f"lint all pages (parse + rules): {t_lint:.3f} s, {summary(findings, pages)}")


if __name__ == "__main__":
    main()
