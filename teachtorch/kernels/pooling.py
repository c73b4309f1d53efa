"""The pooling kernels: max_pool2d_with_indices, avg_pool2d and their backward ops, array code.

A pooling layer slides a window over each channel of the image, like a convolution without a weight, and
reduces each window to one number. The windows are conv's window VIEW (kernels/conv.py `window_view`:
`as_strided` with strides (sN, sC, sH*stride, sW*stride, sH*dilation, sW*dilation), no copy):

* **max_pool2d_with_indices**: the window's maximum, and where it is. The view is flattened to
  (N, C, out_h, out_w, kh*kw) (a copy) and `argmax` finds the first maximum in scan order (row by row), as
  PyTorch's loop does (`val > maxval`, aten/src/ATen/native/cpu/MaxPoolKernel.cpp). The index PyTorch returns
  is a flat index into the input plane, `row * W + col`. Padding is with -inf (the lowest integer for
  integer inputs), so a padded element is never the maximum.
* **max_pool2d_with_indices_backward**: each window's gradient goes to ONE element, the one its index names:
  a scatter-add into the (N*C, H*W) plane (`bincount` with weights: windows that overlap may name one
  element twice, and then the gradients add, as in PyTorch's `max_pool2d_with_indices_backward`).
* **avg_pool2d**: the window's sum (summed straight from the view, no copy), divided by the window's size.
  Which elements the size counts (padding or not, windows hanging off the edge in ceil_mode) is computed
  per dim with PyTorch's formula (aten/src/ATen/native/cpu/AvgPoolKernel.cpp).
* **avg_pool2d_backward**: the output gradient divided by the same sizes, then added back onto the pixels
  each window covered (conv's col2im, `add_windows_back`: one strided `+=` per kernel tap).

The argument checks and output sizes (Pool.h `pooling_output_shape`, `pool2d_shape_check`) are in
`pool2d_setup` below, called by the kernels, so `max_pool2d_with_indices` checks as PyTorch's does.
"""

import math

from .. import _dtype
from ..backends import empty, wrap, wrap_strided
from .._strides import channels_last_strides
from .conv import _crop, add_windows_back, pad_array, window_view
from .indexing import is_meta, xp_for
from .shape import suggest_memory_format


# ---- arguments and sizes (Pool.h) -----------------------------------------------------------------------------


def pair(value, name, fn, allow_empty=False):
    """kernel_size / stride / padding / dilation as a pair, with PyTorch's message for a wrong length."""
    if allow_empty and (value is None or (isinstance(value, (tuple, list)) and len(value) == 0)):
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


def pooling_output_size(size, kernel, pad, stride, dilation, ceil_mode):
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


def pool2d_setup(input, kernel_size, stride, padding, dilation, ceil_mode, fn):
    """Parse the arguments and check them and the input, in PyTorch's order (Pool.h `pool2d_shape_check`).
    Returns kernel, stride, padding, dilation and the output sizes, each a pair (height, width)."""
    kernel = pair(kernel_size, "kernel_size", fn)
    stride = pair(stride, "stride", fn, allow_empty=True) or kernel    # the default stride is the kernel size
    padding = pair(padding, "padding", fn)
    dilation = pair(dilation, "dilation", fn)
    if input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = [pooling_output_size(input.shape[d - 2], kernel[d], padding[d], stride[d], dilation[d], ceil_mode)
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


def _pads(spatial, kernel, stride, padding, dilation, out):
    """(before, after) padding per spatial dim: `padding` on both sides, plus whatever the last window of
    ceil_mode needs beyond the right padding so that every window lies inside the padded array."""
    pads = []
    for d in range(2):
        needed = (out[d] - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1
        have = spatial[d] + 2 * padding[d]
        pads.append((padding[d], padding[d] + max(0, needed - have)))
    return pads


def _result(array, like, dtype):
    """A fresh result, channels-last when the input `like` is (PyTorch: `suggest_memory_format()`)."""
    if suggest_memory_format(like) == "channels_last":
        return wrap_strided(array, dtype, like.device, channels_last_strides(array.shape))
    return wrap(array, dtype, like.device)


def _empty(sizes, like, dtype):
    strides = channels_last_strides(sizes) if suggest_memory_format(like) == "channels_last" else None
    return empty(sizes, dtype, like.device, strides)


# ---- max pooling ----------------------------------------------------------------------------------------------


def max_pool2d_with_indices_kernel(ks, self, kernel_size, stride, padding, dilation, ceil_mode):
    """(the maximum of each window, its flat index row * W + col into the input plane)."""
    kernel, stride, padding, dilation, out = pool2d_setup(self, kernel_size, stride, padding, dilation,
                                                          ceil_mode, "max_pool2d")
    sizes = tuple(self.shape[:-2]) + tuple(out)
    if is_meta(self):
        return _empty(sizes, self, self.dtype), _empty(sizes, self, _dtype.int64)
    xp = xp_for(self)
    x = self._data()
    lowest = -math.inf if self.dtype.is_floating_point else xp.iinfo(x.dtype).min
    padded = pad_array(xp, x, _pads(x.shape[-2:], kernel, stride, padding, dilation, out), lowest)
    windows = window_view(xp, padded, kernel, stride, dilation, out)          # (.., oh, ow, kh, kw): a view
    values, where = _window_max(xp, windows, self.dtype.is_floating_point)
    # window tap (ki, kj) of output (i, j) is input pixel (i*stride - pad + ki*dil, j*stride - pad + kj*dil),
    # flat index row * W + col = (the window's corner) + (the tap's offset from it): a table of each
    width = x.shape[-1]
    corners = ((xp.arange(out[0]) * stride[0] - padding[0]).reshape(-1, 1) * width
               + xp.arange(out[1]) * stride[1] - padding[1])                 # (oh, ow)
    taps = xp.arange(kernel[0] * kernel[1])
    offsets = (taps // kernel[1]) * dilation[0] * width + (taps % kernel[1]) * dilation[1]     # (kh*kw,)
    indices = corners + offsets.take(where)
    if padding[0] or padding[1]:
        # a window whose elements are all the lowest value ties with its padding; PyTorch's loop starts at the
        # window's first element inside the input and only moves on for a larger one (or a NaN)
        first_rows = xp.asarray([_first_inside(i * stride[0] - padding[0], dilation[0]) for i in range(out[0])])
        first_cols = xp.asarray([_first_inside(j * stride[1] - padding[1], dilation[1]) for j in range(out[1])])
        indices = xp.where(values == lowest, first_rows.reshape(-1, 1) * x.shape[-1] + first_cols, indices)
    return _result(values, self, self.dtype), _result(indices.astype(xp.int64), self, _dtype.int64)


def _window_max(xp, windows, floating):
    """The maximum of each window and the tap (ki * kw + kj) it is at, PyTorch's loop (cpu/MaxPoolKernel.cpp)
    run for every window at once: visit the taps in row-major order and move on to a tap whose value is
    larger, or NaN (`val > maxval || std::isnan(val)`), so a tie keeps the first maximum and the last NaN wins.
    Each tap of every window is a strided view of the input: no copy of the windows is made."""
    kh, kw = windows.shape[-2:]
    values = windows[..., 0, 0]
    where = xp.zeros(values.shape, dtype=xp.int64)
    for tap in range(1, kh * kw):
        candidate = windows[..., tap // kw, tap % kw]
        better = candidate > values
        if floating:
            better |= xp.isnan(candidate)
        values = xp.where(better, candidate, values)
        where = xp.where(better, tap, where)
    return values, where


def _first_inside(start, dilation):
    """The first position start, start + dilation, ... that is not in the left padding (>= 0)."""
    return start if start >= 0 else start + (-start + dilation - 1) // dilation * dilation


def max_pool2d_with_indices_backward_kernel(ks, grad_output, self, kernel_size, stride, padding, dilation,
                                            ceil_mode, indices):
    """Each output gradient added to the input element its index names (a scatter-add per plane)."""
    if is_meta(grad_output, self, indices):
        return _empty(tuple(self.shape), self, self.dtype)
    xp = xp_for(grad_output)
    plane = self.shape[-2] * self.shape[-1]
    planes = math.prod(self.shape[:-2])
    g = grad_output._data().reshape(planes, -1)
    where = indices._data().reshape(planes, -1) + xp.arange(planes).reshape(-1, 1) * plane
    grad = xp.bincount(where.ravel(), weights=g.ravel(), minlength=planes * plane)
    return _result(grad.astype(g.dtype).reshape(self.shape), self, self.dtype)


# ---- average pooling ------------------------------------------------------------------------------------------


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


def _divisors(xp, spatial, kernel, stride, padding, out, count_include_pad, divisor_override):
    """The divisor of every window: an (out_h, out_w) array, or a number when they are all the same."""
    if divisor_override is not None:
        return divisor_override
    heights = _window_sizes(spatial[0], out[0], kernel[0], stride[0], padding[0], count_include_pad)
    widths = _window_sizes(spatial[1], out[1], kernel[1], stride[1], padding[1], count_include_pad)
    if len(set(heights)) == 1 and len(set(widths)) == 1:
        return heights[0] * widths[0]
    return xp.asarray(heights).reshape(-1, 1) * xp.asarray(widths)


def _avg_setup(self, kernel_size, stride, padding, ceil_mode, divisor_override):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.dim() < 3:   # (PyTorch reads input.size(-3) first)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-self.dim()}, {self.dim() - 1}],"
                         " but got -3)")
    return pool2d_setup(self, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")


def avg_pool2d_kernel(ks, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """The average of each window (the sum divided by `divisor_override` when it is given)."""
    kernel, stride, padding, dilation, out = _avg_setup(self, kernel_size, stride, padding, ceil_mode,
                                                        divisor_override)
    if is_meta(self):
        return _empty(tuple(self.shape[:-2]) + tuple(out), self, self.dtype)
    xp = xp_for(self)
    x = self._data()
    padded = pad_array(xp, x, _pads(x.shape[-2:], kernel, stride, padding, dilation, out))
    sums = window_view(xp, padded, kernel, stride, dilation, out).sum(axis=(-2, -1), dtype=x.dtype)
    divisor = _divisors(xp, x.shape[-2:], kernel, stride, padding, out, count_include_pad, divisor_override)
    if self.dtype.is_floating_point:
        result = sums / xp.asarray(divisor, dtype=x.dtype)
    else:   # an integer input gets an integer average, rounded toward zero as C++ division does
        result = xp.trunc(sums / divisor)
    return _result(result.astype(x.dtype), self, self.dtype)


def avg_pool2d_backward_kernel(ks, grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                               divisor_override):
    """Each window's gradient, divided by its divisor, added back onto the pixels it covered (col2im)."""
    kernel, stride, padding, dilation, out = _avg_setup(self, kernel_size, stride, padding, ceil_mode,
                                                        divisor_override)
    if is_meta(grad_output, self):
        return _empty(tuple(self.shape), self, self.dtype)
    xp = xp_for(grad_output)
    g = grad_output._data()
    divisor = _divisors(xp, self.shape[-2:], kernel, stride, padding, out, count_include_pad, divisor_override)
    share = g / xp.asarray(divisor, dtype=g.dtype)                            # (.., oh, ow)
    windows = xp.broadcast_to(share[..., None, None], share.shape + tuple(kernel))
    pads = _pads(self.shape[-2:], kernel, stride, padding, dilation, out)
    covered = [(o - 1) * s + k for o, s, k in zip(out, stride, kernel)]
    grad = add_windows_back(xp, windows, covered, stride, dilation)
    full = [self.shape[-2 + d] + pads[d][0] + pads[d][1] for d in range(2)]
    grad = pad_array(xp, grad, [(0, f - c) for f, c in zip(full, covered)])
    return _result(xp.ascontiguousarray(_crop(grad, pads)).astype(g.dtype), self, self.dtype)


# ---- adaptive average pooling ---------------------------------------------------------------------------------


def averaging_matrix(xp, size, out, dtype):
    """A (out, size) matrix whose row i averages input positions floor(i*size/out) .. ceil((i+1)*size/out)-1
    (AdaptiveAveragePooling.cpp `start_index` / `end_index`)."""
    matrix = xp.zeros((out, size), dtype=dtype)
    for i in range(out):
        start = (i * size) // out
        end = -((-(i + 1) * size) // out)        # ceil((i+1) * size / out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def adaptive_avg_pool2d_kernel(ks, self, output_size):
    """`_adaptive_avg_pool2d`: an average over fixed bins is linear in the input, so along each axis it is a
    small matrix: out = A_h @ x @ A_w^T, two matmuls."""
    sizes = tuple(self.shape[:-2]) + tuple(output_size)
    if is_meta(self):
        return _empty(sizes, self, self.dtype)
    xp = xp_for(self)
    x = self._data()
    rows = averaging_matrix(xp, x.shape[-2], output_size[0], x.dtype)     # (out_h, H)
    cols = averaging_matrix(xp, x.shape[-1], output_size[1], x.dtype)     # (out_w, W)
    return _result(xp.matmul(rows, xp.matmul(x, cols.T)), self, self.dtype)


def adaptive_avg_pool2d_backward_kernel(ks, grad_output, self):
    """`_adaptive_avg_pool2d_backward`: the transposed matrices, A_h^T @ grad @ A_w."""
    if is_meta(grad_output, self):
        return _empty(tuple(self.shape), self, self.dtype)
    xp = xp_for(grad_output)
    g = grad_output._data()
    rows = averaging_matrix(xp, self.shape[-2], g.shape[-2], g.dtype)
    cols = averaging_matrix(xp, self.shape[-1], g.shape[-1], g.dtype)
    return _result(xp.matmul(rows.T, xp.matmul(g, cols)), self, self.dtype)
