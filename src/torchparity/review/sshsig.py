"""Detached SSH signatures through ``ssh-keygen -Y`` (as git signs commits): sign a file, check one.

``sign`` writes ``FILE.sig``. ``check`` answers whether the signature is valid for
the file under the namespace, who signed it (the key's fingerprint, and the
principal when an allowed-signers file is given), or why not.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..errors import EnvironmentBroken, UsageError

#: the signature namespace of attestations (a bundle's signature cannot pass for one)
NAMESPACE = "torchparity-attestation"


def _ssh_keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise EnvironmentBroken(
            "ssh-keygen is not installed or not on PATH; install OpenSSH (openssh-client)"
        )
    return found


def sign(path: Path, key: Path, namespace: str = NAMESPACE) -> Path:
    """Sign ``path`` with the private key ``key``; returns the ``.sig`` file written beside it."""
    if not key.is_file():
        raise UsageError(f"signing key not found: {key}; pass a private SSH key file to --key")
    sig = path.with_name(path.name + ".sig")
    sig.unlink(missing_ok=True)
    proc = subprocess.run(
        [_ssh_keygen(), "-Y", "sign", "-q", "-f", str(key), "-n", namespace, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not sig.is_file():
        msg = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        raise UsageError(f"ssh-keygen could not sign {path} with {key}: {msg}")
    return sig


@dataclass(frozen=True)
class SignatureCheck:
    valid: bool
    #: the principal an allowed-signers file gives the key ("" without one)
    principal: str = ""
    fingerprint: str = ""
    problem: str = ""


def check(
    path: Path, sig: Path, allowed_signers: Path | None = None, namespace: str = NAMESPACE
) -> SignatureCheck:
    """Whether ``sig`` is a valid signature of ``path``; with ``allowed_signers``, by a key listed there."""
    keygen = _ssh_keygen()
    data = path.read_bytes()
    if allowed_signers is None:
        proc = subprocess.run(
            [keygen, "-Y", "check-novalidate", "-n", namespace, "-s", str(sig)],
            input=data,
            capture_output=True,
            check=False,
        )
        out = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip()
        if proc.returncode != 0:
            return SignatureCheck(
                False, problem=out.splitlines()[-1] if out else f"exit {proc.returncode}"
            )
        return SignatureCheck(True, fingerprint=_fingerprint(out))
    found = subprocess.run(
        [keygen, "-Y", "find-principals", "-s", str(sig), "-f", str(allowed_signers)],
        capture_output=True,
        text=True,
        check=False,
    )
    principal = (
        found.stdout.strip().splitlines()[0]
        if found.returncode == 0 and found.stdout.strip()
        else ""
    )
    if not principal:
        return SignatureCheck(False, problem=f"the signing key is not in {allowed_signers}")
    proc = subprocess.run(
        [
            keygen,
            "-Y",
            "verify",
            "-f",
            str(allowed_signers),
            "-I",
            principal,
            "-n",
            namespace,
            "-s",
            str(sig),
        ],
        input=data,
        capture_output=True,
        check=False,
    )
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        return SignatureCheck(
            False, principal=principal, problem=out.splitlines()[-1] if out else "does not verify"
        )
    return SignatureCheck(True, principal=principal, fingerprint=_fingerprint(out))


def _fingerprint(text: str) -> str:
    for word in text.split():
        if word.startswith(("SHA256:", "MD5:")):
            return word.rstrip(",")
    return ""
