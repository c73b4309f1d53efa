"""`torch.amp`: automatic mixed precision, `autocast` (which dtype ops run in) and `GradScaler` (loss scaling).

PyTorch's torch/amp/ holds both: `autocast_mode.py` and `grad_scaler.py`, the same split as here.
"""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_available, is_autocast_enabled  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401

__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_available", "is_autocast_enabled"]
