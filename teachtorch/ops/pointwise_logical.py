"""Elementwise logical and bitwise ops: logical_and/or/xor/not, bitwise_and/or/xor/not, the shifts.

logical_*: is each element nonzero? The result is bool (type promotion kind ALWAYS_BOOL), whatever the
inputs. bitwise_*: the bits of integers (for bool, the same as logical); floats are refused with PyTorch's
`NotImplementedError: "bitwise_and_cpu" not implemented for 'Float'` (`not_implemented_for(...)`). Shifts
by a negative amount or past the bit width, which C leaves undefined, are defined as PyTorch defines them
(kernels/pointwise_math.py `left_shift`, `right_shift`). Each op is one `pointwise(...)` line (pointwise.py);
PyTorch's kernels are in aten/src/ATen/native/cpu/BinaryOpsKernel.cpp and UnaryOpsKernel.cpp. The Python
operators `&`, `|`, `^`, `~`, `<<`, `>>` call the bitwise ops (operators.py).
"""

from .._dtype import bool_
from ..kernels import pointwise_math, unary_math
from ..kernels.pointwise import ALWAYS_BOOL
from .binding import NUMBERS_EITHER
from ._define import define, register_kernel
from .pointwise import KERNELS, Checks, exact_out_dtype, not_implemented_for, pointwise

logical_and = pointwise("logical_and(Tensor self, Tensor other) -> Tensor", pointwise_math.logical_and, ALWAYS_BOOL)
logical_or = pointwise("logical_or(Tensor self, Tensor other) -> Tensor", pointwise_math.logical_or, ALWAYS_BOOL)
logical_xor = pointwise("logical_xor(Tensor self, Tensor other) -> Tensor", pointwise_math.logical_xor, ALWAYS_BOOL)
logical_not = pointwise("logical_not(Tensor self) -> Tensor", unary_math.logical_not, ALWAYS_BOOL)

bitwise_and = pointwise("bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.bitwise_and,
                        checks=Checks(late=not_implemented_for('bitwise_and_cpu', 'floating')),
                        numbers=NUMBERS_EITHER, out_overload="Tensor_out",
                        scalar_overloads=("bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
                                          "bitwise_and.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))
bitwise_or = pointwise("bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.bitwise_or,
                       checks=Checks(late=not_implemented_for('bitwise_or_cpu', 'floating')), numbers=NUMBERS_EITHER,
                       out_overload="Tensor_out",
                       scalar_overloads=("bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
                                         "bitwise_or.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))
bitwise_xor = pointwise("bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.bitwise_xor,
                        checks=Checks(late=not_implemented_for('bitwise_xor_cpu', 'floating')),
                        numbers=NUMBERS_EITHER, out_overload="Tensor_out",
                        scalar_overloads=("bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
                                          "bitwise_xor.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))
bitwise_not = pointwise("bitwise_not(Tensor self) -> Tensor", unary_math.bitwise_not,
                        checks=Checks(late=not_implemented_for('bitwise_not_cpu', 'floating'), out=exact_out_dtype))
bitwise_left_shift = pointwise(
    "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.left_shift,
    checks=Checks(late=not_implemented_for('lshift_cpu', bool_, 'floating')), numbers=NUMBERS_EITHER,
    out_overload="Tensor_out",
    scalar_overloads=("bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
                      "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))
bitwise_right_shift = pointwise(
    "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.right_shift,
    checks=Checks(late=not_implemented_for('rshift_cpu', bool_, 'floating')), numbers=NUMBERS_EITHER,
    out_overload="Tensor_out",
    scalar_overloads=("bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
                      "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor"))

# `x << 1` and `x >> 1` are ops of their own in PyTorch, older than bitwise_left_shift: `__lshift__.Scalar`,
# `__ilshift__.Scalar` for `x <<= 1` (operators.py). The same kernels as the shifts above.
for _shift, _kernel in (("lshift", KERNELS["bitwise_left_shift"]), ("rshift", KERNELS["bitwise_right_shift"])):
    for _overload, _other in (("Tensor", "Tensor"), ("Scalar", "Scalar")):
        register_kernel(define(f"__{_shift}__.{_overload}(Tensor self, {_other} other) -> Tensor"), _kernel.functional)
        register_kernel(define(f"__{_shift}__.{_overload}_out(Tensor self, {_other} other, *, Tensor(a!) out) "
                               "-> Tensor(a!)"), _kernel.out)
        register_kernel(define(f"__i{_shift}__.{_overload}(Tensor(a!) self, {_other} other) -> Tensor(a!)"),
                        _kernel.inplace)


__all__ = ["logical_and", "logical_or", "logical_xor", "logical_not",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]
