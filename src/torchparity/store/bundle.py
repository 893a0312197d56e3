"""Bundles: a zip of runs (logs, records, seals, manifest of hashes) that anyone can verify.

Layout of a bundle::

    manifest.json          schema, who made it, the runs (each with its seal's hash), every file's SHA-256
    manifest.json.sig      optional: an SSH signature of manifest.json (``bundle_sign.py``)
    blobs/<sha256>         each evidence log, target record, stored record and run seal, named by its hash

``verify_bundle`` reads the zip under limits (``bundle_zip.py``), recomputes every
hash (streamed), checks that each run agrees with its seal and each target with its
record, and checks the signature. ``import_bundle`` does the same reading once,
staging the blobs as it goes, and commits the runs in one transaction: a bundle
that does not verify leaves nothing behind (into a store that was not there, no store).
``export_bundle`` checks the same limits before it writes: what it writes, import reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EnvironmentBroken, EvidenceTampered, UsageError
from . import bundle_sign
from .blobs import write_error
from .bundle_manifest import BUNDLE_SCHEMA, BundleManifest, BundleRun
from .bundle_sign import SignatureCheck
from .bundle_zip import (
    MANIFEST,
    SIGNATURE,
    BundleInvalid,
    BundleLimits,
    EntryDamaged,
    SafeZip,
    human,
)
from .db import Store
from .jsoncheck import ShapeError
from .seal import RunSeal, TargetSeal, differences, record_disagreements

__all__ = [
    "BUNDLE_SCHEMA",
    "BundleCheck",
    "BundleLimits",
    "export_bundle",
    "import_bundle",
    "verify_bundle",
]


@dataclass
class BundleCheck:
    path: str
    files: int = 0
    runs: int = 0
    #: what disagrees in the content (hashes, seals, records)
    problems: list[str] = field(default_factory=list)
    signature: SignatureCheck = field(default_factory=lambda: SignatureCheck("unsigned"))
    #: a signature by an allowed signer is required (``--allowed-signers``)
    signature_required: bool = False

    @property
    def signature_accepted(self) -> bool:
        return self.signature.ok or (
            self.signature.status == "unsigned" and not self.signature_required
        )

    @property
    def tampered(self) -> bool:
        """The content or the signature shows the bundle changed after it was made."""
        return bool(self.problems) or self.signature.status == "bad"

    @property
    def ok(self) -> bool:
        return not self.problems and self.signature_accepted

    @property
    def first_problem(self) -> str:
        if self.problems:
            return self.problems[0]
        if self.signature.status == "unsigned":
            return "it is unsigned, and --allowed-signers asks for a signature"
        return f"{SIGNATURE}: {self.signature.status}: {self.signature.detail}"

    def to_json(self) -> dict[str, Any]:
        return {
            "bundle": self.path,
            "files": self.files,
            "runs": self.runs,
            "ok": self.ok,
            "tampered": self.tampered,
            "problems": self.problems,
            "signature": self.signature.to_json(),
            "signature_required": self.signature_required,
        }


# -- export -------------------------------------------------------------------------------
def export_bundle(
    store: Store,
    run_ids: list[int],
    dest: Path,
    version: str = "",
    sign_key: Path | None = None,
    limits: BundleLimits | None = None,
) -> Path:
    """Write the runs' evidence into ``dest`` (a new zip), signed with ``sign_key`` if given.

    A bundle that ``limits`` (the ones import reads with; the defaults unless given) would refuse is not
    written: a ``UsageError`` names the run and the blob over a limit."""
    if dest.exists():
        raise UsageError(f"{dest} already exists; pass a new file name to --output")
    if not dest.absolute().parent.is_dir():
        raise UsageError(
            f"folder {dest.absolute().parent} does not exist; make it or pass another --output"
        )
    if len(set(run_ids)) != len(run_ids):
        raise UsageError("the same run is given twice; drop the duplicate")
    runs = tuple(_bundle_run(store, rid) for rid in run_ids)
    blobs = sorted(set().union(*(r.blobs() for r in runs))) if runs else []
    manifest = BundleManifest(
        created=time.time(),
        torchparity_version=version,
        runs=runs,
        files={f"blobs/{s}": s for s in blobs},
    )
    data = manifest.to_bytes()
    _within(store, runs, blobs, len(data), sign_key is not None, limits or BundleLimits())
    signature = bundle_sign.sign(data, sign_key) if sign_key is not None else None
    tmp = dest.with_name(dest.name + ".partial")
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(MANIFEST, data)
            if signature is not None:
                zf.writestr(SIGNATURE, signature)
            for sha in blobs:
                _copy_blob(store, sha, zf)
        tmp.replace(dest)
    except OSError as exc:
        raise EnvironmentBroken(
            str(write_error(exc, dest, "writing the bundle")).replace("the evidence store at ", "")
        ) from exc
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def _within(
    store: Store,
    runs: tuple[BundleRun, ...],
    blobs: list[str],
    manifest_bytes: int,
    signed: bool,
    limits: BundleLimits,
) -> None:
    """Refuse, before writing, a bundle that import would refuse under ``limits`` (sizes as stored)."""
    named: dict[str, str] = {}
    for r in runs:
        for t in r.targets:
            named.setdefault(t.log_sha256, f"run {r.id}: target {t.label}'s log")
            named.setdefault(t.record_sha256, f"run {r.id}: target {t.label}'s record")
        for rec in r.records:
            named.setdefault(rec.sha256, f"run {r.id}: its {rec.kind} record")
        named.setdefault(r.seal_sha256, f"run {r.id}: its seal")
    json_blobs = (
        {t.record_sha256 for r in runs for t in r.targets}
        | {x.sha256 for r in runs for x in r.records}
        | {r.seal_sha256 for r in runs}
    )
    why = "bundle verify and import would refuse it; nothing was written"
    entries = len(blobs) + 1 + int(signed)
    if entries > limits.max_entries:
        raise UsageError(
            f"the bundle would hold {entries} entries, over the limit of {limits.max_entries} "
            f"(import's --max-entries); {why}: export fewer runs at a time"
        )
    if manifest_bytes > limits.max_json_bytes:
        raise UsageError(
            f"the bundle's {MANIFEST} would be {human(manifest_bytes)}, larger than a JSON document "
            f"may be ({human(limits.max_json_bytes)}); {why}: export fewer runs at a time"
        )
    total = manifest_bytes
    for sha in blobs:
        size = store.blobs.size(sha)
        what = f"{named.get(sha, 'blob')} {sha[:12]}…"
        if sha in json_blobs and size > limits.max_json_bytes:
            raise UsageError(
                f"{what} is {human(size)}, larger than a JSON document in a bundle may be "
                f"({human(limits.max_json_bytes)}); {why}"
            )
        if size > limits.max_entry_bytes:
            raise UsageError(
                f"{what} is {human(size)}, over the limit of {human(limits.max_entry_bytes)} per "
                f"entry (import's --max-entry-size); {why}"
            )
        total += size
        if total > limits.max_total_bytes:
            raise UsageError(
                f"the bundle's entries would expand to more than {human(limits.max_total_bytes)} in "
                f"all (import's --max-total-size); {why}: export fewer runs at a time"
            )


def _bundle_run(store: Store, rid: int) -> BundleRun:
    row = store.run(rid)  # checked: a tampered run is not exported
    if row.seal_sha is None:
        raise UsageError(
            f"run {rid} is still running (it is sealed when it ends); wait for it, or resume it "
            f"with 'torchparity run --resume {rid}'"
        )
    targets = tuple(
        TargetSeal(t.label, t.ref, t.env, t.result, t.log_sha or "", t.record_sha or "", t.finished)
        for t in store.targets(row.id)
    )
    records = store.record_rows(row.id)
    return BundleRun(
        id=row.id,
        kind=row.kind,
        created=row.created,
        finished=row.finished,
        status=row.status,
        result=row.result,
        argv=tuple(row.argv),
        summary=row.summary,
        seal_sha256=row.seal_sha,
        targets=targets,
        records=records,
    )


def _copy_blob(store: Store, sha: str, zf: zipfile.ZipFile) -> None:
    """Copy one blob into the zip in chunks, checking its hash on the way (it may change meanwhile).

    Read as every blob is: a regular file only, no further than its size (``BlobStore.chunks``)."""
    path = store.blobs.path(sha)
    h = hashlib.sha256()
    size = store.blobs.size(sha)
    with zf.open(f"blobs/{sha}", "w", force_zip64=size >= zipfile.ZIP64_LIMIT) as out:
        for chunk in store.blobs.chunks(sha):
            h.update(chunk)
            out.write(chunk)
    if h.hexdigest() != sha:
        raise EvidenceTampered(
            f"stored evidence {path} changed while it was exported (its bytes hash to "
            f"{h.hexdigest()}); nothing was written"
        )


# -- reading (verify and import) -------------------------------------------------------------
class _Reader:
    """One pass over a bundle: every check, and (for an import) every blob staged as it is hashed."""

    def __init__(
        self,
        zf: SafeZip,
        allowed_signers: Path | None,
        store: Store | None = None,
        staging: Path | None = None,
    ) -> None:
        self.zf, self.allowed, self.store, self.staging = zf, allowed_signers, store, staging
        self.check = BundleCheck(str(zf.path), signature_required=allowed_signers is not None)
        self.staged: dict[str, str] = {}
        self.json: dict[str, bytes] = {}
        self.manifest: BundleManifest | None = None

    def _problem(self, text: str) -> None:
        self.check.problems.append(text)

    def read(self) -> BundleCheck:
        zf, where = self.zf, f"bundle {self.zf.path}"
        if MANIFEST not in zf.entries:
            raise BundleInvalid(f"{where} has no {MANIFEST}; it is not a torchparity bundle")
        try:
            raw = zf.read_json_bytes(MANIFEST)
        except (
            EntryDamaged
        ) as exc:  # its bytes are not the ones it was written with: damaged evidence
            raise EvidenceTampered(
                f"{where}: {MANIFEST} is damaged: {exc}; nothing in the bundle can be "
                "checked against it: do not trust it"
            ) from exc
        try:
            manifest = BundleManifest.from_json(json.loads(raw))
        except ValueError as exc:  # ShapeError is a ValueError, and so is a JSON syntax error
            what = str(exc) if isinstance(exc, ShapeError) else f"it is not JSON ({exc})"
            raise BundleInvalid(
                f"{where}: {MANIFEST}: {what}; it was not written by 'torchparity bundle export'"
            ) from exc
        self.manifest = manifest
        self._signature(raw)
        self._listing(manifest)
        if self.store is not None and not self.check.ok:
            return (
                self.check
            )  # an import stops here: nothing is read, let alone staged, for a refused bundle
        self._hash_all(manifest)
        for run in manifest.runs:
            self._run(run)
        return self.check

    def _signature(self, manifest_bytes: bytes) -> None:
        if SIGNATURE not in self.zf.entries:
            return
        try:
            sig = self.zf.read_json_bytes(SIGNATURE)
        except EntryDamaged as exc:
            self.check.signature = SignatureCheck("bad", detail=str(exc))
            return
        self.check.signature = bundle_sign.check(manifest_bytes, sig, self.allowed)

    def _listing(self, manifest: BundleManifest) -> None:
        """The entries against the manifest's list, and the list against what the runs name."""
        present = {n for n in self.zf.entries if not n.endswith("/")}
        extra_dirs = {n for n in self.zf.entries if n.endswith("/") and n != "blobs/"}
        listed = manifest.files
        for name in sorted((present | extra_dirs) - {MANIFEST, SIGNATURE} - set(listed)):
            self._problem(f"{name}: present but not listed in the manifest")
        named: set[str] = (
            set().union(*(r.blobs() for r in manifest.runs)) if manifest.runs else set()
        )
        for name, sha in sorted(listed.items()):
            if sha not in named:
                self._problem(f"{name}: listed in the manifest but no run names it")
        for sha in sorted(named - set(listed.values())):
            self._problem(f"blobs/{sha}: a run names it but the manifest does not list it")
        for name in sorted(set(listed) - present):
            self._problem(f"{name}: listed in the manifest but missing")

    def _hash_all(self, manifest: BundleManifest) -> None:
        """Every listed entry hashed (streamed; staged for an import), JSON ones kept for the checks."""
        present = {n for n in self.zf.entries if not n.endswith("/")}
        listed = manifest.files
        evidence = {t.record_sha256 for r in manifest.runs for t in r.targets} | {
            x.sha256 for r in manifest.runs for x in r.records
        }
        # a bundle's seals are checked, not imported: the import seals its runs anew
        seals_only = {r.seal_sha256 for r in manifest.runs} - evidence
        wanted_json = evidence | seals_only
        for name, sha in sorted(listed.items()):
            if name not in present:
                continue
            if sha in wanted_json:
                try:
                    data = self.zf.read_json_bytes(name)
                except EntryDamaged as exc:
                    self._problem(f"{name}: {exc}")
                    continue
                actual = hashlib.sha256(data).hexdigest()
                if actual == sha:
                    self.json[sha] = data
                    if self.store is not None and sha not in seals_only:
                        self._stage(sha, iter([data]))
            else:
                try:
                    actual = self._hash_or_stage(name, sha)
                except EntryDamaged as exc:
                    self._problem(f"{name}: {exc}")
                    continue
            if actual != sha:
                self._problem(f"{name}: its bytes hash to {actual}, not the {sha} it is named by")
                continue
            self.check.files += 1

    def _hash_or_stage(self, name: str, sha: str) -> str:
        if self.store is None:
            h = hashlib.sha256()
            for chunk in self.zf.chunks(name):
                h.update(chunk)
            return h.hexdigest()
        return self._stage(sha, self.zf.chunks(name))

    def _stage(self, sha: str, chunks: Iterator[bytes]) -> str:
        assert self.store is not None
        actual, tmp = self.store.blobs.stage(chunks, folder=self.staging)
        if actual == sha:
            self.staged[sha] = tmp
        else:
            Path(tmp).unlink(missing_ok=True)
        return actual

    def _doc(self, sha: str) -> tuple[bool, Any]:
        """``(held, document)``: whether the bundle holds the JSON blob intact, and it parsed (``_NOT_JSON``)."""
        data = self.json.get(sha)
        if data is None:
            return False, None
        try:
            return True, json.loads(data)
        except ValueError:
            return True, _NOT_JSON

    def _run(self, run: BundleRun) -> None:
        self.check.runs += 1
        where = f"run {run.id}"
        if run.status not in ("complete", "incomplete"):
            self._problem(f"{where}: status {run.status!r}; a bundle holds finished runs only")
        held, doc = self._doc(run.seal_sha256)
        if not held:
            self._problem(f"{where}: its seal {run.seal_sha256[:12]}… is not in the bundle intact")
        else:
            try:
                sealed = RunSeal.from_json(doc if doc is not _NOT_JSON else None, "its seal")
            except ShapeError as exc:
                self._problem(f"{where}: {exc}")
            else:
                for d in differences(run.seal(), sealed):
                    self._problem(f"{where}: {d.replace('the seal says', 'its seal says')}")
        origin = {run.id}
        imported = run.summary.get("imported_from")
        if isinstance(imported, dict) and isinstance(imported.get("run"), int):
            origin.add(imported["run"])
        for t in run.targets:
            held, record = self._doc(t.record_sha256)
            if not held:
                self._problem(
                    f"{where} target {t.label}: its record {t.record_sha256[:12]}… is not in the "
                    "bundle intact"
                )
                continue
            for d in record_disagreements(
                t.label, t.ref, t.env, t.result, t.log_sha256, record, origin
            ):
                self._problem(f"{where} target {t.label}: {d}")
        for r in run.records:
            held, doc = self._doc(r.sha256)
            if held and not isinstance(doc, dict):
                self._problem(f"{where}: its {r.kind} record {r.sha256[:12]}… is not a JSON object")


#: what ``_Reader._doc`` gives for a blob that is not JSON
_NOT_JSON = object()


def _allowed_file(allowed_signers: Path | None) -> None:
    if allowed_signers is not None and not allowed_signers.is_file():
        raise UsageError(
            f"--allowed-signers {allowed_signers}: no such file; write one line per signer: "
            f'PRINCIPAL namespaces="{bundle_sign.NAMESPACE}" ssh-ed25519 AAAA...'
        )


def verify_bundle(
    path: Path, limits: BundleLimits | None = None, allowed_signers: Path | None = None
) -> BundleCheck:
    """Check a bundle without importing it (``BundleInvalid``, exit 2, when it cannot be read as one)."""
    _allowed_file(allowed_signers)
    with SafeZip(path, limits or BundleLimits()) as zf:
        return _Reader(zf, allowed_signers).read()


@dataclass(frozen=True)
class ImportResult:
    ids: list[int]
    check: BundleCheck


def import_bundle(
    store: Store,
    path: Path,
    limits: BundleLimits | None = None,
    allowed_signers: Path | None = None,
) -> ImportResult:
    """Verify and copy every run of the bundle into ``store`` under new ids, in one transaction.

    A bundle that does not verify raises ``EvidenceTampered`` (exit 3) and leaves nothing in
    the store: no run, no row, no blob."""
    _allowed_file(allowed_signers)
    with SafeZip(path, limits or BundleLimits()) as zf:
        # what was there before: a store made for this import goes again if the import fails
        made = not store.db_path.exists()
        before = set(os.listdir(store.root)) if made and store.root.is_dir() else None
        try:
            return _import(store, zf, path, allowed_signers)
        except BaseException:
            if made:
                store.discard_new(before)
            raise


def _import(store: Store, zf: SafeZip, path: Path, allowed_signers: Path | None) -> ImportResult:
    store.ensure_writable("import a bundle")
    staging = _staging(store)
    try:
        reader = _Reader(zf, allowed_signers, store, staging)
        check = reader.read()
        if not check.ok:
            more = f" and {len(check.problems) - 1} more" if len(check.problems) > 1 else ""
            text = (
                f"bundle {path} does not verify ({check.first_problem}{more}); nothing imported "
                "(see 'torchparity bundle verify')"
            )
            if check.tampered:
                raise EvidenceTampered(text)
            raise EnvironmentBroken(text)
        assert reader.manifest is not None
        return ImportResult(_commit(store, path, reader.manifest, reader.staged), check)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _staging(store: Store) -> Path:
    try:
        store.blobs.root.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(dir=store.blobs.root, prefix=".import-"))
    except OSError as exc:
        raise write_error(exc, store.blobs.root, "importing a bundle") from exc


def _commit(
    store: Store, path: Path, manifest: BundleManifest, staged: dict[str, str]
) -> list[int]:
    placed: list[str] = []
    made: list[int] = []
    try:
        for sha, tmp in sorted(staged.items()):
            if store.blobs.publish(tmp, sha):
                placed.append(sha)
        ids = []
        with store.transaction():
            for run in manifest.runs:
                rid = store.new_run(
                    run.kind,
                    [*run.argv, f"(imported from {path.name}, run {run.id})"],
                    created=run.created,
                    uid=str(run.summary.get("uid") or "") or None,
                )
                made.append(rid)
                for t in run.targets:
                    store.add_target_blobs(
                        rid,
                        label=t.label,
                        ref=t.ref,
                        env=t.env,
                        result=t.result,
                        log_sha=t.log_sha256,
                        record_sha=t.record_sha256,
                        finished=t.finished,
                    )
                for r in run.records:
                    store.add_record_blob(r.kind, r.key, r.sha256, run_id=rid)
                origin = {"bundle": path.name, "run": run.id, "seal_sha256": run.seal_sha256}
                placed.append(
                    store.finish_run(
                        rid,
                        run.result or "INCOMPLETE",
                        status=run.status,
                        summary={**run.summary, "imported_from": origin},
                        finished=run.finished,
                    )
                )
                ids.append(rid)
        return ids
    except BaseException:
        for rid in made:  # rolled back: no run to hold
            store.release_run(rid)
        for sha in placed:  # the transaction rolled back: take back the blobs nothing names
            if not store.referenced(sha):
                store.blobs.remove(sha)
        raise
