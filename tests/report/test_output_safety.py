"""A hostile test's output reaches no report and no terminal as control characters or loose markup.

Real run (torch CPU, git, the store), then every report kind, ``verify``'s pr.zh.md, and the
terminal output of ``show``/``report``/an error line read back through a pseudo-terminal.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.collect.test_structured_results import _outside_code
from torchparity.cli import main

pytestmark = pytest.mark.slow

HOSTILE = "test/test_hostile.py"
HOSTILE_TEXT = r"""
import sys

import pytest


@pytest.mark.parametrize("x", ["a`b<script>alert(1)</script>", "plain"])
def test_names(x):
    sys.stdout.write("screen\x1b[2J title\x1b]0;pwned\x07 nul\x00 csi\x9b bidi\u202e\n")
    assert x != "plain"


def test_floods():
    for i in range(5000):
        print("flood line %d" % i)


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-v", "-s", "-p", "no:cacheprovider"]))
"""
RAW = ("\x1b", "\x00", "\x07", "\x9b", "\u202e")


def _run_hostile(tmp_path, make_repo, python) -> tuple[Path, str]:
    repo = make_repo({"master": {HOSTILE: HOSTILE_TEXT}})
    store = str(tmp_path / "store")
    assert main(["run", HOSTILE, "--repo", str(repo), "--python", python, "--store", store]) == 1
    return repo, store


def _report(store: str, kind: str, capsys, *extra: str) -> str:
    capsys.readouterr()
    assert main(["report", "1", "--kind", kind, "--store", store, *extra]) == 0
    return capsys.readouterr().out


def test_no_control_character_reaches_any_report(tmp_path, make_repo, python_with_torch, capsys):
    _, store = _run_hostile(tmp_path, make_repo, python_with_torch)
    for kind in ("pr", "comment", "markdown-summary", "json", "junit"):
        for lang in ("zh", "en"):
            text = _report(store, kind, capsys, "--lang", lang)
            assert not [ch for ch in RAW if ch in text], (kind, lang)
    pr = _report(store, "pr", capsys)
    assert "screen\\x1b[2J title\\x1b]0;pwned\\x07 nul\\x00" in pr  # shown, as escapes
    # test names with backticks and markup stay inside code spans that cannot be broken
    assert "<script>" in pr and "<script>" not in _outside_code(pr)
    model = json.loads(_report(store, "json", capsys))  # JSON stays JSON, its strings escaped
    assert "\x1b[2J" in model["targets"][0]["log"]
    junit = _report(store, "junit", capsys)
    ET.fromstring(junit)  # valid XML
    assert "\\x1b[2J" in junit


def test_the_pr_quotes_a_bounded_excerpt_with_the_hash_and_the_command(
    tmp_path, make_repo, python_with_torch, capsys
):
    _, store = _run_hostile(tmp_path, make_repo, python_with_torch)
    pr = _report(store, "pr", capsys)
    floods = re.findall(r"^flood line \d+$", pr, re.MULTILINE)
    assert 0 < len(floods) <= 200
    target = next(iter(json.loads(_report(store, "json", capsys))["targets"]))
    label, uid = target["label"], target["run_uid"][:12]
    assert f"the full log: torchparity show {uid} --target {label} ...]" in pr
    sha = json.loads(_report(store, "json", capsys))["targets"][0]["log_sha256"]
    assert sha in pr
    cfg = tmp_path / "torchparity.toml"
    cfg.write_text("[report]\noutput_lines = 20\n")
    short = _report(store, "pr", capsys, "--config", str(cfg))
    assert len(re.findall(r"^flood line \d+$", short, re.MULTILINE)) <= 20
    assert len(short) < len(pr)


def test_verify_writes_a_pr_text_without_control_characters(
    tmp_path, make_repo, python_with_torch, capsys
):
    repo = make_repo({"master": {HOSTILE: HOSTILE_TEXT}})
    out = tmp_path / "out"
    rc = main(
        [
            "verify",
            "torch.add",
            "--repo",
            str(repo),
            "--test-file",
            HOSTILE,
            "--python",
            python_with_torch,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(out),
        ]
    )
    assert rc == 1
    for name in ("pr.zh.md", "comment.zh.md", "report.json", "junit.xml"):
        data = (out / name).read_text(encoding="utf-8")
        assert not [ch for ch in RAW if ch in data], name


def _on_a_terminal(args: list[str], cwd: Path) -> bytes:
    """What ``torchparity ARGS`` writes to a (pseudo-)terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "torchparity", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cwd,
        env=dict(os.environ, COLUMNS="200", TERM="xterm"),
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks)


def _ours_only(data: bytes) -> bytes:
    """The bytes with rich's own styling sequences (SGR ``ESC[...m``, cursor show/hide) taken out."""
    return re.sub(rb"\x1b\[[0-9;]*m|\x1b\[\?25[lh]", b"", data)


def test_no_test_escape_sequence_reaches_a_terminal(tmp_path, make_repo, python_with_torch):
    _, store = _run_hostile(tmp_path, make_repo, python_with_torch)
    shown = _on_a_terminal(["show", "1", "--store", store], tmp_path)
    assert b"screen\\x1b[2J title\\x1b]0;pwned\\x07 nul\\x00" in shown
    assert not [ch for ch in RAW if ch.encode() in _ours_only(shown)]
    report = _on_a_terminal(["report", "1", "--kind", "pr", "--store", store], tmp_path)
    assert b"flood line" in report and not [ch for ch in RAW if ch.encode() in _ours_only(report)]
    # a hostile file name in an error line is escaped by the console too
    err = _on_a_terminal(
        ["run", "missing\x1b[2J.py", "--python", python_with_torch, "--store", store], tmp_path
    )
    assert b"missing\\x1b[2J.py" in err and b"\x1b[2J" not in _ours_only(err)


def test_show_piped_is_the_evidence_byte_for_byte(tmp_path, make_repo, python_with_torch):
    import hashlib

    _, store = _run_hostile(tmp_path, make_repo, python_with_torch)
    piped = subprocess.run(
        [sys.executable, "-m", "torchparity", "show", "1", "--store", store],
        capture_output=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    log, _, footer = piped.rpartition(b"# log sha256 ")
    assert footer.split()[0].decode() == hashlib.sha256(log).hexdigest()
    assert b"\x1b[2J" in log  # the stored bytes themselves are kept exactly
