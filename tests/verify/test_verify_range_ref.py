"""With a change (``--range``), the tests run where the change is.

Found on Ascend/pytorch: ``verify --range v2.7.1..PR --ref v2.7.1`` ran the base, where the change's new
test file does not exist, and the PR it wrote listed the file as added beside a PASS. Now a ``--ref`` that
does not contain the range's head is bad input (exit 2, one line, before any work); without ``--ref``, the
range's head is the ref.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git
from torchparity.cli import main
from torchparity.config import Config
from torchparity.verify.pipeline import VerifyOptions, _range_head, _refs


def test_a_ref_without_the_change_is_refused(make_repo, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo({"master": {"README.md": "x\n"}, "pr": {"test/test_new.py": "# new\n"}})
    rc = main(
        [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--ref",
            "master",
            "--range",
            "master..pr",
            "--python",
            str(tmp_path / "no-python"),
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert (
        err[-1].startswith("ERROR: --ref master (")
        and "does not contain the change --range master..pr" in err[-1]
    )
    assert "pass --ref pr" in err[-1]
    assert not (tmp_path / "out").exists()


def test_without_a_ref_the_range_head_is_where_the_tests_run(make_repo) -> None:  # type: ignore[no-untyped-def]
    repo = make_repo({"master": {"README.md": "x\n"}, "pr": {"test/test_new.py": "# new\n"}})
    pr = git(repo, "rev-parse", "pr")
    opt = VerifyOptions(api="torch.add", rev_range="master..pr")
    assert _refs(opt, Config(), repo) == [("pr", pr)]
    # a ref that contains the change is fine
    opt = VerifyOptions(api="torch.add", rev_range="master..pr", refs=("pr",))
    assert _refs(opt, Config(), repo) == [("pr", pr)]
    assert [_range_head(r) for r in ("a..b", "a...b", "a..", "b", None)] == [
        "b",
        "b",
        "HEAD",
        "b",
        "",
    ]
