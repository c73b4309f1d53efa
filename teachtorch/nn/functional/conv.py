"""conv1d and conv2d: im2col built from a strided VIEW of the input, then one matmul.

A 2-D convolution slides a (C, kh, kw) kernel over the (C, H, W) image and takes a dot product at every
position. Written as loops it is six nested loops; written as linear algebra it is one matrix product:

1. **The window view (no copy).** Every kernel-sized window of the (padded) input is already in memory; we
   only need a tensor that *looks at* all of them. For an input of strides (sN, sC, sH, sW), the view

       windows[n, c, i, j, ki, kj] = x[n, c, i*stride + ki*dilation, j*stride + kj*dilation]

   has sizes (N, C, out_h, out_w, kh, kw) and strides

       (sN, sC, sH*stride, sW*stride, sH*dilation, sW*dilation)

   because moving one output row down moves the window `stride` input rows (sH*stride elements), and moving
   one kernel row down moves `dilation` input rows (sH*dilation elements). `as_strided` makes this view
   over the same storage: nothing is copied, however much the windows overlap.
2. **im2col (the copy).** Reshaping the windows to a matrix of shape (N, C*kh*kw, out_h*out_w) (one column
   per output position, "image to columns") is where the elements are copied: a 3x3 kernel with stride 1
   reads each pixel 9 times.
3. **One matmul.** The weight (O, C, kh, kw) reshaped to (O, C*kh*kw) times the columns gives
   (N, O, out_h*out_w), which is the output (N, O, out_h, out_w) after a free view, plus the bias.

With `groups` the C input channels are split into groups of C/groups, each seen by its own O/groups output
channels: the weight becomes (groups, O/groups, C/groups*kh*kw), the columns (N, groups, C/groups*kh*kw, L),
and one broadcast matmul does every group at once.

Autograd needs nothing new: as_strided, reshape, matmul and add all have derivatives. The backward of the
window view (AsStridedBackward0) adds the gradient of every window back onto the pixels it saw (col2im).

PyTorch's CPU kernel (aten/src/ATen/native/ConvolutionMM2d.cpp, `slow_conv2d`) does the same im2col + GEMM,
but copies the windows with a C loop (`unfolded2d_copy`) instead of a view; oneDNN / cuDNN use faster
algorithms. The checks and their messages come from aten/src/ATen/native/Convolution.cpp.
"""

import math
import warnings

import teachtorch as tt
from ..._dtype import TYPEMETA_NAMES
from ..._strides import has_internal_overlap
from ._layout import _pytorch_layout

__all__ = ["conv1d", "conv2d"]


def _tuple(value, n, name):
    """An int or a list of n ints (a list of 1 is repeated), as `expand_param_if_needed` in Convolution.cpp."""
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(values)}")
    return values


def _pad(x, pads, value=0.0):
    """`x` with its last len(pads) dims padded by pads[d] = (before, after) elements of `value`.

    A new tensor filled with `value`, and the input written into its middle through a sliced view: the
    write is an in-place copy, which autograd records (CopySlices), so the gradient flows back to `x`.
    """
    if all(before == 0 and after == 0 for before, after in pads):
        return x
    lead = x.dim() - len(pads)
    sizes = tuple(x.shape[:lead]) + tuple(size + before + after for size, (before, after)
                                          in zip(x.shape[lead:], pads))
    padded = x.new_full(sizes, value)
    middle = (slice(None),) * lead + tuple(slice(before, before + size) for size, (before, _)
                                           in zip(x.shape[lead:], pads))
    padded[middle] = x
    return padded


def _windows(x, kernel, stride, dilation, out_sizes):
    """The sliding-window VIEW of `x` over its last len(kernel) dims (no copy; see the module docstring).

    Leading dims keep their sizes and strides. For 2-D windows the result has sizes
    (*lead, out_h, out_w, kh, kw) and strides (*lead, sH*stride_h, sW*stride_w, sH*dil_h, sW*dil_w).
    """
    if has_internal_overlap(tuple(x.shape), x.stride()):
        # An expanded input shows one memory cell at several places. as_strided works on memory, not on the
        # tensor's elements, so its backward would merge the gradients of those places: copy such an input.
        x = x.contiguous()
    lead = x.dim() - len(kernel)
    spatial_strides = x.stride()[lead:]
    sizes = tuple(x.shape[:lead]) + tuple(out_sizes) + tuple(kernel)
    strides = (x.stride()[:lead]
               + tuple(s * st for s, st in zip(spatial_strides, stride))     # next window: `stride` pixels on
               + tuple(s * d for s, d in zip(spatial_strides, dilation)))    # next tap: `dilation` pixels on
    # the offset is counted from the start of the storage, so a sliced input keeps its own start
    return x.as_strided(sizes, strides, x.storage_offset())


def _size_list(t):
    return list(t.shape)


def _check(input, weight, bias, stride, padding, dilation, groups):
    """Convolution.cpp `check_shape_forward`: the same checks, in the same order, with the same messages."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{_size_list(weight)}, but got {input.dim()}-dimensional input of size "
                           f"{_size_list(input)} instead")
    if weight.shape[0] % groups != 0:
        # (PyTorch prints the weight's size inside two pairs of brackets)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{_size_list(weight)}] instead")
    if input.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {_size_list(weight)}, expected "
                           f"input{_size_list(input)} to have {weight.shape[1] * groups} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"Given weight of size {_size_list(weight)}, expected bias to be 1-dimensional with "
                           f"{weight.shape[0]} elements, but got bias of size {_size_list(bias)} instead")
    # dtypes: the bias is checked first (in `_convolution`, for every backend); the weight then by the
    # backend PyTorch picked, whose message we copy: cuDNN's on a GPU and oneDNN's for float32 input where
    # `use_mkldnn` would pick it (the same text), else the slow CPU kernel's dispatch check.
    if bias is not None and input.dtype != bias.dtype:
        raise RuntimeError(f"Input type ({TYPEMETA_NAMES[input.dtype.name]}) and bias type "
                           f"({TYPEMETA_NAMES[bias.dtype.name]}) should be the same")
    if input.dtype != weight.dtype:
        if input.device.type != "cpu" or _uses_mkldnn(input, weight, stride, dilation, groups):
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the "
                               "same or input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input.dtype._ptname} but found {weight.dtype._ptname}")


def _uses_mkldnn(input, weight, stride, dilation, groups):
    """Convolution.cpp `ConvParams::use_mkldnn` for a dense CPU input: float32 only, and a size heuristic
    (a 1-D convolution is seen as 2-D with a height of 1). We take the multi-threaded answer for its
    1x1-kernel clause, which also asks `at::get_num_threads() > 1`."""
    if input.dtype != tt.float32:
        return False
    sizes = list(input.shape) if input.dim() > 3 else [input.shape[0], input.shape[1], 1, input.shape[2]]
    kernel = list(weight.shape[2:]) if weight.dim() > 3 else [1, weight.shape[2]]
    return (groups > 1 or (kernel[-1] > 3 and kernel[-2] > 3) or sizes[0] > 1
            or math.prod(sizes[:4]) > 20480)


def _conv(input, weight, bias, stride, padding, dilation, groups, name):
    """The convolution over the last weight.dim() - 2 dims of `input` (1 for conv1d, 2 for conv2d)."""
    # Over 60 lines: the one convolution path (checks, padding, window view, matmul) shared by conv1d and conv2d,
    # read as lesson 12 reads it.
    dims = 1 if name == "conv1d" else 2
    if input.dim() not in (dims + 1, dims + 2):
        unbatched, batched = {1: ("2D", "3D"), 2: ("3D", "4D")}[dims]
        raise RuntimeError(f"Expected {unbatched} (unbatched) or {batched} (batched) input to {name}, but got "
                           f"input of size: {_size_list(input)}")
    unbatched = input.dim() == dims + 1
    if unbatched:
        input = input.unsqueeze(0)

    # an int becomes one value per spatial dim of the function (as Python's binding does); the spatial dims
    # of the convolution then come from the weight, as in PyTorch, which reports a mismatch with the input
    stride, dilation = [(v,) * dims if isinstance(v, int) else v for v in (stride, dilation)]
    if isinstance(padding, int):
        padding = (padding,) * dims
    n = weight.dim() - 2
    stride = _tuple(stride, n, "stride")
    dilation = _tuple(dilation, n, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
    else:
        padding = _tuple(padding, n, "padding")
    _check(input, weight, bias, stride, padding, dilation, groups)

    kernel = tuple(weight.shape[2:])
    if padding == "valid":
        pads = [(0, 0)] * n
    elif padding == "same":
        # the output keeps the input's size: pad dilation*(k-1) in all, the odd one on the right (as PyTorch)
        pads = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilation)]
        if any(before != after for before, after in pads):
            warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a "
                          "zero-padded copy of the input be created")
    else:
        pads = [(p, p) for p in padding]

    spatial = tuple(input.shape[2:])
    padded_sizes = [size + before + after for size, (before, after) in zip(spatial, pads)]
    effective = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]   # the span one window covers
    if any(e > p for e, p in zip(effective, padded_sizes)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded_sizes))}). "
                           f"Kernel size: ({' x '.join(map(str, effective))}). "
                           "Kernel size can't be greater than actual input size")
    out_sizes = [(p - e) // s + 1 for p, e, s in zip(padded_sizes, effective, stride)]

    batch, out_channels = input.shape[0], weight.shape[0]
    x = _pad(input, pads)
    windows = _windows(x, kernel, stride, dilation, out_sizes)        # (N, C, *out, *kernel): a view

    # im2col: put the kernel dims next to the channels and flatten them. This reshape is the one copy.
    out_dims = list(range(2, 2 + n))
    kernel_dims = list(range(2 + n, 2 + 2 * n))
    columns = windows.permute(0, 1, *kernel_dims, *out_dims).reshape(batch, groups, -1, math.prod(out_sizes))

    # (groups, O/groups, C/groups*k) @ (N, groups, C/groups*k, L) -> (N, groups, O/groups, L)
    out = tt.matmul(weight.reshape(groups, out_channels // groups, -1), columns)
    out = out.view(batch, out_channels, *out_sizes)
    if bias is not None:
        out = out + bias.view(out_channels, *([1] * n))
    out = _pytorch_layout(out, input)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) or (C, L) input with a (O, C/groups, k) weight; see the module docstring."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) or (C, H, W) input with a (O, C/groups, kh, kw) weight.

    `padding` is an int, a pair, or the string 'valid' (none) or 'same' (output as big as the input;
    stride 1 only). See the module docstring for how it is computed.
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv2d")
