"""The convolution kernels: `convolution` and `convolution_backward`, array code over NumPy / CuPy.

A 2-D convolution slides a (C, kh, kw) kernel over the (C, H, W) image and takes a dot product at every
position. Written as loops it is six nested loops; written as linear algebra it is one matrix product:

1. **The window view (no copy).** Every kernel-sized window of the (padded) input is already in memory; we
   only need an array that *looks at* all of them. For an input of strides (sN, sC, sH, sW), the view

       windows[n, c, i, j, ki, kj] = x[n, c, i*stride + ki*dilation, j*stride + kj*dilation]

   has sizes (N, C, out_h, out_w, kh, kw) and strides

       (sN, sC, sH*stride, sW*stride, sH*dilation, sW*dilation)

   because moving one output row down moves the window `stride` input rows, and moving one kernel row down
   moves `dilation` input rows. `as_strided` makes this view over the same memory: nothing is copied,
   however much the windows overlap. (1-D and 3-D are the same with one or three spatial dims.)
2. **im2col (the copy).** Reshaping the windows to a matrix of shape (N, C*kh*kw, out_h*out_w) (one column
   per output position, "image to columns") is where the elements are copied: a 3x3 kernel with stride 1
   reads each pixel 9 times.
3. **One matmul.** The weight (O, C, kh, kw) reshaped to (O, C*kh*kw) times the columns gives
   (N, O, out_h*out_w), which is the output (N, O, out_h, out_w) after a free reshape, plus the bias.
   It is one broadcast `matmul` call that does one small product per batch item, as PyTorch's kernel does
   one GEMM per item (small products also keep NumPy's BLAS on one thread, which on a busy machine is much
   faster than one big product spread over threads).

With `groups` the C input channels are split into groups of C/groups, each seen by its own O/groups output
channels: the weight becomes (groups, O/groups, C/groups*kh*kw), the columns (N, groups, C/groups*kh*kw, L),
and one broadcast matmul does every group at once.

The backward (`convolution_backward`, PyTorch's op of that name) reverses the three steps:

* grad_bias is the output gradient summed over every dim but the channels;
* grad_weight is one matmul: per batch item the output gradient (O, L) times the columns (L, C*kh*kw),
  summed over the batch;
* grad_input is the transposed matmul, weight^T @ grad_output = the gradient of every column, then
  **col2im**: each column entry goes back onto the pixel it was copied from. The columns that tap (ki, kj)
  of the kernel read are a strided slice of the padded input, `x[..., ki*d : ... : stride, kj*d : ... :
  stride]`, so col2im is one strided `+=` per kernel tap (9 for a 3x3 kernel): overlapping windows add up.

A **transposed** convolution (`conv_transpose2d`) is exactly that grad_input computation run forward: its
input plays the output gradient of an ordinary convolution, whose weight it shares. So `transposed=True`
runs col2im forward and im2col in its backward, the two directions swapped.

PyTorch's CPU kernel (aten/src/ATen/native/ConvolutionMM2d.cpp, `slow_conv2d_forward` /
`slow_conv2d_backward`) is the same im2col + GEMM and col2im, with the windows copied by a C loop
(`unfolded2d_copy`, `unfolded2d_acc`) instead of a view; oneDNN and cuDNN use faster algorithms. The op and
its arguments are aten/src/ATen/native/Convolution.cpp's `convolution` and `convolution_backward`.
"""

import math

import numpy as np

from ..backends import empty, wrap, wrap_strided
from .._strides import channels_last_strides
from .indexing import is_meta, xp_for
from .shape import suggest_memory_format


# ---- the window view and its inverse -------------------------------------------------------------------------


def pad_array(xp, x, pads, value=0):
    """`x` with its last len(pads) dims padded by pads[d] = (before, after) elements of `value` (a copy):
    a new array filled with `value`, and `x` written into its middle."""
    if all(before == 0 and after == 0 for before, after in pads):
        return x
    lead = x.ndim - len(pads)
    sizes = x.shape[:lead] + tuple(size + before + after for size, (before, after) in zip(x.shape[lead:], pads))
    out = xp.full(sizes, value, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(before, before + size) for size, (before, _) in zip(x.shape[lead:], pads))] = x
    return out


def window_view(xp, x, kernel, stride, dilation, out_sizes):
    """The sliding-window VIEW of array `x` over its last len(kernel) dims: sizes (*lead, *out, *kernel),
    strides (*lead, s*stride per dim, s*dilation per dim). No copy (see the module docstring)."""
    lead = x.ndim - len(kernel)
    spatial = x.strides[lead:]                                   # (NumPy strides are in bytes)
    strides = (x.strides[:lead]
               + tuple(s * st for s, st in zip(spatial, stride))     # next window: `stride` pixels on
               + tuple(s * d for s, d in zip(spatial, dilation)))    # next tap: `dilation` pixels on
    sizes = x.shape[:lead] + tuple(out_sizes) + tuple(kernel)
    if xp is np:
        return np.lib.stride_tricks.as_strided(x, sizes, strides)
    # CuPy: a view of the same device memory through its pointer, as backends/cuda.py views a storage
    return xp.ndarray(sizes, x.dtype, memptr=x.data, strides=strides)


def add_windows_back(xp, windows, padded_sizes, stride, dilation):
    """col2im: the inverse of `window_view` for gradients. `windows` has sizes (*lead, *out, *kernel); the
    result (*lead, *padded_sizes) holds, at every pixel, the sum of the window entries that read it.

    One strided `+=` per kernel tap: tap (ki, kj) of every window reads the pixels
    `x[..., ki*d : ki*d + (out_h-1)*stride + 1 : stride, kj*d : ...]`, a strided slice. The work is laid
    out spatial dims first and the lead dims (batch, channels) last, so that each `+=` runs along long
    contiguous rows of N*C numbers instead of rows of out_w (PyTorch's `col2im` loops the same taps in C)."""
    n = len(stride)
    nlead = windows.ndim - 2 * n
    lead = windows.shape[:nlead]
    out_sizes = windows.shape[nlead:nlead + n]
    kernel = windows.shape[nlead + n:]
    moved = xp.ascontiguousarray(xp.moveaxis(windows, tuple(range(nlead)), tuple(range(2 * n, 2 * n + nlead))))
    result = xp.zeros(tuple(padded_sizes) + lead, dtype=windows.dtype)       # (*padded, *lead)
    for tap in _taps(kernel):
        target = result[tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                              for k, d, o, s in zip(tap, dilation, out_sizes, stride))]
        xp.add(target, moved[(slice(None),) * n + tuple(tap)], out=target)
    return xp.moveaxis(result, tuple(range(n, n + nlead)), tuple(range(nlead)))   # (*lead, *padded): a view


def _taps(kernel):
    """Every kernel position (ki, kj, ...) in row-major order."""
    taps = [()]
    for k in kernel:
        taps = [t + (i,) for t in taps for i in range(k)]
    return taps


def _crop(x, pads):
    """Remove the padding `pads` (per last dims: (before, after)) from array `x` (a view)."""
    lead = x.ndim - len(pads)
    return x[(slice(None),) * lead + tuple(slice(b, x.shape[lead + d] - a) for d, (b, a) in enumerate(pads))]


# ---- sizes ----------------------------------------------------------------------------------------------------


def conv_output_sizes(input_sizes, weight_sizes, stride, padding, dilation, transposed, output_padding, groups):
    """Convolution.cpp `conv_output_size` / `conv_input_size` (for a transposed convolution)."""
    spatial = input_sizes[2:]
    kernel = weight_sizes[2:]
    if transposed:
        channels = weight_sizes[1] * groups
        sizes = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
                 for i, k, s, p, d, op in zip(spatial, kernel, stride, padding, dilation, output_padding)]
    else:
        channels = weight_sizes[0]
        sizes = [(i + 2 * p - d * (k - 1) - 1) // s + 1
                 for i, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)]
    return (input_sizes[0], channels, *sizes)


def channels_last(input, weight):
    """Convolution.cpp `_determine_backend_memory_format`: PyTorch computes a 2-D convolution channels-last
    (its result, grad_input and grad_weight) when the input OR the weight is laid out channels-last
    (`mkldnn_conv_use_channels_last`, `thnn_conv_use_channels_last`)."""
    return input.dim() == 4 and "channels_last" in (suggest_memory_format(input), suggest_memory_format(weight))


def _result(array, dtype, device, last):
    """A fresh result tensor, channels-last or contiguous (see `channels_last`)."""
    if last:
        return wrap_strided(array, dtype, device, channels_last_strides(array.shape))
    return wrap(array, dtype, device)


def _empty_result(sizes, like, last):
    return empty(sizes, like.dtype, like.device, channels_last_strides(sizes) if last else None)


# ---- the two directions, on arrays -----------------------------------------------------------------------------


def _columns(xp, x, kernel, stride, padding, dilation, groups):
    """im2col: the windows of the padded x (N, C, *spatial) as one matrix per batch item and group,
    (N, groups, C/g*K, L): a row per (channel, kernel tap), a column per output position. The window view is
    free; this reshape is the one copy. Returns the columns and the output sizes."""
    n = len(kernel)
    padded = pad_array(xp, x, [(p, p) for p in padding])
    out_sizes = tuple((size - d * (k - 1) - 1) // s + 1
                      for size, k, s, d in zip(padded.shape[2:], kernel, stride, dilation))
    windows = window_view(xp, padded, kernel, stride, dilation, out_sizes)    # (N, C, *out, *kernel): a view
    rows_first = windows.transpose(0, 1, *range(2 + n, 2 + 2 * n), *range(2, 2 + n))   # (N, C, *kernel, *out)
    return rows_first.reshape(x.shape[0], groups, -1, math.prod(out_sizes)), out_sizes


def _im2col_matmul(xp, x, w, stride, padding, dilation, groups):
    """Ordinary convolution of arrays x (N, C, *spatial) and w (O, C/groups, *kernel): (N, O, *out).
    One broadcast matmul, (g, O/g, C/g*K) @ (N, g, C/g*K, L): a small product per batch item, as PyTorch's
    slow_conv2d_forward does (one GEMM per item; small products also keep BLAS on one thread)."""
    columns, out_sizes = _columns(xp, x, w.shape[2:], stride, padding, dilation, groups)
    out = xp.matmul(w.reshape(groups, w.shape[0] // groups, -1), columns)     # (N, g, O/g, L)
    return out.reshape(x.shape[0], w.shape[0], *out_sizes)


def _col2im_matmul(xp, g, w, input_spatial, stride, padding, dilation, groups):
    """The gradient of `_im2col_matmul` with respect to x, for an output gradient g (N, O, *out): the
    columns' gradient w^T @ g per batch item, added back onto the pixels they came from (col2im), padding
    cropped (slow_conv2d_backward: a GEMM and `col2im` per batch item)."""
    n = w.ndim - 2
    kernel = w.shape[2:]
    batch, out_sizes = g.shape[0], g.shape[2:]
    wg = w.reshape(groups, w.shape[0] // groups, -1)                          # (g, O/g, C/g*K)
    gg = g.reshape(batch, groups, w.shape[0] // groups, -1)                   # (N, g, O/g, L)
    columns = xp.matmul(wg.swapaxes(1, 2), gg)                                # (N, g, C/g*K, L)
    windows = columns.reshape(batch, w.shape[1] * groups, *kernel, *out_sizes)
    windows = windows.transpose(0, 1, *range(2 + n, 2 + 2 * n), *range(2, 2 + n))   # (N, C, *out, *kernel)
    # the padded input a window could reach (rows past the last window, which no window read, stay 0)
    padded_sizes = [size + 2 * p for size, p in zip(input_spatial, padding)]
    covered = [(o - 1) * s + d * (k - 1) + 1 for o, s, d, k in zip(out_sizes, stride, dilation, kernel)]
    grad = add_windows_back(xp, windows, covered, stride, dilation)
    extra = [(0, ps - c) for ps, c in zip(padded_sizes, covered)]
    return _crop(pad_array(xp, grad, extra), [(p, p) for p in padding])


def _weight_grad(xp, x, g, kernel, stride, padding, dilation, groups):
    """The gradient of `_im2col_matmul` with respect to w: per batch item (O/g, L) @ (L, C/g*K), one batched
    matmul, summed over the batch: (g, O/g, C/g*K) (slow_conv2d_backward accumulates the same per-item
    products, `grad_weight += grad_output[n] @ columns[n]^T`)."""
    columns, _ = _columns(xp, x, kernel, stride, padding, dilation, groups)  # (N, g, C/g*K, L)
    gg = g.reshape(g.shape[0], groups, g.shape[1] // groups, columns.shape[-1])   # (N, g, O/g, L)
    return xp.matmul(gg, columns.swapaxes(-1, -2)).sum(axis=0)


# ---- the kernels ------------------------------------------------------------------------------------------------


def convolution_kernel(ks, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """`convolution`: an N-d (1-D, 2-D, 3-D) convolution of a batched input, or a transposed convolution.
    The arguments are checked by the caller (nn.functional.conv), as Convolution.cpp's `_convolution`."""
    sizes = conv_output_sizes(input.shape, weight.shape, stride, padding, dilation, transposed, output_padding,
                              groups)
    last = channels_last(input, weight)
    if is_meta(input, weight, bias):
        return _empty_result(sizes, input, last)
    xp = xp_for(input)
    x, w = input._data(), weight._data()
    if transposed:
        # the input is the output gradient of the ordinary convolution whose input has `sizes`
        out = _col2im_matmul(xp, x, w, sizes[2:], stride, padding, dilation, groups)
    else:
        out = _im2col_matmul(xp, x, w, stride, padding, dilation, groups)
    if bias is not None:
        out = out + bias._data().reshape(-1, *([1] * (out.ndim - 2)))
    return _result(out.astype(x.dtype, copy=False), input.dtype, input.device, last)


def convolution_backward_kernel(ks, grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
                                output_padding, groups, output_mask):
    """`convolution_backward`: (grad_input, grad_weight, grad_bias), each computed only when output_mask
    asks for it (None otherwise), as Convolution.cpp's `convolution_backward`."""
    want_input, want_weight, want_bias = output_mask
    last = channels_last(input, weight)
    if is_meta(grad_output, input, weight):
        return (_empty_result(tuple(input.shape), input, last) if want_input else None,
                _empty_result(tuple(weight.shape), weight, last) if want_weight else None,
                empty((grad_output.shape[1],), grad_output.dtype, grad_output.device) if want_bias else None)
    xp = xp_for(grad_output)
    g, x, w = grad_output._data(), input._data(), weight._data()
    kernel = w.shape[2:]
    grad_input = grad_weight = grad_bias = None
    if want_input:
        if transposed:      # the forward ran col2im: its input gradient is the ordinary convolution
            gi = _im2col_matmul(xp, g, w, stride, padding, dilation, groups)
        else:
            gi = _col2im_matmul(xp, g, w, x.shape[2:], stride, padding, dilation, groups)
        grad_input = _result(gi.astype(x.dtype, copy=False), input.dtype, input.device, last)
    if want_weight:
        if transposed:      # the roles of input and output gradient swap
            gw = _weight_grad(xp, g, x, kernel, stride, padding, dilation, groups)  # (g, C/g, O'/g*K)
            gw = gw.reshape(w.shape[0], w.shape[1], *kernel)
        else:
            gw = _weight_grad(xp, x, g, kernel, stride, padding, dilation, groups).reshape(w.shape)
        grad_weight = _result(gw.astype(w.dtype, copy=False), weight.dtype, weight.device, last)
    if want_bias:
        gb = g.sum(axis=(0,) + tuple(range(2, g.ndim)))
        grad_bias = wrap(gb.astype(g.dtype, copy=False), grad_output.dtype, grad_output.device)
    return grad_input, grad_weight, grad_bias
