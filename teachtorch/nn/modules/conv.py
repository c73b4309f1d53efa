"""Conv1d/2d/3d and ConvTranspose1d/2d/3d: modules that own a convolution's weight and bias and call F.conv*.

The weight has shape (out_channels, in_channels / groups, *kernel_size): one (in_channels/groups)-channel
filter per output channel. The default initialisation is PyTorch's (torch/nn/modules/conv.py, `_ConvNd.
reset_parameters`): `kaiming_uniform_(weight, a=sqrt(5))`, i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with
fan_in = in_channels/groups * prod(kernel_size), and the bias from the same range.

`padding_mode='zeros'` lets the convolution pad with zeros itself; the other modes ('reflect', 'replicate',
'circular') pad the input with F.pad first and then convolve without padding, as PyTorch does.

A transposed convolution's weight is (in_channels, out_channels / groups, *kernel_size) (PyTorch's
`_ConvNd(transposed=True)`), and it pads with zeros only.
"""

import math

from ...ops import empty
from .. import init
from ..functional.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                               conv_transpose3d)
from ..functional.padding import pad
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


def _ntuple(value, n):
    """An int repeated n times, or the tuple given (PyTorch's `_single` / `_pair`)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _ConvNd(Module):
    """What Conv1d and Conv2d share: the checks, the parameters, their initialisation and the repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                 padding_mode, device=None, dtype=None, transposed=False, output_padding=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        # (the messages print Python sets, whose order varies from run to run, in PyTorch as here)
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = transposed
        self.output_padding = output_padding if output_padding is not None else (0,) * len(kernel_size)
        # F.pad's amounts for the non-zero padding modes: (left, right) per dim, the LAST dim first
        self._reversed_padding_repeated_twice = []
        for d in reversed(range(len(kernel_size))):
            if padding == "same":
                total = dilation[d] * (kernel_size[d] - 1)
                self._reversed_padding_repeated_twice += [total // 2, total - total // 2]
            elif padding == "valid":
                self._reversed_padding_repeated_twice += [0, 0]
            else:
                self._reversed_padding_repeated_twice += [padding[d], padding[d]]
        shape = ((in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups))
        self.weight = Parameter(empty((*shape, *kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def _conv_forward(self, conv, input):
        if self.padding_mode != "zeros":
            input = pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):     # (a string padding is never equal to a tuple)
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """A 1-D convolution over (N, C_in, L) or (C_in, L) input."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 1), _ntuple(stride, 1),
                         padding if isinstance(padding, str) else _ntuple(padding, 1), _ntuple(dilation, 1),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(conv1d, input)


class Conv2d(_ConvNd):
    """A 2-D convolution over (N, C_in, H, W) or (C_in, H, W) input."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 2), _ntuple(stride, 2),
                         padding if isinstance(padding, str) else _ntuple(padding, 2), _ntuple(dilation, 2),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(conv2d, input)


class Conv3d(_ConvNd):
    """A 3-D convolution over (N, C_in, D, H, W) or (C_in, D, H, W) input."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, 3), _ntuple(stride, 3),
                         padding if isinstance(padding, str) else _ntuple(padding, 3), _ntuple(dilation, 3),
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        return self._conv_forward(conv3d, input)


class _ConvTransposeNd(_ConvNd):
    """ConvTranspose1d/2d/3d: the weight is (in, out/groups, *kernel), the op `convolution(transposed=True)`."""

    dims = 2
    function = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self.dims
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         _ntuple(padding, n), _ntuple(dilation, n), groups, bias, padding_mode, device, dtype,
                         transposed=True, output_padding=_ntuple(output_padding, n))

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return type(self).function(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                   self.groups, self.dilation)

    def _output_padding(self, input, output_size):
        """The output_padding for this call (torch/nn/modules/conv.py `_ConvTransposeNd._output_padding`).

        A transposed convolution with stride s can give s different output sizes (a strided convolution maps
        all of them to the same input size); `output_padding` picks one. `forward(x, output_size=...)` names
        the size instead, and this works out the padding that gives it, or says which sizes are possible.
        """
        if output_size is None:
            return self.output_padding
        n = self.dims
        non_spatial = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        min_sizes = [(input.size(d + non_spatial) - 1) * self.stride[d] - 2 * self.padding[d]
                     + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(n)]
        max_sizes = [lo + self.stride[d] - 1 for d, lo in enumerate(min_sizes)]
        for size, lo, hi in zip(output_size, min_sizes, max_sizes):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from "
                                 f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})")
        return tuple(size - lo for size, lo in zip(output_size, min_sizes))


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of Conv1d (its input gradient as a layer): (N, C_in, L) -> (N, C_out, L_out)."""

    dims = 1
    function = staticmethod(conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of Conv2d, an upsampling layer: (N, C_in, H, W) -> (N, C_out, H_out, W_out)."""

    dims = 2
    function = staticmethod(conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """The transpose of Conv3d."""

    dims = 3
    function = staticmethod(conv_transpose3d)
