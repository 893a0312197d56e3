"""Scaffold parts without an interpreter: names, state rules, conventions, plans from facts, rendering."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RUFF_BIN
from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.config import load_preset
from torchparity.errors import UsageError
from torchparity.scaffold import build_plan, candidates, conventions_from, dtypes_from_text
from torchparity.scaffold.plan import COVERAGE_DIMENSIONS, spelling_of, stem_of
from torchparity.scaffold.render import render_file
from torchparity.scaffold.states import relation

CLONE = resolution(
    "torch.autograd.grad_mode.set_grad_enabled.clone",
    "method",
    aliases=("torch.set_grad_enabled.clone", "torch.autograd.set_grad_enabled.clone"),
    owner="torch.autograd.grad_mode.set_grad_enabled",
    owner_kind="context-manager",
)


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("res", "spelling", "stem", "file", "cls"),
    [
        (
            CLONE,
            "torch.set_grad_enabled.clone",
            "set_grad_enabled_clone",
            "test_set_grad_enabled_clone.py",
            "TestSetGradEnabledClone",
        ),
        (
            resolution("torch._utils._get_device_index", "function"),
            "torch._utils._get_device_index",
            "get_device_index",
            "test_get_device_index.py",
            "TestGetDeviceIndex",
        ),
        (
            resolution("torch.Tensor.ndim", "property", owner="torch.Tensor"),
            "torch.Tensor.ndim",
            "tensor_ndim",
            "test_tensor_ndim.py",
            "TestTensorNdim",
        ),
        (
            resolution("torch.BoolStorage", "storage-class"),
            "torch.BoolStorage",
            "BoolStorage",
            "test_bool_storage.py",
            "TestBoolStorage",
        ),
        (
            resolution("torch.cpu.synchronize", "function", module="torch.cpu"),
            "torch.cpu.synchronize",
            "cpu_synchronize",
            "test_cpu_synchronize.py",
            "TestCpuSynchronize",
        ),
    ],
)
def test_names(res, spelling, stem, file, cls):
    assert spelling_of(res) == spelling
    assert stem_of(res) == stem
    plan = build_plan(api_info(res), {}, "DEVICE")  # no facts: the fill-in family
    assert (plan.file_name, plan.class_name, plan.tests) == (file, cls, [f"test_{stem}"])


def test_test_names_keep_what_the_collector_selects_by():
    from torchparity.names import name_patterns as api_patterns

    for res in (
        CLONE,
        resolution("torch._utils._get_device_index", "function"),
        resolution(
            "torch.autograd.grad_mode.set_grad_enabled.__enter__",
            "method",
            owner="torch.autograd.grad_mode.set_grad_enabled",
            owner_kind="context-manager",
        ),
    ):
        name = f"test_{stem_of(res)}"
        assert any(p in name for p in api_patterns(res.canonical)), name


def test_candidate_families_by_kind():
    def fams(res, backend=""):
        return candidates(api_info(res), backend)

    assert fams(CLONE) == ["context", "doctest", "measured", "fill-in"]
    assert fams(resolution("torch.add", "builtin")) == [
        "opinfo",
        "doctest",
        "signature",
        "kinds",
        "measured",
        "fill-in",
    ]
    assert fams(resolution("torch.Tensor.add_", "method", owner="torch.Tensor")) == [
        "opinfo",
        "tensor",
        "doctest",
        "kinds",
        "measured",
        "fill-in",
    ]
    assert fams(resolution("torch.Tensor.ndim", "property", owner="torch.Tensor")) == [
        "tensor",
        "doctest",
        "kinds",
        "measured",
        "fill-in",
    ]
    assert fams(resolution("torch.UntypedStorage", "storage-class")) == [
        "storage",
        "doctest",
        "measured",
        "fill-in",
    ]
    assert fams(resolution("torch.cuda.synchronize", "function", module="torch.cuda")) == [
        "runtime",
        "doctest",
        "measured",
        "fill-in",
    ]
    assert fams(
        resolution("torch_npu.npu.synchronize", "function", module="torch_npu.npu"), "torch_npu"
    ) == ["runtime", "doctest", "measured", "fill-in"]
    # the families of issue 16 come first for their kinds
    assert fams(resolution("torch.nn.Linear", "class"))[0] == "module"
    assert (
        fams(resolution("torch.nn.Module.state_dict", "method", owner="torch.nn.Module"))[0]
        == "module"
    )
    assert fams(resolution("torch.optim.SGD", "class"))[0] == "optim"
    assert fams(resolution("torch.save", "function"))[0] == "serialization"
    assert (
        fams(resolution("torch.UntypedStorage.cpu", "method", owner="torch.UntypedStorage"))[0]
        == "serialization"
    )
    assert fams(resolution("torch.utils.data.DataLoader", "class"))[0] == "data"
    assert fams(resolution("torch.fx.Node.next", "property", owner="torch.fx.Node"))[0] == "graph"
    assert fams(resolution("torch.compile", "function"))[0] == "graph"
    assert (
        fams(resolution("torch.Generator.get_state", "method", owner="torch.Generator"))[0]
        == "generator"
    )
    assert fams(resolution("torch.hub", "module")) == ["fill-in"]


# -- state rules from measurements -------------------------------------------------------------
def _runs(rule):
    return [
        {"args": [m], "before": {"s": b}, "inside": {"s": rule(m, b)}}
        for m in (False, True)
        for b in (False, True)
    ]


@pytest.mark.parametrize(
    ("rule", "expr"),
    [
        (lambda m, b: m, "mode"),
        (lambda m, b: not m, "not mode"),
        (lambda m, b: False, "False"),
        (lambda m, b: b, "outer"),
        (lambda m, b: not b, "not outer"),
        (lambda m, b: False if m else b, "False if mode else outer"),
        (lambda m, b: b if m else True, "outer if mode else True"),
    ],
)
def test_relation_reads_a_rule_off_the_runs(rule, expr):
    assert relation(_runs(rule), "inside", "s", "outer", True) == expr


def test_relation_without_mode_and_when_another_state_decides():
    runs = [{"args": [], "before": {"s": b}, "inside": {"s": False}} for b in (False, True)]
    assert relation(runs, "inside", "s", "outer", False) == "False"
    clash = [
        {"args": [True], "before": {"s": True, "t": t}, "inside": {"s": t}} for t in (False, True)
    ]
    assert relation(clash, "inside", "s", "outer", True) is None


# -- dtypes and conventions --------------------------------------------------------------------
def test_dtypes_from_docs_text():
    assert dtypes_from_text("支持fp16、fp32、bf16") == ["float16", "float32", "bfloat16"]
    assert dtypes_from_text("float32 and double, FLOAT32 again; int64") == [
        "float32",
        "float64",
        "int64",
    ]
    assert dtypes_from_text("不支持复数") == []


def test_conventions_from_presets():
    npu = conventions_from(load_preset("torch_npu"))
    assert npu.testcase_module == "torch_npu.testing.testcase"
    assert npu.coverage_table and npu.test_dir == "test/npu" and npu.device_variable == "DEVICE"
    header = npu.header(2031)
    assert (
        header.startswith("# Copyright (c) 2031 Huawei Technologies Co., Ltd\n")
        and "{year}" not in header
    )
    cpu = conventions_from(load_preset("cpu"))  # keys the preset lacks take the defaults
    assert (cpu.copyright, cpu.coverage_table, cpu.test_dir) == ("", False, "test")
    assert cpu.header() == ""


@pytest.mark.parametrize(
    ("table", "fragment"),
    [
        (
            {"testcase_import": "import unittest"},
            "must be 'from MODULE import TestCase, run_tests'",
        ),
        ({"testcase_import": "from x import TestCase"}, "does not import run_tests"),
        ({"device_variable": "the device"}, "is not a Python name"),
    ],
)
def test_bad_conventions_are_one_line_usage_errors(table, fragment):
    base = load_preset("default")
    config = type(base)(**{**base.__dict__, "scaffold": {**base.scaffold, **table}})
    with pytest.raises(UsageError, match=fragment) as exc:
        conventions_from(config)
    assert "\n" not in str(exc.value)


# -- plans from facts (as the agent measures them) ------------------------------------------------
def _context_facts(rule_inside, rule_construct=lambda m, b: b, decorator=True):
    runs = []
    for m in (False, True):
        for b in (False, True):
            runs.append(
                {
                    "args": [m],
                    "outer": {"grad_mode": b},
                    "before": {"grad_mode": b},
                    "after_construct": {"grad_mode": rule_construct(m, b)},
                    "inside": {"grad_mode": rule_inside(m, b)},
                    "after_exit": {"grad_mode": b},
                }
            )
    druns = [
        {"args": [m], "before": {"grad_mode": b}, "inside": {"grad_mode": rule_inside(m, b)}}
        for m in (False, True)
        for b in (False, True)
    ]
    return {
        "device_type": "cpu",
        "torch_version": "2.13.0+cpu",
        "python_version": "3.8",
        "context": {
            "states": [{"name": "grad_mode", "available": True, "values": [False, True]}],
            "member": "clone",
            "runs": runs,
            "decorator_runs": druns if decorator else [],
            "decorator": decorator,
            "params": ["mode"],
            "mode_param": "mode",
            "mode_attrs": ["mode"],
            "problem": "",
        },
    }


def _ruff_ok(path: Path) -> str:
    proc = subprocess.run(
        [
            RUFF_BIN,
            "check",
            "--isolated",
            "--select",
            "E,F,W,I,B,UP",
            "--line-length",
            "100",
            "--target-version",
            "py38",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    return "" if proc.returncode == 0 else proc.stdout


def _npu_file(plan):
    """The plan's file with the torch_npu preset's conventions, for the NPU, torch 2.7.1, in 2026."""
    return render_file(
        plan,
        conventions_from(load_preset("torch_npu")),
        device_line='DEVICE = torch.device("npu:0")',
        device_type="npu",
        torch_version="2.7.1",
        year=2026,
    )


@pytest.mark.slow
def test_context_plan_asserts_the_measured_rules(tmp_path):
    plan = build_plan(api_info(CLONE), _context_facts(lambda m, b: m), "DEVICE")
    assert plan.family == "context"
    assert plan.tests == ["test_set_grad_enabled_clone", "test_set_grad_enabled_clone_decorator"]
    body = "".join(m.source for m in plan.methods)
    assert "self.assertIsNot(cloned, ctx)" in body
    assert "self.assertIsInstance(cloned, torch.set_grad_enabled)" in body
    assert "self.assertEqual(cloned.mode, mode)" in body
    assert (
        "with torch.enable_grad() if outer else torch.no_grad():" in body
    )  # not the class under test
    assert (
        "decorator = torch.set_grad_enabled(mode).clone()" in body
    )  # Python 3.8: no @f(x).clone()
    assert "self.assertEqual(result.requires_grad, mode)" in body
    text = _npu_file(plan)
    path = tmp_path / plan.file_name
    path.write_text(text)
    ast.parse(text)
    assert _ruff_ok(path) == ""
    assert text.startswith("# Copyright (c) 2026 Huawei")
    assert '"""Validation cases for torch.autograd.grad_mode.set_grad_enabled.clone on NPU.' in text
    assert all(f"- {dim}：" in text for dim in COVERAGE_DIMENSIONS)
    assert "from torch_npu.testing.testcase import TestCase, run_tests" in text
    assert 'DEVICE = torch.device("npu:0")' in text


def test_the_chinese_coverage_list_holds_no_english_sentence():
    """The docstring's English part says what the file validates and what wrote it; the Chinese
    coverage list (API 覆盖说明) after it holds its dimensions and nothing else."""
    text = _npu_file(build_plan(api_info(CLONE), _context_facts(lambda m, b: m), "DEVICE"))
    doc = ast.get_docstring(ast.parse(text)) or ""
    english, heading, coverage = doc.partition("API 覆盖说明（")
    assert (
        heading
        and "Generated by torchparity scaffold (context family) with torch 2.7.1." in english
    )
    # an English sentence: three or more words of Latin letters in a row (API names are single words)
    sentences = re.findall(r"[A-Za-z][a-z]+(?:[ ,;:]+[a-z][a-z']*){2,}", coverage)
    assert sentences == [], sentences
    assert [ln.split("：")[0] for ln in coverage.splitlines() if ln.startswith("- ")] == [
        f"- {dim}" for dim in COVERAGE_DIMENSIONS
    ]


def test_context_rule_that_follows_nothing_falls_back_to_a_failing_test():
    facts = _context_facts(lambda m, b: m)
    facts["context"]["runs"][0]["inside"]["grad_mode"] = True  # one start value disagrees
    facts["context"]["runs"].append(dict(facts["context"]["runs"][0], inside={"grad_mode": False}))
    plan = build_plan(api_info(CLONE), facts, "DEVICE")
    assert plan.family == "fill-in" and plan.fill_in
    assert "follows no rule" in plan.fill_in[0]
    assert "self.fail(" in plan.methods[0].source


def _opinfo_facts(reference="numpy", dtypes=("float32", "float16"), errors=0, call="function"):
    return {
        "device_type": "npu" if reference == "cpu" else "cpu",
        "torch_version": "2.13.0",
        "opinfo": {
            "found": True,
            "name": "nn.functional.relu",
            "variant_test_name": "",
            "call": call,
            "reference": reference,
            "dtypes": list(dtypes),
            "excluded": [{"dtype": "bool", "reason": "not listed"}],
            "tolerances": {"float16": [0.001, 0.001]},
            "error_inputs": {"count": errors},
        },
    }


@pytest.mark.slow
@pytest.mark.parametrize("reference", ["numpy", "float64", "cpu"])
def test_opinfo_plan_per_reference(tmp_path, reference):
    res = resolution("torch.nn.functional.relu", "function")
    plan = build_plan(api_info(res), _opinfo_facts(reference, errors=2), "DEVICE")
    assert plan.family == "opinfo" and plan.tests == ["test_relu", "test_relu_error_inputs"]
    body = "".join(m.source for m in plan.methods)
    assert "torch.nn.functional.relu(dev.input, *dev.args, **dev.kwargs)" in body
    assert {"numpy": "op.ref(", "float64": "widen=True", "cpu": 'self._sample_to(sample, "cpu")'}[
        reference
    ] in body
    assert "# bool left out: not listed" in body
    assert "for dtype in (torch.float32, torch.float16):" in body
    text = render_file(
        plan,
        conventions_from(load_preset("default")),
        device_line='DEVICE = torch.device("cpu")',
        device_type="cpu",
        torch_version="2.13.0",
    )
    path = tmp_path / plan.file_name
    path.write_text(text)
    assert _ruff_ok(path) == ""


@pytest.mark.slow
def test_opinfo_plan_on_a_device_keeps_an_independent_reference(tmp_path):
    """On another device the result meets the NumPy reference and the CPU's; a dtype with no
    independent reference gets a loop of its own against the CPU only."""
    facts = _opinfo_facts("numpy")
    facts["device_type"] = "npu"
    facts["opinfo"].update(cpu_reference=True, cpu_dtypes=["int64"])
    plan = build_plan(api_info(resolution("torch.nn.functional.relu", "function")), facts, "DEVICE")
    body = "".join(m.source for m in plan.methods)
    assert body.count("for dtype in (") == 2 and "for dtype in (torch.int64,):" in body
    assert "expected = op.ref(ref.input, *ref.args, **ref.kwargs)" in body
    assert "on_cpu = torch.nn.functional.relu(cpu.input, *cpu.args, **cpu.kwargs)" in body
    assert "self._assert_matches(actual, on_cpu, dtype)" in body
    assert (
        "with the OpInfo's NumPy reference and with the CPU result (int64: with the CPU result only)"
        in (plan.summary)
    )
    text = render_file(
        plan,
        conventions_from(load_preset("default")),
        device_line='DEVICE = torch.device("cpu")',
        device_type="npu",
        torch_version="2.13.0",
    )
    path = tmp_path / plan.file_name
    path.write_text(text)
    assert _ruff_ok(path) == ""


def test_opinfo_without_dtypes_is_not_an_opinfo_test():
    facts = _opinfo_facts(dtypes=())
    plan = build_plan(api_info(resolution("torch.nn.functional.relu", "function")), facts, "DEVICE")
    assert plan.family == "fill-in"
    assert "has no dtype to check (bool: not listed)" in plan.fill_in[0]


def test_signature_plan_restores_the_state_it_changes():
    facts = {
        "device_type": "cpu",
        "torch_version": "2.13.0",
        "states": [{"name": "default_dtype", "available": True}],
        "opinfo": {"found": False, "error": ""},
        "calls": {
            "problem": "",
            "params": ["d"],
            "valid": [
                {
                    "args": "torch.float64",
                    "literal": "None",
                    "type": "NoneType",
                    "varies": "",
                    "states": [["default_dtype", "torch.float64"]],
                },
                {
                    "args": "torch.float32",
                    "literal": "None",
                    "type": "NoneType",
                    "varies": "d",
                    "states": [],
                },
            ],
            "invalid": [{"args": "torch.int64", "raises": "TypeError", "varies": "d"}],
        },
    }
    plan = build_plan(api_info(resolution("torch.set_default_dtype", "function")), facts, "DEVICE")
    body = "".join(m.source for m in plan.methods)
    assert plan.tests == ["test_set_default_dtype", "test_set_default_dtype_invalid_arguments"]
    assert "saved_default_dtype = torch.get_default_dtype()" in body
    assert "torch.set_default_dtype(torch.float64)\n" in body
    assert "self.assertEqual(torch.get_default_dtype(), torch.float64)" in body
    assert (
        "torch.float32)" not in body
    )  # a None result that changes nothing checks nothing: left out
    assert "torch.set_default_dtype(saved_default_dtype)" in body


def test_signature_plan_with_only_none_results_cannot_decide():
    facts = {
        "device_type": "cpu",
        "states": [],
        "opinfo": {"found": False},
        "calls": {
            "problem": "",
            "valid": [{"args": "1", "literal": "None", "varies": "", "states": []}],
            "invalid": [],
        },
    }
    plan = build_plan(api_info(resolution("torch.manual_seed_like", "function")), facts, "DEVICE")
    assert plan.family == "fill-in" and "returned None" in plan.fill_in[0]


def test_tensor_plan_formula_then_measured_values():
    res = resolution("torch.Tensor.ndim", "property", owner="torch.Tensor")
    rows = [
        {"shape": s, "literal": str(len(s)), "raises": None, "formula_ok": True}
        for s in ([], [0], [3], [2, 3], [2, 0, 4])
    ]
    plan = build_plan(api_info(res), {"device_type": "npu", "tensor": {"shapes": rows}}, "DEVICE")
    body = plan.methods[0].source
    assert "self.assertEqual(x.ndim, len(shape))" in body
    assert "self.assertEqual(x.ndim, x.cpu().ndim)" in body  # another device: the CPU result too
    rows[1]["formula_ok"] = False
    plan = build_plan(api_info(res), {"device_type": "cpu", "tensor": {"shapes": rows}}, "DEVICE")
    body = plan.methods[0].source
    assert "((0,), 1)," in body and "x.cpu()" not in body  # the CPU itself: no CPU-vs-CPU check


@pytest.mark.slow
def test_fill_in_plan_fails_and_says_what_to_write(tmp_path):
    pytest.importorskip("torch")  # the file imports torch's TestCase
    plan = build_plan(api_info(resolution("torch.nn.Linear", "class")), {}, "DEVICE")
    text = render_file(
        plan,
        conventions_from(load_preset("default")),
        device_line="",
        device_type="cpu",
        torch_version="2.13.0",
    )
    path = tmp_path / plan.file_name
    path.write_text(text)
    assert _ruff_ok(path) == ""
    ns: dict = {}
    exec(compile(text.replace('if __name__ == "__main__":', "if False:"), str(path), "exec"), ns)
    case = ns["TestLinear"]("test_Linear")
    with pytest.raises(AssertionError, match="could not decide what to assert for torch.nn.Linear"):
        case.test_Linear()


def test_a_failed_measurement_reads_as_the_reason_in_the_failing_test():
    facts = {
        "opinfo": {"problem": "measuring the OpInfo facts failed: RuntimeError: x", "found": False},
        "calls": {"problem": "measuring the call facts failed: TypeError: y", "found": False},
    }
    plan = build_plan(api_info(resolution("torch.add", "builtin")), facts, "DEVICE")
    assert plan.family == "fill-in"
    assert "opinfo: measuring the OpInfo facts failed: RuntimeError: x" in plan.fill_in[0]
    assert "signature: measuring the call facts failed: TypeError: y" in plan.fill_in[0]


# -- writing -----------------------------------------------------------------------------------
@pytest.fixture
def umask_027():
    import os

    old = os.umask(0o027)
    yield 0o027
    os.umask(old)


def test_written_files_take_the_umask_and_added_files_keep_their_mode(tmp_path, umask_027):
    from torchparity.scaffold import scaffold_test

    config = load_preset("default")
    linear = api_info(resolution("torch.nn.Linear", "class"))
    new = scaffold_test(linear, config, python=sys.executable, out_dir=tmp_path, facts={})
    assert (
        Path(new.path).stat().st_mode & 0o777 == 0o640
    )  # 0o666 & ~umask, as open() gives; not mkstemp's 0600
    existing = tmp_path / "test_existing.py"
    existing.write_text(
        "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
        "class TestOld(TestCase):\n    def test_old(self):\n        pass\n"
    )
    existing.chmod(0o754)
    scaffold_test(linear, config, python=sys.executable, into=existing, facts={})
    assert existing.stat().st_mode & 0o777 == 0o754
    assert not [
        p.name for p in tmp_path.iterdir() if p.name.startswith(".")
    ]  # no temporary file left


@pytest.mark.slow
def test_methods_added_into_a_generated_file_keep_it_ruff_clean(tmp_path):
    """The tensor family needs ``import math``: it goes above ``import torch``, in its own section."""
    from torchparity.scaffold import scaffold_test

    config = load_preset("torch_npu")
    first = scaffold_test(
        api_info(resolution("torch.nn.Linear", "class")),
        config,
        python=sys.executable,
        out_dir=tmp_path,
        facts={},
    )
    path = Path(first.path)
    assert _ruff_ok(path) == ""
    rows = [
        {"shape": s, "literal": str(len(s)), "raises": None, "formula_ok": True}
        for s in ([], [0], [3], [2, 3], [2, 0, 4])
    ]
    ndim = api_info(resolution("torch.Tensor.ndim", "property", owner="torch.Tensor"))
    added = scaffold_test(
        ndim,
        config,
        python=sys.executable,
        into=path,
        facts={"device_type": "cpu", "tensor": {"shapes": rows}},
    )
    assert added.imports_added == (
        "import torch",
        "import math",
    )  # the fill-in it joins used no torch
    assert _ruff_ok(path) == ""
    assert path.read_text().count("import math\n\nimport torch\n") == 1, path.read_text()
