"""Elementwise rounding, sign and kinks: floor, ceil, round, trunc, frac; abs, sign, sgn, positive; relu.

These keep the input's dtype (type promotion kind DEFAULT): an integer is already whole, so the rounding
functions copy it as it is, and `abs` / `sign` of an integer are integers. Each op is made by `pointwise(...)`
(pointwise.py); what differs from op to op is which dtypes PyTorch's kernel has (AT_DISPATCH_... in
aten/src/ATen/native/cpu/UnaryOpsKernel.cpp): `abs` and the rounding functions refuse bool with
`NotImplementedError: "abs_cpu" not implemented for 'Bool'` (`not_implemented_for(...)`), and an `out=`
tensor must have the result dtype exactly. `round` has two overloads (round, round.decimals), as in PyTorch;
`positive` (`+x`) returns x itself; `relu` and `threshold_backward` are the kink of a ReLU network.
"""

from .._dispatch_key import CompositeImplicitAutograd
from .._dtype import bool_
from ..dispatch.dispatcher import call, define, impl
from ..kernels import pointwise_math, unary_math
from ._define import bind_method, public_name
from .binding import public_function, tensor_method
from .pointwise import OPS, Checks, alias, exact_out_dtype, not_implemented_for, pointwise

abs = pointwise("abs(Tensor self) -> Tensor", unary_math.abs,
                checks=Checks(late=not_implemented_for('abs_cpu', bool_), out=exact_out_dtype))
absolute = alias("absolute", "abs")
sign = pointwise("sign(Tensor self) -> Tensor", unary_math.sign, checks=Checks(out=exact_out_dtype))
# sgn is sign for real numbers (z / |z| for complex ones)
sgn = pointwise("sgn(Tensor self) -> Tensor", unary_math.sign, checks=Checks(out=exact_out_dtype))


def _relu_check(operands):
    if operands[0].dtype is bool_:
        raise RuntimeError("Boolean inputs not supported for relu")


relu = pointwise("relu(Tensor self) -> Tensor", unary_math.relu, checks=Checks(operands=_relu_check),
                 variants=("method", "inplace"))
# relu's backward (and threshold's): one elementwise pass, `grad_output` where `self > threshold`, else 0.
# An op of its own, as in PyTorch, so the backward of a ReLU network is one kernel per layer, not three.
threshold_backward = pointwise("threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
                               pointwise_math.threshold_backward, variants=("out",))

floor = pointwise("floor(Tensor self) -> Tensor", unary_math.floor,
                  checks=Checks(late=not_implemented_for('floor_vml_cpu', bool_), out=exact_out_dtype))
ceil = pointwise("ceil(Tensor self) -> Tensor", unary_math.ceil,
                 checks=Checks(late=not_implemented_for('ceil_vml_cpu', bool_), out=exact_out_dtype))
trunc = pointwise("trunc(Tensor self) -> Tensor", unary_math.trunc,
                  checks=Checks(late=not_implemented_for('trunc_vml_cpu', bool_), out=exact_out_dtype))
fix = alias("fix", "trunc")
frac = pointwise("frac(Tensor self) -> Tensor", unary_math.frac,
                 checks=Checks(late=not_implemented_for('frac_cpu', 'integral'), out=exact_out_dtype))

# round: half to even (nearbyint), like NumPy's rint. With `decimals` it is another overload, which has no
# integer kernel at all.
_round_plain = pointwise("round(Tensor self) -> Tensor", unary_math.rint,
                         checks=Checks(late=not_implemented_for('round_vml_cpu', bool_), out=exact_out_dtype),
                         variants=("inplace", "out"))
_ROUND, _ROUND_INPLACE, _ROUND_OUT = OPS["round"]


def _round_decimals_check(args, out_dtype, compute_dtype):
    if not out_dtype.is_floating_point:
        kernel = "round_vml_cpu" if args[1] == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{out_dtype._ptname}\'')


_round_decimals_fn = pointwise("round.decimals(Tensor self, *, int decimals) -> Tensor", unary_math.round_decimals,
                               checks=Checks(late=_round_decimals_check, out=exact_out_dtype),
                               variants=("inplace", "out"), name="round_decimals", out_overload='decimals_out')
_ROUND_D, _ROUND_D_INPLACE, _ROUND_D_OUT = OPS["round_decimals"]


def round(input, *, decimals=None, out=None):
    """Round half to even; with `decimals`, to that many decimal places (dispatches round or round.decimals)."""
    if decimals is None:
        return _round_plain(input, out=out)
    return _round_decimals_fn(input, decimals=decimals, out=out)


def _round_method(op, decimals_op, name):
    def method(self, *, decimals=None):
        if decimals is None:
            return call(op, (self,))
        return call(decimals_op, (self, decimals))
    public_name(method, name)
    return method


bind_method("round", _round_method(_ROUND, _ROUND_D, "round"))
bind_method("round_", _round_method(_ROUND_INPLACE, _ROUND_D_INPLACE, "round_"))


# positive: `+x` returns x itself (a CompositeImplicitAutograd op in PyTorch: nothing is computed or copied)
positive_op = define("positive(Tensor(a) self) -> Tensor(a)")


def _positive(ks, self):
    if self.dtype is bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


impl(positive_op, CompositeImplicitAutograd, _positive)
positive = public_function(positive_op, None, "positive", 1)
bind_method("positive", tensor_method(positive_op, "positive", 1))


__all__ = ["abs", "absolute", "sign", "sgn", "relu", "floor", "ceil", "round", "trunc", "fix", "frac", "positive"]
