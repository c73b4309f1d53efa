"""`torch.onnx`: exporting a model to ONNX is out of scope in teachtorch (see _out_of_scope.py)."""

from ._out_of_scope import out_of_scope_getattr

__getattr__ = out_of_scope_getattr("torch.onnx", "ONNX export")
