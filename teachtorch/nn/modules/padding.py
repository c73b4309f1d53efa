"""The padding layers: ZeroPad1d/2d/3d, ConstantPad1d/2d/3d, ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d.

Each holds its amounts, as PyTorch's torch/nn/modules/padding.py: an int pads every side of the last 1, 2 or
3 dims by that much; a tuple lists (left, right[, top, bottom[, front, back]]). `forward` is `F.pad`, so each
layer is one op: constant_pad_nd, reflection_pad{1,2,3}d or replication_pad{1,2,3}d.
"""

from ..functional.padding import pad
from .module import Module

__all__ = ["ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d"]


class _PadNd(Module):
    dims = 1
    mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * self.dims)
        self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return pad(input, self.padding, "constant", self.value)
        return pad(input, self.padding, self.mode)

    def extra_repr(self):
        if self.mode == "constant" and not type(self).__name__.startswith("Zero"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"


def _layer(name, dims, mode, doc):
    if name.startswith("Constant"):
        def __init__(self, padding, value):
            _PadNd.__init__(self, padding, value)
    else:
        def __init__(self, padding):
            _PadNd.__init__(self, padding)
    return type(name, (_PadNd,), {"dims": dims, "mode": mode, "__init__": __init__, "__doc__": doc,
                                  "__module__": __name__})


ZeroPad1d = _layer("ZeroPad1d", 1, "constant", "Pad the last dim with zeros.")
ZeroPad2d = _layer("ZeroPad2d", 2, "constant", "Pad the last 2 dims with zeros.")
ZeroPad3d = _layer("ZeroPad3d", 3, "constant", "Pad the last 3 dims with zeros.")
ConstantPad1d = _layer("ConstantPad1d", 1, "constant", "Pad the last dim with a value.")
ConstantPad2d = _layer("ConstantPad2d", 2, "constant", "Pad the last 2 dims with a value.")
ConstantPad3d = _layer("ConstantPad3d", 3, "constant", "Pad the last 3 dims with a value.")
ReflectionPad1d = _layer("ReflectionPad1d", 1, "reflect", "Pad the last dim with its mirror image.")
ReflectionPad2d = _layer("ReflectionPad2d", 2, "reflect", "Pad the last 2 dims with their mirror image.")
ReflectionPad3d = _layer("ReflectionPad3d", 3, "reflect", "Pad the last 3 dims with their mirror image.")
ReplicationPad1d = _layer("ReplicationPad1d", 1, "replicate", "Pad the last dim by repeating its edge.")
ReplicationPad2d = _layer("ReplicationPad2d", 2, "replicate", "Pad the last 2 dims by repeating their edges.")
ReplicationPad3d = _layer("ReplicationPad3d", 3, "replicate", "Pad the last 3 dims by repeating their edges.")
