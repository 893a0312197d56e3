"""The probe (the ``measured`` family) on real APIs that got the fill-in before it.

Each API is scaffolded by a real agent, its file runs on the CPU and passes, and
runs again under a targeted break of the API, which must fail it:

* an argument made by another API (``torch.export.save`` of an ``ExportedProgram``
  that ``torch.export.export`` made; ``torch.export.load`` of the file ``save`` wrote),
  where an invalid call of ``save`` aborts the interpreter (each invalid call now
  runs in a child of its own);
* a sparse receiver for a sparse member (``Tensor.crow_indices``);
* index tensors where a failed call asked for int64 indices (``embedding``'s
  ``indices``, ``pack_padded_sequence``'s ``lengths``);
* a function of a number among the callables (``torch._dynamo.export`` captures it);
* ``_exit_X`` given what ``_enter_X`` returned, and the state after it;
* a scheduler made of two schedulers of one optimizer (``SequentialLR``);
* a set's method on a set holding one probe entry;
* a lazy module observed though its parameters have no shape yet.

A call whose only effect is a log record (``HealthCheckServer.start``) is measured: its test holds the
call in ``assertLogs`` with the message, and a ``start`` that logs nothing fails it.
"""

from __future__ import annotations

import pytest

from tests.scaffold.conftest import Case
from tests.scaffold.scaffold_run import _passes_and_fails_once_broken, _scaffold

pytestmark = pytest.mark.slow

CASES = (
    Case(
        "torch.export.save",
        "measured",  # saves nothing
        "torch.export.save = lambda ep, f, **kwargs: None",
    ),
    Case(
        "torch.export.load",
        "measured",  # loads another program
        "load = torch.export.load\n"
        "torch.export.load = lambda f, **kwargs: torch.export.export(torch.nn.Tanh(), (torch.ones(3),))",
    ),
    Case(
        "torch.Tensor.crow_indices",
        "measured|kinds",  # the kinds family, merged after, is tried first  # the column indices instead
        "torch.Tensor.crow_indices = torch.Tensor.col_indices",
    ),
    # the weight's rows in reverse below float64 (the OpInfo test, tried first since the wrapper entries are
    # found, compares with the same call in float64)
    Case(
        "torch.nn.functional.embedding",
        "measured|opinfo",
        "E = torch.nn.functional.embedding\n"
        "torch.nn.functional.embedding = lambda input, weight, *a, **k: E(\n"
        "    input, weight if weight.dtype == torch.float64 else weight.flip(0), *a, **k)",
    ),
    Case(
        "torch.nn.utils.rnn.pack_padded_sequence",
        "measured",  # every sequence taken at full length
        "P = torch.nn.utils.rnn.pack_padded_sequence\n"
        "torch.nn.utils.rnn.pack_padded_sequence = lambda input, lengths, *a, **k: P(\n"
        "    input, torch.full_like(lengths, int(lengths.max())), *a, **k)",
    ),
    Case(
        "torch._dynamo.export",
        "measured",  # captures no graph
        "import torch._dynamo\n"
        "torch._dynamo.export = lambda f, *a, **k: (lambda *args, **kwargs: (torch.fx.GraphModule("
        "torch.nn.Module(), torch.fx.Graph()), []))",
    ),
    Case(
        "torch.autograd.grad_mode._exit_inference_mode",
        "measured",  # leaves inference mode on
        "torch.autograd.grad_mode._exit_inference_mode = lambda mode: None",
    ),
    # the optim family's since it builds schedulers made of others too; the probe's recipe of it still
    # serves their members that family does not cover
    Case(
        "torch.optim.lr_scheduler.SequentialLR",
        "optim",  # each milestone one step late
        "S = torch.optim.lr_scheduler.SequentialLR\n"
        "class Late(S):\n"
        "    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):\n"
        "        super().__init__(optimizer, schedulers, [m + 1 for m in milestones], last_epoch)\n"
        "torch.optim.lr_scheduler.SequentialLR = Late",
    ),
    Case(
        "torch._dynamo.config.traceable_tensor_subclasses.add",
        "measured",  # a set that adds nothing
        "import torch._dynamo.config\n"
        "class Ignoring(set):\n"
        "    def add(self, item):\n"
        "        pass\n"
        "torch._dynamo.config.traceable_tensor_subclasses = Ignoring()",
    ),
    Case(
        "torch.nn.modules.LazyBatchNorm3d",
        "measured",  # no running statistics
        "L = torch.nn.LazyBatchNorm3d\n"
        "torch.nn.LazyBatchNorm3d = torch.nn.modules.LazyBatchNorm3d = (\n"
        "    lambda *a, **k: L(*a, track_running_stats=False, **k))",
    ),
)


def test_each_gets_a_measured_test_that_fails_once_broken(tmp_path_factory, tmp_path):
    pytest.importorskip("torch")
    results, _ = _scaffold(CASES, [c.api for c in CASES], tmp_path_factory.mktemp("probe"))
    for case in CASES:
        assert results[case.api].family in case.family.split("|"), (
            case.api,
            results[case.api].fill_in,
        )
    text = open(results["torch.export.load"].path).read()
    assert "torch.export.save(exported, path)" in text and "aten.relu.default" in text
    if (
        results["torch.nn.functional.embedding"].family == "measured"
    ):  # the index tensor a failed call asked for
        text = open(results["torch.nn.functional.embedding"].path).read()
        assert "torch.tensor([1, 0], device=DEVICE)" in text
    text = open(results["torch.autograd.grad_mode._exit_inference_mode"].path).read()
    assert (
        "_enter_inference_mode(True)" in text and "torch.is_inference_mode_enabled(), False" in text
    )
    _passes_and_fails_once_broken(CASES, results, tmp_path)


HCS = "torch.distributed.elastic.agent.server.health_check_server.HealthCheckServer"


def test_a_call_whose_only_effect_is_a_log_record_is_measured_and_fails_when_it_logs_nothing(
    tmp_path_factory, tmp_path
):
    """``HealthCheckServer.start`` only logs "No health check server started": the measured test holds the
    call in ``assertLogs`` with that message; a ``start`` that logs nothing fails it."""
    pytest.importorskip("torch")
    cases = (
        Case(
            f"{HCS}.start",
            "measured",
            f"import {HCS.rsplit('.', 1)[0]} as h\nh.HealthCheckServer.start = lambda self: None",
        ),
    )
    results, _ = _scaffold(cases, [c.api for c in cases], tmp_path_factory.mktemp("logs"))
    res = results[cases[0].api]
    assert res.family == "measured", res.fill_in
    text = open(res.path).read()
    assert "with self.assertLogs(" in text and "No health check server started" in text
    _passes_and_fails_once_broken(cases, results, tmp_path)
