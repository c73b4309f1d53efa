"""max_pool2d, avg_pool2d and adaptive_avg_pool2d: reductions over windows of the input.

A pooling layer slides a window over each channel of the image, like a convolution without a weight, and
reduces each window to one number. We reuse conv's window VIEW (`_windows` in conv.py: `as_strided` with
strides (sN, sC, sH*stride, sW*stride, sH*dilation, sW*dilation), no copy) and reduce its last two dims:

* **max_pool2d**: the window's maximum. The view is flattened to (N, C, out_h, out_w, kh*kw) (a copy) and
  `max(dim=-1)` returns values *and* indices. Its backward sends each window's whole gradient to ONE
  element: the first maximum in scan order (row by row), as PyTorch's kernel does. (`amax` would share the
  gradient evenly between tied maxima, e.g. among the zeros that a ReLU leaves, and differ from PyTorch.)
  Padding is with -inf, so a padded element is never the maximum.
* **avg_pool2d**: the window's sum (summed straight from the view, no copy), divided by the window's size.
  Which elements the size counts (padding or not, windows hanging off the edge in ceil_mode) is computed
  per dim with PyTorch's formula (aten/src/ATen/native/cpu/AvgPoolKernel.cpp).
* **adaptive_avg_pool2d**: the output size is given, and the windows follow: output row i averages input
  rows floor(i*H/out_h) to ceil((i+1)*H/out_h) - 1, so bins may differ in size and overlap. An average over
  fixed bins is linear in the input, so along each axis it is a small matrix: out = A_h @ x @ A_w^T,
  two matmuls (A_h[i, h] = 1/len(bin i) where row h is in bin i).

The output sizes and checks follow aten/src/ATen/native/Pool.h (`pooling_output_shape`, `pool2d_shape_check`).
"""

import math

import teachtorch as tt
from ._layout import _pytorch_layout
from .conv import _pad, _windows

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"]


def _pair(value, name, fn, allow_none=False):
    """kernel_size / stride / padding / dilation as a pair, with PyTorch's message for a wrong length."""
    if allow_none and (value is None or (isinstance(value, (tuple, list)) and len(value) == 0)):
        return None
    values = (value, value) if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * 2
    if len(values) != 2:
        what = {"kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
                "stride": "stride must either be omitted, a single int, or a tuple of two ints",
                "padding": "padding must either be a single int, or a tuple of two ints",
                "dilation": "dilation must be either a single int, or a tuple of two ints"}[name]
        raise RuntimeError(f"{fn}: {what}")
    return values


def _output_size(size, kernel, pad, stride, dilation, ceil_mode):
    """Pool.h `pooling_output_shape`: how many windows fit (in ceil_mode, one more for a partial last window,
    as long as it starts inside the input or its left padding)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > int(((kernel - 1) * dilation + 1) / 2):      # (C++ division: rounds toward zero)
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    extra = stride - 1 if ceil_mode else 0
    out = (size + 2 * pad - dilation * (kernel - 1) - 1 + extra) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool_setup(input, kernel_size, stride, padding, dilation, ceil_mode, fn):
    """Parse the arguments and check them and the input, in PyTorch's order (Pool.h `pool2d_shape_check`).
    Returns kernel, stride, padding, dilation and the output sizes, each a pair (height, width)."""
    kernel = _pair(kernel_size, "kernel_size", fn)
    stride = _pair(stride, "stride", fn, allow_none=True) or kernel   # the default stride is the kernel size
    padding = _pair(padding, "padding", fn)
    dilation = _pair(dilation, "dilation", fn)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = [_output_size(input.shape[d - 2], kernel[d], padding[d], stride[d], dilation[d], ceil_mode)
           for d in range(2)]
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    if any(s == 0 for s in input.shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{list(input.shape)}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError("pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}")
    if out[0] < 1 or out[1] < 1:
        c, h, w = input.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out[0]}x{out[1]}). "
                           "Output size is too small")
    return kernel, stride, padding, dilation, out


def _pads(input, kernel, stride, padding, dilation, out):
    """(before, after) padding per spatial dim: `padding` on both sides, plus whatever the last window of
    ceil_mode needs beyond the right padding so that every window lies inside the padded tensor."""
    pads = []
    for d in range(2):
        needed = (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1
        have = input.shape[d - 2] + 2 * padding[d]
        pads.append((padding[d], padding[d] + max(0, needed - have)))
    return pads


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The maximum of each window; with return_indices, also where it is (a flat index into H*W)."""
    kernel, stride, padding, dilation, out = _pool_setup(input, kernel_size, stride, padding, dilation,
                                                         ceil_mode, "max_pool2d")
    lowest = -math.inf if input.is_floating_point() else tt.iinfo(input.dtype).min
    x = _pad(input, _pads(input, kernel, stride, padding, dilation, out), lowest)
    windows = _windows(x, kernel, stride, dilation, out)                  # (N, C, oh, ow, kh, kw): a view
    flat = windows.reshape(*windows.shape[:-2], kernel[0] * kernel[1])    # (N, C, oh, ow, kh*kw): a copy
    values, where = flat.max(dim=-1)                                      # the first maximum of each window
    values = _pytorch_layout(values, input)
    if not return_indices:
        return values
    # window tap (ki, kj) of output (i, j) is input pixel (i*stride - pad + ki*dil, j*stride - pad + kj*dil)
    rows = tt.arange(out[0]).view(out[0], 1) * stride[0] - padding[0] + (where // kernel[1]) * dilation[0]
    cols = tt.arange(out[1]) * stride[1] - padding[1] + (where % kernel[1]) * dilation[1]
    indices = _pytorch_layout(rows * input.shape[-1] + cols, input)
    return values, indices


def _window_sizes(size, out, kernel, stride, pad, count_include_pad):
    """For each output position along one dim, how many of the window's elements the average counts
    (AvgPoolKernel.cpp): the padding counts when count_include_pad, the part past the padding never does."""
    counts = []
    for i in range(out):
        start = i * stride - pad
        end = min(start + kernel, size + pad)
        if not count_include_pad:
            start, end = max(start, 0), min(end, size)
        counts.append(end - start)
    return counts


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The average of each window (the sum divided by `divisor_override` when it is given)."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if input.dim() < 3:   # (PyTorch reads input.size(-3) first)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.dim()}, {input.dim() - 1}],"
                         " but got -3)")
    kernel, stride, padding, dilation, out = _pool_setup(input, kernel_size, stride, padding, 1, ceil_mode,
                                                         "avg_pool2d")
    x = _pad(input, _pads(input, kernel, stride, padding, dilation, out))
    sums = _windows(x, kernel, stride, dilation, out).sum((-2, -1))
    if divisor_override is not None:
        divisor = divisor_override
    else:
        heights = _window_sizes(input.shape[-2], out[0], kernel[0], stride[0], padding[0], count_include_pad)
        widths = _window_sizes(input.shape[-1], out[1], kernel[1], stride[1], padding[1], count_include_pad)
        if len(set(heights)) == 1 and len(set(widths)) == 1:
            divisor = heights[0] * widths[0]                  # every window counts the same: divide by a number
        else:
            divisor = tt.tensor([[h * w for w in widths] for h in heights], dtype=sums.dtype, device=sums.device)
    # (an integer input gets an integer average, rounded toward zero as C++ division does)
    rounding = None if input.is_floating_point() else "trunc"
    return _pytorch_layout(tt.div(sums, divisor, rounding_mode=rounding), input)


def _averaging_matrix(size, out, dtype, device):
    """A (out, size) matrix whose row i averages input positions floor(i*size/out) .. ceil((i+1)*size/out)-1."""
    rows = []
    for i in range(out):
        start = (i * size) // out
        end = -((-(i + 1) * size) // out)        # ceil((i+1) * size / out)
        rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)])
    return tt.tensor(rows, dtype=dtype, device=device).view(out, size)


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
    rows = _averaging_matrix(h, out_h, input.dtype, input.device)      # (out_h, H)
    cols = _averaging_matrix(w, out_w, input.dtype, input.device)      # (out_w, W)
    # (.., H, W) @ (W, out_w) averages the columns, then (out_h, H) @ (.., H, out_w) the rows
    result = tt.matmul(rows, tt.matmul(input, cols.t()))
    return _pytorch_layout(result, input)
