"""Which of torch's global and thread-local states (``state.py``) an API touches: data, not code.

The controller reads it (which states a family's isolation probe starts from), scaffold facts read
it, and the ``states`` job answers it (``api_states``).
"""

from __future__ import annotations

# API (qualified name, or a parent of it) -> states it touches. Data, not code:
# a sub-method (``...set_grad_enabled.clone``) inherits its parent's entry.
API_STATES: dict[str, tuple[str, ...]] = {
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
API_ALIASES: dict[str, str] = {
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


def states_for_api(api: str) -> tuple[str, ...]:
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
