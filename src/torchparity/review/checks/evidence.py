"""torchparity's own evidence when the text carries it: quoted log SHA-256 against a bundle (``--bundle``),
the bundle's hashes and signature, and an in-toto test-result statement (``--attestation``)."""

from __future__ import annotations

import inspect
import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ...store.bundle import verify_bundle
from .. import sshsig
from ..attest import PREDICATE_TYPE, STATEMENT_TYPE, load_statement
from ..records import Claim, Verdict, contradicted, unverifiable, verified
from .facts import Facts


def bundle_logs(path: Path) -> dict[str, str]:
    """Evidence log SHA-256 -> "run N target L", from a bundle's manifest (its documented layout)."""
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read("manifest.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return {}
    out: dict[str, str] = {}
    for run in manifest.get("runs", []) if isinstance(manifest, dict) else []:
        for t in run.get("targets", []):
            if t.get("log_sha256"):
                out[str(t["log_sha256"])] = f"run {run.get('id', '?')} target {t.get('label', '?')}"
    return out


def signature_state(doc: dict[str, Any]) -> tuple[str | None, str]:
    """(status, who) of the signature ``bundle verify`` reports in its JSON: ``good`` / ``valid`` /
    ``bad`` / ``unknown-signer`` / ``unsigned``; (None, "") from a torchparity that reports none."""
    sig = doc.get("signature")
    if not isinstance(sig, dict):
        return None, ""
    who = str(sig.get("principal") or sig.get("key") or "")
    return str(sig.get("status", "")) or None, who


def check_bundle(f: Facts) -> Iterator[Verdict]:
    assert f.bundle is not None
    where = Claim(line=0, text=f"--bundle {f.bundle.name}")
    # bundles gain signatures in the store part; a verify_bundle that takes allowed signers is given them
    verify: Callable[..., Any] = verify_bundle
    wants_signers = f.allowed_signers is not None and "allowed_signers" in inspect.signature(verify).parameters
    check = verify(f.bundle, allowed_signers=f.allowed_signers) if wants_signers else verify(f.bundle)
    doc = check.to_json()
    problems = [str(p) for p in doc.get("problems", [])]
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        yield contradicted(where, "bundle", f"the bundle does not verify: {problems[0]}{more}")
        return
    yield verified(where, "bundle", f"every hash verifies ({doc.get('files', 0)} files, {doc.get('runs', 0)} runs)")
    status, who = signature_state(doc)
    if status is None:
        yield unverifiable(where, "bundle", "this torchparity reads no bundle signature: the hashes prove the "
                           "bundle is whole, not who made it")
    elif status == "unsigned":
        yield unverifiable(where, "bundle", "the bundle is not signed: its hashes prove it is whole, not who made it")
    elif status == "good":
        yield verified(where, "bundle", f"signed by {who or 'an allowed signer'}, and the signature verifies")
    elif status == "valid":
        yield verified(where, "bundle", f"the signature verifies with its own key {who}".rstrip()
                       + "; pass --allowed-signers to check whose key it is")
    else:
        detail = (doc.get("signature") or {}).get("detail", "")
        yield contradicted(where, "bundle", f"signature {status}" + (f": {detail}" if detail else ""))


def check_evidence(f: Facts) -> Iterator[Verdict]:
    logs = bundle_logs(f.bundle) if f.bundle else {}
    for c in f.claims.evidence:
        if f.bundle is None:
            yield unverifiable(c, "evidence", "a torchparity evidence log: pass --bundle with the runs' bundle to "
                               "check it")
            continue
        hits = [(sha, where) for sha, where in logs.items() if sha == c.digest or
                (len(c.digest) < 64 and sha.startswith(c.digest))]
        if hits:
            yield verified(c, "evidence", f"the log of {hits[0][1]} in {f.bundle.name}")
        else:
            yield contradicted(c, "evidence", f"no evidence log with this SHA-256 in {f.bundle.name} "
                               f"({len(logs)} logs there)")
    if f.bundle is not None:
        yield from check_bundle(f)


def check_attestation(f: Facts) -> Iterator[Verdict]:
    assert f.attestation is not None
    path = f.attestation
    where = Claim(line=0, text=f"--attestation {path.name}")
    doc = load_statement(path)
    predicate = doc.get("predicate") if isinstance(doc.get("predicate"), dict) else None
    if doc.get("_type") != STATEMENT_TYPE or doc.get("predicateType") != PREDICATE_TYPE or predicate is None:
        yield contradicted(where, "attestation", f"not an in-toto {PREDICATE_TYPE} statement "
                           f"(_type {doc.get('_type')!r}, predicateType {doc.get('predicateType')!r})")
        return
    sig = path.with_name(path.name + ".sig")
    if sig.is_file():
        result = sshsig.check(path, sig, f.allowed_signers)
        if result.valid:
            who = result.principal or result.fingerprint
            yield verified(where, "attestation", f"signature {sig.name} verifies" + (f" ({who})" if who else "")
                           + ("" if f.allowed_signers else "; pass --allowed-signers to check whose key it is"))
        else:
            yield contradicted(where, "attestation", f"signature {sig.name} does not verify: {result.problem}")
    else:
        yield unverifiable(where, "attestation", f"unsigned: no {sig.name} beside it")
    view = f.view
    stated = {c.sha for c in f.claims.commits}
    for s in doc.get("subject", []):
        commit = str((s.get("digest") or {}).get("gitCommit", ""))
        row = Claim(line=0, text=f"subject {s.get('name', '')} {commit[:12]}")
        full = view.resolve(commit) if commit else None
        if commit in stated or (full and full == view.commit):
            yield verified(row, "attestation", "the commit the text states" if commit in stated else
                           "the reviewed commit")
        elif full and view.is_ancestor(full, view.commit):
            yield verified(row, "attestation", f"an ancestor of {view.commit[:12]}")
        else:
            yield unverifiable(row, "attestation", "neither a commit the text states nor one in the merge's history")
    quoted = {c.digest for c in f.claims.evidence}
    for item in predicate.get("configuration", []):
        digest = str((item.get("digest") or {}).get("sha256", ""))
        role = (item.get("annotations") or {}).get("role", "")
        name = str(item.get("name", ""))
        row = Claim(line=0, text=f"{role or 'configuration'} {name}")
        if role == "test file":
            found = view.locate(name)
            actual = view.sha256(found) if found else None
            if actual is None:
                yield unverifiable(row, "attestation", f"{name} is not in the repository at {view.commit[:12]}")
            elif actual == digest:
                yield verified(row, "attestation", f"the attested bytes are {found} at {view.commit[:12]}")
            else:
                yield contradicted(row, "attestation", f"attested {digest[:16]}…, but {found} hashes to "
                                   f"{actual[:16]}… at {view.commit[:12]}")
        elif role == "evidence log":
            if any(digest == q or (len(q) < 64 and digest.startswith(q)) for q in quoted):
                yield verified(row, "attestation", "the text quotes this log's SHA-256")
            else:
                yield unverifiable(row, "attestation", "the text does not quote this log")
