"""What the overload and opinfo plans spell for operators with an OpInfo entry ("values"), without torch.

Undefined values (a metadata check against the meta kernels), the arguments the OpInfo's function
passes to the operator (recorded), and the dtypes an OpInfo lists when it lists none of the defaults.
"""

from __future__ import annotations

import pytest

from tests.scaffold.test_scaffold_overload_units import _builtin, _opinfo_facts, _source
from torchparity.agent.facts.opinfo import DEFAULT_DTYPES, WIDE, wanted_dtypes
from torchparity.scaffold.overloads import overload_plan


def test_undefined_values_are_checked_on_the_meta_kernels_metadata_never_compared():
    facts = _opinfo_facts(reference="meta")
    plan = overload_plan(_builtin("torch.ops.aten.empty_like.default"), facts, "DEVICE")
    text = _source(plan)
    assert 'on_meta = self._sample_to(sample, "meta")' in text
    assert "expected = op.op(on_meta.input, *on_meta.args, **on_meta.kwargs)" in text
    assert "self._assert_same_metadata(actual, expected, dev.kwargs)" in text
    assert (
        'self.assertEqual(getattr(actual, what), kwargs[what], what + "= given")' in text
    )  # as documented
    for what in ("shape", "dtype", "layout", "requires_grad"):
        assert f"self.assertEqual(actual.{what}, expected.{what})" in text
    assert "self.assertEqual(actual.stride(), expected.stride())" in text
    assert "_assert_matches" not in text and "_on_cpu" not in text  # no value is compared
    assert "marks its values as undefined" in text and "never its values" in text
    assert "meta kernels give" in plan.summary


def test_samples_that_do_not_fit_get_the_arguments_the_opinfo_function_passes():
    facts = _opinfo_facts(kind="packet", overload=None, reference="float64", captured=True)
    plan = overload_plan(_builtin("torch.ops.aten.where"), facts, "DEVICE")
    text = _source(plan)
    assert "from torch.utils._python_dispatch import TorchDispatchMode" in plan.imports
    assert "class Record(TorchDispatchMode):" in text
    assert "if schema.name == 'aten::where':" in text  # a packet: any of its overloads
    assert "calls = self._aten_calls(op, sample)" in text and "if len(calls) != 1:" in text
    assert "if not self._fits(schemas, args, kwargs):" in text
    assert "args, kwargs = self._moved(args, DEVICE), self._moved(kwargs, DEVICE)" in text
    assert "actual = torch.ops.aten.where(*args, **kwargs)" in text
    assert 'k: device if k == "device" and v is not None' in text  # a factory's device= moves too
    assert 'wide = self._sample_to(sample, "cpu", widen=True)' in text  # float64, not a second run
    assert "self.assertEqual(checked, 6)" in text
    overload = _source(
        overload_plan(
            _builtin("torch.ops.aten.where.self"),
            _opinfo_facts(overload="self", captured=True),
            "DEVICE",
        )
    )
    assert "schema.overload_name == 'self'" in overload  # an overload: that overload only


def test_plans_without_the_new_facts_spell_what_they_did():
    text = _source(
        overload_plan(
            _builtin("torch.ops.aten.where.self"), _opinfo_facts(overload="self"), "DEVICE"
        )
    )
    assert (
        "TorchDispatchMode" not in text
        and "_moved" not in text
        and "_assert_same_metadata" not in text
    )
    assert "actual = torch.ops.aten.where.self(*self._arranged(dev), **dev.kwargs)" in text


def test_an_opinfo_listing_none_of_the_defaults_gets_the_dtypes_it_lists():
    assert wanted_dtypes({"float32", "complex64"}) == list(DEFAULT_DTYPES)
    assert wanted_dtypes({"complex64", "complex128"}) == ["complex64", "complex128"]  # view_as_real
    assert wanted_dtypes({"uint8", "int32"}) == ["int32", "uint8"]
    assert wanted_dtypes({"complex64"}, ["float16"]) == ["float16"]  # what is asked for, as asked
    assert WIDE["complex64"] == "complex128" and WIDE["float16"] == "float64"


def test_backward_kernels_take_no_call_the_opinfo_function_makes():
    from torchparity.agent.facts.overloads import _backward_kernel

    assert _backward_kernel("max_pool2d_with_indices_backward") and _backward_kernel(
        "_softmax_backward_data"
    )
    assert not _backward_kernel("max_unpool2d") and not _backward_kernel("empty_like")


@pytest.mark.parametrize(
    ("args", "passes"),
    [
        ("x, keepdim=True", True),
        ("x, False", True),
        ("x, True, dim=0", True),
        ("x, dim=1", False),
        ("'True'", False),
        ("x, flag=is_true", False),
        ("x, (", False),
    ],
)
def test_a_call_passes_a_boolean_only_where_a_literal_bool_stands(args, passes):
    from torchparity.scaffold.operators import _passes_bool

    assert _passes_bool(args) is passes
