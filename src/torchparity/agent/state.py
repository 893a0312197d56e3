"""Registry of torch's global and thread-local states.

Each state has a getter, a way to start from a value (``push`` returns the
undo), and the values worth starting from. Every accessor is looked up by name
at call time, so a torch that lacks one simply reports the state unavailable;
nothing here is written for one torch version.

The link from an API to the states it touches is data (``API_STATES``).
Values are kept JSON-friendly: dtypes and devices as strings.
"""


def _torch():
    import torch

    return torch


def _attr(path):
    """``torch.a.b`` looked up now; None when missing."""
    obj = _torch()
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class StateSpec(object):
    def __init__(
        self, name, title, getter, setter=None, values=(), requires=(), context=None, doc=""
    ):
        self.name = name
        self.title = title
        self._getter = getter
        self._setter = setter
        self._values = values
        self._requires = requires
        self._context = context
        self.doc = doc

    def available(self):
        """Empty string when usable here, else why not."""
        for path in self._requires:
            if _attr(path) is None:
                return "this torch has no %s" % path
        try:
            self.get()
        except Exception as exc:
            return "%s: %s" % (type(exc).__name__, exc)
        return ""

    def get(self):
        return _jsonable(self._getter())

    def values(self, device_type="cpu"):
        vals = self._values(device_type) if callable(self._values) else self._values
        return list(vals)

    def push(self, value):
        """Start from ``value``; returns a callable that undoes it."""
        if self._context is not None:
            cm = self._context(value)
            cm.__enter__()
            return lambda: cm.__exit__(None, None, None)
        old = self._getter()
        self._setter(_from_json(value))
        return lambda: self._setter(old)


def _jsonable(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def _from_json(value):
    if isinstance(value, str) and value.startswith("torch.") and hasattr(_torch(), value[6:]):
        return getattr(_torch(), value[6:])
    return value


def _set_anomaly(enabled=None, check_nan=None):
    torch = _torch()
    if enabled is None:
        enabled = torch.is_anomaly_enabled()
    if check_nan is None:
        check_nan = torch.is_anomaly_check_nan_enabled()
    torch.set_anomaly_enabled(enabled, check_nan)


def _set_deterministic(mode=None, warn_only=None):
    torch = _torch()
    if mode is None:
        mode = torch.are_deterministic_algorithms_enabled()
    if warn_only is None:
        warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(mode, warn_only=warn_only)


def _autocast_get(device_type):
    torch = _torch()
    try:
        return torch.is_autocast_enabled(device_type)
    except TypeError:  # torch < 2.4: per-device functions
        if device_type == "cpu":
            return torch.is_autocast_cpu_enabled()
        if device_type == "cuda":
            return torch.is_autocast_enabled()
        mod = getattr(torch, device_type)
        return mod.is_autocast_enabled()


def _autocast_set(device_type, enabled):
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


def _inference_mode_context(value):
    return _torch().inference_mode(bool(value))


def _default_device_values(device_type):
    return ["cpu"] if device_type == "cpu" else ["cpu", device_type]


def _default_device_get():
    return str(_torch().get_default_device())


def _default_device_set(value):
    _torch().set_default_device(value)


def _autocast_spec(name, title, device_type):
    return StateSpec(
        name,
        title,
        getter=lambda: _autocast_get(device_type),
        setter=lambda v: _autocast_set(device_type, bool(v)),
        values=(False, True),
        doc="autocast enabled for %s" % device_type,
    )


def _specs():
    t = _torch
    return [
        StateSpec(
            "grad_mode",
            "GRAD MODE",
            getter=lambda: t().is_grad_enabled(),
            setter=lambda v: t().set_grad_enabled(bool(v)),
            values=(False, True),
            doc="thread-local grad mode",
        ),
        StateSpec(
            "inference_mode",
            "INFERENCE MODE",
            getter=lambda: t().is_inference_mode_enabled(),
            context=_inference_mode_context,
            values=(False, True),
            requires=("torch.is_inference_mode_enabled",),
            doc="thread-local inference mode",
        ),
        StateSpec(
            "multithreading",
            "MULTITHREADING",
            getter=lambda: t().autograd.is_multithreading_enabled(),
            setter=lambda v: t()._C._set_multithreading_enabled(bool(v)),
            values=(False, True),
            requires=(
                "torch.autograd.is_multithreading_enabled",
                "torch._C._set_multithreading_enabled",
            ),
            doc="autograd multithreading",
        ),
        StateSpec(
            "anomaly_mode",
            "ANOMALY MODE",
            getter=lambda: t().is_anomaly_enabled(),
            setter=lambda v: _set_anomaly(enabled=bool(v)),
            values=(False, True),
            doc="autograd anomaly detection",
        ),
        StateSpec(
            "anomaly_check_nan",
            "ANOMALY CHECK NAN",
            getter=lambda: t().is_anomaly_check_nan_enabled(),
            setter=lambda v: _set_anomaly(check_nan=bool(v)),
            values=(False, True),
            requires=("torch.is_anomaly_check_nan_enabled",),
            doc="anomaly mode's NaN check",
        ),
        StateSpec(
            "deterministic",
            "DETERMINISTIC ALGORITHMS",
            getter=lambda: t().are_deterministic_algorithms_enabled(),
            setter=lambda v: _set_deterministic(mode=bool(v)),
            values=(False, True),
            doc="torch.use_deterministic_algorithms",
        ),
        StateSpec(
            "deterministic_warn_only",
            "DETERMINISTIC WARN ONLY",
            getter=lambda: t().is_deterministic_algorithms_warn_only_enabled(),
            setter=lambda v: _set_deterministic(warn_only=bool(v)),
            values=(False, True),
            requires=("torch.is_deterministic_algorithms_warn_only_enabled",),
            doc="warn_only of use_deterministic_algorithms",
        ),
        StateSpec(
            "default_dtype",
            "DEFAULT DTYPE",
            getter=lambda: t().get_default_dtype(),
            setter=lambda v: t().set_default_dtype(v),
            values=("torch.float32", "torch.float64"),
            doc="torch.get_default_dtype",
        ),
        StateSpec(
            "default_device",
            "DEFAULT DEVICE",
            getter=_default_device_get,
            setter=_default_device_set,
            values=_default_device_values,
            requires=("torch.get_default_device",),
            doc="torch.get_default_device",
        ),
        StateSpec(
            "num_threads",
            "INTRA-OP THREADS",
            getter=lambda: t().get_num_threads(),
            setter=lambda v: t().set_num_threads(int(v)),
            values=(1, 2),
            doc="intra-op thread count",
        ),
        StateSpec(
            "matmul_precision",
            "FLOAT32 MATMUL PRECISION",
            getter=lambda: t().get_float32_matmul_precision(),
            setter=lambda v: t().set_float32_matmul_precision(v),
            values=("highest", "high", "medium"),
            requires=("torch.get_float32_matmul_precision",),
            doc="torch.get_float32_matmul_precision",
        ),
        _autocast_spec("autocast_cpu", "AUTOCAST CPU", "cpu"),
    ]


def registry(device_type="cpu"):
    """Name -> StateSpec for this torch and run device (``autocast_<device>`` included)."""
    specs = _specs()
    if device_type and device_type != "cpu":
        specs.append(
            _autocast_spec("autocast_device", "AUTOCAST %s" % device_type.upper(), device_type)
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

# API (qualified name, or a parent of it) -> states it touches. Data, not code:
# a sub-method (``...set_grad_enabled.clone``) inherits its parent's entry.
API_STATES = {
    "torch.autograd.grad_mode.set_grad_enabled": ("grad_mode",),
    "torch.autograd.grad_mode.no_grad": ("grad_mode",),
    "torch.autograd.grad_mode.enable_grad": ("grad_mode",),
    "torch.autograd.grad_mode.inference_mode": ("inference_mode", "grad_mode"),
    "torch.autograd.grad_mode.set_multithreading_enabled": ("multithreading",),
    "torch.autograd.anomaly_mode.detect_anomaly": ("anomaly_mode", "anomaly_check_nan"),
    "torch.autograd.anomaly_mode.set_detect_anomaly": ("anomaly_mode", "anomaly_check_nan"),
    "torch.use_deterministic_algorithms": ("deterministic", "deterministic_warn_only"),
    "torch.set_default_dtype": ("default_dtype",),
    "torch.set_default_device": ("default_device",),
    "torch.set_num_threads": ("num_threads",),
    "torch.set_float32_matmul_precision": ("matmul_precision",),
    "torch.autocast": ("autocast_cpu", "autocast_device"),
    "torch.amp.autocast_mode.autocast": ("autocast_cpu", "autocast_device"),
}

# Public spellings that name the same objects as the qualified keys above.
API_ALIASES = {
    "torch.set_grad_enabled": "torch.autograd.grad_mode.set_grad_enabled",
    "torch.autograd.set_grad_enabled": "torch.autograd.grad_mode.set_grad_enabled",
    "torch.no_grad": "torch.autograd.grad_mode.no_grad",
    "torch.autograd.no_grad": "torch.autograd.grad_mode.no_grad",
    "torch.enable_grad": "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.enable_grad": "torch.autograd.grad_mode.enable_grad",
    "torch.inference_mode": "torch.autograd.grad_mode.inference_mode",
    "torch.autograd.inference_mode": "torch.autograd.grad_mode.inference_mode",
    "torch.autograd.set_multithreading_enabled": "torch.autograd.grad_mode.set_multithreading_enabled",
    "torch.autograd.detect_anomaly": "torch.autograd.anomaly_mode.detect_anomaly",
    "torch.autograd.set_detect_anomaly": "torch.autograd.anomaly_mode.set_detect_anomaly",
    "torch.amp.autocast": "torch.amp.autocast_mode.autocast",
}


def states_for_api(api):
    # type: (str) -> tuple[str, ...]
    """The states an API touches: its own entry, else its nearest parent's; () if none."""
    name = api
    for prefix, target in API_ALIASES.items():
        if name == prefix or name.startswith(prefix + "."):
            name = target + name[len(prefix) :]
            break
    while name:
        if name in API_STATES:
            return tuple(API_STATES[name])
        if "." not in name:
            break
        name = name.rsplit(".", 1)[0]
    return ()


def snapshot(specs):
    """Current value of every usable state (name -> value); errors become a marker string."""
    out = {}
    for name, spec in specs.items():
        try:
            out[name] = spec.get()
        except Exception as exc:  # a state that stopped answering is worth seeing
            out[name] = "<error %s>" % type(exc).__name__
    return out


def usable(specs):
    """(usable specs, {name: why skipped}) for this torch."""
    ok, skipped = {}, {}
    for name, spec in specs.items():
        why = spec.available()
        if why:
            skipped[name] = why
        else:
            ok[name] = spec
    return ok, skipped
