"""`torch.ao.quantization`: quantization is out of scope in teachtorch (see _out_of_scope.py)."""

from .._out_of_scope import out_of_scope_getattr

__getattr__ = out_of_scope_getattr("torch.ao.quantization", "quantization")
