"""torchparity's own evidence when the text carries it: quoted log SHA-256 against a bundle (``--bundle``),
the bundle's hashes and signature, an in-toto test-result statement (``--attestation``), and the evidence
logs pasted in the text.

Emulation is a fact of the sealed records: a quoted log whose target record says its device was emulated
on CPU, or an attestation whose predicate lists emulated targets, verifies only when the text says the
evidence is emulated; otherwise it is contradicted (a dry run presented as hardware evidence). A log, in
the text or in the bundle, that holds a key the tool writes once twice is rejected (``report.logkeys``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...records.target import emulated_device, record_from_json
from ...report.logkeys import DuplicateKey, check_log, duplicated_keys
from ...store.bundle import verify_bundle
from .. import sshsig
from ..attest import PREDICATE_TYPE, STATEMENT_TYPE, emulation_note, load_statement
from ..context import Context
from ..document import Document, Line
from ..records import Claim, Verdict, contradicted, unverifiable, verified
from .facts import Facts

#: a bundled log or record larger than this is not read for its facts (its hash is still checked)
READ_LIMIT = 64 * 1024 * 1024
#: words by which a text says its evidence is emulated (en, zh), lower case
EMULATION_WORDS = ("emulat", "仿真", "模拟")


def states_emulation(text: str) -> bool:
    """Whether ``text`` says that (some of) its evidence comes from an emulated device."""
    low = text.lower()
    return any(w in low for w in EMULATION_WORDS)


@dataclass(frozen=True)
class BundledTarget:
    """One target of a bundle, as its sealed record says: where it is, the device it only emulated."""

    where: str  # "run N target L"
    log_sha256: str
    record_sha256: str
    emulated: str = ""


def _blob(zf: zipfile.ZipFile, sha: str) -> bytes | None:
    """The bytes of ``blobs/<sha>`` when they are there, not too large, and hash to ``sha``."""
    try:
        info = zf.getinfo(f"blobs/{sha}")
        if info.file_size > READ_LIMIT:
            return None
        data = zf.read(info)
    except (KeyError, OSError, ValueError, zipfile.BadZipFile, RuntimeError):
        return None
    return data if hashlib.sha256(data).hexdigest() == sha else None


def _emulated(data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        rec = record_from_json(json.loads(data))
    except (ValueError, TypeError, KeyError, AttributeError):
        return ""
    return rec.emulated or emulated_device(rec)


def bundle_targets(path: Path) -> dict[str, BundledTarget]:
    """Evidence log SHA-256 -> its target, from a bundle's manifest and the target records it holds."""
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = json.loads(zf.read("manifest.json"))
            out: dict[str, BundledTarget] = {}
            for run in manifest.get("runs", []) if isinstance(manifest, dict) else []:
                for t in run.get("targets", []):
                    log, record = str(t.get("log_sha256") or ""), str(t.get("record_sha256") or "")
                    if log:
                        out[log] = BundledTarget(
                            f"run {run.get('id', '?')} target {t.get('label', '?')}",
                            log,
                            record,
                            _emulated(_blob(zf, record) if record else None),
                        )
            return out
    except (OSError, KeyError, ValueError, AttributeError, zipfile.BadZipFile):
        return {}


def bundle_logs(path: Path) -> dict[str, str]:
    """Evidence log SHA-256 -> "run N target L", from a bundle's manifest (its documented layout)."""
    return {sha: t.where for sha, t in bundle_targets(path).items()}


def _bundled_log_problem(path: Path, sha: str) -> str:
    """Why the bundled log ``sha`` cannot be read back ("" when it reads clean or is not there)."""
    try:
        with zipfile.ZipFile(path) as zf:
            data = _blob(zf, sha)
    except (OSError, zipfile.BadZipFile):
        return ""
    return check_log(data.decode("utf-8", "replace")) if data is not None else ""


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
    wants_signers = (
        f.allowed_signers is not None and "allowed_signers" in inspect.signature(verify).parameters
    )
    check = (
        verify(f.bundle, allowed_signers=f.allowed_signers) if wants_signers else verify(f.bundle)
    )
    doc = check.to_json()
    problems = [str(p) for p in doc.get("problems", [])]
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        yield contradicted(where, "bundle", f"the bundle does not verify: {problems[0]}{more}")
        return
    dry = [
        f"{t.where} ({emulation_note(t.emulated)})"
        for t in bundle_targets(f.bundle).values()
        if t.emulated
    ]
    held = f"; its records say it holds emulated evidence: {'; '.join(dry)}" if dry else ""
    yield verified(
        where,
        "bundle",
        f"every hash verifies ({doc.get('files', 0)} files, {doc.get('runs', 0)} runs)" + held,
    )
    status, who = signature_state(doc)
    if status is None:
        yield unverifiable(
            where,
            "bundle",
            "this torchparity reads no bundle signature: the hashes prove the "
            "bundle is whole, not who made it",
        )
    elif status == "unsigned":
        yield unverifiable(
            where,
            "bundle",
            "the bundle is not signed: its hashes prove it is whole, not who made it",
        )
    elif status == "good":
        yield verified(
            where, "bundle", f"signed by {who or 'an allowed signer'}, and the signature verifies"
        )
    elif status == "valid":
        yield verified(
            where,
            "bundle",
            f"the signature verifies with its own key {who}".rstrip()
            + "; pass --allowed-signers to check whose key it is",
        )
    else:
        detail = (doc.get("signature") or {}).get("detail", "")
        yield contradicted(
            where, "bundle", f"signature {status}" + (f": {detail}" if detail else "")
        )


def check_evidence(f: Facts) -> Iterator[Verdict]:
    logs = bundle_targets(f.bundle) if f.bundle else {}
    said = states_emulation(f.text)
    for c in f.claims.evidence:
        if f.bundle is None:
            yield unverifiable(
                c,
                "evidence",
                "a torchparity evidence log: pass --bundle with the runs' bundle to check it",
            )
            continue
        hits = [
            t
            for sha, t in logs.items()
            if sha == c.digest or (len(c.digest) < 64 and sha.startswith(c.digest))
        ]
        if hits:
            t = hits[0]
            found = f"the log of {t.where} in {f.bundle.name}"
            problem = _bundled_log_problem(f.bundle, t.log_sha256)
            if problem:
                yield contradicted(c, "evidence", f"{found} is rejected: {problem}")
            elif not t.emulated:
                yield verified(c, "evidence", found)
            elif said:
                yield verified(
                    c,
                    "evidence",
                    f"{found}: {emulation_note(t.emulated)} (its sealed record says so), "
                    "as the text says",
                )
            else:
                yield contradicted(
                    c,
                    "evidence",
                    f"{found}: {emulation_note(t.emulated)} (its sealed record says "
                    "so); the text does not say so",
                )
        else:
            yield contradicted(
                c,
                "evidence",
                f"no evidence log with this SHA-256 in {f.bundle.name} ({len(logs)} logs there)",
            )
    if f.bundle is not None:
        yield from check_bundle(f)


def check_attestation(f: Facts) -> Iterator[Verdict]:
    assert f.attestation is not None
    path = f.attestation
    where = Claim(line=0, text=f"--attestation {path.name}")
    doc = load_statement(path)
    predicate = doc.get("predicate") if isinstance(doc.get("predicate"), dict) else None
    if (
        doc.get("_type") != STATEMENT_TYPE
        or doc.get("predicateType") != PREDICATE_TYPE
        or predicate is None
    ):
        yield contradicted(
            where,
            "attestation",
            f"not an in-toto {PREDICATE_TYPE} statement "
            f"(_type {doc.get('_type')!r}, predicateType {doc.get('predicateType')!r})",
        )
        return
    sig = path.with_name(path.name + ".sig")
    if sig.is_file():
        result = sshsig.check(path, sig, f.allowed_signers)
        if result.valid:
            who = result.principal or result.fingerprint
            yield verified(
                where,
                "attestation",
                f"signature {sig.name} verifies"
                + (f" ({who})" if who else "")
                + (
                    "" if f.allowed_signers else "; pass --allowed-signers to check whose key it is"
                ),
            )
        else:
            yield contradicted(
                where, "attestation", f"signature {sig.name} does not verify: {result.problem}"
            )
    else:
        yield unverifiable(where, "attestation", f"unsigned: no {sig.name} beside it")
    emulated = predicate.get("emulated")
    for e in emulated if isinstance(emulated, list) else []:
        target = str(e.get("target", "?")) if isinstance(e, dict) else "?"
        device = str(e.get("device", "")) if isinstance(e, dict) else ""
        row = Claim(line=0, text=f"emulated {target}")
        what = f"the attested run of {target}: {emulation_note(device or '(device not named)')}"
        if states_emulation(f.text):
            yield verified(row, "attestation", f"{what}, as the text says")
        else:
            yield contradicted(row, "attestation", f"{what}; the text does not say so")
    view = f.view
    stated = {c.sha for c in f.claims.commits}
    for s in doc.get("subject", []):
        commit = str((s.get("digest") or {}).get("gitCommit", ""))
        row = Claim(line=0, text=f"subject {s.get('name', '')} {commit[:12]}")
        full = view.resolve(commit) if commit else None
        if commit in stated or (full and full == view.commit):
            yield verified(
                row,
                "attestation",
                "the commit the text states" if commit in stated else "the reviewed commit",
            )
        elif full and view.is_ancestor(full, view.commit):
            yield verified(row, "attestation", f"an ancestor of {view.commit[:12]}")
        else:
            yield unverifiable(
                row,
                "attestation",
                "neither a commit the text states nor one in the merge's history",
            )
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
                yield unverifiable(
                    row, "attestation", f"{name} is not in the repository at {view.commit[:12]}"
                )
            elif actual == digest:
                yield verified(
                    row, "attestation", f"the attested bytes are {found} at {view.commit[:12]}"
                )
            else:
                yield contradicted(
                    row,
                    "attestation",
                    f"attested {digest[:16]}…, but {found} hashes to "
                    f"{actual[:16]}… at {view.commit[:12]}",
                )
        elif role == "evidence log":
            if any(digest == q or (len(q) < 64 and digest.startswith(q)) for q in quoted):
                yield verified(row, "attestation", "the text quotes this log's SHA-256")
            else:
                yield unverifiable(row, "attestation", "the text does not quote this log")


def _at(group: list[Line], d: DuplicateKey) -> DuplicateKey:
    """``d`` with the text's own line numbers (its lines count within ``group``)."""
    return DuplicateKey(d.key, tuple(group[n - 1].no for n in d.lines), d.section)


def check_logs(f: Facts) -> Iterator[Verdict]:
    """Every evidence log pasted in the text read back: one that holds a key the tool writes once twice is
    rejected (contradicted at its second line): which of the lines is the tool's cannot be told."""
    if "=" not in f.text:
        return
    doc = Document(f.text)
    ctx = Context(doc)
    logs: dict[int, list[Line]] = {}
    for ln in doc.lines:
        start = ctx.at(ln.no).log_start
        if start:
            logs.setdefault(start, []).append(ln)
    for start, group in logs.items():
        for d in duplicated_keys([ln.stripped for ln in group]):
            here = _at(group, d)
            second = group[d.lines[1] - 1]
            yield contradicted(
                Claim(line=second.no, text=second.stripped),
                "evidence",
                f"{here.describe()} in the evidence log at line {start}: a line that reads as the "
                "tool's own was injected (a value that started a new line, a line a test printed) "
                "or the log was edited, so its KEY=VALUE lines cannot be trusted",
            )
