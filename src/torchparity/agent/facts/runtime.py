"""What a storage class and a device-runtime function or class offer, used on the device under test.

Storages are built and moved on the CPU; streams and events are constructed
(on the device when their constructor takes one) and their zero-argument
methods called.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict

from ..protocol import Json, TorchModule
from .literal import dtype_src, error_text, exc_name, literal, try_literal
from .recipes.layout import DOCUMENTED_MODULES
from .schema import PinnedMemoryFacts, RuntimeCall, RuntimeFacts, StorageFacts

_STORAGE_VALUES = {
    "bool": "[True, False, True]",
    "complex": "[complex(1.0, 2.0), complex(0.0, -1.0)]",
    "float": "[1.0, 2.5, -3.0]",
    "int": "[1, 2, 3]",
}


def storage_facts(torch: TorchModule, obj: Any) -> StorageFacts:
    untyped = isinstance(obj, type) and issubclass(obj, torch.UntypedStorage)
    out: StorageFacts = {"untyped": untyped, "problem": ""}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if untyped:
                s = obj(4, device="cpu")
                s.fill_(7)
                out.update({"size": s.size(), "values": s.tolist(), "nbytes": s.nbytes()})
                return out
            probe = obj(0)
            dtype = probe.dtype
            kind = (
                "bool"
                if dtype == torch.bool
                else "complex"
                if dtype.is_complex
                else "float"
                if dtype.is_floating_point
                else "int"
            )
            values_src = _STORAGE_VALUES[kind]
            s = obj(eval(values_src))
            moved = s.to(device="cpu")
            out.update(
                {
                    "dtype": dtype_src(torch, dtype),
                    "values": values_src,
                    "tolist": literal(s.tolist(), torch),
                    "element_size": s.element_size(),
                    "size": s.size(),
                    "moved_ok": moved.tolist() == s.tolist(),
                }
            )
        except Exception as exc:
            out["problem"] = "using %s on the CPU failed: %s" % (
                getattr(obj, "__name__", obj),
                error_text(exc),
            )
    return out


#: zero-argument methods of streams and events, called in this order
_RUNTIME_METHODS = ("record", "synchronize", "query", "record_event")


#: the device module an API of one backend is documented under, and the device types that
#: have one of their own (``torch.npu`` once torch_npu is imported, ``torch.cpu``)


def backend_spelling(torch: TorchModule, resolution: Json, device_type: str) -> str:
    """``torch.<device>.<name>`` for ``torch.cuda.<name>`` when the device under test has its own module.

    The tests run on the device under test: a CUDA name is spelled through that
    device's module (``torch.npu.Event`` for ``torch.cuda.Event`` with torch_npu).
    """
    module = getattr(torch, device_type, None) if device_type else None
    if module is None or device_type == "cuda":
        return ""
    for name in [
        resolution.get("query", ""),
        resolution.get("docs_name", ""),
        resolution["canonical"],
    ] + list(resolution.get("aliases", [])):
        for prefix in DOCUMENTED_MODULES:
            if name and name.startswith(prefix + "."):
                rest = name[len(prefix) + 1 :].split(".")
                if rest[0] == "streams" and len(rest) > 1:  # torch.cuda.streams.Event -> Event
                    rest = rest[1:]
                obj = module
                for part in rest:
                    obj = getattr(obj, part, None)
                    if obj is None:
                        break
                if obj is not None:
                    return "torch.%s.%s" % (device_type, ".".join(rest))
    return ""


def _timing_ok(cls: Any) -> bool:
    """Whether two ``cls(enable_timing=True)`` events record and report the time between them."""
    if not callable(getattr(cls, "elapsed_time", None)):
        return False
    try:
        start, end = cls(enable_timing=True), cls(enable_timing=True)
        start.record()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) >= 0.0
    except Exception:
        return False


def runtime_facts(torch: TorchModule, obj: Any, resolution: Json, device_type: str) -> RuntimeFacts:
    out: RuntimeFacts = {
        "callable": callable(obj),
        "is_class": isinstance(obj, type),
        "problem": "",
        "module": resolution.get("module", ""),
        "leaf": resolution["path"].rsplit(".", 1)[-1],
    }
    spelled = backend_spelling(torch, resolution, device_type)
    out["spelled"] = spelled
    home = getattr(torch, device_type, None) if device_type else None
    out["module_members"] = (
        sorted(n for n in dir(home) if not n.startswith("_")) if home is not None else []
    )
    out["home"] = "torch.%s" % device_type if home is not None else ""
    if spelled:
        from ..api.objects import try_walk

        hit = try_walk(spelled)
        if hit is not None:
            obj = hit.obj
    if isinstance(obj, type):
        inst = None
        for how, make in (("device", lambda: obj(device=device_type)), ("plain", lambda: obj())):
            try:
                inst = make()
                out["construct"] = how
                break
            except Exception as exc:
                out["problem"] = "constructing %s failed: %s" % (obj.__name__, error_text(exc))
        if inst is None:
            return out
        out["problem"] = ""
        methods: Dict[str, RuntimeCall] = {}
        for name in _RUNTIME_METHODS:
            if not callable(getattr(inst, name, None)):
                continue
            try:
                value = getattr(inst, name)()
                methods[name] = {"ok": True, "literal": try_literal(value, torch)}
            except Exception as exc:
                methods[name] = {"ok": False, "error": error_text(exc)}
        out["methods"] = methods
        out["timing"] = _timing_ok(obj)
        dev = getattr(inst, "device", None)
        out["device"] = str(dev) if dev is not None else None
        return out
    try:
        value = obj()
        out["zero_arg"] = {
            "ok": True,
            "literal": try_literal(value, torch),
            "type": type(value).__name__,
        }
    except Exception as exc:
        out["zero_arg"] = {"ok": False, "error": error_text(exc), "raises": exc_name(exc)}
    return out


def pinned_memory_facts(torch: TorchModule, device_type: str) -> PinnedMemoryFacts:
    """Whether this backend pins host memory (what ``DataLoader(pin_memory=True)`` uses): measured
    on the device under test only; the CPU has nothing to pin for."""
    try:
        ok = bool(torch.empty(2).pin_memory().is_pinned())
    except Exception as exc:
        return {
            "ok": False,
            "problem": "pinning host memory for %s failed here: %s"
            % (device_type, error_text(exc)),
        }
    return {
        "ok": ok,
        "problem": "" if ok else "a pinned tensor does not report is_pinned() for %s" % device_type,
    }
