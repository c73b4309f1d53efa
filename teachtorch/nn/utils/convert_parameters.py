"""Parameters <-> one flat vector: `parameters_to_vector(model.parameters())` concatenates every parameter
(flattened) into one 1-D tensor, and `vector_to_parameters(vec, model.parameters())` cuts such a vector back
into pieces and makes each parameter show its piece. Optimizers that think of the model as one point in
R^n (line searches, natural gradient, evolution strategies) use them.

PyTorch's torch/nn/utils/convert_parameters.py is the same: `param.view(-1)` for each parameter (so a
non-contiguous parameter is refused by `view`, with its usual error, rather than silently copied) and one
`cat`; on the way back `param.data = vec[a:b].view_as(param).data`, so every parameter becomes a view of
`vec`'s storage (no copy), and parameters on two different devices are refused with a TypeError.
"""

import teachtorch as tt

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All `parameters`, flattened and concatenated into one vector (a copy)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.view(-1))
    return tt.cat(vec)


def vector_to_parameters(vec, parameters):
    """Make each parameter, in order, show the next `param.numel()` entries of `vec` (a view, no copy)."""
    if not isinstance(vec, tt.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        # `.data =` swaps what the parameter shows without autograd recording it (the parameter stays a leaf)
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param


def _check_param_device(param, old_param_device):
    """The device index of the first parameter (-1 for the CPU); a TypeError if `param` is elsewhere."""
    if old_param_device is None:
        return param.get_device() if param.device.type == "cuda" else -1
    if param.device.type == "cuda":
        warn = param.get_device() != old_param_device
    else:
        warn = old_param_device != -1
    if warn:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def _typename(obj):
    # torch.typename: what the error message calls a non-tensor ("list", "numpy.ndarray", "int")
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"
