"""max_pool1d/2d, avg_pool1d/2d and adaptive_avg_pool2d: argument parsing, then PyTorch's pooling ops.

As in PyTorch (torch/nn/functional.py, aten/src/ATen/native/DilatedMaxPool2d.cpp, AveragePool2d.cpp):

* `F.max_pool2d` is the op `max_pool2d_with_indices` (node MaxPool2DWithIndicesBackward0), which returns
  the maximum of every window and where it is, a flat index `row * W + col` into the input plane. Without
  `return_indices` only the values are handed back.
* `F.avg_pool2d` is the op `avg_pool2d` (node AvgPool2DBackward0).
* The 1-D poolings are the 2-D ones on an input with a height of 1 (`unsqueeze(-2)`, the op, `squeeze(-2)`),
  as PyTorch's `max_pool1d_with_indices` and `avg_pool1d` do.
* `F.adaptive_avg_pool2d`: the output size is given and the windows follow: output row i averages input
  rows floor(i*H/out_h) to ceil((i+1)*H/out_h) - 1, so bins may differ in size and overlap. An average over
  fixed bins is linear in the input: the op `_adaptive_avg_pool2d` (AdaptiveAvgPool2DBackward0) computes
  it as two small matmuls. For a 1x1 output PyTorch takes the `mean` over the plane instead
  (AdaptiveAveragePooling.cpp), and so do we.

The window view, the checks and the array code are in kernels/pooling.py, the ops in ops/pooling.py and
their derivatives in autograd/derivatives/conv.py.
"""

from ...ops.pooling import _adaptive_avg_pool2d_op, avg_pool2d_op, max_pool2d_with_indices_op
from ._layout import _pytorch_layout

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d"]


def _list(value):
    return [value] if isinstance(value, int) else list(value)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window; with return_indices, also where it is (a flat index into H*W)."""
    stride = [] if stride is None else _list(stride)
    values, indices = max_pool2d_with_indices_op(input, _list(kernel_size), stride, _list(padding),
                                                 _list(dilation), ceil_mode)
    return (values, indices) if return_indices else values


def _one_d(value, name, fn):
    """A 1-D pooling argument as one int (PyTorch's `max_pool1d` checks `kernel_size.size() == 1`)."""
    values = _list(value)
    if len(values) != 1:
        raise RuntimeError(f"{fn}() argument '{name}' should contain one int (got {len(values)})")
    return values[0]


def _check_1d(input, fn):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"{fn}() Expected 2D or 3D input tensor, but got {list(input.shape)}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """max_pool2d over an input of height 1 (PyTorch's `max_pool1d_with_indices`: unsqueeze, pool, squeeze)."""
    _check_1d(input, "max_pool1d")
    kernel = _one_d(kernel_size, "kernel_size", "max_pool1d")
    stride = kernel if stride is None or _list(stride) == [] else _one_d(stride, "stride", "max_pool1d")
    values, indices = max_pool2d_with_indices_op(input.unsqueeze(-2), [1, kernel], [1, stride],
                                                 [0, _one_d(padding, "padding", "max_pool1d")],
                                                 [1, _one_d(dilation, "dilation", "max_pool1d")], ceil_mode)
    values = values.squeeze(-2)
    return (values, indices.squeeze(-2)) if return_indices else values


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The average of each window (the sum divided by `divisor_override` when it is given)."""
    stride = [] if stride is None else _list(stride)
    return avg_pool2d_op(input, _list(kernel_size), stride, _list(padding), ceil_mode, count_include_pad,
                         divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d over an input of height 1 (PyTorch's `avg_pool1d`: unsqueeze, avg_pool2d, squeeze)."""
    _check_1d(input, "avg_pool1d")
    kernel = _one_d(kernel_size, "kernel_size", "avg_pool1d")
    stride = kernel if stride is None or _list(stride) == [] else _one_d(stride, "stride", "avg_pool1d")
    out = avg_pool2d_op(input.unsqueeze(-2), [1, kernel], [1, stride], [0, _one_d(padding, "padding", "avg_pool1d")],
                        ceil_mode, count_include_pad, None)
    return out.squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (an int, or a pair whose None entries keep the input's size)."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    sizes = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    for d in range(input.dim() - 2, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError("adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with dimension {d} being empty")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for '{input.dtype._ptname}'")
    h, w = input.shape[-2:]
    out_h = h if sizes[0] is None else sizes[0]
    out_w = w if sizes[1] is None else sizes[1]
    if out_h == 1 and out_w == 1:
        return _pytorch_layout(input.mean((-1, -2), keepdim=True), input)     # AdaptiveAveragePooling.cpp
    return _adaptive_avg_pool2d_op(input, [out_h, out_w])
