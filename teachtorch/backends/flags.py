"""PyTorch's `torch.backends.*` switches (TF32, cuDNN autotuning, ...), which live in our kernel-backend package.

Two different things are called "backends". In teachtorch, `teachtorch.backends` is where the kernels' array
modules live (NumPy for cpu, CuPy for cuda), with the one write path, and `backends/cuda.py` holds the CuPy
storages. In PyTorch, `torch.backends` is a package of *switches* for the libraries its kernels call:
`torch.backends.cuda.matmul.allow_tf32` (cuBLAS may round float32 matmul inputs to TensorFloat-32),
`torch.backends.cudnn.benchmark` / `deterministic` / `allow_tf32` / `enabled` (cuDNN's convolution choices),
`torch.backends.mps.is_available()` (Apple GPUs). Training scripts set these at the top, so with the runner
(`python -m teachtorch.run`) `torch.backends` *is* `teachtorch.backends`, and the switches must be there too.

They are kept in this file and attached as attributes, so the kernel code is untouched:
`backends.cuda.matmul` (an object, as in PyTorch, whose `allow_tf32` reads and writes the float32 matmul
precision), `backends.cudnn` and `backends.mps` (small submodules). teachtorch's kernels call neither cuBLAS's
TF32 mode nor cuDNN, so the switches are remembered and reported, never obeyed: NumPy and CuPy compute float32
matmuls in float32 whatever they say, which is what PyTorch computes with the defaults.

`torch.set_float32_matmul_precision("highest" | "high" | "medium")` is the newer spelling of the TF32 switch:
"highest" means full float32 (allow_tf32 False), the other two allow TF32 (PyTorch: torch/__init__.py,
torch/backends/cuda/__init__.py `cuBLASModule`).
"""

import warnings

from . import cuda as _cuda_storages
from . import cudnn, mps  # noqa: F401  (torch.backends.cudnn / torch.backends.mps)

__all__ = ["get_float32_matmul_precision", "set_float32_matmul_precision"]

_PRECISIONS = ("highest", "high", "medium")
_flags = {"float32_matmul_precision": "highest"}


def get_float32_matmul_precision():
    return _flags["float32_matmul_precision"]


def set_float32_matmul_precision(precision):
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.")
        return
    _flags["float32_matmul_precision"] = precision


class cuBLASModule:
    """`torch.backends.cuda.matmul`: cuBLAS's switches; an unknown name is an error, as in PyTorch."""

    _REDUCED_PRECISION = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        object.__setattr__(self, "_reduced", {name: True for name in self._REDUCED_PRECISION})

    def __getattr__(self, name):
        if name == "allow_tf32":
            return get_float32_matmul_precision() != "highest"
        if name in self._REDUCED_PRECISION:
            return self._reduced[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            set_float32_matmul_precision("high" if value else "highest")
        elif name in self._REDUCED_PRECISION:
            self._reduced[name] = bool(value)
        else:
            raise AttributeError("Unknown attribute " + name)


# `torch.backends.cuda.matmul.allow_tf32`: backends/cuda.py is our CuPy storage module, so the attribute is set on
# it from here rather than written into that file.
_cuda_storages.matmul = cuBLASModule()


def _cuda_is_built():
    """`torch.backends.cuda.is_built()`: could this install run cuda at all (is CuPy there), GPU or not."""
    import importlib.util
    return importlib.util.find_spec("cupy") is not None


_cuda_storages.is_built = _cuda_is_built
