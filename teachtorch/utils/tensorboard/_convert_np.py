"""make_np: what the SummaryWriter accepts as a value, turned into a NumPy array
(torch/utils/tensorboard/_convert_np.py).

A NumPy array passes through; a Python number or NumPy scalar (anything `np.isscalar` accepts, strings too)
becomes a one-element array; a tensor is detached and copied to the host. Anything else, a list included, is
refused with PyTorch's NotImplementedError.
"""

import numpy as np

from ..._tensor import Tensor

__all__ = ["make_np"]


def make_np(x):
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.device.type == "meta":
            return np.random.randn(1)       # a meta tensor has no values: PyTorch logs a random one
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")
