"""Hostile bundles: zip bombs, lying headers, too many entries, path problems, wrong types.

The memory figures are the peak RSS of a real ``torchparity`` process (``ru_maxrss``
of the child, read by the child itself at its end).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.store.evidence import fill, manifest, put, read_zip, write_zip
from tests.store.zipcraft import MIB, RawEntry, bomb_entry, write_raw_zip
from torchparity.cli import main
from torchparity.store import Store
from torchparity.store.bundle_manifest import BundleManifest, BundleRun
from torchparity.store.seal import RunSeal, TargetSeal, summary_sha256

GIB = 1 << 30
HALF = GIB // 2
EMPTY_MANIFEST = {
    "schema": "torchparity.bundle/3",
    "created": 0.0,
    "torchparity_version": "t",
    "runs": [],
    "files": {},
}
# the peak of this process's own memory (VmHWM): getrusage's ru_maxrss would also count the pages of
# the forked pytest process it was exec'ed from
PEAK = (
    "import re, sys\nfrom torchparity.cli import main\nrc = main(sys.argv[1:])\n"
    "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
    "sys.stderr.write(f'\\nMAXRSS_KIB={hwm}\\n')\n"
    "sys.exit(rc)\n"
)


def run_measured(*argv: str) -> tuple[int, str, int]:
    """(exit code, output, peak RSS in MiB) of ``torchparity ARGV`` in its own process."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *argv], capture_output=True, text=True, timeout=300
    )
    tail = proc.stderr.rsplit("MAXRSS_KIB=", 1)
    return proc.returncode, proc.stdout + tail[0], int(tail[1]) // 1024


def _manifest_listing(digest: str) -> RawEntry:
    doc = json.dumps(dict(EMPTY_MANIFEST, files={f"blobs/{digest}": digest})).encode()
    return RawEntry("manifest.json", doc, zlib.crc32(doc), len(doc), method=0)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 MiB bundle whose one blob expands to 1 GiB of zeros (listed, named by no run)."""
    name = "blobs/" + "0" * 64
    return write_raw_zip(
        tmp_path_factory.mktemp("bomb") / "bomb.zip",
        [_manifest_listing(name[6:]), bomb_entry(name, GIB)],
    )


def test_a_zip_bomb_is_refused_from_its_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fast tier's bomb: 300 MiB stated and really there, refused before a byte is inflated."""
    small = write_raw_zip(
        tmp_path / "b.zip",
        [_manifest_listing("0" * 64), bomb_entry("blobs/" + "0" * 64, 300 * MIB)],
    )
    for verb in (
        ["bundle", "verify", str(small)],
        ["bundle", "import", str(small), "--store", str(tmp_path / "s")],
    ):
        assert main(verb) == 2
        assert (
            "would expand to 300.0 MiB, over the limit of 256.0 MiB per entry"
            in capsys.readouterr().err
        )
    assert not [p for p in (tmp_path / "s").rglob("*") if p.is_file() and p.parent.name == "blobs"]


@pytest.mark.slow
def test_a_zip_bomb_is_refused_before_reading_under_100_mb(bomb: Path, tmp_path: Path) -> None:
    assert bomb.stat().st_size < 2 * MIB
    for verb in (
        ["bundle", "verify", str(bomb)],
        ["bundle", "import", str(bomb), "--store", str(tmp_path / "s")],
    ):
        rc, out, peak = run_measured(*verb)
        assert rc == 2, out
        assert (
            "would expand to 1.0 GiB, over the limit of 256.0 MiB per entry (--max-entry-size); "
            "refused before reading it" in out
        )
        assert peak < 100, f"peak RSS {peak} MiB"
    assert not [p for p in (tmp_path / "s").rglob("*") if p.is_file() and p.parent.name != "s"]


@pytest.mark.slow
def test_with_the_limit_raised_a_bomb_streams_in_bounded_memory(bomb: Path) -> None:
    """The 1 GiB entry read through and hashed in chunks: memory does not grow with it."""
    rc, out, peak = run_measured("bundle", "verify", str(bomb), "--max-entry-size", "2G")
    assert rc == 3 and "listed in the manifest but no run names it" in out, out
    assert peak < 100, f"peak RSS {peak} MiB"


def _stored(name: str, data: bytes) -> RawEntry:
    return RawEntry(name, data, zlib.crc32(data), len(data), method=0)


@pytest.mark.slow
def test_a_run_with_a_512_mib_log_imports_in_bounded_memory(tmp_path: Path) -> None:
    """A valid bundle (record, seal, manifest all agree) whose log is 512 MiB: imported, streamed into
    the store in chunks, under 100 MB."""
    h, zero = hashlib.sha256(), bytes(MIB)
    for _ in range(HALF // MIB):
        h.update(zero)
    log_sha = h.hexdigest()
    record = json.dumps(
        {"label": "m@e", "ref": "m", "env": "e", "result": "PASS", "log_sha256": log_sha}
    ).encode()
    target = TargetSeal("m@e", "m", "e", "PASS", log_sha, hashlib.sha256(record).hexdigest(), 2.0)
    seal = RunSeal(
        run=1,
        kind="run",
        created=1.0,
        finished=2.0,
        status="complete",
        result="PASS",
        argv=("run", "t.py"),
        summary_sha256=summary_sha256({}),
        targets=(target,),
        records=(),
    ).to_bytes()
    run = BundleRun(
        id=1,
        kind="run",
        created=1.0,
        finished=2.0,
        status="complete",
        result="PASS",
        argv=("run", "t.py"),
        summary={},
        seal_sha256=hashlib.sha256(seal).hexdigest(),
        targets=(target,),
        records=(),
    )
    shas = [log_sha, target.record_sha256, run.seal_sha256]
    doc = BundleManifest(
        created=0.0, torchparity_version="t", runs=(run,), files={f"blobs/{s}": s for s in shas}
    )
    bundle = write_raw_zip(
        tmp_path / "big.zip",
        [
            _stored("manifest.json", doc.to_bytes()),
            _stored(f"blobs/{target.record_sha256}", record),
            _stored(f"blobs/{run.seal_sha256}", seal),
            bomb_entry(f"blobs/{log_sha}", HALF),
        ],
    )
    store = tmp_path / "s"
    try:
        rc, out, peak = run_measured(
            "bundle", "import", str(bundle), "--max-entry-size", "2G", "--store", str(store)
        )
        assert rc == 0 and "imported runs as 1" in out, out
        assert peak < 100, f"peak RSS {peak} MiB"
        st = Store(store)
        assert (
            st.run(1).result == "PASS" and st.blobs.path(log_sha).stat().st_size == HALF
        )  # checked on read too
    finally:
        shutil.rmtree(store, ignore_errors=True)


@pytest.mark.slow
def test_a_header_that_understates_the_size_is_caught_while_streaming(tmp_path: Path) -> None:
    """The central directory says 1000 bytes; the deflate stream holds 64 MiB."""
    name = "blobs/" + "a" * 64
    lying = write_raw_zip(
        tmp_path / "lying.zip",
        [_manifest_listing("a" * 64), bomb_entry(name, 64 * MIB, stated=1000)],
    )
    rc, out, peak = run_measured("bundle", "verify", str(lying))
    assert rc == 3 and f"{name}: its bytes do not match its zip header" in out, out
    assert peak < 100


def _zip(tmp_path: Path, names: list[str], manifest_doc: object = EMPTY_MANIFEST) -> Path:
    path = tmp_path / "b.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest_doc))
        for n in names:
            zf.writestr(zipfile.ZipInfo(n), b"x")
    return path


def test_entry_count_and_total_size_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    many = _zip(tmp_path, [f"blobs/{i:064x}" for i in range(11)])
    assert main(["bundle", "verify", str(many), "--max-entries", "10"]) == 2
    assert (
        "has 12 entries, over the limit of 10 (--max-entries); refused before reading it"
        in capsys.readouterr().err
    )
    big = tmp_path / "big.zip"
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(EMPTY_MANIFEST))
        for i in range(3):
            zf.writestr(f"blobs/{i:064x}", bytes(600 << 10))
    assert main(["bundle", "verify", str(big), "--max-total-size", "1M"]) == 2
    assert "would expand to more than 1.0 MiB in all (--max-total-size)" in capsys.readouterr().err
    assert main(["bundle", "verify", str(big), "--max-total-size", "lots"]) == 2
    assert "size 'lots' is not a number of bytes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../../etc/cron.d/x", "a path that climbs out of the bundle (..)"),
        ("blobs/../../x", "a path that climbs out of the bundle (..)"),
        ("/etc/passwd", "an absolute path"),
        ("C:/Windows/x", "an absolute path"),
        ("blobs\\x", "a backslash in the name"),
        ("blobs/a\x1b[2Jb", "a control character in the name"),
        ("blobs//x", "an empty or '.' part in the path"),
    ],
)
def test_path_problems_are_named_as_path_problems(
    tmp_path: Path, name: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _zip(tmp_path, [name])
    for verb in (
        ["bundle", "verify", str(bad)],
        ["bundle", "import", str(bad), "--store", str(tmp_path / "s")],
    ):
        assert main(verb) == 2
        err = capsys.readouterr().err
        assert f"is a path problem: {problem}" in err and "hash" not in err
    assert not (tmp_path / "s" / "store.sqlite").exists() or Store(tmp_path / "s").runs() == []


def test_a_manifest_naming_a_path_is_a_path_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = dict(EMPTY_MANIFEST, files={"blobs/../../x": "a" * 64})
    assert main(["bundle", "verify", str(_zip(tmp_path, [], doc))]) == 2
    assert (
        "'blobs/../../x' is a path problem: a path that climbs out of the bundle"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(runs="x"), "manifest.runs must be a list, not text"),
        (
            lambda d: d["runs"][0].update(id="1"),
            "manifest.runs[0].id must be a whole number, not text",
        ),
        (
            lambda d: d["runs"][0]["targets"][0].update(result=5),
            "manifest.runs[0].targets[0].result must be text",
        ),
        (
            lambda d: d["runs"][0]["targets"][0].update(log_sha256=None),
            "log_sha256 must be text, not null",
        ),
        (lambda d: d.update(files=[]), "manifest.files must be an object, not a list"),
        (lambda d: d["runs"][0].update(argv=[1]), "manifest.runs[0].argv must be a list of text"),
        (
            lambda d: d.update(schema="torchparity.bundle/1"),
            "unknown bundle schema 'torchparity.bundle/1'",
        ),
        (lambda d: d.clear(), "manifest.schema is missing"),
    ],
)
def test_a_manifest_with_wrong_types_is_bad_input(
    tmp_path: Path, edit, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path / "a")
    fill(store)
    good = tmp_path / "ev.zip"
    assert main(["bundle", "export", "1", "-o", str(good), "--store", str(store.root)]) == 0
    entries = read_zip(good)
    doc = manifest(entries)
    edit(doc)
    entries["manifest.json"] = json.dumps(doc).encode()
    bad = write_zip(tmp_path / "bad.zip", entries)
    capsys.readouterr()
    for verb in (
        ["bundle", "verify", str(bad)],
        ["bundle", "import", str(bad), "--store", str(tmp_path / "s")],
    ):
        assert main(verb) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err and "internal error" not in err


def test_an_unreferenced_blob_is_a_problem_and_is_never_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(tmp_path / "a")
    fill(store)
    good = tmp_path / "ev.zip"
    assert main(["bundle", "export", "1", "-o", str(good), "--store", str(store.root)]) == 0
    entries = read_zip(good)
    extra = put(entries, b"a blob no run names\n")
    bad = write_zip(tmp_path / "bad.zip", entries)
    assert main(["bundle", "verify", str(bad)]) == 3
    assert f"blobs/{extra}: listed in the manifest but no run names it" in capsys.readouterr().out
    assert main(["bundle", "import", str(bad), "--store", str(tmp_path / "s")]) == 3
    assert not Store(tmp_path / "s").blobs.path(extra).exists()


def test_an_import_is_one_transaction(tmp_path: Path) -> None:
    """Run 1 of the bundle is fine, run 2 is broken: neither is imported, no blob of either stays;
    then the good bundle imports both, and a second import of it adds runs but no blob twice."""
    store = Store(tmp_path / "a")
    fill(store)
    good = tmp_path / "ev.zip"
    assert main(["bundle", "export", "1", "2", "-o", str(good), "--store", str(store.root)]) == 0
    entries = read_zip(good)
    doc = manifest(entries)
    doc["runs"][1]["result"] = "PASS"
    entries["manifest.json"] = json.dumps(doc).encode()
    bad = write_zip(tmp_path / "bad.zip", entries)
    dst = Store(tmp_path / "dst")
    before = dst.runs()
    assert main(["bundle", "import", str(bad), "--store", str(dst.root)]) == 3
    assert dst.runs() == before == []
    assert not [p for p in dst.blobs.root.rglob("*") if p.is_file()]
    assert main(["bundle", "import", str(good), "--store", str(dst.root)]) == 0
    blobs = sorted(p.name for p in dst.blobs.root.rglob("*") if p.is_file())
    assert [r.id for r in dst.runs()] == [2, 1] and dst.run(2).result == "FAIL"
    assert main(["bundle", "import", str(good), "--store", str(dst.root)]) == 0
    assert len(dst.runs()) == 4
    new = sorted(p.name for p in dst.blobs.root.rglob("*") if p.is_file())
    assert set(blobs) <= set(new) and len(new) == len(blobs) + 2  # only the two new runs' seals
    assert not [p for p in dst.blobs.root.iterdir() if p.name.startswith(".import-")]
