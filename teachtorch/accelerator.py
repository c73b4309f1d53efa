"""`torch.accelerator`: the one accelerator this process would use (cuda here), asked without naming it.

PyTorch 2.6+ (torch/accelerator/__init__.py) gives device-agnostic code one place to ask "is there a GPU-like
device, and which kind?": `current_accelerator()` is a `torch.device` of that kind, or None on a CPU-only
machine, where `is_available()` is False and `device_count()` is 0. teachtorch's only accelerator is cuda
(through CuPy), so each answer is `teachtorch.cuda`'s.

    device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
"""

from . import cuda as _cuda
from ._device import device as _device

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available():
    return _cuda.is_available()


def device_count():
    return _cuda.device_count()


def current_accelerator(check_available=False):
    """`device(type='cuda')` when a GPU is there, else None (PyTorch returns None too when nothing is found)."""
    return _device("cuda") if _cuda.is_available() else None
