"""A run with a large test output travels in a bundle: export, verify and import agree on what fits.

The whole output is in the target's evidence log (a blob, streamed, up to 256 MiB an entry); the
target's JSON record keeps the head and tail of each step's output and says where the rest is, so it
stays well under the 16 MiB a JSON document may be. What export writes, import reads: a bundle that the
importer's limits would refuse is refused at export, naming the run and the blob.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fakeagent import RecordedAgent, load
from torchparity.cli import main
from torchparity.exec.fake import Answer, answering
from torchparity.exec.runners import Job
from torchparity.store import Store
from torchparity.store.bundle import export_bundle
from torchparity.store.bundle_zip import BundleLimits

API = "torch.autograd.grad_mode.set_grad_enabled.clone"
MIB = 1 << 20
RUN_FILE = next(r.answer for r in load("verify_seed_api") if r.op == "run_file")


def _big_output(size: int) -> str:
    line = "test_set_grad_enabled_clone (__main__.TestX) ... a chatty test prints this line again\n"
    text = "".join(f"{i:08d} {line}" for i in range(size // (len(line) + 9) + 1))
    return "HEAD OF THE OUTPUT\n" + text + "TAIL OF THE OUTPUT: Ran 2 tests\nOK\n"


def test_a_run_with_17_mib_of_test_output_exports_verifies_and_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    output = _big_output(17 * MIB)

    def run_file(job: Job) -> Answer:
        return Answer(
            result=RUN_FILE.result,
            output=output,
            status=RUN_FILE.status,
            exit_code=RUN_FILE.exit_code,
        )

    with answering(RecordedAgent.of("verify_seed_api", run_file=run_file)):
        assert main(["verify", API, "--python", sys.executable]) == 0, capsys.readouterr().err
    st = Store(".torchparity")
    (target,) = st.targets(1)
    log = st.blobs.read(target.log_sha or "")
    assert (
        len(log) > 16 * MIB and b"HEAD OF THE OUTPUT" in log and b"TAIL OF THE OUTPUT" in log
    )  # in the log
    record = st.blobs.read(target.record_sha or "")
    assert len(record) < 2 * MIB  # the record is no second copy of it
    full = json.loads(record)["full"][0]["output"]
    assert full.startswith("HEAD OF THE OUTPUT") and full.endswith(
        "TAIL OF THE OUTPUT: Ran 2 tests\nOK\n"
    )
    assert f"evidence log {target.log_sha}" in full

    capsys.readouterr()
    assert main(["bundle", "export", "1", "-o", "big.zip"]) == 0, capsys.readouterr().err
    assert main(["bundle", "verify", "big.zip"]) == 0, capsys.readouterr()
    assert main(["bundle", "import", "big.zip", "--store", "other"]) == 0, capsys.readouterr().err
    other = Store("other")
    (imported,) = other.targets(1)
    assert other.blobs.read(imported.log_sha or "") == log
    assert main(["show", "1", "--store", "other"]) == 0
    assert "TAIL OF THE OUTPUT" in capsys.readouterr().out


def test_export_refuses_a_json_document_import_would_refuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record over the 16 MiB a JSON document may be in a bundle (made by an older torchparity, or by
    a verb that keeps a big record): export says so, and writes nothing."""
    st = Store(tmp_path / "store")
    rid = st.new_run("note", ["note"])
    sha = st.put_record("note", "big", {"text": "x" * (17 * MIB)}, run_id=rid)
    st.finish_run(rid, "RECORDED")
    dest = tmp_path / "b.zip"
    assert main(["bundle", "export", str(rid), "-o", str(dest), "--store", str(st.root)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("ERROR: "), err
    assert f"run {rid}" in err and sha[:12] in err and "16.0 MiB" in err, err
    assert not dest.exists() and not list(tmp_path.glob("b.zip*"))


def test_export_checks_the_limits_import_reads_with(tmp_path: Path) -> None:
    """The limits are one ``BundleLimits``: a log over the entry limit is refused at export as import
    would refuse it (the defaults are 256 MiB an entry, 2 GiB in all, 100,000 entries)."""
    from torchparity.errors import UsageError

    st = Store(tmp_path / "store")
    rid = st.new_run("run", ["run"])
    st.add_target(
        rid,
        label="m@e",
        ref="m",
        env="e",
        result="PASS",
        log=b"x" * (2 * MIB),
        record={"label": "m@e", "ref": "m", "env": "e", "result": "PASS", "run_id": rid},
    )
    st.finish_run(rid, "PASS")
    small = BundleLimits(max_entry_bytes=MIB)
    with pytest.raises(UsageError, match=r"over the limit of 1\.0 MiB per entry"):
        export_bundle(st, [rid], tmp_path / "b.zip", limits=small)
    assert not (tmp_path / "b.zip").exists()
    with pytest.raises(UsageError, match="in all"):
        export_bundle(st, [rid], tmp_path / "b.zip", limits=BundleLimits(max_total_bytes=MIB))
    with pytest.raises(UsageError, match="entries"):
        export_bundle(st, [rid], tmp_path / "b.zip", limits=BundleLimits(max_entries=2))
    export_bundle(st, [rid], tmp_path / "b.zip")  # the defaults take it
