"""Elementwise ops: arithmetic, math functions, comparisons, logical ops, and the Python operators.

Each op is one line of schema plus one NumPy/CuPy expression. `pointwise(...)` defines the three operators
PyTorch has for it (`exp`, `exp_`, `exp.out`), registers the kernels from kernels/pointwise.py, and returns
the public function; methods are bound at the bottom of this file.
"""

from .. import _dtype
from .._tensor import Tensor
from ..dispatch.dispatcher import call
from ..kernels.pointwise import ALWAYS_BOOL, DEFAULT, INT_TO_FLOAT, pointwise_kernels
from ._define import bind_method, define, function, inplace_schema, method, out_schema, register_kernel

OPS = {}   # public name -> (functional op, in-place op or None, out op)


def pointwise(schema, fn, kind=DEFAULT, check=None, inplace=True, name=None):
    """Define an elementwise op from its functional schema and `fn(xp, *operands, *params)`."""
    op = define(schema)
    # operands are the leading `Tensor` arguments; what follows (alpha, rounding_mode, ...) are params
    n = 0
    for a in op.schema.arguments:
        if not a.is_tensor:
            break
        n += 1
    functional_k, inplace_k, out_k = pointwise_kernels(fn, kind, n, check)
    base = op.schema.name
    functional_k.__qualname__, inplace_k.__qualname__ = f"{base}_kernel", f"{base}__kernel"
    out_k.__qualname__ = f"{base}_out_kernel"
    register_kernel(op, functional_k)
    out_op = define(out_schema(schema))
    register_kernel(out_op, out_k)
    inplace_op = None
    if inplace:
        inplace_op = define(inplace_schema(schema))
        register_kernel(inplace_op, inplace_k)
    public = name or op.schema.name
    OPS[public] = (op, inplace_op, out_op)
    bind_method(public, method(op, public))
    if inplace_op is not None:
        bind_method(public + "_", method(inplace_op, public + "_"))
    return function(op, out_op, public)


# ---- dtype checks PyTorch makes before computing ------------------------------------------------------------


def _no_bool_sub(operands):
    if all(getattr(a, "dtype", None) is _dtype.bool_ or isinstance(a, bool) for a in operands):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead.")


def _no_bool_neg(operands):
    if operands[0].dtype is _dtype.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead.")


# ---- arithmetic -----------------------------------------------------------------------------------------


def _add(xp, a, b, alpha):
    return xp.add(a, b) if alpha == 1 else xp.add(a, xp.multiply(b, alpha, dtype=xp.result_type(b)))


def _sub(xp, a, b, alpha):
    return xp.subtract(a, b) if alpha == 1 else xp.subtract(a, xp.multiply(b, alpha, dtype=xp.result_type(b)))


add = pointwise("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", _add)
sub = pointwise("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", _sub, check=_no_bool_sub)
subtract = sub
mul = pointwise("mul.Tensor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.multiply(a, b))
multiply = mul
neg = pointwise("neg(Tensor self) -> Tensor", lambda xp, a: xp.negative(a), check=_no_bool_neg)
negative = neg
rsub = pointwise("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                 lambda xp, a, b, alpha: _sub(xp, b, a, alpha), check=_no_bool_sub, inplace=False)


# ---- Python operators ---------------------------------------------------------------------------------------
# Written out for the hottest ones: `a + b` goes straight to the dispatcher with normalised arguments.

_add_op = OPS["add"][0]
_sub_op = OPS["sub"][0]
_mul_op = OPS["mul"][0]
_add_inplace, _sub_inplace, _mul_inplace = OPS["add"][1], OPS["sub"][1], OPS["mul"][1]


def _binary(op, swap=False):
    if swap:
        def dunder(self, other):
            return call(op, (other, self)) if op.nargs == 2 else call(op, (other, self, 1))
    else:
        def dunder(self, other):
            return call(op, (self, other)) if op.nargs == 2 else call(op, (self, other, 1))
    return dunder


Tensor.__add__ = Tensor.__radd__ = lambda self, other: call(_add_op, (self, other, 1))
Tensor.__iadd__ = lambda self, other: call(_add_inplace, (self, other, 1))
Tensor.__sub__ = lambda self, other: call(_sub_op, (self, other, 1))
Tensor.__rsub__ = lambda self, other: call(OPS["rsub"][0], (self, other, 1))
Tensor.__isub__ = lambda self, other: call(_sub_inplace, (self, other, 1))
Tensor.__mul__ = Tensor.__rmul__ = lambda self, other: call(_mul_op, (self, other))
Tensor.__imul__ = lambda self, other: call(_mul_inplace, (self, other))
Tensor.__neg__ = lambda self: call(OPS["neg"][0], (self,))
Tensor.__pos__ = lambda self: self


__all__ = ['add', 'mul', 'multiply', 'neg', 'negative', 'rsub', 'sub', 'subtract']
