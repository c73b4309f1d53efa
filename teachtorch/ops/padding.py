"""The padding ops: `constant_pad_nd`, `reflection_pad{1,2,3}d`, `replication_pad{1,2,3}d`, and the
backward ops of the last two.

How PyTorch does it (native_functions.yaml, aten/src/ATen/native/PadNd.cpp, ReflectionPad.cpp,
ReplicationPadding.cpp, derivatives.yaml): `F.pad` (`torch._C._nn.pad`, PadNd.cpp `_pad_enum`) calls
`constant_pad_nd` for mode 'constant' (node ConstantPadNdBackward0, whose backward is `constant_pad_nd`
with the amounts negated), and for 'reflect' / 'replicate' the op for the number of padded dims
(ReflectionPad2DBackward0, ...; backward op `reflection_pad2d_backward`, itself differentiable:
ReflectionPad2DBackwardBackward0). 'circular' is a composite of slices (nn/functional/padding.py).
The array code is in kernels/padding.py, the derivatives in autograd/derivatives/conv.py.
"""

from ..kernels import padding as K
from ._define import function, kernel_op

__all__ = ["constant_pad_nd"]

constant_pad_nd_op = kernel_op("constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
                               K.constant_pad_nd_kernel)
constant_pad_nd = function(constant_pad_nd_op, name="constant_pad_nd")

PAD_OPS = {}   # ("reflect" | "replicate", number of padded dims) -> (op, backward op)
for _mode, _name, _forward, _backward in (("reflect", "reflection", K.reflection_pad_kernel,
                                           K.reflection_pad_backward_kernel),
                                          ("replicate", "replication", K.replication_pad_kernel,
                                           K.replication_pad_backward_kernel)):
    for _dims in (1, 2, 3):
        PAD_OPS[_mode, _dims] = (
            kernel_op(f"{_name}_pad{_dims}d(Tensor self, SymInt[{2 * _dims}] padding) -> Tensor", _forward),
            kernel_op(f"{_name}_pad{_dims}d_backward(Tensor grad_output, Tensor self, SymInt[{2 * _dims}] padding) "
                      "-> Tensor", _backward))
