"""Import torch and the backend module once; answer device questions later (``Context``).

Importing must not initialise the device: the warm worker imports here and then forks, and a device
initialised before ``fork`` is unusable in the child. Everything that may touch the device
(availability, count, init) is called from the child only.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

from .preload import Replay
from .protocol import Json, TorchModule

# A backend module importable under this name gives the device on "auto".
KNOWN_BACKEND_MODULES = (("torch_npu", "npu"),)


class ImportFailure(Exception):
    def __init__(self, module: str, detail: str) -> None:
        Exception.__init__(self, "import %s failed: %s" % (module, detail))
        self.module = module
        self.detail = detail


def import_stack(backend_module: str) -> tuple[TorchModule, TorchModule | None]:
    """Import torch and ``backend_module`` (may be empty). Returns (torch, backend or None)."""
    try:
        import torch  # noqa: F401
    except BaseException as exc:  # ImportError, or a broken native library
        raise ImportFailure("torch", "%s: %s" % (type(exc).__name__, exc)) from None
    backend: TorchModule | None = None
    if backend_module:
        try:
            backend = importlib.import_module(backend_module)
        except BaseException as exc:
            raise ImportFailure(backend_module, "%s: %s" % (type(exc).__name__, exc)) from None
    return sys.modules["torch"], backend


def _device_module(torch: TorchModule, device_type: str) -> Any:
    if device_type in ("cpu", ""):
        return None
    return getattr(torch, device_type, None)


def device_initialized(torch: TorchModule, device_type: str) -> bool | None:
    """Whether the device runtime is initialised (None when the backend cannot tell)."""
    mod = _device_module(torch, device_type)
    fn = getattr(mod, "is_initialized", None)
    if fn is None:
        return None
    try:
        return bool(fn())
    except Exception:
        return None


def _seen(facts: Json, device_type: str) -> str:
    """What the probe saw of a device, as the log spells it: npu_available=False, npu_device_count=0."""
    available, count = facts.get("device_available"), facts.get("device_count")
    text = "%s_available=%s, %s_device_count=%s" % (device_type, available, device_type, count)
    if facts.get("device_error"):
        text += " (%s)" % facts["device_error"]
    return text


def choose_device(
    torch: TorchModule, requested: str, backend_module: str, allow_cpu_fallback: bool = False
) -> tuple[str, str, str]:
    """(device type, why it was chosen, problem): the device a job runs on.

    A device asked for by name must be there: when it is not, ``problem`` says so (a broken
    environment) unless ``allow_cpu_fallback``, which runs on the cpu and says why. ``auto`` picks
    the backend module's device, else cuda, xpu, mps, else the cpu, and says which check chose it.
    May initialise a device runtime: call it in a job's process, never in the warm worker itself.
    """
    if requested and requested not in ("auto", "cpu"):
        seen = device_facts(torch, requested)
        if seen.get("device_available"):
            why = "requested (--device %s); %s" % (requested, _seen(seen, requested))
            return requested, why, ""
        if allow_cpu_fallback:
            why = (
                "requested %s, which is not available (%s); running on the cpu because the "
                "CPU fallback was asked for (--allow-cpu-fallback)"
                % (requested, _seen(seen, requested))
            )
            return "cpu", why, ""
        problem = (
            "device %s is not available in %s: the probe saw %s; run where the device is, choose "
            "another --device, or pass --allow-cpu-fallback to run on the cpu"
            % (requested, sys.executable, _seen(seen, requested))
        )
        return requested, "requested (--device %s)" % requested, problem
    if requested == "cpu":
        return "cpu", "requested (--device cpu)", ""
    skipped: list[str] = []
    device_type = backend_device(torch, backend_module)
    if device_type:
        facts = device_facts(torch, device_type)
        saw = _seen(facts, device_type)
        if facts.get("device_available"):
            why = "auto: the backend module is imported and its device %s is available (%s)"
            return device_type, why % (device_type, saw), ""
        skipped.append("the backend's device %s is not available (%s)" % (device_type, saw))
    for name in ("cuda", "xpu", "mps"):
        mod = getattr(torch, name, None)
        try:
            if mod is not None and mod.is_available():
                return name, "auto: torch.%s.is_available() is True" % name, ""
        except Exception:
            pass
    skipped.append("torch.cuda, torch.xpu and torch.mps report no device")
    return "cpu", "auto: " + "; ".join(skipped) + "; the cpu", ""


def backend_device(torch: TorchModule, backend_module: str) -> str | None:
    """The device of the configured (or a known, imported) backend module; None if none."""
    for module_name, device_type in ((backend_module, None),) + KNOWN_BACKEND_MODULES:
        if not module_name or module_name not in sys.modules:
            continue
        if device_type is None:
            device_type = _backend_device_type(torch, module_name)
        if device_type:
            return device_type
    return None


def _backend_device_type(torch: TorchModule, module_name: str) -> str | None:
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


def device_facts(torch: TorchModule, device_type: str) -> Json:
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
    facts: Json = {}
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


def init_device(torch: TorchModule, device_type: str) -> str | None:
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


class Context(object):
    """What the worker imported once, shared by every job."""

    def __init__(
        self,
        torch: TorchModule,
        backend_mod: TorchModule | None,
        backend_module: str,
        requested_device: str,
        initialized_at_import: bool | None,
        allow_cpu_fallback: bool = False,
    ) -> None:
        self.torch = torch
        self.backend_mod = backend_mod
        self.backend_module = backend_module
        self.requested_device = requested_device
        self.initialized_at_import = initialized_at_import
        self.allow_cpu_fallback = allow_cpu_fallback
        #: what preloading torch's test framework changed, done again in a job (``preload.Replay``)
        self.replay: Replay | None = None
        self._choice: tuple[str, str, str] | None = None

    def _chosen(self) -> tuple[str, str, str]:
        # asked in the job's process only: availability may initialise the device runtime
        if self._choice is None:
            self._choice = choose_device(
                self.torch, self.requested_device, self.backend_module, self.allow_cpu_fallback
            )
        return self._choice

    @property
    def device_type(self) -> str:
        return self._chosen()[0]

    @property
    def device_reason(self) -> str:
        """Why this device: requested, the CPU fallback, or what ``auto`` found."""
        return self._chosen()[1]

    @property
    def device_problem(self) -> str:
        """A requested device that is not there (a broken environment), "" when all is well."""
        return self._chosen()[2]

    def prepare_child(self) -> str | None:
        """In the job's process: initialise the device (tests then find it ready)."""
        if self.device_problem:
            return self.device_problem
        problem = init_device(self.torch, self.device_type)
        if problem and self.initialized_at_import:
            # the warm worker's rule: import the backend, never initialise the device before fork
            problem = (
                "the %s device was already initialised in the warm worker when it imported the "
                "backend, before this job was forked, and a forked child cannot use it (run with "
                "--fresh, or fix the backend's import): %s" % (self.device_type, problem)
            )
        return problem
