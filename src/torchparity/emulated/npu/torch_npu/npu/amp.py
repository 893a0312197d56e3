"""``torch.npu.amp``: PyTorch's device-generic autocast and GradScaler for ``npu`` (as ``torch.cuda.amp``)."""

import torch

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class autocast(torch.amp.autocast):
    """``torch.autocast("npu", ...)``: float16 by default."""

    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        super(autocast, self).__init__(
            "npu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled
        )


class GradScaler(torch.amp.GradScaler):
    """``torch.amp.GradScaler("npu", ...)``: its scale and growth tracker live on the NPU."""

    def __init__(
        self,
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        super(GradScaler, self).__init__(
            "npu",
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


def custom_fwd(fwd=None, cast_inputs=None):
    """``torch.amp.custom_fwd`` for ``npu``."""
    return torch.amp.custom_fwd(fwd, device_type="npu", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``torch.amp.custom_bwd`` for ``npu``."""
    return torch.amp.custom_bwd(bwd, device_type="npu")
