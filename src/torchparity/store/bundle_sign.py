"""Signing a bundle's manifest with an SSH key, as git signs commits: ``ssh-keygen -Y sign|verify``.

The signature covers ``manifest.json``, which names every file's SHA-256 and every
run's seal, so it covers the whole bundle. It is kept in the zip as
``manifest.json.sig`` under the namespace ``torchparity-bundle``. Who may sign is an
allowed-signers file in git's format (``principal [namespaces="torchparity-bundle"]
ssh-ed25519 AAAA...``); no network service is asked.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EnvironmentBroken, UsageError

NAMESPACE = "torchparity-bundle"
MAX_SIGNATURE_BYTES = 64 << 10


@dataclass(frozen=True)
class SignatureCheck:
    """``good`` (checked against an allowed-signers file), ``valid`` (matches its own key; who that
    is was not checked), ``bad`` (does not match the manifest), ``unknown-signer`` (a valid signature
    by a key the file does not allow), ``unsigned``."""

    status: str
    key: str = ""
    principal: str = ""
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("good", "valid")

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "key": self.key,
            "principal": self.principal,
            "detail": self.detail,
        }


def _keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise EnvironmentBroken(
            "ssh-keygen is not on PATH; install OpenSSH (8.2 or newer) to sign or check "
            "bundle signatures"
        )
    return found


def _run(args: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [_keygen(), *args], input=data, capture_output=True, timeout=60, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise EnvironmentBroken(
            f"ssh-keygen {' '.join(args[:2])} did not answer within 60 s"
        ) from exc


def _first_line(raw: bytes) -> str:
    lines = [x.strip() for x in raw.decode("utf-8", "replace").splitlines() if x.strip()]
    lines = [x for x in lines if not x.startswith("Signing data on standard input")]
    return lines[0] if lines else "no message"


def sign(data: bytes, key: Path) -> bytes:
    """The SSH signature of ``data`` made with private key ``key`` (or a public key whose private half
    is in ssh-agent)."""
    if not key.is_file():
        raise UsageError(
            f"--sign {key}: no such key file; pass a private SSH key (e.g. ~/.ssh/id_ed25519)"
        )
    proc = _run(["-Y", "sign", "-f", str(key), "-n", NAMESPACE], data)
    if proc.returncode != 0 or b"BEGIN SSH SIGNATURE" not in proc.stdout:
        raise UsageError(
            f"--sign {key}: ssh-keygen could not sign ({_first_line(proc.stderr)}); "
            "pass a private SSH key without a passphrase, or load it into ssh-agent"
        )
    return proc.stdout


def _key_of(text: str) -> str:
    m = re.search(r"with (\S+) key (\S+)", text)
    return f"{m.group(1)} {m.group(2)}" if m else ""


def check(data: bytes, signature: bytes, allowed_signers: Path | None) -> SignatureCheck:
    """Whether ``signature`` signs ``data``, and (with ``allowed_signers``) by whom."""
    if len(signature) > MAX_SIGNATURE_BYTES or b"BEGIN SSH SIGNATURE" not in signature:
        return SignatureCheck("bad", detail="manifest.json.sig is not an SSH signature")
    with tempfile.TemporaryDirectory(prefix="torchparity-sig-") as tmp:
        sig = Path(tmp) / "manifest.json.sig"
        sig.write_bytes(signature)
        own = _run(["-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(sig)], data)
        if own.returncode != 0:
            return SignatureCheck(
                "bad",
                detail=f"the signature does not match manifest.json "
                f"({_first_line(own.stderr or own.stdout)})",
            )
        key = _key_of(own.stdout.decode("utf-8", "replace"))
        if allowed_signers is None:
            return SignatureCheck(
                "valid", key=key, detail="who signed was not checked (pass --allowed-signers FILE)"
            )
        found = _run(["-Y", "find-principals", "-s", str(sig), "-f", str(allowed_signers)], b"")
        principals = (
            [p for p in found.stdout.decode("utf-8", "replace").split() if p]
            if found.returncode == 0
            else []
        )
        if not principals:
            return SignatureCheck(
                "unknown-signer",
                key=key,
                detail=f"signed by {key or 'a key'}, which {allowed_signers} does not allow",
            )
        for principal in principals:
            proc = _run(
                [
                    "-Y",
                    "verify",
                    "-f",
                    str(allowed_signers),
                    "-I",
                    principal,
                    "-n",
                    NAMESPACE,
                    "-s",
                    str(sig),
                ],
                data,
            )
            if proc.returncode == 0:
                return SignatureCheck(
                    "good", key=key, principal=principal, detail=f"allowed by {allowed_signers}"
                )
        return SignatureCheck(
            "unknown-signer",
            key=key,
            detail=f"{allowed_signers} names {', '.join(principals)} for this key but not for "
            f"the namespace {NAMESPACE}: {_first_line(proc.stderr or proc.stdout)}",
        )
