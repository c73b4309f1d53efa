"""Elementwise division: `/`, `//`, `%`, `div(rounding_mode=)`, `remainder`, `fmod`.

Every op here is made by `pointwise(...)` (pointwise.py): a schema plus one NumPy/CuPy function (the longer
ones in kernels/pointwise_math.py), turned into the functional, in-place and `out=` operators, the public
function and the Tensor methods. What differs from op to op is what PyTorch's kernels do around the
arithmetic (aten/src/ATen/native/BinaryOps.cpp, cpu/BinaryOpsKernel.cpp):

* `/` is true division: integers give the default float dtype (type promotion kind INT_TO_FLOAT). With
  `rounding_mode` ("trunc" rounds toward zero like C, "floor" toward -inf like Python's `//`) the result keeps
  the promoted dtype. PyTorch has both as overloads of one op (div.Tensor, div.Tensor_mode); `teachtorch.div`
  picks one.
* Integer arithmetic wraps around like C (`int8 127 + 1 == -128`), and integer division by zero raises
  `RuntimeError: ZeroDivisionError` (a float division by zero gives inf or nan).
* `remainder` (Python's `%`) takes the divisor's sign, `fmod` (C's) the dividend's.
* Which dtypes the kernel has: PyTorch compiles each CPU kernel for a list of dtypes
  (AT_DISPATCH_ALL_TYPES_AND(...) in aten/src/ATen/native/cpu/*Kernel.cpp); for the others it raises
  `NotImplementedError: "div_floor_cpu" not implemented for 'Bool'`. `not_implemented_for(...)` says the same.
"""

from .._dtype import bool_
from .._tensor import Tensor
from ..dispatch.dispatcher import call
from ..kernels import pointwise_math
from ..kernels.pointwise import INT_TO_FLOAT
from ._define import bind_method, public_name
from .binding import NUMBERS_ANY, NUMBERS_EITHER, NUMBERS_OTHER, check_operands, tensor_method
from .pointwise import OPS, Checks, not_implemented_for, pointwise, promoted_no_opmath


def _rounding_mode_check(args, out_dtype, compute_dtype):
    mode = args[2]
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    if out_dtype is bool_:
        raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')


_true_div = pointwise("div.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.div, INT_TO_FLOAT,
                      variants=("inplace", "out"), numbers=NUMBERS_ANY, number_in_opmath=True,
                      scalar_overloads=("div.Scalar(Tensor self, Scalar other) -> Tensor",))
_div_mode_fn = pointwise("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
                         pointwise_math.div_mode, promoted_no_opmath, checks=Checks(late=_rounding_mode_check),
                         variants=("inplace", "out"), numbers=NUMBERS_ANY, name="div_mode", out_overload='out_mode')
_DIV, _DIV_INPLACE, _DIV_OUT = OPS["div"]
_DIV_MODE, _DIV_MODE_INPLACE, _DIV_MODE_OUT = OPS["div_mode"]


def div(input, other, *, rounding_mode=None, out=None):
    """`input / other`, or rounded with rounding_mode="trunc" or "floor" (dispatches div.Tensor or
    div.Tensor_mode)."""
    if rounding_mode is None:
        return _true_div(input, other, out=out)
    return _div_mode_fn(input, other, rounding_mode=rounding_mode, out=out)


def _div_method(op, mode_op, name):
    def method(self, other, *, rounding_mode=None):
        if rounding_mode is None:
            return call(op, check_operands(op, name, (self, other), 2, NUMBERS_ANY, 2, method=True))
        args = check_operands(mode_op, name, (self, other, rounding_mode), 2, NUMBERS_ANY, 2, method=True)
        return call(mode_op, args)
    public_name(method, name)
    return method


def true_divide(input, other, *, out=None):
    """Alias of `div` without rounding."""
    return _true_div(input, other, out=out)


divide = div
bind_method("div", _div_method(_DIV, _DIV_MODE, "div"))
bind_method("div_", _div_method(_DIV_INPLACE, _DIV_MODE_INPLACE, "div_"))
bind_method("divide", Tensor.div)
bind_method("divide_", Tensor.div_)
bind_method("true_divide", tensor_method(_DIV, "true_divide", 2, NUMBERS_ANY))
bind_method("true_divide_", tensor_method(_DIV_INPLACE, "true_divide_", 2, NUMBERS_ANY))

floor_divide = pointwise("floor_divide(Tensor self, Tensor other) -> Tensor", pointwise_math.floor_divide,
                         promoted_no_opmath, checks=Checks(late=not_implemented_for('div_floor_cpu', bool_)),
                         numbers=NUMBERS_ANY)
remainder = pointwise("remainder.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.remainder,
                      checks=Checks(late=not_implemented_for('remainder_cpu', bool_)), numbers=NUMBERS_EITHER,
                      out_overload="Tensor_out",
                      scalar_overloads=("remainder.Scalar(Tensor self, Scalar other) -> Tensor",
                                        "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))
fmod = pointwise("fmod.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.fmod,
                 checks=Checks(late=not_implemented_for('fmod_cpu', bool_)), numbers=NUMBERS_OTHER,
                 out_overload="Tensor_out", scalar_overloads=("fmod.Scalar(Tensor self, Scalar other) -> Tensor",))


__all__ = ["div", "divide", "true_divide", "floor_divide", "remainder", "fmod"]
