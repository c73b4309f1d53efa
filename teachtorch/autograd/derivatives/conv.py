"""Backward formulas of convolution, pooling and padding, as PyTorch's derivatives.yaml lists them.

    convolution                        ConvolutionBackward0: convolution_backward(grad, input, weight, ...)
    convolution_backward               ConvolutionBackwardBackward0: `_convolution_double_backward`
    max_pool2d_with_indices            MaxPool2DWithIndicesBackward0: max_pool2d_with_indices_backward(...)
    max_pool2d_with_indices_backward   MaxPool2DWithIndicesBackwardBackward0: gather the gradient at the indices
    avg_pool2d                         AvgPool2DBackward0: avg_pool2d_backward(...)
    avg_pool2d_backward                AvgPool2DBackwardBackward0: avg_pool2d of the gradient
    _adaptive_avg_pool2d               AdaptiveAvgPool2DBackward0: _adaptive_avg_pool2d_backward(grad, self)
    _adaptive_avg_pool2d_backward      AdaptiveAvgPool2DBackwardBackward0: _adaptive_avg_pool2d of the gradient
    constant_pad_nd                    ConstantPadNdBackward0: constant_pad_nd(grad, -pad)
    reflection_pad2d (1d, 3d)          ReflectionPad2DBackward0: reflection_pad2d_backward(grad, self, padding)
    replication_pad2d (1d, 3d)         ReplicationPad2DBackward0: replication_pad2d_backward(...)

Every formula calls ops, so each backward records a graph under create_graph and gradients of gradients work.

The double backward of a convolution (PyTorch's `_convolution_double_backward`, FunctionsManual.cpp) follows
from linearity. A convolution y = conv(I, W) + b is linear in I and in W, and convolution_backward gives
gI = conv_backward_input(gO, W) and gW = conv_backward_weight(I, gO). Given the gradients ggI, ggW, ggb of
those outputs:

    gradient of gO:  conv(ggI, W) + conv(I, ggW) + ggb      (the forward, once in each argument)
    gradient of I:   conv_backward_input(gO, ggW)           (<ggW, gW(I, gO)> = <I, gI(gO, ggW)>)
    gradient of W:   conv_backward_weight(ggI, gO)          (<ggI, gI(gO, W)> = <W, gW(ggI, gO)>)
"""

from ...ops.conv import convolution_backward_op, convolution_op
from ...ops.padding import PAD_OPS, constant_pad_nd_op
from ...ops.pooling import (_adaptive_avg_pool2d_backward_op, _adaptive_avg_pool2d_op, avg_pool2d_backward_op,
                            avg_pool2d_op, max_pool2d_with_indices_backward_op)
from ..derivative import derivative


def _convolution_backward(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups,
                          grad_input_mask):
    """ConvolutionBackward0: one call of convolution_backward for all three gradients."""
    bias_sizes = [weight.shape[1] * groups if transposed else weight.shape[0]]
    return convolution_backward_op(grad, input, weight, bias_sizes, stride, padding, dilation, transposed,
                                   output_padding, groups, list(grad_input_mask))


def _convolution_double_backward(grads, grad_output, input, weight, stride, padding, dilation, transposed,
                                 output_padding, groups, grad_input_mask):
    """ConvolutionBackwardBackward0 (FunctionsManual.cpp `_convolution_double_backward`): see the docstring."""
    ggI, ggW, ggb = grads
    args = (stride, padding, dilation, transposed, output_padding, groups)
    gO = gI = gW = None
    if grad_input_mask[0]:
        parts = []
        if ggI is not None:
            parts.append(convolution_op(ggI, weight, None, *args))
        if ggW is not None:
            parts.append(convolution_op(input, ggW, None, *args))
        if ggb is not None:
            parts.append(ggb.reshape(-1, *([1] * (grad_output.dim() - 2))))
        if parts:
            gO = parts[0]
            for part in parts[1:]:
                gO = gO + part
    if grad_input_mask[1] and ggW is not None:
        gI = convolution_backward_op(grad_output, input, ggW, None, *args, [True, False, False])[0]
    if grad_input_mask[2] and ggI is not None:
        gW = convolution_backward_op(grad_output, ggI, weight, None, *args, [False, True, False])[1]
    return gO, gI, gW


derivative("convolution", name="ConvolutionBackward0", entries={"input, weight, bias": _convolution_backward})
derivative("convolution_backward", name="ConvolutionBackwardBackward0",
           entries={"grad_output, input, weight": _convolution_double_backward})


derivative("max_pool2d_with_indices", name="MaxPool2DWithIndicesBackward0",
           self=lambda grad, self, kernel_size, stride, padding, dilation, ceil_mode, result1:
           max_pool2d_with_indices_backward_op(grad, self, kernel_size, stride, padding, dilation, ceil_mode,
                                               result1))


def _max_pool_double_backward(grad, indices):
    """FunctionsManual.cpp `max_pool_double_backward`: each output reads the gradient at its own index."""
    flat = grad.flatten(-2).gather(-1, indices.flatten(-2))
    return flat.view(indices.shape)


derivative("max_pool2d_with_indices_backward", name="MaxPool2DWithIndicesBackwardBackward0",
           grad_output=lambda grad, indices: _max_pool_double_backward(grad, indices),
           self=lambda self: self.new_zeros(self.shape))


derivative("avg_pool2d", name="AvgPool2DBackward0",
           self=lambda grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
           avg_pool2d_backward_op(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                  divisor_override))
derivative("avg_pool2d_backward", name="AvgPool2DBackwardBackward0",
           grad_output=lambda grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override:
           avg_pool2d_op(grad, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
           self=lambda self: self.new_zeros(self.shape))


derivative("_adaptive_avg_pool2d", name="AdaptiveAvgPool2DBackward0",
           self=lambda grad, self: _adaptive_avg_pool2d_backward_op(grad, self))
derivative("_adaptive_avg_pool2d_backward", name="AdaptiveAvgPool2DBackwardBackward0",
           grad_output=lambda grad, grad_output: _adaptive_avg_pool2d_op(grad, list(grad_output.shape[-2:])),
           self=lambda self: self.new_zeros(self.shape))


# ---- padding (ops/padding.py) -----------------------------------------------------------------------------------

derivative("constant_pad_nd", name="ConstantPadNdBackward0",
           self=lambda grad, pad: constant_pad_nd_op(grad, [-p for p in pad]))


def _pad_derivatives(op, backward_op, node):
    derivative(op.schema.name, name=node,
               self=lambda grad, self, padding: backward_op(grad, self, padding))
    derivative(backward_op.schema.name, name=node.replace("Backward0", "BackwardBackward0"),
               grad_output=lambda grad, padding: op(grad, padding),
               self=lambda self: self.new_zeros(self.shape))


for (_mode, _dims), (_op, _backward_op) in PAD_OPS.items():
    _pad_derivatives(_op, _backward_op, f"{'Reflection' if _mode == 'reflect' else 'Replication'}Pad{_dims}DBackward0")
