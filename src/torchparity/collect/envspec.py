"""One environment under test, as the verbs name it: an interpreter, its device, its hardware."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EnvSpec:
    name: str
    python: str
    device: str = ""
    #: the hardware as configured ("Atlas A2"); stated in reports as configured, beside what the probe saw
    hardware: str = ""
    #: the emulated backend this environment runs with ("npu"), "" for none
    emulated: str = ""
    #: the refs this environment is bound to (``[envs.X] refs``); () : any ref its torch release fits
    refs: tuple[str, ...] = ()


__all__ = ["EnvSpec"]
