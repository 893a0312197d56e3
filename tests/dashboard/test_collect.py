"""The store's facts as the dashboard collects them: a state per API, branch and product from the
newest run, emulated targets under their environment's name and marked, the burndown per run."""

from __future__ import annotations

from dataclasses import replace

from tests.dashboard.dashboard_fixtures import (
    CLONE,
    RELU,
    TENSOR_CLONE,
    ZERO_GRAD,
    add_target,
    build_store,
    target,
)
from torchparity.dashboard import collect
from torchparity.dashboard.model import Dashboard
from torchparity.records.task import TaskRecord
from torchparity.store import Store, put


def _grid(dash: Dashboard) -> dict[str, dict[str, tuple[str, str]]]:
    """{api: {column: (state, emulated)}} of the cells that have evidence."""
    return {
        row.api: {
            col.key: (cell.state, cell.emulated)
            for col, cell in zip(dash.columns, row.cells, strict=True)
            if cell is not None
        }
        for row in dash.rows
    }


def test_each_cell_is_the_newest_state_of_its_api_branch_and_product(tmp_path) -> None:
    store, ids = build_store(tmp_path)
    dash = collect(store)
    assert [c.key for c in dash.columns] == [
        "master · Atlas A2",
        "master · Atlas A3",
        "master · emu",
        "master · local",
        "v2.7.1 · Atlas A2",
        "v2.7.1 · emu",
    ]
    assert [r.api for r in dash.rows] == [CLONE, RELU, ZERO_GRAD, TENSOR_CLONE]
    assert _grid(dash) == {
        # master on A3 failed in run 1 and passed in run 5 (under an alias its verify record folds)
        CLONE: {
            "master · Atlas A2": ("PASS", ""),
            "master · Atlas A3": ("PASS", ""),
            "v2.7.1 · Atlas A2": ("PASS", ""),
        },
        ZERO_GRAD: {
            "master · Atlas A2": ("PASS", ""),
            "master · Atlas A3": ("PASS", ""),
            "v2.7.1 · Atlas A2": ("NONE_RAN", ""),
        },
        RELU: {"master · emu": ("PASS", "npu"), "v2.7.1 · emu": ("MISMATCH", "npu")},
        TENSOR_CLONE: {"master · local": ("PASS", "")},
    }
    a3 = dash.rows[0].cells[1]
    assert a3 is not None and a3.runs == 2 and a3.evidence.run_id == ids[4]
    assert a3.evidence.label == "master@a3"
    assert a3.evidence.show_command == f"torchparity show {ids[4]} --target master@a3"
    assert a3.evidence.log_sha256 == store.targets(ids[4])[0].log_sha
    assert dash.runs == 5 and [s.run_id for s in dash.skipped] == [ids[5]]


def test_an_emulated_target_is_marked_and_never_stands_under_a_hardware_name(tmp_path) -> None:
    store, _ = build_store(tmp_path)
    dash = collect(store)
    emu = [c for c in dash.columns if c.product == "emu"]
    assert emu and not any(c.hardware for c in emu)  # Atlas A2 is configured, but was not seen
    relu = next(r for r in dash.rows if r.api == RELU)
    assert relu.hardware_passes(dash.columns) == 0
    assert all(c is None or c.emulated == "npu" for c in relu.cells)
    # a plain CPU environment without hardware stands under its name too, not as emulated
    local = next(c for c in dash.columns if c.product == "local")
    assert not local.hardware
    clone = next(r for r in dash.rows if r.api == CLONE)
    assert clone.hardware_passes(dash.columns) == 3
    assert dash.state_counts()["emulated"] == 2


def test_an_emulated_run_on_the_same_env_as_hardware_splits_the_column(tmp_path) -> None:
    """An emulated record whose environment names hardware: under the environment's name, while the
    same hardware's real runs stay under the product's."""
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify", CLONE])
    put(store, TaskRecord(api=CLONE), rid, CLONE)
    emulated = replace(target("master", "a2", "FAIL"), emulated="npu", env="a2-emu")
    for rec in (target("master", "a2", "PASS"), replace(emulated, label="master@a2-emu")):
        add_target(store, rid, rec)
    store.finish_run(rid, "FAIL")
    dash = collect(store)
    assert _grid(dash) == {
        CLONE: {"master · Atlas A2": ("PASS", ""), "master · a2-emu": ("FAIL", "npu")}
    }


def test_two_environments_of_one_run_on_one_product_show_the_worse_state(tmp_path) -> None:
    store = Store(tmp_path / "store")
    rid = store.new_run("verify", ["verify", CLONE])
    put(store, TaskRecord(api=CLONE), rid, CLONE)
    for env, result in (("a2", "PASS"), ("a2b", "FAIL")):
        add_target(
            store, rid, replace(target("master", "a2", result), env=env, label=f"master@{env}")
        )
    store.finish_run(rid, "FAIL")
    dash = collect(store)
    assert _grid(dash) == {CLONE: {"master · Atlas A2": ("FAIL", "")}}
    cell = dash.rows[0].cells[0]
    assert cell is not None and cell.evidence.label == "master@a2b" and cell.runs == 1


def test_the_burndown_counts_the_passing_apis_after_each_run(tmp_path) -> None:
    store, ids = build_store(tmp_path)
    burn = collect(store).burndown
    assert [s.name for s in burn.series] == [
        "master · Atlas A2",
        "master · Atlas A3",
        "master · emu (emulated)",
        "master · local",
        "v2.7.1 · Atlas A2",
        "v2.7.1 · emu (emulated)",
    ]
    assert [(p.run_id, p.passing) for p in burn.points] == [
        (ids[0], (1, 0, 0, 0, 1, 0)),
        (ids[1], (2, 1, 0, 0, 1, 0)),
        (ids[2], (2, 1, 1, 0, 1, 0)),
        (ids[3], (2, 1, 1, 1, 1, 0)),
        (ids[4], (2, 2, 1, 1, 1, 0)),
    ]
    assert [p.when for p in burn.points] == sorted(p.when for p in burn.points)


def test_an_empty_store_is_an_empty_dashboard(tmp_path) -> None:
    dash = collect(Store(tmp_path / "store"))
    assert dash.rows == () and dash.columns == () and dash.runs == 0
    assert dash.burndown.points == ()


def test_a_row_names_the_names_it_was_asked_by_and_the_filter_reads_them(tmp_path) -> None:
    """On Ascend/pytorch, the task torch.nn.functional.avg_pool3d showed only as its canonical
    torch._C._nn.avg_pool3d: a reader looking for the task's name could not find its row."""
    from tests.dashboard.dashboard_fixtures import CLONE_ALIAS
    from torchparity.dashboard.render import render_page

    store, _ = build_store(tmp_path)
    dash = collect(store)
    (clone,) = [r for r in dash.rows if r.api == CLONE]
    assert clone.names == (CLONE_ALIAS,)
    assert all(r.names == () for r in dash.rows if r.api != CLONE)
    page = render_page(dash)
    assert (
        f'data-names="{CLONE_ALIAS}"' in page and f'<div class="asked">{CLONE_ALIAS}</div>' in page
    )
