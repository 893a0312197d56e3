"""Recipes of arguments: values of parameters no pool of the probe has, as source.

Source as in ``instances.py`` (``DEVICE``, ``_TMP_``). Data only (see ``__init__.py``); read by
``recipe_lookup.py`` and ``arguments.py`` of the facts.
"""

from __future__ import annotations

from typing import Dict, Tuple

from .instances import GRAD_BUCKET, Setup

#: a distribution's own values for its ``value`` parameter (``log_prob``, ``cdf``), in its batch and event shape: its
#: mean lies in the support of most continuous ones, an enumerated support in that of the discrete ones
DISTRIBUTION_VALUES = (
    "{0}.mean",
    "{0}.enumerate_support()",
    "torch.ones({0}.batch_shape + {0}.event_shape, device=DEVICE)",
)  # 1 lies in most supports


#: what a named setup binds, by the category ``names.guess`` gives the parameter's name (each binds the
#: parameter's own name), tried when no call with the pools' values worked: parameters that hold gradients
#: (what ``clip_grad_value_`` and ``clip_grad_norm_`` act on)
NAMED_SETUPS: Dict[str, Setup] = {
    "parameters_with_grads": (
        "parameters = [torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=DEVICE)), "
        "torch.nn.Parameter(torch.tensor([0.5, 4.0], device=DEVICE))]",
        "parameters[0].grad = torch.tensor([0.25, -3.0, 2.0], device=DEVICE)",
        "parameters[1].grad = torch.tensor([-0.5, 1.5], device=DEVICE)",
    ),
    # a checkpoint behind a file URL, and a folder to download it into (``load_state_dict_from_url``: no
    # network, and nothing written outside the probe's folder)
    "file_url": (
        'torch.save({"weight": torch.tensor([1.0, -2.0, 3.0])}, os.path.join(_TMP_, "weights.pt"))',
        'url = "file://" + os.path.join(_TMP_, "weights.pt")',
    ),
    "download_dir": ('model_dir = os.path.join(_TMP_, "checkpoints")',),
    # a batch of one 2-D affine matrix (a shear) and the 4-D size of its output grid (``affine_grid``)
    "affine_theta": ("theta = torch.tensor([[[1.0, 0.5, 0.0], [0.0, 1.0, 0.25]]], device=DEVICE)",),
    "grid_size": ("size = (1, 1, 2, 3)",),
    # a gradient bucket of a DDP model's backward (what a communication hook is given)
    "grad_bucket": GRAD_BUCKET,
    # a flat vector of as many values as those parameters hold (``vector_to_parameters(vec, parameters)``)
    "flat_vector": ("vec = torch.tensor([2.0, 0.0, -1.0, 3.0, 5.0], device=DEVICE)",),
}

#: what a parameter's name suggests (``names.guess``) -> values for it (sources); tensors come from the kinds
NAME_VALUES: Dict[str, Tuple[str, ...]] = {
    "dense_tensor_list": (
        "[torch.tensor([1.0, 2.0, 3.0], device=DEVICE), torch.tensor([4.0, 5.0], device=DEVICE)]",
    ),
    "dim": ("0", "1", "-1"),
    "module_of_kind": ("_KINDS_",),
    "block_size": ("(1, 1)", "(2, 2)"),
    "dense_size": ("(2, 2, 3)", "(2, 3)", "(3, 4)"),
    "nested_sizes": ("torch.tensor([[3], [2]])", "torch.tensor([[3, 2], [1, 2]])"),
    "fill_value": ("0.0", "-1.0"),
    "mask": (
        "torch.tensor([[True, True, True], [True, False, False]], device=DEVICE)",
        "torch.tensor([[True, False, True], [False, False, True]], device=DEVICE)",
        "_KINDS_",
    ),
    "indices": ("torch.tensor([[0, 0, 1], [0, 2, 2]], device=DEVICE)",),
    "sparse_values": ("torch.tensor([1.0, 2.0, 3.0], device=DEVICE)",),
    "wider_dtype": ("torch.float64",),
    "quant_scale": ("0.5",),
    "zero_point": ("4",),
}
