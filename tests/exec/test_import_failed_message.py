"""An emulated backend that cannot load into an older torch says so, not "install torch" (issue 35).

Seen on Ascend/pytorch: with torch 2.7.1 and ``--emulate npu`` the error said ``import torch failed
(RuntimeError: Failed to load the backend extension: torch_npu ...); install torch in that environment``
though torch was installed: the emulation needs ``torch._C._acc``, which 2.7.1 lacks.
"""

from __future__ import annotations

from torchparity.emulated import emulation
from torchparity.exec.runners import _import_failed

DETAIL = (
    "RuntimeError: Failed to load the backend extension: torch_npu. "
    "AttributeError: module 'torch._C' has no attribute '_acc'"
)


def test_an_emulation_that_cannot_load_names_the_emulation_and_the_torch_it_needs() -> None:
    environ = emulation("npu").environ()
    msg = _import_failed("/env271/bin/python", "torch", DETAIL, environ)
    assert msg.startswith("/env271/bin/python: the emulated backend cannot load into this torch (")
    assert "torch._C._acc" in msg and "install torch" not in msg and "\n" not in msg


def test_without_the_emulation_the_message_is_the_install_hint() -> None:
    msg = _import_failed("/py", "torch", "ModuleNotFoundError: No module named 'torch'")
    assert "install torch in that environment or choose another --python" in msg
    # the same detail without an emulated backend on the path is not blamed on an emulation
    assert "emulated" not in _import_failed("/py", "torch", DETAIL, {"PYTHONPATH": "/site"})
