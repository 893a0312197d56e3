"""Adding entries: sub-method and function in each format, exact bytes, idempotence, errors."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests.conftest import git
from tests.docs.docs_pages import PRODUCTS, need_reference, torch_page
from torchparity.cli import main
from torchparity.docs import add_entry, check_api, lint_paths, read_page
from torchparity.errors import UsageError

CLONE = "torch.autograd.grad_mode.set_grad_enabled.clone"
PARENT = "torch.autograd.grad_mode.set_grad_enabled"
FORMAT_OF = {"2.7.1": "table", "2.9.0": "yesno", "2.11.0": "list"}

TABLE_CLONE = """\
> <font size="3">clone()</font>

<div style="margin-left: 2em">

**原生文档**：[torch.autograd.grad_mode.set_grad_enabled.clone](https://pytorch.org/docs/2.7/generated/torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled.clone)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✘ |

</div>

"""

YESNO_CLONE = """\
> <font size="3">clone()</font>

<div style="margin-left: 2em">

**原生文档**：[torch.autograd.grad_mode.set_grad_enabled.clone](https://pytorch.org/docs/2.9/generated/torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled.clone)

**是否支持**：是

</div>

"""

# the list page's highest id is 30 (10 entries x 3 products)
LIST_CLONE = """\
> <font size="3">clone()</font>

<div style="margin-left: 2em">

**原生文档**：[torch.autograd.grad_mode.set_grad_enabled.clone](https://pytorch.org/docs/2.11/generated/torch.autograd.grad_mode.set_grad_enabled.html#torch.autograd.grad_mode.set_grad_enabled.clone)

**产品支持情况**：

<!-- npu="910b" id31 -->
- <term>Atlas A2训练系列产品</term>：支持
<!-- end id31 -->
<!-- npu="A3" id32 -->
- <term>Atlas A3训练系列产品</term>：支持
<!-- end id32 -->
<!-- npu="950" id33 -->
- <term>Ascend 950DT系列产品</term>：不支持
<!-- end id33 -->

</div>

"""

EXPECTED_CLONE = {"2.7.1": TABLE_CLONE, "2.9.0": YESNO_CLONE, "2.11.0": LIST_CLONE}


def page_of(docs: Path, version: str) -> Path:
    return docs / f"pytorch_{version.replace('.', '-')}" / "torch.md"


def offset_of_line(text: str, line: int) -> int:
    """Character offset where 1-based ``line`` starts."""
    return sum(len(x) + 1 for x in text.split("\n")[: line - 1])


def only_insertion(old: str, new: str) -> tuple[int, str]:
    """(offset, inserted text) when ``new`` is ``old`` with one run of whole lines inserted; else fail."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    k = len(b) - len(a)
    assert k > 0, "nothing was inserted"
    p = 0
    while p < len(a) and a[p] == b[p]:
        p += 1
    assert b[p + k :] == a[p:], "the change is not a single insertion of whole lines"
    return sum(len(x) for x in a[:p]), "".join(b[p : p + k])


@pytest.mark.parametrize("version", ["2.7.1", "2.9.0", "2.11.0"])
def test_sub_method_like_parent_in_each_format(docs_repo: Path, version: str) -> None:
    page = page_of(docs_repo, version)
    old = page.read_text("utf-8")
    parent = read_page(page, PRODUCTS).find(PARENT)
    result = add_entry(CLONE, docs_repo, [version], like=PARENT, products=PRODUCTS)
    (change,) = result.changes
    assert change.action == "added" and change.kind == "sub-method" and change.parent == PARENT
    assert change.format == FORMAT_OF[version]
    new = page.read_text("utf-8")
    # byte preservation: the new text is the old one with exactly the entry inserted
    # right before the parent's closing </div> (the parent had no sub-method yet)
    at = offset_of_line(old, parent.end)
    assert new == old[:at] + EXPECTED_CLONE[version] + old[at:]
    assert (change.start, change.end) == (
        parent.end,
        parent.end + EXPECTED_CLONE[version].count("\n") - 2,
    )
    if version == "2.11.0":
        assert change.ids == ("31", "32", "33")
    again = read_page(page, PRODUCTS)
    clone = again.find(CLONE)
    assert clone.parent == PARENT and clone.start == change.start
    assert [(p.code, p.supported) for p in clone.products] == [
        (p.code, p.supported) for p in parent.products
    ]
    assert git(docs_repo, "diff", "--check", completed=True).returncode == 0
    before = {(f.rule, f.key) for f in lint_paths([page_of(docs_repo, version)], PRODUCTS)[0]}
    git(docs_repo, "stash", "-q", completed=True)
    old_findings = {(f.rule, f.key) for f in lint_paths([page], PRODUCTS)[0]}
    git(docs_repo, "stash", "pop", "-q", completed=True)
    assert (
        before == old_findings
    )  # nothing new for lint (the yes/no page keeps its old placeholders)


def test_sub_method_goes_after_the_existing_sub_methods(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.11.0")
    old = page.read_text("utf-8")
    gen = read_page(page, PRODUCTS).find("torch.Generator")
    add_entry(
        "torch.Generator.manual_seed",
        docs_dir,
        ["2.11.0"],
        statuses="910b=支持,A3=支持,950=不支持",
        products=PRODUCTS,
    )
    at, block = only_insertion(old, page.read_text("utf-8"))
    assert at == offset_of_line(
        old, gen.children[-1].end + 2
    )  # after seed()'s </div> and its blank line
    assert block.startswith('> <font size="3">manual_seed()</font>\n\n')
    assert "#torch.Generator.manual_seed)" in block
    new_gen = read_page(page, PRODUCTS).find("torch.Generator")
    assert [c.name for c in new_gen.children] == ["device", "seed", "manual_seed"]


@pytest.mark.parametrize("version", ["2.7.1", "2.9.0", "2.11.0"])
def test_function_with_status_in_each_format(docs_repo: Path, version: str) -> None:
    page = page_of(docs_repo, version)
    old = page.read_text("utf-8")
    status = "910b=支持,A3=支持,950=支持" if version == "2.9.0" else "910b=支持,A3=支持,950=不支持"
    result = add_entry(
        "torch.is_inference_mode_enabled",
        docs_repo,
        [version],
        statuses=status,
        products=PRODUCTS,
        restrictions=["`mode`仅支持True"],
    )
    (change,) = result.changes
    assert change.kind == "function" and change.section == "Locally disabling gradient computation"
    new = page.read_text("utf-8")
    at, block = only_insertion(old, new)
    assert at == len(old)  # the last entry of the last section: the page end
    assert block.startswith(
        "\n### torch.is_inference_mode_enabled\n"
    )  # a blank line first, no trailing one
    assert block.endswith("**限制与说明**： `mode`仅支持True\n\n</div>\n")
    short = ".".join(version.split(".")[:2])
    assert (
        f"(https://pytorch.org/docs/{short}/generated/torch.is_inference_mode_enabled.html)"
        in block
    )
    e = read_page(page, PRODUCTS).find("torch.is_inference_mode_enabled")
    assert (
        e.section == "Locally disabling gradient computation"
        and e.restrictions == "`mode`仅支持True"
    )
    assert git(docs_repo, "diff", "--check", completed=True).returncode == 0
    new_rules = {
        f.rule for f in lint_paths([page], PRODUCTS)[0] if "is_inference_mode_enabled" in f.message
    }
    assert new_rules == set()


def test_function_like_a_sibling_lands_in_its_section(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.7.1")
    old = page.read_text("utf-8")
    add_entry(
        "torch.autograd.grad_mode.set_multithreading_enabled",
        docs_dir,
        ["2.7.1"],
        like=PARENT,
        products=PRODUCTS,
    )
    at, block = only_insertion(old, page.read_text("utf-8"))
    ref = read_page(page, PRODUCTS)
    inference = ref.find("torch.autograd.grad_mode.inference_mode")
    added = ref.find("torch.autograd.grad_mode.set_multithreading_enabled")
    assert added.start == inference.end + 2 and added.kind == "function"
    assert block.startswith("### torch.autograd.grad_mode.set_multithreading_enabled\n")
    assert [p.raw for p in added.products] == ["✔", "✔", "✘"]


def test_section_option_and_its_error(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.11.0")
    old = page.read_text("utf-8")
    add_entry(
        "torch.is_storage",
        docs_dir,
        ["2.11.0"],
        statuses="910b=支持",
        section="Tensors",
        products=PRODUCTS,
    )
    _, block = only_insertion(old, page.read_text("utf-8"))
    numel = read_page(page, PRODUCTS).find("torch.numel")
    assert read_page(page, PRODUCTS).find("torch.is_storage").start == numel.end + 2
    assert block.count("<!-- npu=") == 1
    with pytest.raises(UsageError, match="no such heading.*'Tensors'"):
        add_entry(
            "torch.is_nonzero",
            docs_dir,
            ["2.11.0"],
            statuses="910b=支持",
            section="Nope",
            products=PRODUCTS,
        )


def test_idempotent_second_run_changes_nothing(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["docs", "add", CLONE, "--docs", str(docs_dir), "--like", PARENT]
    assert main(args) == 0
    first = capsys.readouterr()
    assert first.out.count("added") == 3 and "2.12.0" not in first.out.replace("pytorch_2-12-0", "")
    assert "pytorch_2-12-0/torch.md" in first.out and "already present" in first.out
    snapshot = {p: p.read_bytes() for p in docs_dir.rglob("*.md")}
    assert main(args) == 0
    second = capsys.readouterr()
    assert second.out.count("already present") == 4
    assert "nothing to change" in second.err
    assert {p: p.read_bytes() for p in docs_dir.rglob("*.md")} == snapshot
    assert check_api(CLONE, docs_dir, products=PRODUCTS).ok


def test_dry_run_writes_nothing_and_shows_the_diff(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = {p: p.read_bytes() for p in docs_dir.rglob("*.md")}
    assert (
        main(
            [
                "docs",
                "add",
                CLONE,
                "--docs",
                str(docs_dir),
                "--version",
                "2.11.0",
                "--like",
                PARENT,
                "--dry-run",
            ]
        )
        == 0
    )
    cap = capsys.readouterr()
    assert "would add" in cap.out and '+<!-- npu="910b" id31 -->' in cap.out
    assert "dry run: nothing written" in cap.err
    assert {p: p.read_bytes() for p in docs_dir.rglob("*.md")} == snapshot


def test_json_output_lists_changes(docs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "docs",
                "add",
                CLONE,
                "--docs",
                str(docs_dir),
                "--version",
                "2.11.0",
                "--like",
                PARENT,
                "--json",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    (c,) = doc["changes"]
    assert doc["changed"] and c["action"] == "added" and c["ids"] == ["31", "32", "33"]
    assert c["page"] == "pytorch_2-11-0/torch.md" and c["text"] == LIST_CLONE.rstrip("\n") + "\n"


def test_a_failing_version_leaves_every_page_untouched(docs_dir: Path) -> None:
    snapshot = {p: p.read_bytes() for p in docs_dir.rglob("*.md")}
    with pytest.raises(UsageError, match="no folder pytorch_2-13-0"):
        add_entry(CLONE, docs_dir, ["2.7.1", "2.11.0", "2.13.0"], like=PARENT, products=PRODUCTS)
    with pytest.raises(UsageError, match="--like .*inference_mode.foo: no entry in pytorch_2-7-1"):
        add_entry(
            CLONE,
            docs_dir,
            ["2.7.1"],
            like="torch.autograd.grad_mode.inference_mode.foo",
            products=PRODUCTS,
        )
    assert {p: p.read_bytes() for p in docs_dir.rglob("*.md")} == snapshot


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"statuses": "910B=支持"}, "case-sensitive: 910b"),
        ({"statuses": "910b=maybe"}, "write 支持 or 不支持"),
        ({"statuses": "910b"}, "not CODE=STATUS"),
        ({}, "exactly one of --like"),
        ({"like": PARENT, "statuses": "910b=支持"}, "exactly one of --like"),
        (
            {"statuses": "910b=支持,950=不支持", "versions": ["2.9.0"]},
            "one 是/否 status for all products",
        ),
        ({"statuses": "910b=支持", "kind": "method"}, "--kind 'method'"),
    ],
)
def test_bad_input_is_a_usage_error(docs_dir: Path, kwargs: dict, message: str) -> None:
    versions = kwargs.pop("versions", ["2.7.1"])
    with pytest.raises(UsageError, match=message):
        add_entry("torch.is_nonzero", docs_dir, versions, products=PRODUCTS, **kwargs)


def test_cli_bad_input_exit_2_one_line(docs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "add", "torch.x", "--docs", str(docs_dir), "--status", "999=支持"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("ERROR: --status: unknown product code '999'")


def test_crlf_page_gets_crlf_lines(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.7.1")
    old = page.read_bytes().replace(b"\n", b"\r\n")
    page.write_bytes(old)
    add_entry(CLONE, docs_dir, ["2.7.1"], like=PARENT, products=PRODUCTS)
    new = page.read_bytes()
    at, block = only_insertion(old.decode("utf-8"), new.decode("utf-8"))
    assert block.count("\r\n") == block.count("\n") == TABLE_CLONE.count("\n")
    assert new.count(b"\n") == new.count(b"\r\n")


def test_page_without_final_newline(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.11.0")
    page.write_text(torch_page("list", "2.11.0").rstrip("\n"), "utf-8")
    add_entry(
        "torch.is_inference_mode_enabled",
        docs_dir,
        ["2.11.0"],
        statuses="910b=支持",
        products=PRODUCTS,
    )
    text = page.read_text("utf-8")
    assert text.endswith("<!-- end id31 -->\n\n</div>\n")
    assert "</div>\n\n### torch.is_inference_mode_enabled\n" in text


def test_the_seed_task_four_versions(docs_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """clone() under set_grad_enabled in every version, statuses as the parent's, no restriction."""
    base = docs_repo.parent / "baseline.json"
    assert main(["docs", "lint", str(docs_repo), "--write-baseline", str(base)]) == 0
    assert main(["docs", "check", CLONE, "--docs", str(docs_repo)]) == 1
    assert main(["docs", "add", CLONE, "--docs", str(docs_repo), "--like", PARENT]) == 0
    assert main(["docs", "check", CLONE, "--docs", str(docs_repo)]) == 0
    assert main(["docs", "lint", str(docs_repo), "--baseline", str(base)]) == 0
    capsys.readouterr()
    assert git(docs_repo, "diff", "--check", completed=True).returncode == 0
    stat = git(docs_repo, "diff", "--numstat", completed=True).stdout.split()
    assert stat[1::3] == ["0", "0", "0"]  # insertions only, in three pages
    for v in ("2.7.1", "2.9.0", "2.11.0"):
        clone = read_page(page_of(docs_repo, v), PRODUCTS).find(CLONE)
        assert clone.restrictions == "" and clone.restrictions_line is None


def test_methods_listed_as_headings_stay_headings(tmp_path: Path) -> None:
    """A page that lists torch.Tensor.X as entries of their own gets a new heading, not a sub-method."""
    folder = tmp_path / "pytorch_2-11-0"
    folder.mkdir()
    page = folder / "tensors.md"
    blocks = []
    for n, api in enumerate(["torch.Tensor", "torch.Tensor.abs", "torch.Tensor.add"]):
        ids = [3 * n + 1, 3 * n + 2, 3 * n + 3]
        lines = "".join(
            f'<!-- npu="{c}" id{i} -->\n- <term>{name}</term>：支持\n<!-- end id{i} -->\n'
            for c, i, name in zip(
                ("910b", "A3", "950"),
                ids,
                ("Atlas A2训练系列产品", "Atlas A3训练系列产品", "Ascend 950DT系列产品"),
                strict=True,
            )
        )
        blocks.append(
            f'### {api}\n\n<div style="margin-left: 2em">\n\n**原生文档**：[{api}]'
            f"(https://pytorch.org/docs/2.11/generated/{api}.html)\n\n**产品支持情况**：\n\n{lines}\n</div>\n"
        )
    old = "# torch.Tensor\n\n## Tensor class reference\n\n" + "\n".join(blocks)
    page.write_text(old, "utf-8")
    (change,) = add_entry(
        "torch.Tensor.addmm", tmp_path, like="torch.Tensor.add", products=PRODUCTS
    ).changes
    assert change.kind == "function" and change.ids == ("10", "11", "12")
    at, block = only_insertion(old, page.read_text("utf-8"))
    assert at == len(old) and block.startswith("\n### torch.Tensor.addmm\n")


def test_add_on_the_real_pages(tmp_path: Path) -> None:
    real_torch, real_autograd = (
        need_reference("2.7.1", "torch"),
        need_reference("2.11.0", "torch-autograd"),
    )
    table = tmp_path / "pytorch_2-7-1" / "torch.md"
    listed = tmp_path / "pytorch_2-11-0" / "torch-autograd.md"
    for src, dst in ((real_torch, table), (real_autograd, listed)):
        dst.parent.mkdir()
        dst.write_bytes(src.read_bytes())
    old_table, old_list = table.read_text("utf-8"), listed.read_text("utf-8")
    add_entry(
        "torch.Generator.graphsafe_get_state",
        tmp_path,
        ["2.7.1"],
        like="torch.Generator.get_state",
        products=PRODUCTS,
    )
    _, block = only_insertion(old_table, table.read_text("utf-8"))
    assert (
        "| <term>Ascend 950DT</term> | ✘ |" in block
        and "#torch.Generator.graphsafe_get_state)" in block
    )
    result = add_entry(
        "torch.autograd.Function.setup_context",
        tmp_path,
        ["2.11.0"],
        like="torch.autograd.Function.forward",
        products=PRODUCTS,
    )
    (change,) = result.changes
    used = {c.id for c in read_page(real_autograd, PRODUCTS).comments}
    assert change.kind == "sub-method" and not set(change.ids) & used
    _, block = only_insertion(old_list, listed.read_text("utf-8"))
    assert block.startswith('> <font size="3">setup_context()</font>')
    assert lint_paths([tmp_path], PRODUCTS)[0] == []


def test_a_page_with_unbalanced_divs_is_refused(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.11.0")
    text = page.read_text("utf-8")
    i = text.index("</div>\n\n### torch.numel")
    page.write_text(text[:i] + text[i + len("</div>\n\n") :], "utf-8")
    snapshot = page.read_bytes()
    with pytest.raises(
        UsageError, match=r"torch.md:\d+: <div> of torch.is_tensor is not closed.*docs lint"
    ):
        add_entry(CLONE, docs_dir, ["2.11.0"], like=PARENT, products=PRODUCTS)
    assert page.read_bytes() == snapshot


# -- a sub-method whose parent entry is missing in a version --------------------------------------------

GRAD_SECTION = "Locally disabling gradient computation"


def drop_entry(page: Path, api: str, next_api: str) -> None:
    text = page.read_text("utf-8")
    page.write_text(
        text[: text.index(f"### {api}\n")] + text[text.index(f"### {next_api}\n") :], "utf-8"
    )


def test_a_sub_method_without_its_parent_is_refused(
    docs_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = page_of(docs_dir, "2.11.0")
    drop_entry(page, PARENT, "torch.autograd.grad_mode.inference_mode")
    snapshot = {p: p.read_bytes() for p in docs_dir.rglob("*.md")}
    args = [
        "docs",
        "add",
        CLONE,
        "--docs",
        str(docs_dir),
        "--status",
        "910b=支持,A3=支持,950=不支持",
    ]
    assert main([*args, "--version", "2.11.0", "--dry-run"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.strip().splitlines() == [
        f"ERROR: the parent entry {PARENT} is not on any page of 2.11.0; add it first, "
        "or pass --kind function --section S to add it as a top-level entry"
    ]
    assert main(args) == 2  # every version: 2.11.0 fails, so no page is written
    capsys.readouterr()
    assert {p: p.read_bytes() for p in docs_dir.rglob("*.md")} == snapshot
    with pytest.raises(UsageError, match="--kind sub-method: .* has no entry in pytorch_2-11-0"):
        add_entry(
            CLONE, docs_dir, ["2.11.0"], statuses="910b=支持", kind="sub-method", products=PRODUCTS
        )


def test_kind_function_forces_a_top_level_entry(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.11.0")
    drop_entry(page, PARENT, "torch.autograd.grad_mode.inference_mode")
    old = page.read_text("utf-8")
    (change,) = add_entry(
        CLONE,
        docs_dir,
        ["2.11.0"],
        statuses="910b=支持,A3=支持,950=不支持",
        kind="function",
        section="Tensors",
        products=PRODUCTS,
    ).changes
    assert change.kind == "function" and change.parent is None and change.section == "Tensors"
    _, block = only_insertion(old, page.read_text("utf-8"))
    assert block.startswith(f"### {CLONE}\n")
    added = read_page(page, PRODUCTS).find(CLONE)
    assert added.section == "Tensors" and added.parent is None


def test_the_parent_elsewhere_on_the_version_is_found(docs_dir: Path) -> None:
    """The parent on another page of the same version: the sub-method goes there, under it."""
    folder = docs_dir / "pytorch_2-11-0"
    text = (folder / "torch.md").read_text("utf-8")
    start = text.index(f"### {PARENT}\n")
    end = text.index("### torch.autograd.grad_mode.inference_mode\n")
    (folder / "torch.md").write_text(text[:start] + text[end:], "utf-8")
    (folder / "torch-autograd.md").write_text(
        "# torch.autograd\n\n## Grad mode\n\n" + text[start:end], "utf-8"
    )
    (change,) = add_entry(CLONE, docs_dir, ["2.11.0"], like=PARENT, products=PRODUCTS).changes
    assert change.page == "pytorch_2-11-0/torch-autograd.md" and change.parent == PARENT
    assert change.kind == "sub-method"


def test_a_class_named_parent_missing_everywhere_is_refused(docs_dir: Path) -> None:
    with pytest.raises(
        UsageError, match="the parent entry torch.Stream is not on any page of 2.7.1"
    ):
        add_entry(
            "torch.Stream.query", docs_dir, ["2.7.1"], statuses="910b=支持", products=PRODUCTS
        )
    # a module-level function (lowercase parent, never an entry) is still placed as a function
    (change,) = add_entry(
        "torch.special.expit",
        docs_dir,
        ["2.7.1"],
        statuses="910b=支持",
        products=PRODUCTS,
        dry_run=True,
    ).changes
    assert change.kind == "function"


# -- writing pages ---------------------------------------------------------------------------------------


def test_a_failed_write_leaves_no_temp_file(
    docs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = page_of(docs_dir, "2.7.1")
    before = page.read_bytes()

    def denied(src: str, dst: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", denied)
    with pytest.raises(
        UsageError, match=r"cannot write .*torch.md: Permission denied; no page was changed"
    ):
        add_entry(CLONE, docs_dir, ["2.7.1"], like=PARENT, products=PRODUCTS)
    assert page.read_bytes() == before
    assert sorted(p.name for p in page.parent.iterdir()) == ["torch.md"]


def test_the_page_keeps_its_mode(docs_dir: Path) -> None:
    page = page_of(docs_dir, "2.7.1")
    os.chmod(page, 0o640)
    add_entry(CLONE, docs_dir, ["2.7.1"], like=PARENT, products=PRODUCTS)
    assert (
        stat.S_IMODE(page.stat().st_mode) == 0o640
        and read_page(page, PRODUCTS).find(CLONE) is not None
    )
