"""`torch.autocast`: a region in which chosen ops run in a lower-precision dtype.

How PyTorch does it (torch/amp/autocast_mode.py, aten/src/ATen/autocast_mode.cpp). Entering the region sets
thread-local state per device type: enabled or not, and the dtype (CPU's default is bfloat16, CUDA's float16).
The Autocast dispatch keys then sit in front of the backend: for an op on the "lower precision" list (matmul,
linear, conv) the key casts the floating inputs to that dtype; for one on the "float32" list (softmax, losses)
it casts them up. Ops on neither list run as they are.

teachtorch keeps the state, with PyTorch's rules for entering and leaving (`is_autocast_enabled`,
`get_autocast_dtype`, the warnings that disable it, nesting, use as a decorator), but no op casts: NumPy has no
bfloat16 (see `_dtype.bfloat16`), so ops inside the region compute in the dtypes of their inputs, float32
usually. A script written for autocast runs unchanged, in full precision (README, "Where teachtorch knowingly
differs from PyTorch").
"""

import functools
import threading
import warnings

from .. import _dtype
from .. import cuda as _cuda
from .._device import device as _device

__all__ = ["autocast", "get_autocast_dtype", "is_autocast_available", "is_autocast_enabled"]

_DEFAULT_DTYPE = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}


class _State(threading.local):
    # per thread, as PyTorch's: {device_type: (enabled, dtype)}; replaced whole by one store, never mutated
    modes = {}
    cache_enabled = True


_state = _State()


def is_autocast_available(device_type):
    return device_type in _DEFAULT_DTYPE


def _check_device_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    _device(device_type)        # not a device type at all: PyTorch's error for a bad device string
    if not is_autocast_available(device_type):
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")


def is_autocast_enabled(device_type=None):
    """Without an argument, PyTorch answers for cuda (the old meaning); `is_autocast_enabled("cpu")` for cpu."""
    device_type = "cuda" if device_type is None else device_type
    _check_device_type(device_type)
    return _state.modes.get(device_type, (False, None))[0]


def get_autocast_dtype(device_type):
    _check_device_type(device_type)
    return _state.modes.get(device_type, (False, _DEFAULT_DTYPE[device_type]))[1]


def is_autocast_cache_enabled():
    return _state.cache_enabled


class autocast:
    """`with torch.autocast("cpu"):` or `@torch.autocast("cuda", dtype=torch.float16)`."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        _check_device_type(device_type)
        self._cache_enabled = _state.cache_enabled if cache_enabled is None else cache_enabled
        if enabled and device_type == "cuda":
            if not _cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=2)
                enabled = False
            elif self.fast_dtype is _dtype.bfloat16 and not _cuda.is_bf16_supported():
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
        elif enabled and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            name = device_type.upper()
            warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=2)
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_modes, self.prev_cache = _state.modes, _state.cache_enabled
        # one store of a new dict: an interrupt cannot leave the state half changed
        _state.modes = {**self.prev_modes, self.device: (self._enabled, self.fast_dtype)}
        _state.cache_enabled = self._cache_enabled
        return self

    def __exit__(self, *exc):
        _state.modes = self.prev_modes
        _state.cache_enabled = self.prev_cache
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run_in_autocast(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return fn(*args, **kwargs)
        return run_in_autocast
