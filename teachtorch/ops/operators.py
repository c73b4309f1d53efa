"""The Python operators: what `a + b` calls.

`a + b` calls `Tensor.__add__(a, b)`, `2 + a` calls `a.__radd__(2)` (the reflected form, operands swapped
back), `a += b` calls `a.__iadd__(b)` (the augmented form: the in-place op, which returns `a` itself). PyTorch
defines them in torch/_tensor.py and torch/csrc/autograd/python_variable_methods.cpp; each calls an op, and
here each goes straight to the dispatcher with normalised arguments (the hot path: no argument parsing).

Like PyTorch's, an operator given something that is neither a tensor nor a number returns NotImplemented, so
Python raises its usual TypeError ("unsupported operand type(s) for +"). Two reflected ones are written
differently in PyTorch, and so here: `n / x` is `x.reciprocal() * n`, and `n - x` is `rsub`. The ops
themselves are in the ops/pointwise*.py files; `@` is in linalg.py, `[]` in indexing.py.
"""

import numpy as np

from .._tensor import Tensor
from ..dispatch.dispatcher import call, lookup
from ..dispatch.schema import check_scalar_int
from . import pointwise_comparisons, pointwise_division, pointwise_logical, pointwise_powers  # noqa: F401  (their ops)
from . import pointwise_unary  # noqa: F401  (reciprocal)
from .binding import as_operand
from .pointwise import NUMBER_OVERLOADS, OPS
from .pointwise_rounding import positive_op

_NUMBER_TYPES = (Tensor, int, float, bool)


def operand_or_none(other, arrays=False):
    """`other` as an operand of a Python operator, or None when the operator should return NotImplemented.

    A NumPy array is refused, as PyTorch's operators refuse it: Python then asks the array, so `t + ndarray`
    is computed by NumPy (through `Tensor.__array__`, with NumPy's promotion: float32 + int32 is float64) and
    wrapped back into a tensor (`Tensor.__array_wrap__`), while `ndarray + t` is a TypeError. `==` is the
    exception (`arrays=True`): PyTorch compares with the array as a tensor.
    """
    if type(other) in _NUMBER_TYPES or isinstance(other, (Tensor, int, float)):
        return check_scalar_int(other) if type(other) is int else other
    if isinstance(other, (np.generic, np.ndarray) if arrays else np.generic) and other.dtype.kind in "biuf":
        return as_operand(other)
    return None


def binary_operator(op, *params, reflected=False, arrays=False, scalar=None):
    """`Tensor.__add__` (or `__radd__` when `reflected`) for the functional or in-place `op`; `scalar`: the
    overload PyTorch runs when `other` is a number (`x == 1` is `eq.Scalar`); `arrays`: see `operand_or_none`."""
    scalar = scalar or op
    if reflected:
        def dunder(self, other):
            if type(other) is Tensor:
                return call(op, (other, self) + params)
            other = operand_or_none(other, arrays)
            if other is None:
                return NotImplemented
            return call(op if isinstance(other, Tensor) else scalar, (other, self) + params)
    else:
        def dunder(self, other):
            if type(other) is Tensor:       # the common case, tensor op tensor, needs no conversion
                return call(op, (self, other) + params)
            other = operand_or_none(other, arrays)
            if other is None:
                return NotImplemented
            return call(op if isinstance(other, Tensor) else scalar, (self, other) + params)
    return dunder


def _overload(name, pattern, which=0):
    """The functional (0) or in-place (1) op of `name`'s overload for numbers at `pattern` (pointwise.py)."""
    return NUMBER_OVERLOADS[name][pattern][which]


_OTHER, _SELF = (False, True), (True, False)     # which operand is the number


# ---- arithmetic: + - * / // % ** ---------------------------------------------------------------------------

Tensor.__add__ = binary_operator(OPS["add"][0], 1)
Tensor.__radd__ = binary_operator(OPS["add"][0], 1)      # `2 + t` is t.add(2), as in PyTorch
Tensor.__iadd__ = binary_operator(OPS["add"][1], 1)
Tensor.__sub__ = binary_operator(OPS["sub"][0], 1)
Tensor.__rsub__ = binary_operator(OPS["rsub"][0], 1, scalar=_overload("rsub", _OTHER))   # `2 - t`: rsub.Scalar
Tensor.__isub__ = binary_operator(OPS["sub"][1], 1)
Tensor.__mul__ = binary_operator(OPS["mul"][0])
Tensor.__rmul__ = binary_operator(OPS["mul"][0])
Tensor.__imul__ = binary_operator(OPS["mul"][1])
Tensor.__neg__ = lambda self: call(OPS["neg"][0], (self,))

_RECIPROCAL = OPS["reciprocal"][0]
_MUL = OPS["mul"][0]


def _rtruediv(self, other):
    """`n / t`: PyTorch's `t.reciprocal() * n` (torch/_tensor.py __rdiv__)."""
    if isinstance(other, np.ndarray):      # PyTorch's `self.reciprocal() * other`: NumPy then multiplies
        return call(_RECIPROCAL, (self,)) * other
    other = operand_or_none(other)
    if other is None:
        return NotImplemented
    return call(_MUL, (call(_RECIPROCAL, (self,)), other))


Tensor.__truediv__ = binary_operator(OPS["div"][0])
Tensor.__rtruediv__ = _rtruediv
Tensor.__itruediv__ = binary_operator(OPS["div"][1])
Tensor.__div__, Tensor.__rdiv__, Tensor.__idiv__ = Tensor.__truediv__, Tensor.__rtruediv__, Tensor.__itruediv__
Tensor.__floordiv__ = binary_operator(OPS["floor_divide"][0])
Tensor.__rfloordiv__ = binary_operator(OPS["floor_divide"][0], reflected=True)
Tensor.__ifloordiv__ = binary_operator(OPS["floor_divide"][1])
Tensor.__mod__ = binary_operator(OPS["remainder"][0], scalar=_overload("remainder", _OTHER))
Tensor.__rmod__ = binary_operator(OPS["remainder"][0], reflected=True, scalar=_overload("remainder", _SELF))
Tensor.__imod__ = binary_operator(OPS["remainder"][1], scalar=_overload("remainder", _OTHER, 1))
Tensor.__pow__ = binary_operator(OPS["pow"][0], scalar=_overload("pow", _OTHER))
Tensor.__rpow__ = binary_operator(OPS["pow"][0], reflected=True, scalar=_overload("pow", _SELF))
Tensor.__ipow__ = binary_operator(OPS["pow"][1], scalar=_overload("pow", _OTHER, 1))

# ---- bits: & | ^ << >> ~ ------------------------------------------------------------------------------------

# `2 & t` is bitwise_and(t, 2) (python_variable_methods.cpp) and `1 << t` bitwise_left_shift(1, t); `t << 1` is
# an op of its own, older than bitwise_left_shift: `__lshift__.Scalar` (`__ilshift__.Scalar` for `t <<= 1`)
Tensor.__and__ = binary_operator(OPS["bitwise_and"][0], scalar=_overload("bitwise_and", _OTHER))
Tensor.__rand__ = binary_operator(OPS["bitwise_and"][0], scalar=_overload("bitwise_and", _OTHER))
Tensor.__iand__ = binary_operator(OPS["bitwise_and"][1], scalar=_overload("bitwise_and", _OTHER, 1))
Tensor.__or__ = binary_operator(OPS["bitwise_or"][0], scalar=_overload("bitwise_or", _OTHER))
Tensor.__ror__ = binary_operator(OPS["bitwise_or"][0], scalar=_overload("bitwise_or", _OTHER))
Tensor.__ior__ = binary_operator(OPS["bitwise_or"][1], scalar=_overload("bitwise_or", _OTHER, 1))
Tensor.__xor__ = binary_operator(OPS["bitwise_xor"][0], scalar=_overload("bitwise_xor", _OTHER))
Tensor.__rxor__ = binary_operator(OPS["bitwise_xor"][0], scalar=_overload("bitwise_xor", _OTHER))
Tensor.__ixor__ = binary_operator(OPS["bitwise_xor"][1], scalar=_overload("bitwise_xor", _OTHER, 1))
Tensor.__lshift__ = binary_operator(lookup("__lshift__.Tensor"), scalar=lookup("__lshift__.Scalar"))
Tensor.__rlshift__ = binary_operator(OPS["bitwise_left_shift"][0], reflected=True,
                                     scalar=_overload("bitwise_left_shift", _SELF))
Tensor.__ilshift__ = binary_operator(lookup("__ilshift__.Tensor"), scalar=lookup("__ilshift__.Scalar"))
Tensor.__rshift__ = binary_operator(lookup("__rshift__.Tensor"), scalar=lookup("__rshift__.Scalar"))
Tensor.__rrshift__ = binary_operator(OPS["bitwise_right_shift"][0], reflected=True,
                                     scalar=_overload("bitwise_right_shift", _SELF))
Tensor.__irshift__ = binary_operator(lookup("__irshift__.Tensor"), scalar=lookup("__irshift__.Scalar"))

_BITWISE_NOT = OPS["bitwise_not"][0]


def _invert(self):
    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return call(_BITWISE_NOT, (self,))


Tensor.__invert__ = _invert

# ---- comparisons: == != < <= > >= --------------------------------------------------------------------------
# (with a NumPy array, PyTorch's `==` compares as tensors; its `!=` ends in Python's identity test, a bool)

Tensor.__eq__ = binary_operator(OPS["eq"][0], arrays=True, scalar=_overload("eq", _OTHER))
Tensor.__ne__ = binary_operator(OPS["ne"][0], scalar=_overload("ne", _OTHER))
Tensor.__lt__ = binary_operator(OPS["lt"][0], scalar=_overload("lt", _OTHER))
Tensor.__le__ = binary_operator(OPS["le"][0], scalar=_overload("le", _OTHER))
Tensor.__gt__ = binary_operator(OPS["gt"][0], scalar=_overload("gt", _OTHER))
Tensor.__ge__ = binary_operator(OPS["ge"][0], scalar=_overload("ge", _OTHER))

# ---- one operand: +t, abs(t) (and -t, ~t above) -----------------------------------------------------------

Tensor.__pos__ = lambda self: call(positive_op, (self,))
Tensor.__abs__ = lambda self: call(OPS["abs"][0], (self,))
