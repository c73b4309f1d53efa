"""Elementwise comparisons: eq, ne, lt, le, gt, ge (and their long names), and the whole-tensor tests
equal, isclose, allclose.

The six comparisons are `pointwise(...)` ops (pointwise.py) of type promotion kind ALWAYS_BOOL, each with
PyTorch's two overloads (`eq.Tensor` for `x == y`, `eq.Scalar` for `x == 1`): computed in
the promoted dtype (so `int8_tensor == 1000` compares with 1000 wrapped into int8, as PyTorch does),
returning bool. The in-place forms (`x.lt_(y)`) write 0/1 into x's own dtype. `greater`, `less_equal`, ...
are aliases (torch/_torch_docs.py "Alias for"). PyTorch's kernels: aten/src/ATen/native/BinaryOps.cpp,
cpu/BinaryOpsKernel.cpp.

`equal` answers one Python bool for two whole tensors; `isclose` (elementwise) and `allclose` are made of
other ops, as PyTorch's aten/src/ATen/native/TensorCompare.cpp makes them.
"""

from .. import _dtype
from .._dispatch_key import CompositeImplicitAutograd
from ..dispatch.dispatcher import define, impl
from ..kernels.pointwise import ALWAYS_BOOL
from ..kernels.pointwise_math import equal_kernel
from ._define import bind_method, register_kernel
from ..kernels import pointwise_math
from .binding import NUMBERS_OTHER, public_function, tensor_method
from .pointwise import alias, pointwise
from .pointwise_logical import logical_and, logical_or
from .pointwise_nan_inf import isfinite, isnan

eq = pointwise("eq.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.eq, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("eq.Scalar(Tensor self, Scalar other) -> Tensor",))
ne = pointwise("ne.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.ne, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("ne.Scalar(Tensor self, Scalar other) -> Tensor",))
lt = pointwise("lt.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.lt, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("lt.Scalar(Tensor self, Scalar other) -> Tensor",))
le = pointwise("le.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.le, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("le.Scalar(Tensor self, Scalar other) -> Tensor",))
gt = pointwise("gt.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.gt, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("gt.Scalar(Tensor self, Scalar other) -> Tensor",))
ge = pointwise("ge.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.ge, ALWAYS_BOOL,
               numbers=NUMBERS_OTHER, out_overload="Tensor_out",
               scalar_overloads=("ge.Scalar(Tensor self, Scalar other) -> Tensor",))

not_equal = alias("not_equal", "ne")
less = alias("less", "lt")
less_equal = alias("less_equal", "le")
greater = alias("greater", "gt")
greater_equal = alias("greater_equal", "ge")

# torch.equal: one Python bool, True when the sizes and every element are equal (kernels/pointwise_math.py)
equal_op = define("equal(Tensor self, Tensor other) -> bool")
register_kernel(equal_op, equal_kernel)
equal = public_function(equal_op, None, "equal", 2)
bind_method("equal", tensor_method(equal_op, "equal", 2))


def _format_double(x):
    return f"{x:g}"   # as C++ prints a double


def _isclose(ks, self, other, rtol, atol, equal_nan):
    """|self - other| <= atol + rtol * |other|, made of other ops, as PyTorch's TensorCompare.cpp does."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{self.dtype._ptname} did not match {other.dtype._ptname}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_format_double(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_format_double(atol)}")
    close = eq(self, other)
    if equal_nan and self.dtype.is_floating_point:
        close = logical_or(close, logical_and(isnan(self), isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    # integers and bools are compared in the default float dtype: a uint8 difference would wrap around, and
    # bool has no subtraction at all
    if not self.dtype.is_floating_point:
        self, other = self.to(_dtype.get_default_dtype()), other.to(_dtype.get_default_dtype())
    allowed_error = atol + (rtol * other).abs()
    actual_error = (self - other).abs()
    return logical_or(close, logical_and(isfinite(actual_error), actual_error <= allowed_error))


isclose_op = define("isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                    "-> Tensor")
impl(isclose_op, CompositeImplicitAutograd, _isclose)
isclose = public_function(isclose_op, None, "isclose", 2)
bind_method("isclose", tensor_method(isclose_op, "isclose", 2))


def _allclose(ks, self, other, rtol, atol, equal_nan):
    close = isclose_op(self, other, rtol, atol, equal_nan)
    return bool(close._data().all())         # PyTorch: isclose(...).all().item()


allclose_op = define("allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) "
                     "-> bool")
impl(allclose_op, CompositeImplicitAutograd, _allclose)
allclose = public_function(allclose_op, None, "allclose", 2)
bind_method("allclose", tensor_method(allclose_op, "allclose", 2))


__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "isclose", "allclose"]
