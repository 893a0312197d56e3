"""Many baselines in one scan (``grep_many``): each blob is read once for the words of every API, and
every answer is the one ``TreeText.grep`` gives API by API (issue 38). Old and new are compared here
on generated trees that hold what makes git's lines tricky: binary files, bytes that are not UTF-8,
lone CRs, no final newline, a blob too big for the word index, more matches than a record lists."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.coverage.conftest import RepoFactory
from torchparity.coverage import coverage_for, static_table
from torchparity.coverage.gitobjects import list_tree
from torchparity.coverage.grep import (
    BlobTexts,
    TreeText,
    community_pattern,
    git_grep,
    grep_many,
    needle,
)
from torchparity.store import Store

#: the words the lines are made of: parents and leaves of the APIs below, and words that hold them
WORDS = [
    "torch",
    "Tensor",
    "clone",
    "clone_",
    "add",
    "add_",
    "addmm",
    "baddbmm",
    "set_grad_enabled",
    "nn",
    "functional",
    "relu",
    "relu6",
    "to",
    "tolist",
    "x",
    "mm",
    "t",
    "Linear",
    "forward",
    "cuda",
    "Event",
    "elapsed_time",
    "test_set_grad_enabled_clone",
    "test_Tensor_add",
    "self",
    "assertEqual",
]
SEPARATORS = [".", "(", ")", " ", ", ", " = ", "_", "", "  # "]
APIS = [
    "torch.autograd.grad_mode.set_grad_enabled.clone",
    "torch.Tensor.clone",
    "torch.Tensor.add",
    "torch.Tensor.add_",
    "torch.addmm",
    "torch.Tensor.to",
    "torch.Tensor.t",
    "torch.mm",
    "torch.nn.functional.relu",
    "torch.nn.functional.relu6",
    "torch.nn.Linear.forward",
    "torch.cuda.Event.elapsed_time",
    "torch.Tensor.tolist",
    "torch.x",
    "clone",
    "torch.nothing.matches_this",
    "torch.Tensor.caf\u00e9",  # a word that is not ASCII: matched API by API
]


def _line(rnd: random.Random) -> str:
    parts = [rnd.choice(WORDS) for _ in range(rnd.randint(0, 6))]
    return "".join(p + rnd.choice(SEPARATORS) for p in parts).rstrip()


def _text(rnd: random.Random, lines: int) -> str:
    return "\n".join(_line(rnd) for _ in range(lines)) + "\n"


def _tree(seed: int, lines: int = 60) -> dict[str, str | bytes | None]:
    rnd = random.Random(seed)
    files: dict[str, str | bytes | None] = {
        f"test/area{i % 3}/test_gen_{i}.py": _text(rnd, lines) for i in range(12)
    }
    files["test/test_bytes.py"] = (
        b"# \xe9t\xe9 clone \xff set_grad_enabled\nTensor.clone()\r\nclone\rset_grad_enabled\n"
        + "# \u4e2d\u6587 Tensor \u514b\u9686 add\ncaf\u00e9 Tensor.caf\u00e9\n".encode()
    )
    files["test/data.bin"] = b"\x00\x01set_grad_enabled clone\x00\nTensor.add\n"
    files["test/notes.md"] = "Use Tensor.to then clone.\nTensor tolist"  # no final newline
    files["test/big.json"] = _text(rnd, 400)  # over the word index's limit (patched below)
    return files


@pytest.fixture
def two_refs(cov_repo: RepoFactory) -> Path:
    """master, and v2 that changes a few files, adds one and deletes one."""
    rnd = random.Random(99)
    return cov_repo(
        {
            "master": _tree(1),
            "v2": {
                "test/area0/test_gen_0.py": _text(rnd, 80),
                "test/area1/test_gen_4.py": None,
                "test/test_new.py": _text(rnd, 40),
            },
        }
    )


def _queries() -> list[tuple[str, str, str]]:
    out = []
    for api in APIS:
        pattern, parent, leaf = community_pattern(api)
        out.append((pattern, needle(parent, leaf), parent or leaf))
        out.append((pattern, leaf, parent or leaf))  # any needle of the pattern's words
    return out


@pytest.mark.parametrize("listed", [200, 3])  # 3: more matching lines than a record lists
def test_one_scan_gives_every_api_the_answer_of_one_grep_each(
    two_refs: Path, monkeypatch: pytest.MonkeyPatch, listed: int
) -> None:
    import torchparity.coverage.grep as grep_module

    monkeypatch.setattr(grep_module, "_INDEXED_MAX", 2000)  # big.json is searched whole
    monkeypatch.setattr(grep_module, "MAX_MATCHES", listed)
    pool = BlobTexts()
    trees = [
        TreeText(two_refs, ref, list_tree(two_refs, ref, ["test"]), ["test"], pool)
        for ref in ("master", "v2")
    ]
    assert pool._scanned, "the big file is outside the word index"
    queries = _queries()
    many = grep_many(trees, queries)
    assert len(many) == len(queries)
    matched = 0
    for query, answers in zip(queries, many, strict=True):
        for tree, new in zip(trees, answers, strict=True):
            old = tree.grep(*query)
            assert new == old, (query, tree.ref)
            matched += new.count
    assert matched > 100
    assert any(len(a.matches) == listed < a.count for per in many for a in per)


def test_the_scan_finds_git_greps_lines(two_refs: Path) -> None:
    trees = [
        TreeText(two_refs, ref, list_tree(two_refs, ref, ["test"]), ["test"], BlobTexts())
        for ref in ("master", "v2")
    ]
    # (a word that is not ASCII is matched on the bytes as latin-1, API by API as before: not as git does)
    queries = [q for q in _queries() if q[0].isascii()]
    for query, answers in zip(queries, grep_many(trees, queries), strict=True):
        for tree, new in zip(trees, answers, strict=True):
            real = git_grep(two_refs, tree.ref, query[0], ["test"])
            assert (new.count, new.matches) == (real.count, real.matches), (query, tree.ref)


def test_coverage_of_many_apis_is_the_same_matched_together_or_one_by_one(
    two_refs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``coverage_for --grep fast``: the APIs matched in chunks of one scan each, or one by one."""
    import torchparity.coverage.query as query_module

    def run(many_min: int, chunk: int) -> list[dict[str, object]]:
        monkeypatch.setattr(query_module, "GREP_MANY_MIN", many_min)
        monkeypatch.setattr(query_module, "GREP_CHUNK", chunk)
        report = coverage_for(
            APIS[:-1],
            two_refs,
            ["master", "v2"],
            Store(tmp_path / "store"),
            tests=["test"],
            aliases=static_table(),
            grep="fast",
        )
        return report.to_json()

    one_by_one = run(10**9, 1000)
    assert run(1, 5) == one_by_one
    assert run(1, 1000) == one_by_one
    assert sum(r["grep"]["count"] for a in one_by_one for r in a["refs"]) > 50  # type: ignore[index]


def test_counts_only_keep_no_line(two_refs: Path) -> None:
    """``listed=0`` (what ``plan`` asks: a count per API): the same counts, no line held; an unindexed
    pool (every text kept open, nothing compressed) gives the same answers."""
    queries = _queries()
    full = grep_many(
        [TreeText(two_refs, "master", list_tree(two_refs, "master", ["test"]), ["test"])], queries
    )
    tree = TreeText(
        two_refs,
        "master",
        list_tree(two_refs, "master", ["test"]),
        ["test"],
        BlobTexts(index=False),
    )
    counts = grep_many([tree], queries, listed=0)
    assert [c[0].count for c in counts] == [f[0].count for f in full]
    assert all(c[0].matches == () for c in counts)
    assert [tree.grep(*q) for q in queries] == [f[0] for f in full]
