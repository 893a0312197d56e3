"""``scaffold/measured.py`` from hand-written scenarios: members spelled through their class, saved state
restored, log records and warnings around the call, a device mesh built inside the ``try``.
"""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import _scenario, api_info, resolution
from torchparity.scaffold.measured import measured_plan
from torchparity.scaffold.plan import CannotDecide


# -- measured scenarios ----------------------------------------------------------------------------
def test_measured_plan_spells_members_through_their_class_and_restores_what_it_saved():
    zero_grad = api_info(
        resolution(
            "torch.optim.optimizer.Optimizer.zero_grad",
            "method",
            aliases=("torch.optim.Optimizer.zero_grad",),
            owner="torch.optim.optimizer.Optimizer",
            owner_kind="class",
        )
    )
    facts = {
        "probe": {
            "valid": [
                _scenario(
                    setup=[
                        "param = torch.nn.Parameter(torch.ones(2, device=DEVICE))",
                        "optimizer = torch.optim.SGD([param])",
                    ],
                    call="optimizer.zero_grad()",
                    receiver="optimizer",
                    checks=[["is", "param.grad", "None"]],
                )
            ],
            "invalid": [],
            "imports": [],
        }
    }
    plan = measured_plan(zero_grad, facts, "DEVICE")
    source = plan.methods[0].source
    assert (
        "result = torch.optim.Optimizer.zero_grad(optimizer)" in source
    )  # the API named in the call
    assert "self.assertIs(param.grad, None)" in source
    setter = api_info(resolution("torch.set_warn_always", "function"))
    facts = {
        "probe": {
            "valid": [
                _scenario(
                    setup=["saved_state = torch.is_warn_always_enabled()"],
                    call="_API_(True)",
                    checks=[["is", "torch.is_warn_always_enabled()", "True"]],
                    teardown=["_API_(saved_state)"],
                )
            ],
            "invalid": [_scenario(call="_API_(object())", raises="TypeError")],
            "imports": [],
        }
    }
    plan = measured_plan(setter, facts, "DEVICE")
    lines = plan.methods[0].source.splitlines()
    assert lines[1].strip() == "saved_state = torch.is_warn_always_enabled()"
    assert [line.strip() for line in lines[2:]] == [
        "try:",
        "result = torch.set_warn_always(True)",
        "self.assertIs(torch.is_warn_always_enabled(), True)",
        "finally:",
        "torch.set_warn_always(saved_state)",
    ]
    assert plan.tests == ["test_set_warn_always", "test_set_warn_always_invalid_arguments"]
    with pytest.raises(CannotDecide, match="nothing measured"):
        measured_plan(setter, {"probe": {"valid": [], "problem": "nothing measured"}}, "DEVICE")


def test_a_measured_log_record_or_warning_wraps_the_call():
    from torchparity.scaffold.measured import effect_wrapped

    lines = effect_wrapped(
        ["result = f()"],
        [
            ["logs", "pkg.mod", "WARNING:nothing started"],
            ["warns", "FutureWarning", "f is deprecated"],
        ],
    )
    assert lines == [
        "with self.assertWarns(FutureWarning) as warned1:",
        "    with self.assertLogs('pkg.mod', level='WARNING') as logged:",
        "        result = f()",
        "    self.assertIn('nothing started', [r.getMessage() for r in logged.records])",
        "self.assertIn('f is deprecated', [str(w.message) for w in warned1.warnings])",
    ]
    assert effect_wrapped(["f()"], []) == ["f()"]


def test_a_device_mesh_after_the_process_group_is_built_inside_the_try():
    ones = api_info(resolution("torch.distributed.tensor.ones", "function"))
    prelude = [
        "torch.distributed.init_process_group(backend=None, store=torch.distributed.HashStore(), rank=0, "
        "world_size=1)",
        "_MESH_ = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,))",
        "_MESH_.__enter__()",
    ]
    sc = _scenario(
        call="_API_()",
        checks=[["eq", "result.shape", "torch.Size([])"]],
        teardown=["torch.distributed.destroy_process_group()", "_MESH_.__exit__(None, None, None)"],
    )
    sc["prelude"] = prelude
    plan = measured_plan(ones, {"probe": {"valid": [sc], "invalid": [], "imports": []}}, "DEVICE")
    lines = [line.strip() for line in plan.methods[0].source.splitlines()]
    at_try = lines.index("try:")
    assert any(
        line.startswith("torch.distributed.init_process_group(") for line in lines[:at_try]
    ), lines
    assert any(
        line.startswith("_MESH_ = torch.distributed.device_mesh.init_device_mesh(")
        for line in lines[at_try:]
    ), lines
    assert lines.index("finally:") < lines.index("torch.distributed.destroy_process_group()")
