"""Import torch and the backend module once; answer device questions later.

Importing must not initialise the device: the warm worker imports here and
then forks, and a device initialised before ``fork`` is unusable in the child.
Everything that may touch the device (availability, count, init) is called
from the child only.
"""

import importlib
import sys
import traceback

# A backend module importable under this name gives the device on "auto".
KNOWN_BACKEND_MODULES = (("torch_npu", "npu"),)


class ImportFailure(Exception):
    def __init__(self, module, detail):
        Exception.__init__(self, "import %s failed: %s" % (module, detail))
        self.module = module
        self.detail = detail


def import_stack(backend_module):
    """Import torch and ``backend_module`` (may be empty). Returns (torch, backend or None)."""
    try:
        import torch  # noqa: F401
    except BaseException as exc:  # ImportError, or a broken native library
        raise ImportFailure("torch", "%s: %s" % (type(exc).__name__, exc)) from None
    backend = None
    if backend_module:
        try:
            backend = importlib.import_module(backend_module)
        except BaseException as exc:
            raise ImportFailure(backend_module, "%s: %s" % (type(exc).__name__, exc)) from None
    return sys.modules["torch"], backend


def _device_module(torch, device_type):
    if device_type in ("cpu", ""):
        return None
    return getattr(torch, device_type, None)


def device_initialized(torch, device_type):
    """Whether the device runtime is initialised (None when the backend cannot tell)."""
    mod = _device_module(torch, device_type)
    fn = getattr(mod, "is_initialized", None)
    if fn is None:
        return None
    try:
        return bool(fn())
    except Exception:
        return None


def _seen(facts, device_type):
    """What the probe saw of a device, as the log spells it: npu_available=False, npu_device_count=0."""
    text = "%s_available=%s, %s_device_count=%s" % (
        device_type,
        facts.get("device_available"),
        device_type,
        facts.get("device_count"),
    )
    if facts.get("device_error"):
        text += " (%s)" % facts["device_error"]
    return text


def choose_device(torch, requested, backend_module, allow_cpu_fallback=False):
    """(device type, why it was chosen, problem): the device a job runs on.

    A device asked for by name must be there: when it is not, ``problem`` says so (a broken
    environment) unless ``allow_cpu_fallback``, which runs on the cpu and says why. ``auto`` picks
    the backend module's device, else cuda, xpu, mps, else the cpu, and says which check chose it.
    May initialise a device runtime: call it in a job's process, never in the warm worker itself.
    """
    if requested and requested not in ("auto", "cpu"):
        facts = device_facts(torch, requested)
        if facts.get("device_available"):
            return (
                requested,
                "requested (--device %s); %s" % (requested, _seen(facts, requested)),
                "",
            )
        if allow_cpu_fallback:
            return (
                "cpu",
                (
                    "requested %s, which is not available (%s); running on the cpu because the "
                    "CPU fallback was asked for (--allow-cpu-fallback)"
                    % (requested, _seen(facts, requested))
                ),
                "",
            )
        return (
            requested,
            "requested (--device %s)" % requested,
            (
                "device %s is not available in %s: the probe saw %s; run where the device is, choose another "
                "--device, or pass --allow-cpu-fallback to run on the cpu"
                % (requested, sys.executable, _seen(facts, requested))
            ),
        )
    if requested == "cpu":
        return "cpu", "requested (--device cpu)", ""
    skipped = []
    device_type = backend_device(torch, backend_module)
    if device_type:
        facts = device_facts(torch, device_type)
        if facts.get("device_available"):
            return (
                device_type,
                "auto: the backend module is imported and its device %s is available (%s)"
                % (device_type, _seen(facts, device_type)),
                "",
            )
        skipped.append(
            "the backend's device %s is not available (%s)"
            % (device_type, _seen(facts, device_type))
        )
    for name in ("cuda", "xpu", "mps"):
        mod = getattr(torch, name, None)
        try:
            if mod is not None and mod.is_available():
                return name, "auto: torch.%s.is_available() is True" % name, ""
        except Exception:
            pass
    skipped.append("torch.cuda, torch.xpu and torch.mps report no device")
    return "cpu", "auto: " + "; ".join(skipped) + "; the cpu", ""


def backend_device(torch, backend_module):
    """The device of the configured (or a known, imported) backend module; None if none."""
    for module_name, device_type in ((backend_module, None),) + KNOWN_BACKEND_MODULES:
        if not module_name or module_name not in sys.modules:
            continue
        if device_type is None:
            device_type = _backend_device_type(torch, module_name)
        if device_type:
            return device_type
    return None


def _backend_device_type(torch, module_name):
    for name, device_type in KNOWN_BACKEND_MODULES:
        if name == module_name:
            return device_type
    try:
        name = torch._C._get_privateuse1_backend_name()
        if name and name != "privateuseone":
            return name
    except Exception:
        pass
    return None


def device_facts(torch, device_type):
    """Availability and count of ``device_type`` (may initialise its runtime)."""
    if device_type == "cpu":
        return {"device_available": True, "device_count": 1}
    mod = _device_module(torch, device_type)
    if mod is None:
        return {
            "device_available": False,
            "device_count": 0,
            "device_error": "torch has no module torch.%s" % device_type,
        }
    facts = {}
    try:
        facts["device_available"] = bool(mod.is_available())
    except Exception as exc:
        facts["device_available"] = False
        facts["device_error"] = "%s: %s" % (type(exc).__name__, exc)
    try:
        facts["device_count"] = int(mod.device_count())
    except Exception:
        facts["device_count"] = 0
    if facts.get("device_available") and facts.get("device_count"):
        try:
            facts["device_name"] = str(mod.get_device_name(0))
        except Exception:
            pass
    return facts


def init_device(torch, device_type):
    """Initialise the device runtime in a job's child (no-op on cpu or when unavailable)."""
    mod = _device_module(torch, device_type)
    if mod is None:
        return None
    try:
        if not mod.is_available():
            return "device %s not available" % device_type
        init = getattr(mod, "init", None)
        if init is not None:
            init()
    except Exception:
        return traceback.format_exc(limit=2)
    return None
