"""The Ray executor on a real local Ray cluster (``ray.cluster_utils.Cluster`` on this host): worker
nodes with an ``NPU`` resource labelled A2 and A3, environments bound to them by their Ray needs,
a batch whose jobs carry the agent and the ref's files, one acceptance comment across both, and a
node killed mid-batch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.batch.fixtures import PY, backend_repo, second_python, tasks_file
from torchparity.records.target import record_from_json
from torchparity.store import Store

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

pytestmark = pytest.mark.slow


#: hardware name and NPUs per environment: the A3 environment asks for (and its nodes have) two
NPUS = {"a2": ("Atlas A2", 1), "a3": ("Atlas A3", 2)}


def _config(path: Path, pythons: dict[str, str]) -> Path:
    """Both environments run torchparity's emulated NPU (no Ascend hardware here): the NPUs Ray
    gives a job (ASCEND_RT_VISIBLE_DEVICES) are the devices the emulated torch_npu shows it."""
    envs = "".join(
        f'[envs.{name}]\npython = "{py}"\nhardware = "{NPUS[name][0]}"\n'
        f'device = "npu"\nemulated = "npu"\n'
        f'ray = {{ resources = {{ NPU = {NPUS[name][1]} }}, labels = {{ product = "{name.upper()}" }} }}\n\n'
        for name, py in pythons.items()
    )
    path.write_text(f'test_roots = ["test"]\nactive_branches = ["master", "v2.11.0"]\n\n{envs}')
    return path


def _cluster(products: list[str]) -> tuple[Cluster, dict[str, list[str]]]:
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False}
    )
    nodes: dict[str, list[str]] = {}
    for product in products:
        npus = NPUS[product.lower()][1]
        node = cluster.add_node(num_cpus=1, resources={"NPU": npus}, labels={"product": product})
        nodes.setdefault(product, []).append(node.node_id)
    cluster.wait_for_nodes()
    return cluster, nodes


def _batch(
    tmp_path: Path, repo: Path, config: Path, address: str, apis: list[str]
) -> subprocess.CompletedProcess[str]:
    tasks = tasks_file(tmp_path / "tasks.txt", apis)
    return subprocess.run(
        [
            PY,
            "-m",
            "torchparity",
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--config",
            str(config),
            "--env",
            "a2",
            "--env",
            "a3",
            "--ray",
            address,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _records(store: Path) -> dict[tuple[str, str], object]:
    st = Store(store)
    out = {}
    for run in st.runs():
        if run.kind != "verify":
            continue
        api = run.argv[run.argv.index("--task") + 1]
        for t in st.targets(run.id):
            out[(api, t.label)] = record_from_json(st.read_json(t.record_sha))
    return out


def _node_of(rec: object) -> str:
    (note,) = [n for n in rec.notes if n.code == "ray_node"]  # type: ignore[attr-defined]
    return note.args["node"]


def test_batch_over_two_labelled_nodes_and_one_comment_across_them(tmp_path, make_repo):
    py3 = second_python(tmp_path / "env-a3")
    repo = backend_repo(make_repo, {"main": PY})
    config = _config(tmp_path / "ray.toml", {"a2": PY, "a3": py3})
    cluster, nodes = _cluster(["A2", "A3"])
    try:
        res = _batch(
            tmp_path, repo, config, cluster.address, ["torch.add", "torch.sub", "torch.mul"]
        )
    finally:
        cluster.shutdown()
    # every target passed; every task is a dry run on the emulated NPU, which verify says (exit 1)
    assert res.returncode == 1, res.stdout + res.stderr
    recs = _records(tmp_path / "store")
    assert len(recs) == 12 and {r.result for r in recs.values()} == {"PASS"}  # type: ignore[attr-defined]
    for (_api, label), rec in recs.items():
        env = label.split("@")[1]
        # each environment's jobs ran on the node its labels chose, and its probe is that node's
        assert _node_of(rec) == nodes[env.upper()][0][:12]
        facts = rec.probe_facts  # type: ignore[attr-defined]
        assert facts["python_executable"] == (PY if env == "a2" else py3)
        # the NPUs Ray gave the job are the devices the emulated torch_npu on that node shows
        npus = NPUS[env][1]
        assert facts["environ_ASCEND_RT_VISIBLE_DEVICES"] == ",".join(str(i) for i in range(npus))
        assert (facts["device_type"], facts["npu_device_count"], facts["torch_npu_emulated"]) == (
            "npu",
            npus,
            "cpu",
        )
        assert rec.emulated == "npu"  # type: ignore[attr-defined]
        assert rec.hardware == {"a2": "Atlas A2", "a3": "Atlas A3"}[env]  # type: ignore[attr-defined]
        (full,) = rec.full  # type: ignore[attr-defined]
        # the file ran from the ref's archive shipped to the node, with the same bytes as checked out here
        assert "from a git archive of the ref shipped with the job" in full.how
        assert "/trees/" in full.command and rec.test_files[0].abs_path not in full.command  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "out" / "batch-summary.json").read_text())
    assert summary["ray_envs"] == ["a2", "a3"]
    for task in summary["tasks"]:
        assert [b.split(":")[0] for b in task["blockers"]] == ["EMULATED"], task
    comment = (tmp_path / "out" / "torch_add" / "comment.zh.md").read_text()
    assert (
        "试运行（dry run）" in comment
    )  # the emulation is said, not passed off as hardware evidence
    sections = comment.split("\n#### ")[1:]
    seen = []
    for section in sections:
        header = section.split("\n", 1)[
            0
        ]  # "a2（master@a2）": the environment, as no hardware was seen
        if "@" not in header:
            continue
        env = header.rsplit("@", 1)[1].rstrip("）")
        hardware, npus = NPUS[env]
        seen.append(header)
        # each environment's section: its configured hardware, its own probe facts, its node
        assert f"配置为 {hardware}" in section, section
        assert f"- 设备：{npus} 张 Emulated NPU (CPU)（仿真，不是硬件证据）" in section, section
        assert f"在 Ray 节点 `{nodes[env.upper()][0][:12]}`" in section, section
    assert sorted(seen) == [
        "a2（master@a2）",
        "a2（v2.11.0@a2）",
        "a3（master@a3）",
        "a3（v2.11.0@a3）",
    ], seen


def _ancestors(pid: int) -> list[int]:
    out = []
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        out.append(pid)
    return out


def test_a_node_killed_mid_batch_is_said_and_its_targets_retried_on_another(
    tmp_path, make_repo, monkeypatch
):
    py3 = second_python(tmp_path / "env-a3")
    repo = backend_repo(make_repo, {"main": PY})
    config = _config(tmp_path / "ray.toml", {"a2": PY, "a3": py3})
    flag = tmp_path / "hang.pid"
    # the nodes' processes see these: the first a3 test run hangs until its node is killed
    monkeypatch.setenv("TORCHPARITY_TEST_HANG_FLAG", str(flag))
    monkeypatch.setenv("TORCHPARITY_TEST_HANG_PY", py3)
    cluster, nodes = _cluster(["A2", "A3", "A3"])
    tasks = tasks_file(tmp_path / "tasks.txt", ["torch.add"])
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "torchparity",
            "batch",
            str(tasks),
            "--repo",
            str(repo),
            "--config",
            str(config),
            "--env",
            "a2",
            "--env",
            "a3",
            "--ray",
            cluster.address,
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    killed = ""
    try:
        deadline = time.monotonic() + 300
        while not flag.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert flag.exists(), proc.communicate()[0] if proc.poll() is not None else "no hang"
        time.sleep(0.2)
        hung = int(flag.read_text())
        chain = set(_ancestors(hung))
        (node,) = [
            n for n in cluster.list_all_nodes() if n.all_processes["raylet"][0].process.pid in chain
        ]
        killed = node.node_id
        cluster.remove_node(node, allow_graceful=False)
        for pid in (
            hung,
            _ancestors(hung)[0] if _ancestors(hung) else hung,
        ):  # the host's processes die with it
            try:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        output, _ = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        cluster.shutdown()
    print(output)  # what the user sees (pytest -s)
    assert proc.returncode == 1, (
        output
    )  # all passed, on the emulated NPU: a dry run (EMULATED), exit 1
    recs = _records(tmp_path / "store")
    assert {label: r.result for (_a, label), r in recs.items()} == {  # type: ignore[attr-defined]
        "master@a2": "PASS",
        "master@a3": "PASS",
        "v2.11.0@a2": "PASS",
        "v2.11.0@a3": "PASS",
    }
    spare = next(n for n in nodes["A3"] if n != killed)
    retried = [r for (_a, label), r in recs.items() if label.endswith("@a3")]
    assert any(
        any(n.code == "node_lost_retried" and n.args["node"] == killed[:12] for n in r.notes)  # type: ignore[attr-defined]
        for r in retried
    )
    for r in retried:
        assert _node_of(r) == spare[:12]  # each a3 target's record is of the spare node's run
    for (_a, label), r in recs.items():
        if label.endswith("@a2"):
            assert _node_of(r) == nodes["A2"][0][:12]
            assert not [n for n in r.notes if n.code.startswith("node_lost")]  # type: ignore[attr-defined]
    comment = (tmp_path / "out" / "torch_add" / "comment.zh.md").read_text()
    assert f"首次尝试所在的 Ray 节点 `{killed[:12]}` 已丢失" in comment
    assert "lost" in output
