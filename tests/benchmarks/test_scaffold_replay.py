"""scaffold_replay renders kept facts again and tells a change of any file from none."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.benchmarks.bench_module import load
from tests.scaffold.scaffold_fixtures import api_info, resolution
from tests.scaffold.test_scaffold_facts_schema import SEED


def _replay_module() -> ModuleType:
    return load("scaffold_replay")


def test_the_same_facts_replay_to_the_same_files_and_a_changed_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _replay_module()
    folder = tmp_path / "out" / "torch.random.seed"
    folder.mkdir(parents=True)
    info = api_info(resolution("torch.random.seed", "function"))
    (folder / "info.json").write_text(json.dumps(info.to_json()))
    (folder / "facts.json").write_text(json.dumps(SEED))

    kept = bench.replay(tmp_path / "out")
    chosen = kept["torch.random.seed"]
    assert chosen["family"] == "measured" and "def test_" in chosen["content"]
    assert chosen["candidates"]  # each candidate family's file, not only the chosen one
    assert bench.compare(kept, bench.replay(tmp_path / "out")) == 0
    assert "1 APIs replayed; 0 differ" in capsys.readouterr().out

    changed = json.loads(json.dumps(kept))
    changed["torch.random.seed"]["content"] = chosen["content"].replace("def test_", "def tst_", 1)
    assert bench.compare(changed, bench.replay(tmp_path / "out")) == 1
    out = capsys.readouterr().out
    assert "torch.random.seed: chosen file" in out and "1 differ" in out


def test_a_folder_without_kept_facts_is_one_error_line(tmp_path: Path) -> None:
    bench = _replay_module()
    with pytest.raises(SystemExit, match="no API folder with info.json"):
        bench.replay(tmp_path)
