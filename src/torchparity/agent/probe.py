"""Environment facts, in the key order the community's evidence logs use."""

import platform
import sys

from . import backend, state


def probe(torch, backend_mod, backend_module, device_type, device_initialized_at_import):
    facts = [
        ("python_executable", sys.executable),
        ("python_version", platform.python_version()),
        ("platform", platform.platform()),
        ("torch_version", str(torch.__version__)),
    ]
    if backend_mod is not None:
        facts.append(("%s_version" % backend_module, str(getattr(backend_mod, "__version__", "unknown"))))
    facts.append(("torch_file", str(torch.__file__)))
    if backend_mod is not None:
        facts.append(("%s_file" % backend_module, str(getattr(backend_mod, "__file__", "unknown"))))
    facts.append(("device_type", device_type))
    dev = backend.device_facts(torch, device_type)
    # The seed's spelling: npu_available / npu_device_count.
    facts.append(("%s_available" % device_type, dev.get("device_available")))
    facts.append(("%s_device_count" % device_type, dev.get("device_count")))
    if "device_name" in dev:
        facts.append(("%s_device_name" % device_type, dev["device_name"]))
    if "device_error" in dev:
        facts.append(("%s_device_error" % device_type, dev["device_error"]))
    if device_initialized_at_import is not None:
        facts.append(("device_initialized_at_import", device_initialized_at_import))
    specs, _skipped = state.usable(state.registry(device_type))
    for name, value in state.snapshot(specs).items():
        facts.append(("initial_%s" % ("grad_enabled" if name == "grad_mode" else name), value))
    return facts
