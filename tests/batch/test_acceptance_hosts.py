"""One acceptance comment across hardware from hosts without a shared cluster: each host verifies
in its own environment and exports a bundle; one store imports them all; ``report R1 R2 --kind
comment`` states each environment's own probe facts and evidence hash."""

from __future__ import annotations

import re

import pytest

from tests.batch.fixtures import PY, backend_repo, second_python
from torchparity.cli import main
from torchparity.store import Store

pytestmark = pytest.mark.slow


def test_bundles_of_two_hosts_make_one_comment(tmp_path, make_repo, capsys):
    py2 = second_python(tmp_path / "env2")
    repo = backend_repo(make_repo, {"a2": PY, "a3": py2})
    bundles = []
    for env in ("a2", "a3"):  # one "host" each: its own store, its own environment
        store = tmp_path / f"store-{env}"
        rc = main(
            [
                "verify",
                "torch.add",
                "--repo",
                str(repo),
                "--ref",
                "master",
                "--env",
                env,
                "--out",
                str(tmp_path / f"out-{env}"),
                "--store",
                str(store),
            ]
        )
        assert rc == 0, capsys.readouterr()
        (run,) = Store(store).runs()
        bundle = tmp_path / f"{env}.zip"
        assert (
            main(["bundle", "export", str(run.id), "--output", str(bundle), "--store", str(store)])
            == 0
        )
        bundles.append((bundle, run.uid, Store(store).targets(run.id)[0].log_sha))
    merged = tmp_path / "merged"
    for bundle, _uid, _sha in bundles:
        assert main(["bundle", "import", str(bundle), "--store", str(merged)]) == 0
    capsys.readouterr()
    out = tmp_path / "comment.md"
    assert (
        main(
            [
                "report",
                bundles[0][1][:12],
                bundles[1][1][:12],
                "--kind",
                "comment",
                "--out",
                str(out),
                "--store",
                str(merged),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "CPU host a2" in text and "CPU host a3" in text  # both configured hardware names
    for _bundle, uid, sha in bundles:
        assert sha in text and uid[:12] in text  # each environment's own evidence, by hash and run
    sections = re.split(r"^#### ", text, flags=re.M)
    a2 = next(s for s in sections if s.startswith("a2"))
    a3 = next(s for s in sections if s.startswith("a3"))
    assert bundles[0][2] in a2 and bundles[1][2] in a3
