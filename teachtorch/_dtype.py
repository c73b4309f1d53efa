"""dtypes and type promotion.

A dtype says how to read the bytes of a storage: how many bytes one element takes (`itemsize`) and what
they mean. PyTorch keeps this as `caffe2::TypeMeta` on the TensorImpl (c10/core/ScalarType.h lists the
scalar types); teachtorch keeps one small `dtype` object per type, each naming the NumPy dtype that the
backends compute with.

Type promotion decides the dtype of a result when the inputs differ. PyTorch's rule (c10/core/ScalarType.h
`promoteTypes`, and `at::native::result_type` in aten/src/ATen/native/TypeProperties.cpp) has two parts:

1. `promote_types(a, b)`: the smallest type that holds both, by category bool < integer < floating.
   Two integers promote like NumPy (uint8 + int8 -> int16); a float always wins over an integer, whatever
   their sizes (int64 + float16 -> float16, where NumPy would say float64).
2. `result_type(*operands)`: operands come in three priorities: tensors with dimensions, zero-dim tensors,
   and Python numbers ("wrapped numbers"). A lower priority operand only matters when its *category* is
   higher: `int8_tensor + 1000` stays int8, but `int8_tensor + 2.5` becomes the default float dtype.
"""

import math

import numpy as np


class dtype:
    """One element type. Printed as PyTorch prints it, so what you see here matches PyTorch."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_signed", "numpy", "_category", "_ptname")

    def __init__(self, name, numpy_dtype, category, ptname):
        self.name = name
        self.numpy = np.dtype(numpy_dtype)
        self.itemsize = self.numpy.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating
        self.is_floating_point = category == 2
        self.is_signed = category == 2 or (category == 1 and self.numpy.kind == "i")
        self._ptname = ptname  # the short name PyTorch's error messages use ("Float", "Long")

    @property
    def is_complex(self):
        return False

    def to_real(self):
        return self

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        # dtypes are singletons: unpickling returns the same object
        return (_lookup, (self.name,))


bool_ = dtype("bool", np.bool_, 0, "Bool")
uint8 = dtype("uint8", np.uint8, 1, "Byte")
int8 = dtype("int8", np.int8, 1, "Char")
int16 = dtype("int16", np.int16, 1, "Short")
int32 = dtype("int32", np.int32, 1, "Int")
int64 = dtype("int64", np.int64, 1, "Long")
float16 = dtype("float16", np.float16, 2, "Half")
float32 = dtype("float32", np.float32, 2, "Float")
float64 = dtype("float64", np.float64, 2, "Double")



class _DtypeWithoutTensors(dtype):
    """bfloat16: a dtype that exists (printable, comparable, hashable, `is_floating_point`, promotes as in
    PyTorch) but that no teachtorch tensor can have.

    PyTorch's bfloat16 is float32 with the low 16 bits of the mantissa dropped (8 exponent bits, 7 mantissa
    bits); its kernels convert to float32, compute, and round back. NumPy has no bfloat16 type, so every
    kernel here would need that round trip written by hand, and storing float32 "rounded to bfloat16" would
    give tensors whose itemsize, storage bytes and overflow behaviour all silently differ from PyTorch's.
    So scripts may *name* `torch.bfloat16` (autocast's CPU default, `is_bf16_supported` checks, configs), and
    the first op that would make a bfloat16 tensor raises a TypeError naming that op. Making a tensor always
    reads its dtype's `.numpy` (to compute) or `.itemsize` (to allocate), so those two raise it; reading
    `torch.bfloat16.itemsize` yourself raises it too (PyTorch says 2)."""

    __slots__ = ()

    def __init__(self, name, ptname):
        self.name, self._category, self._ptname = name, 2, ptname
        self.is_floating_point = self.is_signed = True

    def _refuse(self):
        return TypeError(f"{_public_caller()}teachtorch has no torch.{self.name} tensors: NumPy has no "
                         f"{self.name} type (see README, 'Where teachtorch knowingly differs from PyTorch'); "
                         "use torch.float32 or torch.float16")

    @property
    def numpy(self):
        raise self._refuse()

    @property
    def itemsize(self):
        raise self._refuse()


def _public_caller():
    """'zeros(): ' for the outermost teachtorch function on the stack (the op the user called), or ''."""
    import os
    import sys
    package = os.path.dirname(__file__)
    frame, name = sys._getframe(2), ""
    while frame is not None:
        if frame.f_code.co_filename.startswith(package) and not frame.f_code.co_name.startswith("_"):
            name = frame.f_code.co_name
        frame = frame.f_back
    return f"{name}(): " if name else ""


bfloat16 = _DtypeWithoutTensors("bfloat16", "BFloat16")

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy: d for d in ALL_DTYPES}


def _lookup(name):
    return bfloat16 if name == "bfloat16" else _BY_NAME[name]


def from_numpy_dtype(np_dtype):
    """The teachtorch dtype of a NumPy dtype, or TypeError as `torch.from_numpy` raises."""
    try:
        return _BY_NUMPY[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).name}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


# ---- the default dtype (torch.set_default_dtype) ----------------------------------------------------------

_default = [float32]


def get_default_dtype():
    return _default[0]


def set_default_dtype(d):
    """Make `d` the dtype of Python floats: `tensor([1.5])`, `arange(0., 1)`, `int_tensor + 1.5`, ..."""
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if d is bfloat16:
        raise bfloat16._refuse()
    _default[0] = d


# ---- promotion ---------------------------------------------------------------------------------------------


def _check_dtype_arg(fn, name, position, d):
    if not isinstance(d, dtype):
        t = type(d)
        tname = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be torch.dtype, not {tname}")


def promote_types(a, b):
    """PyTorch's `torch.promote_types`: the smallest dtype that both `a` and `b` can be cast to."""
    if a is b:
        _check_dtype_arg("promote_types", "type1", 1, a)
        return a
    _check_dtype_arg("promote_types", "type1", 1, a)
    _check_dtype_arg("promote_types", "type2", 2, b)
    if a._category != b._category:
        # A higher category always wins (bool < integer < floating), whatever the sizes.
        return a if a._category > b._category else b
    if a._category == 2:
        if bfloat16 in (a, b):
            other = b if a is bfloat16 else a
            # float16 and bfloat16 meet in float32: float16 has more mantissa bits, bfloat16 more exponent bits
            return float32 if other is float16 else other
        return a if a.itemsize > b.itemsize else b
    # Two integer types (or bool) promote exactly as NumPy does: uint8 + int8 -> int16.
    return _BY_NUMPY[np.promote_types(a.numpy, b.numpy)]


def scalar_dtype(value):
    """The dtype PyTorch gives a Python number when it wraps it: bool, int64, or the default float dtype.

    NumPy scalars are numbers here too: only their kind counts (`np.float16(1)` wraps as the default float),
    and PyTorch's argument parser reads a NumPy bool as a double.
    """
    if isinstance(value, bool):
        return bool_
    if isinstance(value, (int, np.integer)):
        return int64
    if isinstance(value, (float, np.floating, np.bool_)):
        return _default[0]
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine_categories(higher, lower):
    # c10::combine_categories: a lower-priority operand counts only if its category is higher.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """PyTorch's `torch.result_type` over tensors and Python numbers (at::native::result_type).

    Tensors are recognised by having `dtype` and `dim()`; everything else is a Python number.
    """
    dim_result = zero_result = wrapped_result = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype) and hasattr(x, "dim"):
            if x.dim() > 0:
                dim_result = d if dim_result is None else promote_types(dim_result, d)
            else:
                zero_result = d if zero_result is None else promote_types(zero_result, d)
        else:
            d = scalar_dtype(x)
            wrapped_result = d if wrapped_result is None else promote_types(wrapped_result, d)
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def can_cast(from_, to):
    """PyTorch's `torch.can_cast` (c10::canCast): may an in-place or out= result of `from_` go into `to`?

    Casting down a category is refused: floating into integer, or anything but bool into bool.
    """
    _check_dtype_arg("can_cast", "from_", 1, from_)
    _check_dtype_arg("can_cast", "to", 2, to)
    return _can_cast(from_, to)


def _can_cast(from_, to):
    """`can_cast` without the argument checks of the public function, for kernels that pass dtypes they
    took from tensors (c10::canCast itself, which TensorIterator calls, checks nothing)."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    if from_ is not bool_ and to is bool_:
        return False
    return True


# ---- numbers into a dtype: c10::checked_convert --------------------------------------------------------------

# The C++ names PyTorch's messages print: the type a Scalar is converted to (c10/util/TypeCast.h), e.g.
# "value cannot be converted to type uint8_t without overflow", and a tensor's TypeMeta name, e.g.
# "Expected out tensor to have dtype float, but got long int instead".
CONVERT_NAMES = {"bool": "bool", "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                 "int64": "int64_t", "float16": "c10::Half", "float32": "float", "float64": "double"}
TYPEMETA_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                  "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float", "float64": "double"}


def overflows(value, dtype, wrap_negative=True):
    """c10::overflows: does the Python number `value` not fit in `dtype`?

    An integer may wrap around in an *unsigned* type when it is negative (`-1` fits in uint8 as 255, as in C),
    a float may not; infinities fit any floating type, NaN fits no integer type.
    """
    if dtype is bool_:
        return False
    if dtype.is_floating_point:
        if dtype is float64 or math.isinf(value) or math.isnan(value):
            return False
        return abs(value) > float(np.finfo(dtype.numpy).max)
    info = np.iinfo(dtype.numpy)
    if isinstance(value, float):
        return math.isnan(value) or value < info.min or value > info.max
    if wrap_negative and info.min == 0 and value < 0:
        return -value > info.max
    return value < info.min or value > info.max


def checked_convert(value, dtype, name=None):
    """A number (or anything with `.item()`: a 0-dim tensor, a NumPy scalar) as a Python value of `dtype`,
    or PyTorch's overflow error (c10::checked_convert)."""
    if not isinstance(value, (bool, int, float)) and hasattr(value, "item"):
        value = value.item()
    if overflows(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {name or CONVERT_NAMES[dtype.name]} without overflow")
    if dtype is bool_:
        return bool(value)
    if dtype.is_floating_point:
        return float(value)
    value = int(value)   # floats are truncated toward zero, as a C cast does
    bits = 8 * dtype.itemsize
    value &= (1 << bits) - 1   # two's complement wrap-around
    if dtype.is_signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value
