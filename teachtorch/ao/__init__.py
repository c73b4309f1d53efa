"""`torch.ao` ("architecture optimization": quantization, pruning, sparsity) is out of scope in teachtorch
(see _out_of_scope.py); `torch.ao.quantization` is its quantization package."""

from .._out_of_scope import out_of_scope_getattr

__getattr__ = out_of_scope_getattr("torch.ao", "quantization and pruning")
