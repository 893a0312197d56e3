"""Registry of torch's global and thread-local states.

Each state has a getter, a way to start from a value (``push`` returns the undo), and the values
worth starting from. Every accessor is looked up by name at call time, so a torch that lacks one
simply reports the state unavailable; nothing here is written for one torch version.

The link from an API to the states it touches is data (``api/states.py``). Values are kept
JSON-friendly: dtypes and devices as strings.
"""

from __future__ import annotations

from typing import Any, Callable, ContextManager, Dict, Iterable, Union

from .protocol import TorchModule

#: a state's values: a list, or a function of the run's device type that gives one
Values = Union[Iterable[Any], Callable[[str], Iterable[Any]]]


def _torch() -> TorchModule:
    import torch

    return torch


def _attr(path: str) -> Any:
    """``torch.a.b`` looked up now; None when missing."""
    obj = _torch()
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class StateSpec(object):
    def __init__(
        self,
        name: str,
        getter: Callable[[], Any],
        setter: Callable[[Any], Any] | None = None,
        values: Values = (False, True),
        requires: tuple[str, ...] = (),
        context: Callable[[Any], ContextManager[Any]] | None = None,
        doc: str = "",
        title: str = "",
    ) -> None:
        self.name = name
        self.title = title or STATE_TITLES[name]
        self._getter = getter
        self._setter = setter
        self._values = values
        self._requires = requires
        self._context = context
        self.doc = doc

    def available(self) -> str:
        """Empty string when usable here, else why not."""
        for path in self._requires:
            if _attr(path) is None:
                return "this torch has no %s" % path
        try:
            self.get()
        except Exception as exc:
            return "%s: %s" % (type(exc).__name__, exc)
        return ""

    def get(self) -> Any:
        return _jsonable(self._getter())

    def values(self, device_type: str = "cpu") -> list[Any]:
        vals = self._values(device_type) if callable(self._values) else self._values
        return list(vals)

    def push(self, value: Any) -> Callable[[], Any]:
        """Start from ``value``; returns a callable that undoes it."""
        if self._context is not None:
            cm = self._context(value)
            cm.__enter__()
            return lambda: cm.__exit__(None, None, None)
        setter, old = self._setter, self._getter()
        assert setter is not None, "a state without a context has a setter"
        setter(_from_json(value))
        return lambda: setter(old)


#: name -> spec of the states this torch has
Specs = Dict[str, StateSpec]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _from_json(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("torch.") and hasattr(_torch(), value[6:]):
        return getattr(_torch(), value[6:])
    return value


def _set_anomaly(enabled: bool | None = None, check_nan: bool | None = None) -> None:
    torch = _torch()
    if enabled is None:
        enabled = torch.is_anomaly_enabled()
    if check_nan is None:
        check_nan = torch.is_anomaly_check_nan_enabled()
    torch.set_anomaly_enabled(enabled, check_nan)


def _set_deterministic(mode: bool | None = None, warn_only: bool | None = None) -> None:
    torch = _torch()
    if mode is None:
        mode = torch.are_deterministic_algorithms_enabled()
    if warn_only is None:
        warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(mode, warn_only=warn_only)


def _autocast_get(device_type: str) -> bool:
    torch = _torch()
    try:
        return bool(torch.is_autocast_enabled(device_type))
    except TypeError:  # torch < 2.4: per-device functions
        if device_type == "cpu":
            return bool(torch.is_autocast_cpu_enabled())
        if device_type == "cuda":
            return bool(torch.is_autocast_enabled())
        return bool(getattr(torch, device_type).is_autocast_enabled())


def _autocast_set(device_type: str, enabled: bool) -> None:
    torch = _torch()
    try:
        torch.set_autocast_enabled(device_type, enabled)
    except TypeError:
        if device_type == "cpu":
            torch.set_autocast_cpu_enabled(enabled)
        elif device_type == "cuda":
            torch.set_autocast_enabled(enabled)
        else:
            getattr(torch, device_type).set_autocast_enabled(enabled)


def _autocast_spec(name: str, device_type: str, title: str = "") -> StateSpec:
    return StateSpec(
        name,
        getter=lambda: _autocast_get(device_type),
        setter=lambda v: _autocast_set(device_type, bool(v)),
        doc="autocast enabled for %s" % device_type,
        title=title,
    )


def _specs() -> list[StateSpec]:
    t = _torch
    return [
        StateSpec(
            "grad_mode",
            getter=lambda: t().is_grad_enabled(),
            setter=lambda v: t().set_grad_enabled(bool(v)),
            doc="thread-local grad mode",
        ),
        StateSpec(
            "inference_mode",
            getter=lambda: t().is_inference_mode_enabled(),
            context=lambda v: t().inference_mode(bool(v)),
            requires=("torch.is_inference_mode_enabled",),
            doc="thread-local inference mode",
        ),
        StateSpec(
            "multithreading",
            getter=lambda: t().autograd.is_multithreading_enabled(),
            setter=lambda v: t()._C._set_multithreading_enabled(bool(v)),
            requires=(
                "torch.autograd.is_multithreading_enabled",
                "torch._C._set_multithreading_enabled",
            ),
            doc="autograd multithreading",
        ),
        StateSpec(
            "anomaly_mode",
            getter=lambda: t().is_anomaly_enabled(),
            setter=lambda v: _set_anomaly(enabled=bool(v)),
            doc="autograd anomaly detection",
        ),
        StateSpec(
            "anomaly_check_nan",
            getter=lambda: t().is_anomaly_check_nan_enabled(),
            setter=lambda v: _set_anomaly(check_nan=bool(v)),
            requires=("torch.is_anomaly_check_nan_enabled",),
            doc="anomaly mode's NaN check",
        ),
        StateSpec(
            "deterministic",
            getter=lambda: t().are_deterministic_algorithms_enabled(),
            setter=lambda v: _set_deterministic(mode=bool(v)),
            doc="torch.use_deterministic_algorithms",
        ),
        StateSpec(
            "deterministic_warn_only",
            getter=lambda: t().is_deterministic_algorithms_warn_only_enabled(),
            setter=lambda v: _set_deterministic(warn_only=bool(v)),
            requires=("torch.is_deterministic_algorithms_warn_only_enabled",),
            doc="warn_only of use_deterministic_algorithms",
        ),
        StateSpec(
            "default_dtype",
            getter=lambda: t().get_default_dtype(),
            setter=lambda v: t().set_default_dtype(v),
            values=("torch.float32", "torch.float64"),
            doc="torch.get_default_dtype",
        ),
        StateSpec(
            "default_device",
            getter=lambda: str(t().get_default_device()),
            setter=lambda v: t().set_default_device(v),
            values=lambda device_type: ["cpu"] if device_type == "cpu" else ["cpu", device_type],
            requires=("torch.get_default_device",),
            doc="torch.get_default_device",
        ),
        StateSpec(
            "num_threads",
            getter=lambda: t().get_num_threads(),
            setter=lambda v: t().set_num_threads(int(v)),
            values=(1, 2),
            doc="intra-op thread count",
        ),
        StateSpec(
            "matmul_precision",
            getter=lambda: t().get_float32_matmul_precision(),
            setter=lambda v: t().set_float32_matmul_precision(v),
            values=("highest", "high", "medium"),
            requires=("torch.get_float32_matmul_precision",),
            doc="torch.get_float32_matmul_precision",
        ),
        _autocast_spec("autocast_cpu", "cpu"),
    ]


def registry(device_type: str = "cpu") -> Specs:
    """Name -> StateSpec for this torch and run device (``autocast_<device>`` included)."""
    specs = _specs()
    if device_type and device_type != "cpu":
        specs.append(
            _autocast_spec("autocast_device", device_type, "AUTOCAST %s" % device_type.upper())
        )
    return dict((s.name, s) for s in specs)


#: every state's name and section title, as data (the controller reads this, never the registry)
STATE_TITLES = {
    "grad_mode": "GRAD MODE",
    "inference_mode": "INFERENCE MODE",
    "multithreading": "MULTITHREADING",
    "anomaly_mode": "ANOMALY MODE",
    "anomaly_check_nan": "ANOMALY CHECK NAN",
    "deterministic": "DETERMINISTIC ALGORITHMS",
    "deterministic_warn_only": "DETERMINISTIC WARN ONLY",
    "default_dtype": "DEFAULT DTYPE",
    "default_device": "DEFAULT DEVICE",
    "num_threads": "INTRA-OP THREADS",
    "matmul_precision": "FLOAT32 MATMUL PRECISION",
    "autocast_cpu": "AUTOCAST CPU",
    "autocast_device": "AUTOCAST DEVICE",
}
STATE_NAMES = tuple(STATE_TITLES)


def snapshot(specs: Specs) -> dict[str, Any]:
    """Current value of every usable state (name -> value); errors become a marker string."""
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        try:
            out[name] = spec.get()
        except Exception as exc:  # a state that stopped answering is worth seeing
            out[name] = "<error %s>" % type(exc).__name__
    return out


def usable(specs: Specs) -> tuple[Specs, dict[str, str]]:
    """(usable specs, {name: why skipped}) for this torch."""
    ok: Specs = {}
    skipped: dict[str, str] = {}
    for name, spec in specs.items():
        why = spec.available()
        if why:
            skipped[name] = why
        else:
            ok[name] = spec
    return ok, skipped
