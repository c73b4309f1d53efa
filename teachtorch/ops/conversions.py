"""Conversions: `Tensor.to` and friends (dtype, device), `new_*` factories, dtype information.

`x.to(...)` changes a tensor's dtype, device or memory format. The rule worth remembering (PyTorch's
`to_will_alias` in aten/src/ATen/native/TensorConversions.cpp): when nothing would change, `to` returns
**the tensor itself**, not a copy (`x.to(x.dtype) is x`), so writing into the result writes into `x`.
Otherwise it calls `_to_copy`, an op of its own, which allocates the result *with the input's layout*
(memory_format=preserve_format: a transposed input gives a transposed result; a non-dense input, such as an
expanded or stepped slice, gives a dense result with its dims in the same order) and copies, casting as C
does (`static_cast`: floats are truncated toward zero into integers, `nan != 0` is True).

`x.float()`, `x.long()`, ... are `x.to(torch.float32)`, `x.to(torch.int64)`, ...; `x.cpu()` is `x.to("cpu")`.

Also here: `x.type()`, `x.new_zeros(...)` and the other `new_*` (dtype and device taken from `x`), `numel`,
`is_floating_point`, `is_nonzero`, and `finfo` / `iinfo` (torch/csrc/TypeInfo.cpp), which describe a dtype.
Type promotion itself (`promote_types`, `result_type`, `can_cast`) lives in teachtorch/_dtype.py.
"""

import numpy as np

from .. import _dtype
from .._device import device as _device_cls
from .._tensor import Tensor
from ..kernels.copy import to_copy_kernel
from ._define import bind_method, define, kernel_op, public_name, register_kernel
from ..kernels import factories as K
from .factories import _finish, _size_arg, _type_name, check_device, check_requires_grad, memory_format
from .tensor_new import tensor

# ---- _to_copy: the op behind every converting `to` --------------------------------------------------------


to_copy_op = define("_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor")
register_kernel(to_copy_op, to_copy_kernel)   # (kernels/copy.py)


def _is_channels_last_like(sizes, strides):
    """`is_channels_last_strides_2d` (c10/core/MemoryFormat.h): are a 4-d tensor's strides ordered C, W, H, N?"""
    if len(sizes) != 4 or strides[1] == 0:
        return False
    smallest = 0
    for d in (1, 3, 2, 0):
        if sizes[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False   # ambiguous (N111): PyTorch falls back to contiguous
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def suggest_memory_format(t):
    """The memory format a tensor's strides look like: channels_last or contiguous_format."""
    return "channels_last" if _is_channels_last_like(t._sizes, t._strides) else "contiguous_format"


def _to_will_alias(self, dtype, device, copy, fmt):
    """`to_will_alias`: no dtype change, no device change, no copy asked, and the layout already fits."""
    return ((dtype is None or dtype is self.dtype) and (device is None or device == self.device) and not copy
            and (fmt in (None, "preserve_format") or suggest_memory_format(self) == fmt))


def _to(self, device=None, dtype=None, non_blocking=False, copy=False, memory_format=None):
    fmt = None if memory_format is None else str(memory_format)
    device = None if device is None else check_device(device)
    if _to_will_alias(self, dtype, device, copy, fmt):
        return self
    return to_copy_op(self, dtype=dtype, device=device, non_blocking=non_blocking, memory_format=fmt)


# ---- parsing `to`'s three signatures --------------------------------------------------------------------

_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = "
    "None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")

_REQUIRED = object()


def _is_device(x):
    return x is None or isinstance(x, (str, _device_cls)) or isinstance(x, int) and not isinstance(x, bool)


def _is_dtype(x):
    return isinstance(x, _dtype.dtype)


def _is_opt_dtype(x):
    return x is None or _is_dtype(x)


def _is_bool(x):
    return isinstance(x, bool)


def _is_format(x):
    return x is None or isinstance(x, (memory_format, str))


_SIGNATURES = (   # (name, accepts, default) for each positional-or-keyword parameter, in order
    (("device", _is_device, None), ("dtype", _is_opt_dtype, None), ("non_blocking", _is_bool, False),
     ("copy", _is_bool, False)),
    (("dtype", _is_dtype, _REQUIRED), ("non_blocking", _is_bool, False), ("copy", _is_bool, False)),
    (("tensor", lambda x: isinstance(x, Tensor), _REQUIRED), ("non_blocking", _is_bool, False),
     ("copy", _is_bool, False)),
)


def _bind(signature, args, kwargs):
    """Match a call against one signature, as PyTorch's argument parser does; None if it does not fit."""
    if len(args) > len(signature):
        return None
    values = {}
    for (name, accepts, _), a in zip(signature, args):
        if not accepts(a):
            return None
        values[name] = a
    params = {name: accepts for name, accepts, _ in signature}
    params["memory_format"] = _is_format
    for k, v in kwargs.items():
        if k in values or k not in params or not params[k](v):
            return None
        values[k] = v
    for name, _, default in signature:
        if name not in values:
            if default is _REQUIRED:
                return None
            values[name] = default
    values.setdefault("memory_format", None)
    return values


def _arg_type_name(x):
    if isinstance(x, _dtype.dtype):
        return "torch.dtype"
    if isinstance(x, _device_cls):
        return "torch.device"
    if isinstance(x, memory_format):
        return "torch.memory_format"
    return _type_name(x)


def _parse_to(args, kwargs):
    """(device, dtype, non_blocking, copy, memory_format) from any of `to`'s signatures."""
    for signature in _SIGNATURES:
        v = _bind(signature, args, kwargs)
        if v is not None:
            if "tensor" in v:
                other = v["tensor"]
                return other.device, other.dtype, v["non_blocking"], v["copy"], v["memory_format"]
            return v.get("device"), v["dtype"], v["non_blocking"], v["copy"], v["memory_format"]
    keywords = [f"{k}={_arg_type_name(x)}" for k, x in kwargs.items()]
    if args:
        got = ", ".join([_arg_type_name(a) for a in args] + keywords)
    else:
        got = "".join(k + ", " for k in keywords)   # (PyTorch's own formatting quirk)
    raise TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + _TO_SIGNATURES)


def to(self, *args, **kwargs):
    """`x.to(dtype)`, `x.to(device)`, `x.to(device, dtype)`, `x.to(other)`; `copy=True` always copies."""
    device, dtype, non_blocking, copy, fmt = _parse_to(args, kwargs)
    return _to(self, device, dtype, non_blocking, copy, fmt)


def _dtype_method(name, dt):
    def convert(self, memory_format=None):
        return _to(self, dtype=dt, memory_format=memory_format)
    public_name(convert, name)
    convert.__doc__ = f"`self.to({dt})`."
    return convert


def cpu(self, memory_format=None):
    """`self.to("cpu")`: the tensor itself when it already is on the cpu."""
    return _to(self, device="cpu", memory_format=memory_format)


def cuda(self, device=None, non_blocking=False, memory_format=None):
    """`self.to("cuda")` (device may be an index or "cuda:1")."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = _device_cls("cuda", device)
    return _to(self, device=device, non_blocking=non_blocking, memory_format=memory_format)


# ---- legacy type names: x.type() -> 'torch.FloatTensor' ------------------------------------------------------

_TENSOR_TYPE_NAME = {"bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
                     "int32": "IntTensor", "int64": "LongTensor", "float16": "HalfTensor", "float32": "FloatTensor",
                     "float64": "DoubleTensor"}
_DTYPE_OF_TYPE_NAME = {v: k for k, v in _TENSOR_TYPE_NAME.items()}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """`x.type()` names the legacy tensor type ('torch.FloatTensor'); `x.type(t)` converts like `to`."""
    if dtype is None:
        dev = self.device.type
        return ("torch." if dev == "cpu" else f"torch.{dev}.") + _TENSOR_TYPE_NAME[self.dtype.name]
    if isinstance(dtype, str):
        parts = dtype.split(".")
        if len(parts) not in (2, 3) or parts[0] != "torch" or parts[-1] not in _DTYPE_OF_TYPE_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        device = "cpu" if len(parts) == 2 else parts[1]
        return _to(self, device=device, dtype=_dtype._lookup(_DTYPE_OF_TYPE_NAME[parts[-1]]),
                   non_blocking=non_blocking)
    if isinstance(dtype, _dtype.dtype):
        return _to(self, dtype=dtype, non_blocking=non_blocking)
    raise TypeError("dtype must be a type, str, or dtype object")


def type_as(self, other):
    """`x.type_as(y)`: `x` with `y`'s dtype and device (PyTorch: `self.to(other.options())`), `x` itself when
    they already match."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {_type_name(other)}")
    return _to(self, device=other.device, dtype=other.dtype)


# ---- new_*: factories that take dtype and device from an existing tensor -------------------------------------


# Ops of their own in PyTorch (`aten.new_zeros`): what a trace shows, and what AccumulateGrad calls
_NEW_TAIL = "*, ScalarType? dtype=None, Device? device=None"
new_empty_op = kernel_op(f"new_empty(Tensor self, SymInt[] size, {_NEW_TAIL}) -> Tensor", K.new_empty_kernel)
new_empty_strided_op = kernel_op(f"new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, {_NEW_TAIL}) "
                                 "-> Tensor", K.new_empty_strided_kernel)
new_zeros_op = kernel_op(f"new_zeros(Tensor self, SymInt[] size, {_NEW_TAIL}) -> Tensor", K.new_zeros_kernel)
new_ones_op = kernel_op(f"new_ones(Tensor self, SymInt[] size, {_NEW_TAIL}) -> Tensor", K.new_ones_kernel)
new_full_op = kernel_op(f"new_full(Tensor self, SymInt[] size, Scalar fill_value, {_NEW_TAIL}) -> Tensor",
                        K.new_full_kernel)


def _new_options(self, dtype, device):
    return dtype or self.dtype, self.device if device is None else check_device(device)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    """`tensor(data)` with self's dtype and device (not the dtype inferred from data)."""
    check_requires_grad(requires_grad, "new_tensor", optional=False)
    dtype, device = _new_options(self, dtype, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    check_requires_grad(requires_grad, "new_empty")
    dtype, device = _new_options(self, dtype, device)
    return _finish(new_empty_op(self, _size_arg(size, "new_empty"), dtype=dtype, device=device), requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    check_requires_grad(requires_grad, "new_zeros")
    dtype, device = _new_options(self, dtype, device)
    return _finish(new_zeros_op(self, _size_arg(size, "new_zeros"), dtype=dtype, device=device), requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    check_requires_grad(requires_grad, "new_ones")
    dtype, device = _new_options(self, dtype, device)
    return _finish(new_ones_op(self, _size_arg(size, "new_ones"), dtype=dtype, device=device), requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    check_requires_grad(requires_grad, "new_full")
    dtype, device = _new_options(self, dtype, device)
    fill_value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    return _finish(new_full_op(self, _size_arg((size,), "new_full"), fill_value, dtype=dtype, device=device),
                   requires_grad)


def new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    check_requires_grad(requires_grad, "new_empty_strided")
    dtype, device = _new_options(self, dtype, device)
    return _finish(new_empty_strided_op(self, _size_arg((size,), "new_empty_strided"), tuple(stride), dtype=dtype,
                                        device=device), requires_grad)


# ---- questions about tensors ----------------------------------------------------------------------------


def _check_tensor(fn, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {_type_name(x)}")


def numel(input):
    _check_tensor("numel", input)
    return input.numel()


def is_floating_point(input):
    _check_tensor("is_floating_point", input)
    return input.dtype.is_floating_point


def is_nonzero(input):
    """`bool(input)` for a one-element tensor; an error for any other number of elements."""
    _check_tensor("is_nonzero", input)
    return bool(input)


# ---- finfo and iinfo ---------------------------------------------------------------------------------------


class finfo:
    """Machine limits of a floating point dtype (`torch.finfo`, torch/csrc/TypeInfo.cpp)."""

    def __init__(self, type=None):
        type = _dtype.get_default_dtype() if type is None else type
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not {_type_name(type)}")
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(type.numpy)
        self.bits = int(info.bits)
        self.eps = float(info.eps)                 # the gap between 1.0 and the next representable number
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)   # 10 ** -(decimal digits of precision)
        self.dtype = type.name

    def __eq__(self, other):
        return isinstance(other, finfo) and vars(self) == vars(other)

    __hash__ = object.__hash__

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Limits of an integer dtype (`torch.iinfo`)."""

    def __init__(self, type):
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not {_type_name(type)}")
        if type is _dtype.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self.bits, self.min, self.max, self.dtype = int(info.bits), int(info.min), int(info.max), type.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and vars(self) == vars(other)

    __hash__ = object.__hash__

    def __repr__(self):
        # PyTorch prints the limits through a double, so int32's max shows as 2.14748e+09
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__


# ---- Tensor methods -------------------------------------------------------------------------------------------

for _name, _fn in {
    "to": to, "cpu": cpu, "cuda": cuda, "type": type_, "type_as": type_as,
    "float": _dtype_method("float", _dtype.float32), "double": _dtype_method("double", _dtype.float64),
    "half": _dtype_method("half", _dtype.float16), "long": _dtype_method("long", _dtype.int64),
    "int": _dtype_method("int", _dtype.int32), "short": _dtype_method("short", _dtype.int16),
    "char": _dtype_method("char", _dtype.int8), "byte": _dtype_method("byte", _dtype.uint8),
    "bool": _dtype_method("bool", _dtype.bool_),
    "new_tensor": new_tensor, "new_empty": new_empty, "new_zeros": new_zeros, "new_ones": new_ones,
    "new_full": new_full, "new_empty_strided": new_empty_strided, "is_nonzero": is_nonzero,
}.items():
    bind_method(_name, _fn)


__all__ = ['finfo', 'iinfo', 'is_floating_point', 'is_nonzero', 'numel']
