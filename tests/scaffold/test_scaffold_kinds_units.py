"""Which family stores, DDP hooks, packages, checkpoint protocols, fx hooks and ``torch.export`` go to,
and what their plans spell (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.checkpoint import checkpoint_plan
from torchparity.scaffold.core import _deferrable, _facts_request
from torchparity.scaffold.distributed import distributed_plan
from torchparity.scaffold.families import candidates
from torchparity.scaffold.graph import graph_plan
from torchparity.scaffold.package import package_plan
from torchparity.scaffold.plan import CannotDecide

C10D = "torch._C._distributed_c10d"
DCP = "torch.distributed.checkpoint"


def _member(
    owner: str, leaf: str, kind: str = "method", signature: str | None = None, alias: str = ""
):
    res = resolution(
        f"{owner}.{leaf}",
        kind,
        owner=owner,
        owner_kind="class",
        signature=signature,
        aliases=(alias,) if alias else (),
    )
    return api_info(res)


@pytest.mark.parametrize(
    ("info", "family"),
    [
        (_member(f"{C10D}.Store", "add", alias="torch.distributed.Store.add"), "distributed"),
        (
            api_info(
                resolution(f"{C10D}.HashStore", "class", aliases=("torch.distributed.HashStore",))
            ),
            "distributed",
        ),
        (
            api_info(
                resolution(
                    "torch.distributed.algorithms.ddp_comm_hooks.default_hooks.allreduce_hook",
                    "function",
                )
            ),
            "distributed",
        ),
        (_member("torch.package.package_exporter.PackageExporter", "add_dependency"), "package"),
        (_member(f"{DCP}.planner.LoadPlanner", "load_bytes"), "checkpoint"),
        (api_info(resolution("torch.export.export", "function")), "graph"),
    ],
)
def test_the_kind_goes_to_its_family_first(info, family):
    fams = candidates(info)
    assert fams[0] == family and fams[-1] == "fill-in"


def test_store_members_the_template_does_not_cover_are_not_decided():
    with pytest.raises(CannotDecide):
        distributed_plan(_member(f"{C10D}.Store", "queue_push"), {}, "DEVICE")
    with pytest.raises(CannotDecide):  # a port is a TCPStore's only
        distributed_plan(_member(f"{C10D}.HashStore", "port", kind="property"), {}, "DEVICE")
    plan = distributed_plan(_member(f"{C10D}.Store", "compare_set"), {}, "DEVICE")
    source = plan.methods[0].source
    assert f'{C10D}.Store.compare_set(store, "key", "value", "new")' in source
    assert 'store.add("counter", 2)' in source  # the other members through the instance


def test_a_protocol_member_runs_on_a_recording_subclass_of_the_default_class():
    plan = checkpoint_plan(
        _member(
            f"{DCP}.planner.LoadPlanner",
            "commit_tensor",
            signature="(self, read_item, tensor) -> None",
        ),
        {},
        "DEVICE",
    )
    source = plan.methods[0].source
    assert f"class Recording({DCP}.DefaultLoadPlanner):" in source
    assert "result = super().commit_tensor(*args, **kwargs)" in source
    assert "self.assertEqual(calls, [None] * len(calls))" in source  # annotated -> None
    plan = checkpoint_plan(_member(f"{DCP}.planner.LoadPlanner", "resolve_tensor"), {}, "DEVICE")
    assert "[None] * len(calls)" not in plan.methods[0].source
    with pytest.raises(CannotDecide):
        checkpoint_plan(_member(f"{DCP}.metadata.Metadata", "storage_data"), {}, "DEVICE")


def test_tracer_hooks_and_export_are_spelled_in_their_call():
    info = _member("torch.fx._symbolic_trace.Tracer", "to_bool")
    source = graph_plan(info, {}, "DEVICE").methods[0].source
    assert "torch.fx._symbolic_trace.Tracer.to_bool(probe, value)" in source
    assert "inputs to control flow" in source
    source = (
        graph_plan(api_info(resolution("torch.export.export", "function")), {}, "DEVICE")
        .methods[0]
        .source
    )
    assert "program = torch.export.export(net, (x.to(DEVICE),))" in source
    assert "torch.ops.aten.linear.default" in source


def test_package_members_outside_the_round_trip_are_not_decided():
    with pytest.raises(CannotDecide):
        package_plan(
            _member("torch.package.package_exporter.PackageExporter", "all_paths"), {}, "DEVICE"
        )
    plan = package_plan(
        _member("torch.package.package_importer.PackageImporter", "load_text"), {}, "DEVICE"
    )
    assert (
        'torch.package.package_importer.PackageImporter.load_text(importer, "notes", "a.txt")'
        in plan.methods[0].source
    )


def test_the_probe_waits_only_where_measured_alone_asks_for_it():
    store = _member(f"{C10D}.Store", "add", alias="torch.distributed.Store.add")
    assert _deferrable(store, "")
    assert "probe" not in _facts_request(store, None, "", probe=False)["wants"]
    assert "probe" in _facts_request(store, None, "")["wants"]
    module_member = _member(
        "torch.nn.modules.module.Module", "zero_grad"
    )  # the module family probes too
    assert not _deferrable(module_member, "")
