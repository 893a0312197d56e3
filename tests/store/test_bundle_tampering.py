"""Bundles carry the runs' seals and can be signed: edited bundles do not verify, nor import.

Real bundles from a real store, edited as an attacker would (the manifest rewritten, blobs
re-hashed, the file list made consistent), checked by the real CLI; signatures by the real
``ssh-keygen`` with a key made in the test's folder.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.store.evidence import (
    LABEL,
    fill,
    manifest,
    read_zip,
    rehash_log,
    set_manifest,
    write_zip,
)
from torchparity.cli import main
from torchparity.store import Store

needs_ssh = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed"
)


@pytest.fixture
def store_contents():
    """The ``store`` fixture's store is filled by ``fill``, with a second target."""
    return functools.partial(fill, second_target=True)


def export(store: Store, dest: Path, *extra: str) -> Path:
    assert (
        main(["bundle", "export", "1", "2", "-o", str(dest), "--store", str(store.root), *extra])
        == 0
    )
    return dest


def _point_at_the_pass(entries: dict[str, bytes]) -> None:
    doc = manifest(entries)
    passing = doc["runs"][0]["targets"][0]
    t = doc["runs"][1]["targets"][0]
    t.update(
        result="PASS", log_sha256=passing["log_sha256"], record_sha256=passing["record_sha256"]
    )
    doc["runs"][1]["result"] = "PASS"
    set_manifest(entries, doc)


def _swap_pairs(entries: dict[str, bytes]) -> None:
    doc = manifest(entries)
    a2, a5 = doc["runs"][1]["targets"]
    a2["log_sha256"], a5["log_sha256"] = a5["log_sha256"], a2["log_sha256"]
    a2["record_sha256"], a5["record_sha256"] = a5["record_sha256"], a2["record_sha256"]
    set_manifest(entries, doc)


def _rehash(entries: dict[str, bytes]) -> None:
    rehash_log(entries, 1, reseal=False)


EDITS = {
    "target pointed at another run's PASS": (
        _point_at_the_pass,
        f"run 2: target {LABEL}: result is PASS, its seal says FAIL",
    ),
    "log/record pairs swapped": (
        _swap_pairs,
        f"run 2 target {LABEL}: the row says label {LABEL}, its record says v2.7.1@a5",
    ),
    "log edited and every hash but the seal's recomputed": (
        _rehash,
        f"run 2: target {LABEL}: log is",
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_bundle_is_tampered_for_verify_and_import(
    store: Store, tmp_path: Path, edit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    change, expected = EDITS[edit]
    entries = read_zip(export(store, tmp_path / "ev.zip"))
    change(entries)
    bad = write_zip(tmp_path / "bad.zip", entries)
    capsys.readouterr()
    assert main(["bundle", "verify", str(bad)]) == 3
    out = capsys.readouterr().out
    assert expected in out and "TAMPERED" in out
    assert main(["bundle", "import", str(bad), "--store", str(tmp_path / "dst")]) == 3
    err = capsys.readouterr().err
    assert (
        err.startswith(f"ERROR: tampered evidence: bundle {bad} does not verify")
        and err.count("\n") == 1
    )
    dst = Store(tmp_path / "dst")
    assert dst.runs() == [] and not any(
        p.is_file() for p in (tmp_path / "dst" / "blobs").rglob("*")
    )


def test_a_fully_rehashed_unsigned_bundle_verifies_but_says_it_is_unsigned(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What no hash can show: every hash recomputed, a new seal too. Only a signature tells."""
    entries = read_zip(export(store, tmp_path / "ev.zip"))
    rehash_log(entries, 1, reseal=True)
    forged = write_zip(tmp_path / "forged.zip", entries)
    capsys.readouterr()
    assert main(["bundle", "verify", str(forged)]) == 0
    out = capsys.readouterr().out
    assert "UNSIGNED: nothing shows who made it" in out


# -- signatures ----------------------------------------------------------------------------------
@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, Path]:
    """An ed25519 key made here, and an allowed-signers file naming it (git's format)."""
    priv = tmp_path / "keys" / "id_ed25519"
    priv.parent.mkdir()
    subprocess.run(
        [
            "ssh-keygen",
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "reviewer@example.com",
            "-f",
            str(priv),
        ],
        check=True,
    )
    allowed = tmp_path / "keys" / "allowed_signers"
    allowed.write_text(
        f'reviewer@example.com namespaces="torchparity-bundle" {priv.with_suffix(".pub").read_text()}'
    )
    return priv, allowed


@needs_ssh
def test_a_signed_bundle_verifies_and_names_its_signer(
    store: Store, tmp_path: Path, key: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    priv, allowed = key
    signed = export(store, tmp_path / "ev.zip", "--sign", str(priv))
    assert "manifest.json.sig" in read_zip(signed)
    capsys.readouterr()
    assert main(["bundle", "verify", str(signed), "--allowed-signers", str(allowed)]) == 0
    out = capsys.readouterr().out
    assert "signed by reviewer@example.com (ED25519 SHA256:" in out and "OK: " in out
    assert (
        main(["bundle", "verify", str(signed)]) == 0
    )  # without the file: valid, signer not checked
    assert "signature valid" in capsys.readouterr().out
    assert (
        main(
            [
                "bundle",
                "import",
                str(signed),
                "--allowed-signers",
                str(allowed),
                "--store",
                str(tmp_path / "dst"),
            ]
        )
        == 0
    )
    assert [r.result for r in Store(tmp_path / "dst").runs()] == ["FAIL", "PASS"]


@needs_ssh
@pytest.mark.parametrize("reseal", [False, True])
def test_a_modified_signed_bundle_does_not_verify(
    store: Store,
    tmp_path: Path,
    key: tuple[Path, Path],
    reseal: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    priv, allowed = key
    entries = read_zip(export(store, tmp_path / "ev.zip", "--sign", str(priv)))
    rehash_log(entries, 1, reseal=reseal)  # the old signature stays: it signs the old manifest
    forged = write_zip(tmp_path / "forged.zip", entries)
    capsys.readouterr()
    for extra in ([], ["--allowed-signers", str(allowed)]):
        assert main(["bundle", "verify", str(forged), *extra]) == 3
        out = capsys.readouterr().out
        assert (
            "signature bad: the signature does not match manifest.json" in out and "TAMPERED" in out
        )
    assert main(["bundle", "import", str(forged), "--store", str(tmp_path / "dst")]) == 3
    assert Store(tmp_path / "dst").runs() == []


@needs_ssh
def test_a_stripped_or_foreign_signature_fails_where_one_is_required(
    store: Store, tmp_path: Path, key: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    priv, allowed = key
    entries = read_zip(export(store, tmp_path / "ev.zip", "--sign", str(priv)))
    del entries["manifest.json.sig"]
    stripped = write_zip(tmp_path / "stripped.zip", entries)
    capsys.readouterr()
    assert main(["bundle", "verify", str(stripped), "--allowed-signers", str(allowed)]) == 3
    out = capsys.readouterr().out
    assert "UNSIGNED, and --allowed-signers asks for a signature" in out and "NOT ACCEPTED" in out
    assert (
        main(
            [
                "bundle",
                "import",
                str(stripped),
                "--allowed-signers",
                str(allowed),
                "--store",
                str(tmp_path / "dst"),
            ]
        )
        == 3
    )
    assert "it is unsigned, and --allowed-signers asks" in capsys.readouterr().err
    # re-signed by someone else's key: a valid signature, by a signer the file does not allow
    other = tmp_path / "keys" / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    resigned = export(store, tmp_path / "other.zip", "--sign", str(other))
    assert main(["bundle", "verify", str(resigned)]) == 0
    assert main(["bundle", "verify", str(resigned), "--allowed-signers", str(allowed)]) == 3
    assert "signature unknown-signer: signed by ED25519 SHA256:" in capsys.readouterr().out


@needs_ssh
def test_signing_errors_are_one_line(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "bundle",
                "export",
                "1",
                "-o",
                str(tmp_path / "x.zip"),
                "--store",
                str(store.root),
                "--sign",
                str(tmp_path / "nokey"),
            ]
        )
        == 2
    )
    assert "no such key file" in capsys.readouterr().err
    junk = tmp_path / "junk"
    junk.write_text("not a key\n")
    assert (
        main(
            [
                "bundle",
                "export",
                "1",
                "-o",
                str(tmp_path / "x.zip"),
                "--store",
                str(store.root),
                "--sign",
                str(junk),
            ]
        )
        == 2
    )
    assert "ssh-keygen could not sign" in capsys.readouterr().err
    assert not (tmp_path / "x.zip").exists()
    assert (
        main(
            [
                "bundle",
                "verify",
                str(export(store, tmp_path / "ev.zip")),
                "--allowed-signers",
                str(tmp_path / "none"),
            ]
        )
        == 2
    )


def test_the_bundle_json_verdict(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = export(store, tmp_path / "ev.zip")
    capsys.readouterr()
    assert main(["bundle", "verify", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["runs"] == 2 and doc["signature"]["status"] == "unsigned"
