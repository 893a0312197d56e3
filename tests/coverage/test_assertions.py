"""A class asserted on is tested; a class only named is not. A called wrapper tests what it wraps."""

from __future__ import annotations

import pytest

from tests.coverage.conftest import git, put
from torchparity.coverage import coverage_for
from torchparity.store import Store

F = "test/test_asserted.py::TestAsserted::"
N = "test/test_asserted.py::TestNamed::"

ASSERTED = """
import unittest
import torch
import torch_npu
from torch.autograd.profiler import emit_itt
from torch.autograd import gradgradcheck


class TestAsserted(unittest.TestCase):
    def test_assert_is_instance(self):
        x = torch.ones(2, dtype=torch.bool).npu()
        self.assertIsInstance(x.storage(), torch_npu.npu.BoolStorage)

    def test_assert_not_is_instance(self):
        self.assertNotIsInstance(torch.ones(2).storage(), torch.BoolStorage)

    def test_assert_statement(self):
        assert isinstance(torch.ones(2, dtype=torch.bool).storage(), torch.BoolStorage)

    def test_assert_true_isinstance(self):
        s = torch.ones(1, dtype=torch.bool).storage()
        self.assertTrue(isinstance(s, torch.BoolStorage))

    def test_assert_issubclass(self):
        self.assertTrue(issubclass(torch.BoolStorage, torch.storage._LegacyStorage))

    def test_callable_or_hasattr(self):
        self.assertTrue(callable(emit_itt) or hasattr(emit_itt, "__enter__"))

    def test_assert_false_not_hasattr(self):
        self.assertFalse(not hasattr(torch.BoolStorage, "dtype"))

    def test_named_then_asserted(self):
        s = torch.ones(1, dtype=torch.bool).storage()
        if isinstance(s, torch.BoolStorage):
            self.assertIsInstance(s, torch.BoolStorage)

    def test_ndim_read_then_asserted(self):
        dims = torch.ones(2).ndim
        self.assertEqual(dims, 1)


class TestNamed(unittest.TestCase):
    def test_isinstance_in_if(self):
        s = torch.ones(1).storage()
        if isinstance(s, torch.BoolStorage):
            s = None

    def test_isinstance_in_filter(self):
        storages = [torch.ones(1).storage(), torch.ones(1, dtype=torch.bool).storage()]
        kept = [s for s in storages if isinstance(s, torch.BoolStorage)]
        self.assertEqual(len(kept), 1)

    def test_equal_in_loop(self):
        for t in [torch.FloatStorage, torch.BoolStorage]:
            if t == torch.BoolStorage:
                self.assertTrue(t == torch.BoolStorage)

    def test_tuple_literal(self):
        self.assertIsInstance(torch.ones(1).storage(), (torch.FloatStorage, torch.BoolStorage))

    def test_list_literal(self):
        classes = [torch.FloatStorage, torch.BoolStorage]
        self.assertIn(type(torch.ones(1).storage()), [torch.FloatStorage, torch.BoolStorage])
        self.assertEqual(len(classes), 2)

    def test_string_and_comment(self):
        # self.assertIsInstance(x, torch.BoolStorage)
        self.assertTrue("assertIsInstance(x, torch.BoolStorage)")

    def test_rebound_predicate(self):
        def callable(obj):
            return obj is not None
        self.assertTrue(callable(torch.BoolStorage))

    def test_called_wrapper(self):
        x = torch.randn(2, dtype=torch.double, requires_grad=True)
        self.assertTrue(gradgradcheck(torch.sin, (x,)))

    def test_wrapper_named_only(self):
        self.assertTrue(callable(gradgradcheck))

    def test_wrapper_in_a_comment(self):
        # gradgradcheck(torch.sin, (x,))
        self.assertTrue("torch.autograd.gradgradcheck(torch.sin, (x,))")

    def test_backward(self):
        x = torch.ones(2, requires_grad=True)
        x.sum().backward()

    def test_autograd_backward_named(self):
        self.assertTrue(hasattr(torch.Tensor, "backward"))
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("asserted")
    repo = tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "master")
    put(repo, "test/test_asserted.py", ASSERTED)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "tests")
    apis = [
        "torch.BoolStorage",
        "torch_npu.npu.BoolStorage",
        "torch.autograd.profiler.emit_itt",
        "torch.autograd.gradcheck",
        "torch.autograd.gradgradcheck",
        "torch.autograd.backward",
        "torch.Tensor.ndim",
    ]
    return coverage_for(apis, repo, None, Store(tmp / "s"), grep="off")


def _hits(report, api: str, section: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {h["test"]: h["how"] for h in report[api].to_json()["refs"][0][section]}


def test_a_class_asserted_on_is_direct_and_says_which_assertion(report) -> None:  # type: ignore[no-untyped-def]
    direct = _hits(report, "torch.BoolStorage", "direct")
    expected = {
        "test_assert_not_is_instance": "the class asserted, in assertNotIsInstance(…)",
        "test_assert_statement": "the class asserted, in assert isinstance(…)",
        "test_assert_true_isinstance": "the class asserted, in assertTrue(isinstance(…))",
        "test_assert_issubclass": "the class asserted, in assertTrue(issubclass(…))",
        "test_assert_false_not_hasattr": "the class asserted, in assertFalse(hasattr(…))",
        "test_named_then_asserted": "the class asserted, in assertIsInstance(…)",
    }
    assert direct == {F + t: how for t, how in expected.items()}
    npu = _hits(report, "torch_npu.npu.BoolStorage", "direct")
    assert npu == {F + "test_assert_is_instance": "the class asserted, in assertIsInstance(…)"}
    # no class: a name in an assertion reads as before (its first, plainest use; no assertion said)
    assert _hits(report, "torch.Tensor.ndim", "direct") == {
        F + "test_ndim_read_then_asserted": "chained attribute"
    }
    itt = _hits(report, "torch.autograd.profiler.emit_itt", "direct")
    assert list(itt) == [F + "test_callable_or_hasattr"]
    assert itt[F + "test_callable_or_hasattr"].startswith("the class asserted, in assertTrue(")


def test_a_class_only_named_stays_related(report) -> None:  # type: ignore[no-untyped-def]
    direct = _hits(report, "torch.BoolStorage", "direct")
    related = _hits(report, "torch.BoolStorage", "related")
    for name in (
        "test_isinstance_in_if",
        "test_isinstance_in_filter",
        "test_equal_in_loop",
        "test_tuple_literal",
        "test_list_literal",
        "test_rebound_predicate",
    ):
        assert N + name not in direct, name
        assert related.get(N + name, "").startswith("names the class"), (
            name,
            related.get(N + name),
        )
    assert N + "test_string_and_comment" not in direct
    assert N + "test_string_and_comment" not in related
    weak = _hits(report, "torch.BoolStorage", "weak")
    assert N + "test_string_and_comment" in weak


def test_a_called_wrapper_is_direct_for_what_it_is_implemented_with(report) -> None:  # type: ignore[no-untyped-def]
    gradcheck = _hits(report, "torch.autograd.gradcheck", "direct")
    assert gradcheck == {
        N
        + "test_called_wrapper": "call, via torch.autograd.gradgradcheck (implemented with torch.autograd.gradcheck)"
    }
    backward = _hits(report, "torch.autograd.backward", "direct")
    assert list(backward) == [N + "test_backward"]
    assert backward[N + "test_backward"].endswith(
        "via torch.Tensor.backward (implemented with torch.autograd.backward)"
    )
    # the wrapper itself: called, or named (a function named is a use of it, as before: no class asserted)
    assert _hits(report, "torch.autograd.gradgradcheck", "direct") == {
        N + "test_called_wrapper": "call",
        N + "test_wrapper_named_only": "attribute",
    }


def test_a_wrapper_named_or_in_a_comment_is_no_call_of_what_it_wraps(report) -> None:  # type: ignore[no-untyped-def]
    gradcheck = _hits(report, "torch.autograd.gradcheck", "direct")
    for name in ("test_wrapper_named_only", "test_wrapper_in_a_comment"):
        assert N + name not in gradcheck, name
    assert N + "test_autograd_backward_named" not in _hits(
        report, "torch.autograd.backward", "direct"
    )


def _resolve(dotted: str):  # type: ignore[no-untyped-def]
    import importlib

    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.slow
def test_every_wrapper_in_the_table_calls_what_it_wraps_in_torchs_source() -> None:
    import ast
    import inspect
    import textwrap

    pytest.importorskip("torch")
    from torchparity.coverage.wrappers import WRAPS

    for wrapper, wrapped in WRAPS.items():
        fn = inspect.unwrap(_resolve(wrapper))
        target = _resolve(wrapped)
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        called = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
                try:
                    called.append(eval(ast.unparse(node.func), fn.__globals__))  # noqa: S307 (torch's own names)
                except Exception:  # a local, a method of self: not a module-level callee
                    continue
        assert any(c is target for c in called), f"{wrapper} does not call {wrapped} in this torch"
