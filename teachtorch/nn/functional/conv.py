"""conv1d, conv2d, conv3d and conv_transpose1d/2d/3d: argument checks, then ONE op, `convolution`.

PyTorch's `F.conv2d` (aten/src/ATen/native/Convolution.cpp: `conv2d` -> `convolution` -> `_convolution`)
parses its arguments, checks them (`check_shape_forward`) and calls the op

    convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)

whose backward node is `ConvolutionBackward0`; the conv_transpose functions call the same op with
`transposed=True`. This file does the same: the parsing and PyTorch's checks and messages are here, the
array code (a strided window VIEW of the padded input, im2col, one matmul; col2im for the gradient) is in
kernels/conv.py, the op in ops/conv.py and its derivative in autograd/derivatives/conv.py.

`padding='same'` with an even kernel needs one more pixel on one side than on the other: as PyTorch's
`_convolution_mode`, the input is first padded by that difference (`F.pad`, ConstantPadNdBackward0) and the
convolution gets the symmetric rest.
"""

import math
import warnings

import teachtorch as tt
from ..._dtype import TYPEMETA_NAMES

__all__ = ["conv1d", "conv2d", "conv3d",
           "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def _tuple(value, n, name):
    """An int or a list of n ints (a list of 1 is repeated), as `expand_param_if_needed` in Convolution.cpp."""
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(values)}")
    return values


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


def _spatial_dims(input, dims, name):
    """The unbatched check of Convolution.cpp's conv{1,2,3}d: (dims+1)-D is one unbatched item."""
    if input.dim() not in (dims + 1, dims + 2):
        unbatched, batched = f"{dims + 1}D", f"{dims + 2}D"
        raise RuntimeError(f"Expected {unbatched} (unbatched) or {batched} (batched) input to {name}, but got "
                           f"input of size: {_size_list(input)}")
    return input.dim() == dims + 1


def _conv(input, weight, bias, stride, padding, dilation, groups, name, dims):
    """conv1d/2d/3d: parse and check as PyTorch does, then the one op `convolution`."""
    # Over 60 lines: the argument parsing of Convolution.cpp's conv{1,2,3}d and `_convolution_mode`
    # ('same'/'valid'), in PyTorch's order, so that its errors come out first; the work is one op call.
    unbatched = _spatial_dims(input, dims, name)
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
    if any(before != after for before, after in pads):
        # `_convolution_mode`: pad the extra pixel explicitly (constant_pad_nd), the symmetric part in the op
        extra = []
        for before, after in reversed(pads):
            extra += [0, after - before]
        input = tt.nn.functional.pad(input, extra)
    out = tt.convolution(input, weight, bias, list(stride), [before for before, _ in pads], list(dilation), False,
                         [0] * n, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) or (C, L) input with a (O, C/groups, k) weight; see the module docstring."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv1d", 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) or (C, H, W) input with a (O, C/groups, kh, kw) weight.

    `padding` is an int, a pair, or the string 'valid' (none) or 'same' (output as big as the input;
    stride 1 only). See the module docstring for how it is computed.
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv2d", 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) input with a (O, C/groups, kd, kh, kw) weight."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, "conv3d", 3)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, name, dims):
    """conv_transpose{1,2,3}d: the op `convolution` with transposed=True (Convolution.cpp
    `conv_transpose2d`); the weight is (C_in, C_out/groups, *kernel)."""
    unbatched = _spatial_dims(input, dims, name)
    if unbatched:
        input = input.unsqueeze(0)
    stride, padding, output_padding, dilation = [_tuple(v, dims, what) for v, what in (
        (stride, "stride"), (padding, "padding"), (output_padding, "output_padding"), (dilation, "dilation"))]
    if weight.dim() != input.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{_size_list(weight)}, but got {input.dim()}-dimensional input of size "
                           f"{_size_list(input)} instead")
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {_size_list(weight)}, expected input"
                           f"{_size_list(input)} to have {weight.shape[0]} channels, but got {input.shape[1]} "
                           "channels instead")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError("output padding must be smaller than either stride or dilation")
    out = tt.convolution(input, weight, bias, list(stride), list(padding), list(dilation), True,
                         list(output_padding), groups)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transpose of conv1d (the gradient of conv1d with respect to its input, run forward)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           "conv_transpose1d", 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transpose of conv2d: each input pixel spreads its value, times the kernel, over a window of the
    output (col2im); the weight is (C_in, C_out/groups, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           "conv_transpose2d", 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The transpose of conv3d."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           "conv_transpose3d", 3)
