"""The convolution ops: `convolution` and its backward op `convolution_backward`.

How PyTorch does it (native_functions.yaml, aten/src/ATen/native/Convolution.cpp, derivatives.yaml):
`F.conv1d`, `F.conv2d`, `F.conv3d` and the `conv_transpose` functions all end in ONE op,

    convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding,
                SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor

whose backward node is `ConvolutionBackward0`. That node calls one op again, `convolution_backward`, which
returns (grad_input, grad_weight, grad_bias), computing only those `output_mask` asks for. Its own derivative
(`ConvolutionBackwardBackward0`, PyTorch's `_convolution_double_backward`) is written in
autograd/derivatives/conv.py with these two ops, so gradients of gradients work. The array code (im2col, one
matmul, col2im) is in kernels/conv.py.
"""

from ..kernels import conv as K
from ._define import function, kernel_op

__all__ = ["convolution"]

convolution_op = kernel_op(
    "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, "
    "bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor", K.convolution_kernel)
convolution_backward_op = kernel_op(
    "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, "
    "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, "
    "bool[3] output_mask) -> (Tensor, Tensor, Tensor)", K.convolution_backward_kernel)

convolution = function(convolution_op, name="convolution")
