"""`torch.cuda.amp`: the older spelling of `torch.amp` for cuda, deprecated in PyTorch with a FutureWarning.

`torch.cuda.amp.autocast(...)` is `torch.amp.autocast("cuda", ...)` and `torch.cuda.amp.GradScaler(...)` is
`torch.amp.GradScaler("cuda", ...)` (torch/cuda/amp/). Old training scripts use them, so they still work, and
warn as PyTorch does. On a machine without a GPU both disable themselves (see teachtorch/amp).
"""

import warnings

from .. import _dtype
from ..amp import autocast_mode as _autocast_mode
from ..amp import grad_scaler as _grad_scaler

__all__ = ["GradScaler", "autocast"]


class autocast(_autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_grad_scaler.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
