"""Name resolution in the agent, in-process against the real torch (CPU build)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from torchparity.agent.api.docs_links import docs_version
from torchparity.agent.api.kinds import KINDS

# (query, canonical, kind, source file or "C extension", public)
CASES = [
    (
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        "torch.autograd.grad_mode.set_grad_enabled.clone",
        "method",
        "torch/autograd/grad_mode.py",
        True,
    ),
    (
        "torch.autograd.grad_mode.set_multithreading_enabled.clone",
        "torch.autograd.grad_mode.set_multithreading_enabled.clone",
        "method",
        "torch/autograd/grad_mode.py",
        True,
    ),
    (
        "torch._utils._get_device_index",
        "torch._utils._get_device_index",
        "function",
        "torch/_utils.py",
        False,
    ),
    (
        "Optimizer.zero_grad",
        "torch.optim.optimizer.Optimizer.zero_grad",
        "method",
        "torch/optim/optimizer.py",
        True,
    ),
    ("Tensor.ndim", "torch.Tensor.ndim", "property", "C extension", True),
    ("torch.BoolStorage", "torch.BoolStorage", "storage-class", "torch/__init__.py", True),
    (
        "torch.nn.functional.relu",
        "torch.nn.functional.relu",
        "function",
        "torch/nn/functional.py",
        True,
    ),
    ("torch.Tensor.add_", "torch.Tensor.add_", "method", "C extension", True),
    ("torch.cuda.Event", "torch.cuda.streams.Event", "class", "torch/cuda/streams.py", True),
    # the module is hidden by the function of its name: torch.autograd.gradcheck is the function, and it is
    # spelled so (a path through the hidden module cannot be written in a test)
    (
        "torch.autograd.gradcheck.gradcheck",
        "torch.autograd.gradcheck",
        "function",
        "torch/autograd/gradcheck.py",
        True,
    ),
    ("torch.add", "torch.add", "builtin", "C extension", True),
    ("torch.relu", "torch.relu", "builtin", "C extension", True),
    (
        "torch.set_grad_enabled",
        "torch.autograd.grad_mode.set_grad_enabled",
        "context-manager",
        "torch/autograd/grad_mode.py",
        True,
    ),
    (
        "torch.no_grad",
        "torch.autograd.grad_mode.no_grad",
        "context-manager",
        "torch/autograd/grad_mode.py",
        True,
    ),
    (
        "torch.inference_mode",
        "torch.autograd.grad_mode.inference_mode",
        "context-manager",
        "torch/autograd/grad_mode.py",
        True,
    ),
    (
        "torch.no_grad.clone",
        "torch.autograd.grad_mode.no_grad.clone",
        "method",
        "torch/utils/_contextlib.py",
        True,
    ),
    ("torch.nn.functional", "torch.nn.functional", "module", "torch/nn/functional.py", True),
    ("torch.cuda", "torch.cuda", "module", "torch/cuda/__init__.py", True),
    (
        "torch.autograd.Function.apply",
        "torch.autograd.function.Function.apply",
        "classmethod",
        "torch/autograd/function.py",
        True,
    ),
    (
        "torch.Tensor.__torch_function__",
        "torch.Tensor.__torch_function__",
        "classmethod",
        "torch/_tensor.py",
        True,
    ),
    (
        "torch.distributions.Distribution.set_default_validate_args",
        "torch.distributions.distribution.Distribution.set_default_validate_args",
        "staticmethod",
        "torch/distributions/distribution.py",
        True,
    ),
    (
        "torch.Tensor._make_subclass",
        "torch.Tensor._make_subclass",
        "staticmethod",
        "C extension",
        False,
    ),
    (
        "torch.distributions.Normal.mean",
        "torch.distributions.normal.Normal.mean",
        "property",
        "torch/distributions/normal.py",
        True,
    ),
    ("torch.Tensor.grad", "torch.Tensor.grad", "property", "C extension", True),
    ("torch.float32", "torch.float32", "attribute", "torch/__init__.py", True),
    ("torch.pi", "torch.pi", "attribute", "torch/__init__.py", True),
    (
        "torch.UntypedStorage",
        "torch.storage.UntypedStorage",
        "storage-class",
        "torch/storage.py",
        True,
    ),
    (
        "torch.profiler.ProfilerActivity.CPU",
        "torch._C._profiler.ProfilerActivity.CPU",
        "enum-member",
        "C extension",
        True,
    ),
    (
        "torch.profiler.ProfilerAction.RECORD",
        "torch.profiler.profiler.ProfilerAction.RECORD",
        "enum-member",
        "torch/profiler/profiler.py",
        True,
    ),
    (
        "torch.nn.Linear",
        "torch.nn.modules.linear.Linear",
        "class",
        "torch/nn/modules/linear.py",
        True,
    ),
    (
        "torch.nn.Linear.forward",
        "torch.nn.modules.linear.Linear.forward",
        "method",
        "torch/nn/modules/linear.py",
        True,
    ),
    ("torch.Generator", "torch._C.Generator", "class", "C extension", True),
    (
        "torch.Generator.manual_seed",
        "torch._C.Generator.manual_seed",
        "method",
        "C extension",
        True,
    ),
    ("torch.autograd.grad", "torch.autograd.grad", "function", "torch/autograd/__init__.py", True),
    ("torch.Size", "torch.Size", "class", "C extension", True),
]


def _site(torch_mod) -> Path:
    return Path(torch_mod.__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize("query,canonical,kind,source,public", CASES, ids=[c[0] for c in CASES])
def test_resolves_real_api(agent_resolve, torch_mod, query, canonical, kind, source, public):
    r = agent_resolve.resolve(query)
    assert r["canonical"] == canonical
    assert r["kind"] == kind
    assert r["public"] is public, r["public_reason"]
    if source == "C extension":
        assert r["source"] == "C extension"
        return
    file, _, line = r["source"].partition(":")
    assert file == source
    if kind in ("module", "attribute"):
        assert line == ""  # a whole file (or the holder's file): no line
        return
    # the line is the def/class of the object itself (its enum class for a member)
    leaf = canonical.split(".")[-2 if kind == "enum-member" else -1]
    text = (_site(torch_mod) / file).read_text().splitlines()[int(line) - 1]
    assert re.match(rf"\s*(async\s+)?(def|class)\s+{re.escape(leaf)}\b", text), text


@pytest.mark.slow
def test_every_kind_is_covered(agent_resolve):
    assert {c[2] for c in CASES} == set(KINDS)


@pytest.mark.slow
def test_aliases_name_the_same_object(agent_resolve):
    r = agent_resolve.resolve("torch.autograd.grad_mode.set_grad_enabled")
    assert "torch.set_grad_enabled" in r["aliases"]
    assert "torch.autograd.set_grad_enabled" in r["aliases"]
    # the alias resolves to the canonical object
    assert agent_resolve.resolve("torch.set_grad_enabled")["canonical"] == r["canonical"]
    # a re-export of a public home elsewhere is not an alias (torch.fft lists Tensor in __all__)
    assert not any(
        a.startswith("torch.fft.") for a in agent_resolve.resolve("torch.Tensor.ndim")["aliases"]
    )


@pytest.mark.slow
def test_interpreter_shared_values_have_no_aliases(agent_resolve):
    """A bool or int is shared by the interpreter: another module's equal flag is no alias of it."""
    enabled = agent_resolve.resolve("torch.backends.cudnn.enabled")
    assert enabled["aliases"] == []
    debug = agent_resolve.resolve("torch.version.debug")
    assert not any(
        a.startswith("torch.has_") or a.startswith("torch.backends.") for a in debug["aliases"]
    )


@pytest.mark.slow
def test_member_facts(agent_resolve):
    r = agent_resolve.resolve("torch.no_grad.clone")
    assert r["owner_class"] == "torch.autograd.grad_mode.no_grad"
    assert r["owner_kind"] == "context-manager"
    assert r["defined_in"] == "torch.utils._contextlib._DecoratorContextManager"
    assert r["module"] == "torch.utils._contextlib"
    add_ = agent_resolve.resolve("torch.Tensor.add_")
    assert add_["defined_in"] == "torch._C.TensorBase"
    assert add_["signature"].startswith("(other")  # from the docstring: C has no inspect signature


@pytest.mark.slow
def test_signatures(agent_resolve):
    assert agent_resolve.resolve("torch._utils._get_device_index")["signature"].startswith(
        "(device"
    )
    assert agent_resolve.resolve("torch.add")["signature"].startswith("(input, other")
    assert agent_resolve.resolve("torch.nn")["signature"] is None
    assert agent_resolve.resolve("Tensor.ndim")["signature"] is None


@pytest.mark.slow
def test_public_reasons(agent_resolve):
    r = agent_resolve.resolve("torch._utils._get_device_index")
    assert "'_utils'" in r["public_reason"]
    r = agent_resolve.resolve("torch.Generator")
    assert r["public"] and "exported publicly as torch.Generator" in r["public_reason"]
    r = agent_resolve.resolve("torch.autograd.grad_mode.set_grad_enabled")
    assert "torch.autograd.grad_mode.__all__" in r["public_reason"]
    ok, why = agent_resolve.judge("torch.cuda.streams.Event")
    assert ok and "defines no __all__" in why
    ok, why = agent_resolve.judge("torch.utils.data.nonexistent_name_xyz")
    assert not ok and "__all__" in why


@pytest.mark.slow
def test_docs_urls(agent_resolve, torch_mod):
    ver = docs_version(torch_mod.__version__)
    base = f"https://pytorch.org/docs/{ver}"
    assert re.fullmatch(r"\d+\.\d+", ver)
    url = agent_resolve.resolve("torch.autograd.grad_mode.set_grad_enabled.clone")["docs_url"]
    assert url == (
        f"{base}/generated/torch.autograd.grad_mode.set_grad_enabled.html"
        "#torch.autograd.grad_mode.set_grad_enabled.clone"
    )
    assert (
        agent_resolve.resolve("torch.Tensor.add_")["docs_url"]
        == f"{base}/generated/torch.Tensor.add_.html"
    )
    assert (
        agent_resolve.resolve("Optimizer.zero_grad")["docs_url"]
        == f"{base}/generated/torch.optim.Optimizer.zero_grad.html"
    )
    assert (
        agent_resolve.resolve("torch.cuda.Event")["docs_url"]
        == f"{base}/generated/torch.cuda.Event.html"
    )
    assert (
        agent_resolve.resolve("torch.BoolStorage")["docs_url"]
        == f"{base}/storage.html#torch.BoolStorage"
    )
    assert agent_resolve.resolve("torch.nn.functional")["docs_url"] == f"{base}/nn.functional.html"
    assert agent_resolve.resolve("torch._utils._get_device_index")["docs_url"] == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    "version,expected",
    [
        ("2.13.0+cpu", "2.13"),
        ("2.7.1", "2.7"),
        ("2.14.0a0+git1234", "main"),
        ("2.12.0.dev20260101", "main"),
    ],
)
def test_docs_version(agent_resolve, version, expected):
    assert docs_version(version) == expected


@pytest.mark.slow
def test_short_form_maps_when_unambiguous(agent_resolve):
    r = agent_resolve.resolve("Optimizer.zero_grad")
    assert r["resolved_via"].startswith("short form")
    assert agent_resolve.resolve("nn.functional.relu")["canonical"] == "torch.nn.functional.relu"


@pytest.mark.slow
def test_short_form_lists_candidates_when_ambiguous(agent_resolve):
    with pytest.raises(agent_resolve.NotFound) as info:
        agent_resolve.locate("relu")
    assert info.value.candidates == ["torch.nn.functional.relu", "torch.relu"]
    with pytest.raises(agent_resolve.NotFound) as info:
        agent_resolve.locate("Event")
    assert {"torch.Event", "torch.cuda.Event"} <= set(info.value.candidates)


@pytest.mark.slow
def test_unknown_name_suggests_from_the_furthest_module(agent_resolve):
    with pytest.raises(agent_resolve.NotFound) as info:
        agent_resolve.locate("torch.nn.functional.relux")
    exc = info.value
    assert exc.furthest == "torch.nn.functional"
    assert exc.missing == "relux"
    assert "torch.nn.functional.relu" in exc.suggestions
    assert 1 <= len(exc.suggestions) <= 5
    items = agent_resolve.resolve_many(["torch.autograd.grad_mode.set_grad_enabled.clonx"])
    assert items[0]["status"] == "unknown"
    assert items[0]["suggestions"] == ["torch.autograd.grad_mode.set_grad_enabled.clone"]


@pytest.fixture
def moved_package(tmp_path, monkeypatch):
    """A backend whose class moved from ``oldbk.streams`` (older release) to ``oldbk.runtime.events``."""
    pkg = tmp_path / "oldbk"
    (pkg / "runtime").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .runtime.events import Event\n__all__ = ['Event']\n")
    (pkg / "runtime" / "__init__.py").write_text("")
    (pkg / "runtime" / "events.py").write_text(
        "class Event:\n    def record(self, stream=None):\n        return stream\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "oldbk"
    for name in [n for n in sys.modules if n == "oldbk" or n.startswith("oldbk.")]:
        del sys.modules[name]


@pytest.mark.slow
def test_a_moved_module_is_found_by_its_tail(agent_resolve, moved_package):
    import importlib

    importlib.import_module(moved_package)
    r = agent_resolve.resolve("oldbk.streams.Event.record", backend_module="oldbk")
    assert r["canonical"] == "oldbk.runtime.events.Event.record"
    assert "moved" in r["resolved_via"]
    assert r["kind"] == "method"
    assert r["source"].endswith("oldbk/runtime/events.py:2")
    # a leaf that exists nowhere is still unknown, with suggestions
    with pytest.raises(agent_resolve.NotFound):
        agent_resolve.locate("oldbk.streams.Evnt.record", backend_module="oldbk")


@pytest.mark.slow
def test_resolution_is_jsonable_and_typed(agent_resolve):
    import json

    items = agent_resolve.resolve_many([c[0] for c in CASES])
    json.dumps(items)
    assert all(i["status"] == "ok" for i in items)
    assert all(isinstance(i["resolution"]["aliases"], list) for i in items)


@pytest.mark.slow
def test_a_typo_mid_name_is_unknown_not_moved(agent_resolve):
    """``torch.set_grad_enabld.clone`` must not turn into ``torch.clone``."""
    with pytest.raises(agent_resolve.NotFound) as info:
        agent_resolve.resolve("torch.set_grad_enabld.clone")
    assert info.value.missing == "set_grad_enabld"
    assert "torch.set_grad_enabled" in info.value.suggestions


@pytest.mark.slow
def test_reexports_of_one_constant_are_one_candidate(agent_resolve):
    """``inf`` is imported from math by a dozen torch modules: one object, spelled torch.inf."""
    r = agent_resolve.resolve("inf")
    assert r["canonical"] == "torch.inf" and r["resolved_via"] == "short form found as torch.inf"
    assert agent_resolve.locate("nan").path == "torch.nan"


@pytest.fixture
def consts_backend(tmp_path, monkeypatch):
    pkg = tmp_path / "constbk"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import first, second\n")
    (pkg / "first.py").write_text("LEVEL = 1\nfrom math import inf as BIG\n")
    (pkg / "second.py").write_text("LEVEL = 1\nfrom math import inf as BIG\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("constbk")
    yield "constbk"
    for name in [n for n in sys.modules if n == "constbk" or n.startswith("constbk.")]:
        del sys.modules[name]


@pytest.mark.slow
def test_equal_small_values_in_two_modules_stay_two_candidates(agent_resolve, consts_backend):
    """Two ``LEVEL = 1`` share the interpreter's cached int: that is no re-export."""
    with pytest.raises(agent_resolve.NotFound) as info:
        agent_resolve.locate("LEVEL", backend_module=consts_backend)
    assert info.value.candidates == ["constbk.first.LEVEL", "constbk.second.LEVEL"]
    assert agent_resolve.locate("BIG", backend_module=consts_backend).path == "constbk.first.BIG"
