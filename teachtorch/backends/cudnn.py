"""`torch.backends.cudnn`: PyTorch's switches for cuDNN, NVIDIA's convolution library (see backends/flags.py).

`benchmark = True` lets PyTorch time several convolution algorithms and keep the fastest; `deterministic = True`
restricts it to algorithms that give the same bits every run; `allow_tf32` lets convolutions use TensorFloat-32;
`enabled = False` turns cuDNN off. teachtorch's convolutions are its own (kernels over NumPy/CuPy), never cuDNN's,
so these are remembered and reported with PyTorch's defaults, and `is_available()` is False, as in PyTorch on
a machine without cuDNN (where `version()` is None).
"""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
