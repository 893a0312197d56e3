"""The parts of issue 16 without an interpreter: code writing, choosing among checked candidates,
the families' plans from hand-written facts, a file's own device variable, placeholder tests."""

from __future__ import annotations

import ast
import subprocess

import libcst as cst
import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.checks.checklist import failing_tests
from torchparity.scaffold import build_plan
from torchparity.scaffold.code import Spelling, check_line, double_quoted, wrap_line
from torchparity.scaffold.doctest import doctest_plan, on_device
from torchparity.scaffold.families import NOT_CAUGHT, checked_plan
from torchparity.scaffold.insert import device_reference, find_class
from torchparity.scaffold.measured import measured_plan
from torchparity.scaffold.nn import nn_plan
from torchparity.scaffold.plan import CannotDecide
from torchparity.verify.pipeline import _change_patch


# -- code ------------------------------------------------------------------------------------------
def test_long_lines_are_wrapped_inside_their_widest_brackets_and_still_parse():
    line = ("        gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(3, 2), "
            "torch.nn.ReLU()).to(DEVICE))")
    wrapped = wrap_line(line)
    assert wrapped[0] == "        gm = torch.fx.symbolic_trace("
    assert all(len(w) <= 100 for w in wrapped)
    ast.parse("if 1:\n" + "\n".join(wrapped))
    text = "x" * 150
    long = f'        self.assertEqual(result, "{text}")'
    wrapped = wrap_line(long)
    assert all(len(w) <= 100 for w in wrapped)
    tree = ast.parse("if 1:\n" + "\n".join(wrapped))
    assert any(isinstance(n, ast.Constant) and n.value == text for n in ast.walk(tree))
    assert wrap_line("    x = 1") == ["    x = 1"]


def test_single_quoted_literals_become_double_quoted_unless_that_changes_them():
    assert double_quoted("f('a', b='c')") == 'f("a", b="c")'
    assert double_quoted("f('it\\'s', 'say \"hi\"')") == "f('it\\'s', 'say \"hi\"')"


def test_checks_become_assertions_with_placeholders_spelled():
    sp = Spelling(api="torch.x.f", owner="torch.x.C", device="DEVICE")
    assert check_line(["eq", "len(result)", "3"], sp) == "self.assertEqual(len(result), 3)"
    assert check_line(["is", "result", "None"], sp) == "self.assertIs(result, None)"
    assert check_line(["type", "result", "torch.fx.node.Node"], sp) == "self.assertIsInstance(result, torch.fx.node.Node)"
    assert check_line(["tensor", "result", "torch.tensor([1.0])"], sp) == (
        "torch.testing.assert_close(result.cpu(), torch.tensor([1.0]), equal_nan=True)")
    assert "rtol=1e-05" in check_line(["float", "result", "0.5"], sp)
    assert sp.apply("_API_(x, _OWNER_, DEVICE, _TMP_)") == "torch.x.f(x, torch.x.C, DEVICE, tmp)"


# -- doctest: tensors on the device ------------------------------------------------------------------
def test_tensor_factories_get_the_device():
    assert on_device("x = torch.tensor([1, 2])") == "x = torch.tensor([1, 2], device=device)"
    assert on_device("torch.randn()") == "torch.randn(device=device)"
    assert on_device("torch.zeros(2, device='meta')") == "torch.zeros(2, device='meta')"
    assert on_device("torch.cat((torch.ones(2), x))") == "torch.cat((torch.ones(2, device=device), x))"
    assert on_device("y = x.sum()") == "y = x.sum()"


def test_modules_an_example_builds_are_moved_to_the_device():
    """``custom_from_mask(nn.Linear(5, 3), mask=torch.tensor(...))``: the mask on the device meets weights
    there; a parameter is left as it is (``.to`` would make it a plain tensor)."""
    assert on_device("m = f(nn.Linear(5, 3), mask=torch.tensor([0, 1]))") == (
        "m = f(nn.Linear(5, 3).to(device), mask=torch.tensor([0, 1], device=device))")
    assert on_device("torch.nn.ReLU()") == "torch.nn.ReLU().to(device)"
    assert on_device("p = nn.Parameter(torch.ones(2))") == "p = nn.Parameter(torch.ones(2, device=device))"
    assert on_device("y = nn.functional.relu(x)") == "y = nn.functional.relu(x)"


def test_doctest_plan_compares_with_the_printed_results_and_lists_what_it_left_out():
    facts = {"doctest": {"kept": 2, "leaf": "narrow", "examples": [
        {"source": "x = torch.tensor([[1, 2], [3, 4]])\n", "kept": True, "want": ""},
        {"source": "torch.narrow(x, 0, 0, 1)\n", "kept": True, "shown": "torch.narrow(x, 0, 0, 1)",
         "expected": "torch.tensor([[1, 2]])", "want": "tensor([[1, 2]])\n"},
        {"source": "x.cuda()\n", "kept": False, "why": "needs CUDA", "want": ""},
        {"source": "torch.narrow(x, 5, 0, 1)\n", "kept": True, "raises": "IndexError", "want": ""},
    ]}}
    plan = doctest_plan(api_info(resolution("torch.narrow", "builtin")), facts, "DEVICE")
    test = plan.methods[0].source
    assert plan.family == "doctest" and plan.tests == ["test_narrow_docstring_examples"]
    assert "x = torch.tensor([[1, 2], [3, 4]], device=device)" in test
    assert "shown.append(keep(torch.narrow(x, 0, 0, 1)))" in test and "torch.tensor([[1, 2]])," in test
    assert "def keep(value):" in test  # a shown value is copied: a later example may change it in place
    assert "with self.assertRaises(IndexError):" in test
    assert "# left out: `x.cuda()`: needs CUDA" in test
    assert 'cpu_results = run(torch.device("cpu"))' in test
    assert any(m.helper and m.name == "_assert_documented" for m in plan.methods)
    with pytest.raises(CannotDecide):
        doctest_plan(api_info(resolution("torch.narrow", "builtin")), {"doctest": {"kept": 0, "problem": "x"}},
                     "DEVICE")


# -- measured scenarios ----------------------------------------------------------------------------
def _scenario(**kw):
    doc = {"setup": [], "call": "_API_()", "receiver": "", "checks": [], "teardown": [], "listify": False,
           "statement": False, "context": False, "remove_handle": False, "varies": ""}
    doc.update(kw)
    return doc


def test_measured_plan_spells_members_through_their_class_and_restores_what_it_saved():
    zero_grad = api_info(resolution("torch.optim.optimizer.Optimizer.zero_grad", "method",
                                    aliases=("torch.optim.Optimizer.zero_grad",),
                                    owner="torch.optim.optimizer.Optimizer", owner_kind="class"))
    facts = {"probe": {"valid": [_scenario(
        setup=["param = torch.nn.Parameter(torch.ones(2, device=DEVICE))", "optimizer = torch.optim.SGD([param])"],
        call="optimizer.zero_grad()", receiver="optimizer", checks=[["is", "param.grad", "None"]])],
        "invalid": [], "imports": []}}
    plan = measured_plan(zero_grad, facts, "DEVICE")
    source = plan.methods[0].source
    assert "result = torch.optim.Optimizer.zero_grad(optimizer)" in source  # the API named in the call
    assert "self.assertIs(param.grad, None)" in source
    setter = api_info(resolution("torch.set_warn_always", "function"))
    facts = {"probe": {"valid": [_scenario(
        setup=["saved_state = torch.is_warn_always_enabled()"], call="_API_(True)",
        checks=[["is", "torch.is_warn_always_enabled()", "True"]], teardown=["_API_(saved_state)"])],
        "invalid": [_scenario(call="_API_(object())", raises="TypeError")], "imports": []}}
    plan = measured_plan(setter, facts, "DEVICE")
    lines = plan.methods[0].source.splitlines()
    assert lines[1].strip() == "saved_state = torch.is_warn_always_enabled()"
    assert [line.strip() for line in lines[2:]] == [
        "try:", "result = torch.set_warn_always(True)", "self.assertIs(torch.is_warn_always_enabled(), True)",
        "finally:", "torch.set_warn_always(saved_state)"]
    assert plan.tests == ["test_set_warn_always", "test_set_warn_always_invalid_arguments"]
    with pytest.raises(CannotDecide, match="nothing measured"):
        measured_plan(setter, {"probe": {"valid": [], "problem": "nothing measured"}}, "DEVICE")


# -- choosing among checked candidates ---------------------------------------------------------------
def _plan():
    facts = {"classes": {"api": ["torch.nn.modules.container.ModuleList", "torch.nn.modules.module.Module"]},
             "members": ["append", "extend", "insert", "pop"]}
    return nn_plan(api_info(resolution("torch.nn.ModuleList", "class")), facts, "DEVICE")


def test_a_candidate_is_kept_only_when_it_passes_and_a_stand_in_breaks_it():
    plan = _plan()
    (test,) = plan.tests
    passed = {"clean": {"outcomes": {test: {"status": "pass"}}}}
    caught = dict(passed, broken={"standin": {"replaced": ["x"]}, "outcomes": {test: {"status": "fail"}}})
    uncaught = dict(passed, broken={"standin": {"replaced": ["x"]}, "outcomes": {test: {"status": "pass"}}})
    assert checked_plan(plan, caught) is plan
    assert checked_plan(plan, uncaught) == NOT_CAUGHT
    assert checked_plan(plan, uncaught, require_catch=False) is plan
    failed = {"clean": {"outcomes": {test: {"status": "fail", "message": "AssertionError: 1 != 2"}}}}
    assert "did not pass on the CPU (" in checked_plan(plan, failed)
    # a stand-in that could not be installed decides nothing
    assert checked_plan(plan, dict(passed, broken={"standin": {"replaced": []}, "outcomes": {}})) is plan


def test_build_plan_falls_through_to_the_next_family_and_never_keeps_an_uncaught_one():
    info = api_info(resolution("torch.nn.ModuleList", "class"))
    facts = {"classes": {"api": ["torch.nn.modules.container.ModuleList", "torch.nn.modules.module.Module"]},
             "members": ["append"], "probe": {"valid": [_scenario(call="_API_()", checks=[["eq", "len(result)", "0"]])]}}
    name = _plan().tests[0]
    ok = {"outcomes": {name: {"status": "pass"}, "test_ModuleList": {"status": "pass"}}}
    not_caught = {"standin": {"replaced": ["torch.nn.ModuleList"]}, "outcomes": ok["outcomes"]}
    facts["checked"] = {"module": {"clean": ok, "broken": not_caught},
                        "measured": {"clean": ok, "broken": {"standin": {"replaced": ["x"]}, "outcomes": {}}}}
    assert build_plan(info, facts, "DEVICE").family == "measured"
    facts["checked"]["measured"]["broken"] = not_caught
    plan = build_plan(info, facts, "DEVICE")
    assert plan.family == "fill-in" and NOT_CAUGHT in plan.fill_in[0]  # the reason is in the fill-in
    facts["checked"] = {k: {"clean": {"outcomes": {}, "error": "the file does not import"}} for k in
                        ("module", "measured")}
    assert build_plan(info, facts, "DEVICE").family == "fill-in"


# -- --into: the file's own device ----------------------------------------------------------------------
@pytest.mark.parametrize(("text", "ref"), [
    ('device = "npu:0"\n\n\nclass TestA(TestCase):\n    pass\n', "torch.device(device)"),
    ('DEVICE = torch.device("npu:0")\n\n\nclass TestA(TestCase):\n    pass\n', "DEVICE"),
    ('npu_device = f"npu:{0}"\n\n\nclass TestA(TestCase):\n    pass\n', "torch.device(npu_device)"),
    ('class TestA(TestCase):\n    device = torch.device("npu")\n', "self.device"),
    ('class TestA(TestCase):\n    def setUp(self):\n        self.device = "npu:1"\n', "torch.device(self.device)"),
    ('class TestA(TestCase):\n    pass\n', ""),
    ('name = "weights"\n\n\nclass TestA(TestCase):\n    pass\n', ""),
])
def test_the_file_s_own_device_variable_is_found(text, ref):
    module = cst.parse_module("import torch\n" + text)
    assert device_reference(module, find_class(module, "t.py"), "DEVICE") == ref


# -- placeholders fail the calls item -----------------------------------------------------------------
def test_tests_that_fail_unconditionally_are_placeholders():
    tree = ast.parse(
        "class TestA:\n"
        "    def test_fill(self):\n        self.assertIsNotNone(torch.x)\n        self.fail('write me')\n"
        "    def test_real(self):\n        if torch.x() != 1:\n            self.fail('wrong')\n"
    )
    assert failing_tests(tree) == {"TestA.test_fill"}


# -- verify: the patch for --into ---------------------------------------------------------------------------
def test_the_into_patch_applies_to_the_original_file(tmp_path):
    old = "import torch\n\n\nclass TestA:\n    def test_a(self):\n        pass\n"
    new = old + "\n    def test_b(self):\n        self.assertTrue(True)\n"
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_a.py").write_text(old)
    (tmp_path / "a.patch").write_text(_change_patch("test/test_a.py", old, new))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "a.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "test" / "test_a.py").read_text() == new


def test_doctest_plan_imports_the_namespace_names_its_examples_use():
    from torchparity.scaffold.doctest import _namespace_imports

    assert _namespace_imports(["a = numpy.array([1, 2, 3])", "t = torch.from_numpy(a)"]) == ("import numpy",)
    assert _namespace_imports(["x = np.ones(2)", "y = math.pi", "m = nn.Linear(2, 2)"]) == (
        "import numpy as np", "import math", "from torch import nn")
    assert _namespace_imports(["y = torch.numpy_like(x)", "F = 3", "z = x.np"]) == ()  # not the names themselves


def test_a_measured_log_record_or_warning_wraps_the_call():
    from torchparity.scaffold.measured import effect_wrapped

    lines = effect_wrapped(["result = f()"], [["logs", "pkg.mod", "WARNING:nothing started"],
                                              ["warns", "FutureWarning", "f is deprecated"]])
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
    prelude = ["torch.distributed.init_process_group(backend=None, store=torch.distributed.HashStore(), rank=0, "
               "world_size=1)", "_MESH_ = torch.distributed.device_mesh.init_device_mesh(DEVICE.type, (1,))",
               "_MESH_.__enter__()"]
    sc = _scenario(call="_API_()", checks=[["eq", "result.shape", "torch.Size([])"]],
                   teardown=["torch.distributed.destroy_process_group()", "_MESH_.__exit__(None, None, None)"])
    sc["prelude"] = prelude
    plan = measured_plan(ones, {"probe": {"valid": [sc], "invalid": [], "imports": []}}, "DEVICE")
    lines = [line.strip() for line in plan.methods[0].source.splitlines()]
    at_try = lines.index("try:")
    assert any(line.startswith("torch.distributed.init_process_group(") for line in lines[:at_try]), lines
    assert any(line.startswith("_MESH_ = torch.distributed.device_mesh.init_device_mesh(")
               for line in lines[at_try:]), lines
    assert lines.index("finally:") < lines.index("torch.distributed.destroy_process_group()")
