"""Which APIs the dtype and factory families take, and what their plans assert (no torch needed)."""

from __future__ import annotations

import pytest

from tests.scaffold.scaffold_fixtures import api_info, resolution
from torchparity.scaffold.dtypes import DTYPES, canonical_dtype, dtype_plan
from torchparity.scaffold.factories import FACTORIES, factory_leaf, factory_plan
from torchparity.scaffold.families import candidates
from torchparity.scaffold.plan import CannotDecide


def _attr(name: str, *aliases: str):
    return api_info(resolution(name, "attribute", aliases=aliases))


def _source(plan) -> str:
    return "".join(m.source for m in plan.methods)


@pytest.mark.parametrize(
    ("info", "family"),
    [
        (_attr("torch.float", "torch.float32"), "dtype"),
        (_attr("torch.quint8"), "dtype"),
        (_attr("torch.long"), "dtype"),  # its alias read from the documented table
        (api_info(resolution("torch.rand", "builtin")), "factory"),
        (api_info(resolution("torch.empty_strided", "builtin")), "factory"),
    ],
)
def test_the_kind_goes_to_its_family_first(info, family):
    fams = candidates(info)
    assert fams[0] == family and fams[-1] == "fill-in"


def test_what_is_no_dtype_or_factory_is_not_decided():
    for info in (_attr("torch.pi"), api_info(resolution("torch.float", "function"))):
        assert canonical_dtype(info) == ""
        with pytest.raises(CannotDecide):
            dtype_plan(info, {}, "DEVICE")
    member = api_info(
        resolution("torch.Tensor.random_", "method", owner="torch.Tensor", owner_kind="class")
    )
    for info in (
        member,
        api_info(resolution("torch.zeros", "builtin")),
        api_info(resolution("torch.nn.init.normal", "function")),
    ):
        assert factory_leaf(info) == ""
        with pytest.raises(CannotDecide):
            factory_plan(info, {}, "DEVICE")


def test_an_alias_is_asserted_to_be_its_canonical_dtype_with_the_documented_limits():
    text = _source(dtype_plan(_attr("torch.int", "torch.int32"), {}, "DEVICE"))
    assert "self.assertIs(dtype, torch.int32)" in text
    assert (
        "self.assertEqual(info.min, -2147483648)" in text
        and "self.assertEqual(info.max, 2147483647)" in text
    )
    assert "[2, -2, 0]" in text  # 2.7 and -2.7 truncated toward zero
    text = _source(dtype_plan(_attr("torch.uint8"), {}, "DEVICE"))
    assert "self.assertEqual(info.min, 0)" in text and "self.assertEqual(info.max, 255)" in text
    assert "self.assertIs(dtype, " not in text  # no alias to assert


def test_a_quantized_dtype_goes_through_quantize_per_tensor_on_the_cpu():
    plan = dtype_plan(_attr("torch.quint8"), {}, "DEVICE")
    text = _source(plan)
    assert "torch.quantize_per_tensor(source, 0.5, 10, torch.quint8)" in text
    assert "[10, 11, 15]" in text  # 0.0, 0.5, 2.5 at scale 0.5 and zero point 10
    assert "with self.assertRaises(RuntimeError)" in text and "device=DEVICE" not in text
    assert not plan.uses_device
    assert [m.name for m in dtype_plan(_attr("torch.quint4x2"), {}, "DEVICE").methods] == [
        "test_quint4x2_dtype_facts"
    ]


def test_every_documented_dtype_and_factory_gets_a_plan():
    for name in DTYPES:
        assert dtype_plan(_attr(name), {}, "DEVICE").family == "dtype"
    for leaf in FACTORIES:
        plan = factory_plan(api_info(resolution(f"torch.{leaf}", "builtin")), {}, "DEVICE")
        assert plan.tests and all(
            len(line) <= 100 for m in plan.methods for line in m.source.splitlines()
        )


def test_random_factories_check_bounds_moments_and_the_seed_and_empty_never_its_values():
    text = _source(factory_plan(api_info(resolution("torch.rand", "builtin")), {}, "DEVICE"))
    assert "self.assertLess(sample.max().item(), 1.0)" in text
    assert text.count("torch.manual_seed(1234)") == 2 and "torch.manual_seed(0)" in text
    assert "assertAlmostEqual(sample.double().mean().item(), 0.5" in text
    plan = factory_plan(api_info(resolution("torch.empty", "builtin")), {}, "DEVICE")
    assert plan.tests == ["test_empty_structure"]
    assert "tolist" not in _source(plan) and "out=out" in _source(plan)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("torch.dtype", "class"),
        ("torch.device", "context-manager"),
        ("torch.layout", "class"),
        ("torch.memory_format", "class"),
        ("torch.finfo", "class"),
        ("torch.iinfo", "class"),
    ],
)
def test_a_tensor_attribute_class_goes_to_the_typeobject_family_first(name, kind):
    from torchparity.scaffold.typeobjects import typeobject_plan

    info = api_info(resolution(name, kind))
    assert candidates(info)[0] == "typeobject"
    plan = typeobject_plan(info, {}, "DEVICE")
    text = _source(plan)
    assert plan.family == "typeobject" and len(plan.methods) >= 2
    assert (
        text.count(name) >= 3 and "DEVICE" in text
    )  # each test reads the class; one uses the device


def test_what_is_no_tensor_attribute_class_is_not_a_typeobject():
    from torchparity.scaffold.typeobjects import type_object, typeobject_plan

    for info in (
        api_info(resolution("torch.Size", "class")),
        _attr("torch.float32"),
        api_info(
            resolution("torch.dtype.itemsize", "property", owner="torch.dtype", owner_kind="class")
        ),
    ):
        assert type_object(info) == ""
        assert "typeobject" not in candidates(info)
        with pytest.raises(CannotDecide):
            typeobject_plan(info, {}, "DEVICE")


@pytest.mark.parametrize(
    ("name", "kind", "aliases"),
    [
        ("torch._subclasses.fake_tensor.FakeTensor", "class", ("torch._subclasses.FakeTensor",)),
        ("torch._subclasses.fake_tensor.FakeTensorMode", "class", ()),
        ("torch._subclasses.FakeTensorMode", "class", ()),  # the package's spelling
        ("torch._guards.detect_fake_mode", "function", ()),
        ("torch._subclasses.fake_tensor.unset_fake_temporarily", "function", ()),
    ],
)
def test_a_fake_tensor_api_goes_to_the_fake_family_first(name, kind, aliases):
    from torchparity.scaffold.fake import fake_plan

    info = api_info(resolution(name, kind, aliases=aliases))
    assert candidates(info)[0] == "fake"
    plan = fake_plan(info, {}, "DEVICE")
    text = _source(plan)
    assert plan.family == "fake" and "device=DEVICE" in text
    assert all(name in m.source for m in plan.methods)  # every test calls the API as spelled


def test_other_subclass_apis_are_not_fake():
    from torchparity.scaffold.fake import fake_plan, fake_role

    for info in (
        api_info(resolution("torch._subclasses.functional_tensor.FunctionalTensor", "class")),
        api_info(resolution("torch._guards.TracingContext", "class")),
    ):
        assert fake_role(info) == "" and "fake" not in candidates(info)
        with pytest.raises(CannotDecide):
            fake_plan(info, {}, "DEVICE")


@pytest.mark.parametrize(
    ("name", "kind", "owner"),
    [
        ("torch.library.custom_op", "function", ""),
        ("torch.library.Library", "class", ""),
        ("torch.library.Library.define", "method", "torch.library.Library"),
        ("torch.library.Library.impl", "method", "torch.library.Library"),
        ("torch.library.define", "function", ""),
        ("torch.library.impl", "function", ""),
        ("torch.library.register_autograd", "function", ""),
        ("torch.library.impl_abstract", "function", ""),
    ],
)
def test_a_torch_library_api_goes_to_the_library_family_first(name, kind, owner):
    from torchparity.scaffold.library import library_plan

    res = (
        resolution(name, kind, owner=owner, owner_kind="class") if owner else resolution(name, kind)
    )
    info = api_info(res)
    assert candidates(info)[0] == "library"
    plan = library_plan(info, {}, "DEVICE")
    assert plan.family == "library" and plan.uses_device
    for m in plan.methods:
        assert name in m.source and "device=DEVICE" in m.source, m.name
        assert (
            "torch.ops.tp_" in m.source
        )  # the op is called through torch.ops, in its own namespace


def test_library_apis_left_to_other_families():
    from torchparity.scaffold.library import library_role

    for name in (
        "torch.library.opcheck",
        "torch.library.register_fake",
        "torch.library.fallthrough_kernel",
    ):
        info = api_info(resolution(name, "function"))
        assert library_role(info) == "" and "library" not in candidates(info)


@pytest.mark.parametrize(
    "leaf",
    [
        "current_device_index",
        "set_device_index",
        "device_index",
        "current_stream",
        "set_stream",
        "synchronize",
        "memory_allocated",
        "memory_stats",
        "empty_cache",
        "reset_peak_memory_stats",
        "get_memory_info",
    ],
)
def test_a_torch_accelerator_function_gets_both_the_refusal_and_the_device_behaviour(leaf):
    from torchparity.scaffold.accelerator import accelerator_plan

    plan = accelerator_plan(
        api_info(resolution(f"torch.accelerator.{leaf}", "function")), {}, "DEVICE"
    )
    assert plan is not None and plan.family == "runtime"
    text = _source(plan)
    assert (
        'if DEVICE.type == "cpu":' in text
        and 'assertRaisesRegex(RuntimeError, "none is available")' in text
    )
    assert (
        text.count(f"torch.accelerator.{leaf}(") >= 2
    )  # refused on the CPU, checked on the device


def test_accelerator_functions_without_a_template_are_left_to_the_other_runtime_templates():
    from torchparity.scaffold.accelerator import accelerator_plan

    for name in (
        "torch.accelerator.get_device_module",
        "torch.cuda.synchronize",
        "torch.accelerator.is_available",
    ):
        assert accelerator_plan(api_info(resolution(name, "function")), {}, "DEVICE") is None


@pytest.mark.parametrize(
    ("name", "kind", "owner"),
    [
        ("torch.nn.parameter.UninitializedParameter", "class", ""),
        ("torch.nn.parameter.UninitializedBuffer", "class", ""),
        (
            "torch.nn.parameter.UninitializedBuffer.materialize",
            "method",
            "torch.nn.parameter.UninitializedBuffer",
        ),
    ],
)
def test_an_uninitialized_parameter_or_buffer_goes_to_the_lazy_family_first(name, kind, owner):
    from torchparity.scaffold.lazy import lazy_plan

    res = (
        resolution(name, kind, owner=owner, owner_kind="class") if owner else resolution(name, kind)
    )
    info = api_info(res)
    assert candidates(info)[0] == "lazy"
    plan = lazy_plan(info, {}, "DEVICE")
    for m in plan.methods:
        assert "device=DEVICE" in m.source, m.name
        assert any(k in m.source for k in (".cls_to_become", "LazyLinear", "register_buffer")), (
            m.name
        )
    assert any("materialize" in m.source for m in plan.methods)
    with pytest.raises(CannotDecide):
        lazy_plan(api_info(resolution("torch.nn.parameter.Parameter", "class")), {}, "DEVICE")


def test_a_config_modules_copy_and_load_methods_go_to_the_config_family():
    from torchparity.scaffold.configs import config_leaf, config_plan

    for name, leaf in (
        ("torch._inductor.config.get_config_copy", "get_config_copy"),
        ("torch._dynamo.config.load_config", "load_config"),
    ):
        info = api_info(resolution(name, "method"))
        assert config_leaf(info) == leaf and candidates(info)[0] == "config"
        text = _source(config_plan(info, {}, "DEVICE"))
        assert f"{name}(" in text and ".patch({key: not value})" in text
    for name in (
        "torch._inductor.config.patch",
        "torch.utils.data.get_config_copy",
        "torch.load_config",
    ):
        assert config_leaf(api_info(resolution(name, "function"))) == ""
