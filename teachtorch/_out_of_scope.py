"""What teachtorch leaves out on purpose, and the error that says so: sparse tensors, quantization, ONNX export.

Each of these is a whole subsystem in PyTorch with its own layouts or kernels (`torch.sparse`: COO/CSR layouts
and sparse kernels; `torch.ao.quantization` / `torch.quantization`: int8 observers, fake-quant and quantized
kernels; `torch.onnx`: an exporter that traces the model into another graph format). None of them is about how
a tensor library works inside, which is what teachtorch teaches. Their modules exist, so that `import torch.onnx`
at the top of a script succeeds, and using anything in them raises `OutOfScopeError` naming the feature.
"""

__all__ = ["OutOfScopeError", "out_of_scope_getattr"]


class OutOfScopeError(NotImplementedError, AttributeError):
    """A NotImplementedError, and an AttributeError too, so that `hasattr(torch.onnx, "export")` is False."""


def out_of_scope(feature):
    return OutOfScopeError(f"{feature} is out of scope in teachtorch: it teaches dense strided tensors, "
                           "autograd and nn; run this part of the script with PyTorch")


def out_of_scope_getattr(module_name, feature):
    """A module `__getattr__` (PEP 562) that refuses every public name of an out-of-scope module."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        raise out_of_scope(f"{feature} ({module_name}.{name})")
    return __getattr__
