"""The pooling ops: `max_pool2d_with_indices`, `avg_pool2d` and their backward ops.

How PyTorch does it (native_functions.yaml, aten/src/ATen/native/DilatedMaxPool2d.cpp, AveragePool2d.cpp,
derivatives.yaml): `F.max_pool2d` calls `max_pool2d_with_indices` (values and the flat index of each
maximum), whose node `MaxPool2DWithIndicesBackward0` saves the indices and calls
`max_pool2d_with_indices_backward`. `F.avg_pool2d` is the op `avg_pool2d`, node `AvgPool2DBackward0`,
backward op `avg_pool2d_backward`. `F.adaptive_avg_pool2d` is `_adaptive_avg_pool2d`
(AdaptiveAvgPool2DBackward0, backward op `_adaptive_avg_pool2d_backward`), or a `mean` for a 1x1 output.
The backward ops are differentiable in turn (their derivatives are in autograd/derivatives/conv.py).
The array code is in kernels/pooling.py.
"""

from ..kernels import pooling as K
from ._define import kernel_op

__all__ = []

max_pool2d_with_indices_op = kernel_op(
    "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", K.max_pool2d_with_indices_kernel)
max_pool2d_with_indices_backward_op = kernel_op(
    "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
    "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    K.max_pool2d_with_indices_backward_kernel)
avg_pool2d_op = kernel_op(
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
    "bool count_include_pad=True, int? divisor_override=None) -> Tensor", K.avg_pool2d_kernel)
avg_pool2d_backward_op = kernel_op(
    "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
    "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", K.avg_pool2d_backward_kernel)
_adaptive_avg_pool2d_op = kernel_op("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
                                    K.adaptive_avg_pool2d_kernel)
_adaptive_avg_pool2d_backward_op = kernel_op(
    "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
    K.adaptive_avg_pool2d_backward_kernel)
