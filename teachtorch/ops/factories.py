"""Factory functions: tensors made from nothing (`zeros`, `full`, `empty_strided`, `*_like`).

Ranges (`arange`, `linspace`, ...) are in range_factories.py, tensors from data (`tensor`, `from_numpy`) in
tensor_new.py; both use the argument checks and helpers defined here.

A factory has no tensor argument, so no tensor brings a backend key to the dispatcher. As in PyTorch the
BackendSelect layer (dispatch/backend_select.py) reads `device=` and sends the call to that backend's kernel
(PyTorch generates those BackendSelect kernels into RegisterBackendSelect.cpp). The kernels live in
aten/src/ATen/native/TensorFactories.cpp and RangeFactories.cpp; `torch.tensor(data)` itself is not an op
at all but Python-binding code (torch/csrc/utils/tensor_new.cpp), which teachtorch follows step by step:
`compute_sizes` walks down the first elements, `infer_scalar_type` looks at every element, and
`recursive_store` checks every list's length while it copies the numbers in.

Three rules worth seeing:

* dtype inference: Python bools give `bool`, ints `int64`, floats the *default* dtype (`float32` unless
  `set_default_dtype` changed it); a NumPy array keeps its dtype. `full` infers from its fill value.
* numbers are converted with overflow checks (c10's `checked_convert`): `full((2,), 300, dtype=uint8)`
  is an error, not a silent 44.
* `*_like` keep the *layout* of their input (PyTorch's `memory_format=torch.preserve_format`): a
  transposed input gives a transposed result. That is what made the optimizer state of a transposed
  weight transposed in the MPS Adam bug (shared/reference §5.1), so it is worth seeing.
"""

import operator

import numpy as np

from .. import _dtype
from .._device import default_device
from .._dispatch_key import DispatchKey
from .._strides import INT64_MAX, INT64_MIN
from .._tensor import Tensor
from .._tensor import typename as _type_name   # the parser's name for a type: float, Tensor, numpy.ndarray
from .._grad_mode import GradMode
from ..backends import ARRAY_MODULES
from ..backends import cuda as cuda_backend
from ..dispatch.backend_select import backend_select_kernel
from ..dispatch.dispatcher import impl
from ..kernels import factories as K
from ..kernels.factories import as_number as _as_number  # noqa: F401  (the helpers the factory files share)
from ..kernels.factories import fill_value, strides_for  # noqa: F401
from ..kernels.factories import is_index as _is_index
from ._define import define, kernel_op, register_kernel

_FACTORY_TAIL = "*, ScalarType? dtype=None, Device? device=None"


# ---- memory formats ---------------------------------------------------------------------------------------


class memory_format:
    """`torch.memory_format`: how a fresh tensor's strides are chosen (c10/core/MemoryFormat.h).

    `str(fmt)` is its bare name ("contiguous_format"), which is what the kernels compare against.
    """

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        return str(other) == self.name if isinstance(other, (str, memory_format)) else NotImplemented

    def __hash__(self):
        return hash(self.name)


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")


def _format_name(fmt):
    return None if fmt is None else str(fmt)


# ---- argument checks shared by every factory ----------------------------------------------------------------


def _size_arg(size, fn="zeros", keywords=None):
    """Accept `zeros(2, 3)`, `zeros((2, 3))`, `zeros([2, 3])`, `zeros(Size)` and `zeros(size=(2, 3))`; check
    like PyTorch's parser. `keywords` are the call's leftover keyword arguments (only `size` is allowed)."""
    if keywords:
        unknown = sorted(set(keywords) - {"size"})
        if unknown:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{unknown[0]}'")
        if size:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        size = (keywords["size"],)
    if not size:
        raise TypeError(f"{fn}() missing 1 required positional arguments: \"size\"")
    if len(size) == 1 and not _is_index(size[0]):
        s = size[0]
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {_type_name(s)}")
        size = tuple(s)
        if size and not _is_index(size[0]):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, but found element of "
                            f"type {_type_name(size[0])} at pos 0")
    elif len(size) > 1 and not _is_index(size[0]):
        raise TypeError(f"{fn}() takes 1 positional argument but {len(size)} were given")
    out = []
    for i, s in enumerate(size):
        # The parser looks only at the first element up front; the others are checked while unpacking
        # (where a bool passes as an int, exactly as in PyTorch).
        if not (_is_index(s) or isinstance(s, bool)):
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_name(s)}\"")
        s = operator.index(s)
        if not INT64_MIN <= s <= INT64_MAX:   # sizes are int64 in PyTorch
            raise TypeError(f"{fn}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            "\"Overflow when unpacking long long\"")
        out.append(s)
    return tuple(out)


def check_device(device):
    """The device of a new tensor (the default device when None), starting the cuda backend when first
    asked for: without CuPy that raises PyTorch's "Torch not compiled with CUDA enabled", plus what to install."""
    device = default_device(device)
    if device.type == "cuda":
        if "cuda" not in ARRAY_MODULES:
            cuda_backend.lazy_init()
        if device.index:
            cuda_backend.check_index(device)
    return device


def _check_dtype(dtype, fn):
    if dtype is not None and not isinstance(dtype, _dtype.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}")
    return dtype


def check_requires_grad(requires_grad, fn, optional=True, signatures=None, given=()):
    """`requires_grad` as PyTorch's parser takes it: True or False, not 1, 'yes' or numpy.bool. The generated
    factories (`zeros`, `empty_like`, `new_ones`, ...) declare it `bool?`, so None passes there and means False;
    `tensor` and `new_tensor`, written by hand in tensor_new.cpp, refuse None too.

    A function with several signatures (`arange`, `randn`, `eye`, ...) cannot tell which argument was wrong, so
    the parser says that no signature fits: pass its `signatures` and the type names of the positional
    arguments `given`."""
    if type(requires_grad) is bool or optional and requires_grad is None:
        return
    if signatures is None:
        raise TypeError(f"{fn}(): argument 'requires_grad' must be bool, not {_type_name(requires_grad)}")
    got = ", ".join([*given, f"requires_grad={_type_name(requires_grad)}"])
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + signatures)


def _finish(t, requires_grad):
    """`requires_grad=True` on a factory: only floating point results may require gradients."""
    if requires_grad:
        if not t.dtype.is_floating_point:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def check_out(fn, out, dtype):
    """The checks PyTorch makes on `out=` of a factory before anything is computed."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {_type_name(out)}")
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"dtype {dtype._ptname} does not match dtype of out parameter ({out.dtype._ptname})")
    if out.requires_grad and GradMode.enabled:
        raise RuntimeError(f"aten::{fn}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


# ---- the factory ops ------------------------------------------------------------------------------------


def _factory(schema, kernel):
    """Define a factory op: kernels for CPU and Meta, and a BackendSelect kernel that reads `device=`."""
    op = define(schema)
    register_kernel(op, kernel)
    impl(op, DispatchKey.BackendSelect, backend_select_kernel(op))
    return op


empty_op = _factory(f"empty.memory_format(SymInt[] size, {_FACTORY_TAIL}, MemoryFormat? memory_format=None) "
                    "-> Tensor", K.empty_kernel)
zeros_op = _factory(f"zeros(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", K.zeros_kernel)
ones_op = _factory(f"ones(SymInt[] size, {_FACTORY_TAIL}) -> Tensor", K.ones_kernel)
full_op = _factory(f"full(SymInt[] size, Scalar fill_value, {_FACTORY_TAIL}) -> Tensor", K.full_kernel)
scalar_tensor_op = _factory(f"scalar_tensor(Scalar s, {_FACTORY_TAIL}) -> Tensor", K.scalar_tensor_kernel)

empty_out_op = kernel_op("empty.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", K.empty_out_kernel)
zeros_out_op = kernel_op("zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", K.zeros_out_kernel)
ones_out_op = kernel_op("ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", K.ones_out_kernel)
full_out_op = kernel_op(
    "full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)", K.full_out_kernel)

empty_strided_op = _factory(f"empty_strided(SymInt[] size, SymInt[] stride, {_FACTORY_TAIL}) -> Tensor",
                            K.empty_strided_kernel)


def _filled(op, out_op, fn, size, *value, dtype, device, requires_grad, out):
    _check_dtype(dtype, fn)
    check_requires_grad(requires_grad, fn)
    if out is not None:
        check_out(fn, out, dtype)
        return out_op(size, *value, out=out)
    return _finish(op(size, *value, dtype=dtype, device=check_device(device)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, out=None, memory_format=None, pin_memory=False,
          layout=None, **size_keyword):
    """A tensor whose values are whatever the memory held (here: zeros, as fresh NumPy memory is zeroed)."""
    size = _size_arg(size, "empty", size_keyword)
    check_requires_grad(requires_grad, "empty")
    if out is not None:
        check_out("empty", out, dtype)
        return empty_out_op(size, out=out)
    _check_dtype(dtype, "empty")
    return _finish(empty_op(size, dtype=dtype, device=check_device(device),
                            memory_format=_format_name(memory_format)), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False, layout=None,
          **size_keyword):
    size = _size_arg(size, "zeros", size_keyword)
    if any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")   # zeros checks on its own
    return _filled(zeros_op, zeros_out_op, "zeros", size, dtype=dtype, device=device,
                   requires_grad=requires_grad, out=out)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False, layout=None,
         **size_keyword):
    return _filled(ones_op, ones_out_op, "ones", _size_arg(size, "ones", size_keyword), dtype=dtype, device=device,
                   requires_grad=requires_grad, out=out)


def _fill_value(fill_value, fn, arg="'fill_value' (position 2)"):
    if isinstance(fill_value, Tensor):
        if fill_value.dim() != 0:
            raise TypeError(f"{fn}(): argument {arg} must be Number, not Tensor")
        return fill_value.item()
    if not isinstance(fill_value, (bool, int, float, np.generic)):
        raise TypeError(f"{fn}(): argument {arg} must be Number, not {_type_name(fill_value)}")
    if isinstance(fill_value, np.bool_):
        return float(fill_value)   # PyTorch's parser reads a NumPy bool as a double
    return fill_value.item() if isinstance(fill_value, np.generic) else fill_value


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False,
         layout=None):
    if _is_index(size) or not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_type_name(size)}")
    fill_value = _fill_value(fill_value, "full")
    if dtype is None and out is None:
        dtype = _dtype.scalar_dtype(fill_value)   # PyTorch infers full's dtype from the fill value
    return _filled(full_op, full_out_op, "full", _size_arg((size,), "full"), fill_value, dtype=dtype,
                   device=device, requires_grad=requires_grad, out=out)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-d tensor holding `s`; its dtype is the default float dtype whatever `s` is."""
    check_requires_grad(requires_grad, "scalar_tensor")
    s = _fill_value(s, "scalar_tensor", "'s' (position 1)")
    return _finish(scalar_tensor_op(s, dtype=_check_dtype(dtype, "scalar_tensor") or _dtype.get_default_dtype(),
                                    device=check_device(device)), requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    size, stride = _size_arg((size,), "empty_strided"), tuple(operator.index(s) for s in stride)
    check_requires_grad(requires_grad, "empty_strided")
    return _finish(empty_strided_op(size, stride, dtype=_check_dtype(dtype, "empty_strided"),
                                    device=check_device(device)), requires_grad)


# ---- *_like -----------------------------------------------------------------------------------------------


_LIKE_TAIL = "*, ScalarType? dtype=None, Device? device=None, MemoryFormat? memory_format=None"


empty_like_op = kernel_op(f"empty_like(Tensor self, {_LIKE_TAIL}) -> Tensor", K.empty_like_kernel)
zeros_like_op = kernel_op(f"zeros_like(Tensor self, {_LIKE_TAIL}) -> Tensor", K.zeros_like_kernel)
ones_like_op = kernel_op(f"ones_like(Tensor self, {_LIKE_TAIL}) -> Tensor", K.ones_like_kernel)
full_like_op = kernel_op(f"full_like(Tensor self, Scalar fill_value, {_LIKE_TAIL}) -> Tensor", K.full_like_kernel)


def check_like_input(fn, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")


def _like(op, fn, input, *value, dtype, device, requires_grad, memory_format):
    check_like_input(fn, input)
    _check_dtype(dtype, fn)
    check_requires_grad(requires_grad, fn)
    device = None if device is None else check_device(device)
    return _finish(op(input, *value, dtype=dtype, device=device, memory_format=_format_name(memory_format)),
                   requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
               pin_memory=False):
    return _like(empty_like_op, "empty_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
               pin_memory=False):
    return _like(zeros_like_op, "zeros_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
              pin_memory=False):
    return _like(ones_like_op, "ones_like", input, dtype=dtype, device=device, requires_grad=requires_grad,
                 memory_format=memory_format)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None,
              pin_memory=False):
    return _like(full_like_op, "full_like", input, _fill_value(fill_value, "full_like"), dtype=dtype,
                 device=device, requires_grad=requires_grad, memory_format=memory_format)


def _rebuild(values, dtype_name, device, requires_grad):
    from .tensor_new import tensor
    return tensor(values, dtype=_dtype._lookup(dtype_name), device=device, requires_grad=requires_grad)


def _reduce_ex(self, protocol):
    """`pickle` and `copy` of a tensor: by value (elements, dtype, device); a view is saved as its own elements."""
    return (_rebuild, (self.tolist(), self.dtype.name, str(self.device), self.requires_grad))


Tensor.__reduce_ex__ = _reduce_ex


__all__ = ['channels_last', 'contiguous_format', 'empty', 'empty_like', 'empty_strided', 'full', 'full_like', 'memory_format', 'ones', 'ones_like', 'preserve_format', 'scalar_tensor', 'zeros', 'zeros_like']
