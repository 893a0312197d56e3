"""Public functions that upstream PyTorch implements by calling another public API (one hop).

A test that calls the wrapper runs the wrapped API too, so it counts as a direct test of the
wrapped API, and says so: "via torch.autograd.gradgradcheck (implemented with
torch.autograd.gradcheck)". Only one hop is followed (the wrapped API's own callees are not), and
only a call of the wrapper counts (naming it does not).

Each entry was checked in the source of torch 2.13.0 (the function's body calls the wrapped API
on its ordinary path); an entry is added only after reading that source, never guessed from a name.
"""

from __future__ import annotations

#: wrapper -> the public API its body calls (canonical names, as the alias table spells them)
WRAPS: dict[str, str] = {
    # torch/autograd/gradcheck.py: gradgradcheck ends in ``return gradcheck(new_func, ...)``
    "torch.autograd.gradgradcheck": "torch.autograd.gradcheck",
    # torch/_tensor.py, class Tensor: each method's body calls the torch function below
    "torch.Tensor.backward": "torch.autograd.backward",
    "torch.Tensor.norm": "torch.norm",
    "torch.Tensor.stft": "torch.stft",
    "torch.Tensor.istft": "torch.istft",
    "torch.Tensor.unique": "torch.unique",
    "torch.Tensor.unique_consecutive": "torch.unique_consecutive",
}


def wrapped_by(name: str) -> str | None:
    """The public API ``name`` is implemented with, when the table says (else None)."""
    return WRAPS.get(name)
