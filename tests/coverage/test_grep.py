"""The community's git grep baseline: the printed command, and the in-process match that equals it."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import pytest

from tests.coverage.conftest import RepoFactory
from torchparity.coverage.gitobjects import list_tree
from torchparity.coverage.grep import TreeText, command, community_pattern, git_grep, needle

SEED_PATTERN = "set_grad_enabled.*clone|clone.*set_grad_enabled|test_.*set_grad_enabled.*clone"


def _git_has_perl() -> bool:
    """git 2.39 or newer, built with PCRE (asked here, not through the code under test)."""
    version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[2]
    new = tuple(int(x) for x in version.split(".")[:2]) >= (2, 39)
    here = Path(__file__)
    probe = subprocess.run(
        ["git", "grep", "--no-index", "-P", "-c", "PERL", "--", here.name],
        cwd=here.parent,
        capture_output=True,
    )
    return new and probe.returncode == 0


#: the engine a plain pattern runs with on this machine
PERL = "git grep -P" if _git_has_perl() else "git grep -E"


def test_the_pattern_is_the_one_contributors_write() -> None:
    pattern, parent, leaf = community_pattern("torch.autograd.grad_mode.set_grad_enabled.clone")
    assert (pattern, parent, leaf) == (SEED_PATTERN, "set_grad_enabled", "clone")
    assert command(pattern, "origin/v2.7.1", ["test"]) == (
        f"git grep -n -E '{SEED_PATTERN}' origin/v2.7.1 -- test"
    )
    assert community_pattern("torch")[0] == "torch"


@pytest.fixture
def tricky(cov_repo: RepoFactory) -> Path:
    return cov_repo(
        {
            "master": {
                "test/test_a.py": "x = 1\n# set_grad_enabled(False).clone()\nclone = set_grad_enabled\n",
                "test/b/test_crlf.py": b"a = 'clone'  # set_grad_enabled\r\nb = 2\r\nclone\rset_grad_enabled\n",
                "test/latin1.py": b"# \xe9t\xe9 clone \xff set_grad_enabled\n",
                "test/notes.md": "Use set_grad_enabled then clone.\nnothing here",  # no final newline
                "test/data.bin": b"\x00\x01set_grad_enabled clone\x00",
                "test/z_utf8.py": "# 中文 set_grad_enabled 克隆 clone\n",
                "test/test_only_clone.py": "clone()\nclone()\n",
                "tools/outside.py": "set_grad_enabled.clone\n",
                "other/test_x.py": "clone set_grad_enabled\n",
            }
        }
    )


@pytest.mark.parametrize("roots", [["test"], ["test", "other"], ["test/b"]])
def test_in_process_lines_equal_git_grep_lines(tricky: Path, roots: list[str]) -> None:
    entries = list_tree(tricky, "master", roots)
    texts = TreeText(tricky, "master", entries, roots)
    for api in (
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        "torch.Tensor.clone",
        "torch.nothing.matches_this",
    ):
        pattern, parent, leaf = community_pattern(api)
        real = git_grep(tricky, "master", pattern, roots)
        for word in {needle(parent, leaf), parent or leaf, leaf}:  # any needle gives the same lines
            fast = texts.grep(pattern, word)
            assert fast.matches == real.matches, (api, word)
        assert fast.matches == real.matches, api
        assert fast.count == real.count
        assert fast.command == real.command


def test_a_blob_too_big_for_the_word_index_is_searched_whole(cov_repo: RepoFactory) -> None:
    """A data file over the word index's limit (a list of test names) still gives git grep's lines."""
    names = "".join(f'"test_case_{i}_set_grad_enabled_clone_{i}",\n' for i in range(40000))
    repo = cov_repo(
        {
            "master": {
                "test/disabled.json": "[\n" + names + '"set_grad_enabled.clone"]\n',
                "test/test_a.py": "set_grad_enabled(False).clone()\n",
            }
        }
    )
    assert len(names) > 1 << 20
    entries = list_tree(repo, "master", ["test"])
    texts = TreeText(repo, "master", entries, ["test"])
    pattern, parent, leaf = community_pattern("torch.autograd.grad_mode.set_grad_enabled.clone")
    real = git_grep(repo, "master", pattern, ["test"])
    fast = texts.grep(pattern, needle(parent, leaf), parent)
    assert real.count == 40002 and (fast.count, fast.matches) == (real.count, real.matches)
    assert texts.grep("nothing_like_this", "nothing_like_this").count == 0


def test_the_printed_command_gives_the_count(tricky: Path) -> None:
    pattern = community_pattern("torch.autograd.grad_mode.set_grad_enabled.clone")[0]
    res = git_grep(tricky, "master", pattern, ["test"])
    shell = subprocess.run(res.command, shell=True, cwd=tricky, capture_output=True)
    # a line with a lone CR is one line to git; the latin-1 line does not match in a UTF-8 locale
    assert len(shell.stdout.rstrip(b"\n").split(b"\n")) == res.count == 7
    assert "Binary file master:test/data.bin matches" in res.matches
    assert shlex.split(res.command)[:4] == ["git", "grep", "-n", "-E"]
    assert res.engine == PERL  # run by the faster engine where git has it, the same lines (below)


@pytest.mark.parametrize(
    "api",
    [
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        "torch.Tensor.clone",
        "torch.cuda.Event.elapsed_time",
        "torch.nothing.matches_this",
        "clone",
    ],
)
def test_the_perl_engine_finds_the_lines_of_the_printed_command(tricky: Path, api: str) -> None:
    """Lone CRs inside a line, bytes that are not UTF-8, a binary file, no final newline: -P = -E."""
    pattern = community_pattern(api)[0]
    for roots in (["test"], ["test", "other", "tools"]):
        erex = subprocess.run(
            ["git", "grep", "-n", "-E", pattern, "master", "--", *roots],
            cwd=tricky,
            capture_output=True,
            check=False,
        )
        res = git_grep(tricky, "master", pattern, roots)
        assert res.engine == PERL
        assert "\n".join(res.matches) == erex.stdout.decode("utf-8", "replace").rstrip("\n")


@pytest.mark.parametrize(
    ("pattern", "engine"),
    [
        ("set_grad_enabled.*clone|clone.*set_grad_enabled", PERL),
        ("a+b", "git grep -E"),  # not words, ``.*`` and ``|``: as printed
        ("x{,2}", "git grep -E"),
    ],
)
def test_only_a_plain_pattern_runs_with_the_perl_engine(
    tricky: Path, pattern: str, engine: str
) -> None:
    assert git_grep(tricky, "master", pattern, ["test"]).engine == engine


@pytest.mark.parametrize(
    ("ref", "pattern", "says"),
    [
        ("no-such-ref", "clone", "no-such-ref"),
        ("master", "clone(", "unmatched ("),  # git's regex error
    ],
)
def test_a_failing_git_grep_is_one_line_and_exit_2(
    tricky: Path, ref: str, pattern: str, says: str
) -> None:
    from torchparity.errors import UsageError

    with pytest.raises(UsageError) as info:
        git_grep(tricky, ref, pattern, ["test"])
    msg = str(info.value)
    assert "\n" not in msg and int(info.value.exit_code) == 2
    assert msg.startswith(f"git grep at {ref} failed in {tricky}: ") and says in msg.lower()
    assert msg.endswith("or pass --grep fast (or off)")


def test_texts_let_go_and_opened_again_give_the_same_lines(
    tricky: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch keeps a few opened texts and needles: with room for none, every answer is the same."""
    import torchparity.coverage.grep as grep_module

    entries = list_tree(tricky, "master", ["test"])
    roomy = TreeText(tricky, "master", entries, ["test"])
    monkeypatch.setattr(grep_module, "_OPENED_MAX", 1)
    monkeypatch.setattr(grep_module, "_NEEDLES_MAX", 1)
    tight = TreeText(tricky, "master", entries, ["test"])
    for _ in range(2):
        for api in (
            "torch.autograd.grad_mode.set_grad_enabled.clone",
            "torch.Tensor.clone",
            "clone",
        ):
            pattern, parent, leaf = community_pattern(api)
            want = roomy.grep(pattern, needle(parent, leaf), parent)
            got = tight.grep(pattern, needle(parent, leaf), parent)
            assert (got.count, got.matches) == (want.count, want.matches)
            assert got.count > 0 or api == "torch.Tensor.clone"
            tight.pool.forget_matches()
    assert len(tight.pool._opened) <= 1 and len(tight.pool._needles) <= 1
