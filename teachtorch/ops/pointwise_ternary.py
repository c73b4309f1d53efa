"""Elementwise ops of three operands: clamp (x and its two bounds), where, lerp, addcmul, addcdiv.

Each is made by `pointwise(...)` (pointwise.py) like every elementwise op, but their public functions are
written here, because PyTorch's binding (torch/csrc/utils/python_arg_parser.cpp) accepts their operands in
combinations of its own: clamp's bounds are both numbers or both tensors (PyTorch's two overloads, clamp
and clamp.Tensor, which share one kernel here), `lerp`'s weight a number or a
tensor, `where(condition)` alone is `nonzero(condition, as_tuple=True)`. Their type promotion has rules of
their own too: `where` promotes `self` and `other` only (the condition only selects), `lerp` keeps `self`'s
dtype, clamp's bounds take part (`clamp(int_tensor, 0.5)` is float). PyTorch's kernels:
aten/src/ATen/native/TensorCompare.cpp (clamp, where), Lerp.cpp, PointwiseOps.cpp (addcmul, addcdiv).
"""

from .. import _dtype
from .._dtype import bool_, float16, uint8
from .._tensor import Tensor
from ..dispatch.dispatcher import call
from ..kernels import pointwise_math
from ..kernels.pointwise import DEFAULT, check_inplace_shape_and_dtype, check_out, promote
from ._define import bind_method, composite_op, public_name
from .factories import scalar_tensor_op
from .binding import NUMBERS_OTHER, as_operand
from .pointwise import (
    NUMBER_OVERLOADS, OPS, TYPEMETA_NAME, Checks, all_checks, checked_scalar, not_implemented_for, opmath, pointwise,
)


# ---- clamp ------------------------------------------------------------------------------------------------
# clamp(x, min, max) = minimum(maximum(x, min), max): nan stays nan, and min > max gives max everywhere.
# The bounds take part in type promotion (`clamp(int_tensor, 0.5)` is float). PyTorch has two overloads,
# Python numbers (clamp) and tensors (clamp.Tensor); the kernels accept either, so both share them.


def _clamp_check(operands):
    if operands[1] is None and operands[2] is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


def _bounds_fit(args, out_dtype, compute_dtype):
    # Python-number bounds are converted to the result dtype (TensorCompare.cpp), and must fit in it;
    # except that a nan bound makes the whole result nan, and then the other bound is never converted
    if any(isinstance(b, float) and b != b for b in args[1:]):
        return
    for bound in args[1:]:
        if bound is not None and not isinstance(bound, Tensor):
            checked_scalar(bound, out_dtype)


def _clamp_kernel_check(args, out_dtype, compute_dtype):
    """The clamp kernels with number bounds, and the one with two tensor bounds, have no bool version."""
    if out_dtype is not bool_:
        return
    self, lo, hi = args[:3]
    if _numbers_only((self, lo, hi)):
        kernel = "clamp_scalar_cpu" if lo is not None and hi is not None else (
            "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu")
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if lo is not None and hi is not None:
        raise NotImplementedError('"clamp_cpu" not implemented for \'Bool\'')


def _numbers_only(operands):
    return all(b is None or not isinstance(b, Tensor) for b in operands[1:])


def _clamp_inplace_check(self, out_dtype, shape, operands):
    if _numbers_only(operands) and not _dtype.can_cast(out_dtype, self.dtype):
        # the number overload checks the dtype itself, and prints it as C++ does (caffe2::TypeMeta)
        raise RuntimeError(f"result type {out_dtype._ptname} can't be cast to the desired output type "
                           f"{TYPEMETA_NAME[self.dtype]}")
    check_inplace_shape_and_dtype(self, out_dtype, shape)


def _clamp_out_check(out, out_dtype, shape, operands):
    if _numbers_only(operands) and out.dtype is not out_dtype:
        # a structured kernel's out= tensor must have the result dtype exactly
        raise RuntimeError(f"Found dtype {out.dtype._ptname} but expected {out_dtype._ptname}")
    check_out(out, out_dtype, shape)


def _clamp_min_kernel_check(args, out_dtype, compute_dtype):
    _clamp_kernel_check((args[0], args[1], None), out_dtype, compute_dtype)


def _clamp_max_kernel_check(args, out_dtype, compute_dtype):
    _clamp_kernel_check((args[0], None, args[1]), out_dtype, compute_dtype)


_clamp_fn = pointwise("clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", pointwise_math.clamp,
                      checks=Checks(operands=_clamp_check, late=all_checks(_bounds_fit, _clamp_kernel_check),
                                    inplace=_clamp_inplace_check, out=_clamp_out_check),
                      variants=("inplace", "out"), name="clamp", number_is_operand=False, out_overload="Tensor_out",
                      scalar_overloads=("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",))
clamp_min = pointwise("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", pointwise_math.clamp_min,
                      checks=Checks(late=all_checks(_bounds_fit, _clamp_min_kernel_check),
                                    inplace=_clamp_inplace_check, out=_clamp_out_check),
                      numbers=NUMBERS_OTHER, number_is_operand=False, out_overload="Tensor_out",
                      scalar_overloads=("clamp_min(Tensor self, Scalar min) -> Tensor",))
clamp_max = pointwise("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", pointwise_math.clamp_max,
                      checks=Checks(late=all_checks(_bounds_fit, _clamp_max_kernel_check),
                                    inplace=_clamp_inplace_check, out=_clamp_out_check),
                      numbers=NUMBERS_OTHER, number_is_operand=False, out_overload="Tensor_out",
                      scalar_overloads=("clamp_max(Tensor self, Scalar max) -> Tensor",))
_CLAMP_OVERLOADS = {False: OPS["clamp"], True: NUMBER_OVERLOADS["clamp"][(False, True, True)]}   # numbers?


def _clamp_args(name, self, min, max, method):
    """The binding's rules: bounds are both numbers or both tensors (or None)."""
    min, max = as_operand(min), as_operand(max)
    if not isinstance(self, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        got = ", ".join(("Tensor" if isinstance(x, Tensor) else type(x).__name__) for x in (self, min, max))
        if method:
            sigs = [" * (Tensor min = None, Tensor max = None)\n", " * (Number min = None, Number max = None)\n"]
            got = got.split(", ", 1)[1]
        else:
            sigs = [" * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n",
                    " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n"]
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n" + "".join(sigs))
    return (self, min, max), not isinstance(min, Tensor) and not isinstance(max, Tensor)


def clamp(input, min=None, max=None, *, out=None):
    """Limit every element to [min, max]; either bound may be None (not both), a number or a tensor."""
    args, numbers = _clamp_args("clamp", input, min, max, False)
    functional, _, out_op = _CLAMP_OVERLOADS[numbers]       # numbers: `clamp`, tensors: `clamp.Tensor`
    return call(functional, args) if out is None else call(out_op, args + (out,))


clip = clamp


def _clamp_method(which, name):
    def method(self, min=None, max=None):
        args, numbers = _clamp_args(name, self, min, max, True)
        return call(_CLAMP_OVERLOADS[numbers][which], args)
    public_name(method, name)
    return method


bind_method("clamp", _clamp_method(0, "clamp"))
bind_method("clamp_", _clamp_method(1, "clamp_"))
bind_method("clip", _clamp_method(0, "clip"))
bind_method("clip_", _clamp_method(1, "clip_"))


# ---- where, lerp, addcmul, addcdiv -----------------------------------------------------------------------


def _where_promotion(operands):
    # the result type of `self` and `other`; the condition only selects
    return promote(operands[1:], DEFAULT)


def _where_check(operands):
    condition = operands[0]
    if condition.dtype is not bool_ and condition.dtype is not uint8:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype._ptname}")


def _where_numbers_fit(args, out_dtype, compute_dtype):
    if out_dtype is float16:
        return   # PyTorch converts numbers to float16 unchecked here (they may become inf)
    for x in args[1:3]:
        if not isinstance(x, Tensor):
            checked_scalar(x, out_dtype)


def _where_out(out, out_dtype, shape, operands):
    if out.dtype is not out_dtype:
        raise RuntimeError(f"Expected out type to be {out_dtype._ptname} but got {out.dtype._ptname}")


_where_fn = pointwise("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", pointwise_math.where,
                      _where_promotion, checks=Checks(operands=_where_check, late=_where_numbers_fit, out=_where_out),
                      variants=("out",), name="where", out_overload="self_out")
_WHERE, _, _WHERE_OUT = OPS["where"]


# `where(c, x, 0.0)`: PyTorch's number overloads (TensorCompare.cpp) turn the number into a 0-d tensor
# (`wrapped_scalar_tensor`, which runs `scalar_tensor`) and call where.self. PyTorch marks that tensor a
# *wrapped number*, which promotes as the number would; teachtorch has no such mark, so the tensor gets a dtype
# that promotes the same way, also against a 0-d tensor: the other operand's own dtype when the number's kind
# (bool < int < float) is no higher than its, else the number's own (bool, int64, the default float). A number
# that does not fit the result type is refused first, as PyTorch does.

def _kind(dtype):
    return 0 if dtype is bool_ else 3 if dtype.is_complex else 2 if dtype.is_floating_point else 1


def _wrapped_number(value, like, device):
    kind = 0 if isinstance(value, bool) else 1 if isinstance(value, int) else 2
    if like is not None and kind <= _kind(like.dtype):
        dtype = like.dtype
    else:
        dtype = (bool_, _dtype.int64, _dtype.get_default_dtype())[kind]
    return scalar_tensor_op(value, dtype=dtype, device=device)


def _where_scalar_other(condition, self, other):
    _where_numbers_fit((condition, self, other), _where_promotion((condition, self, other))[0], None)
    return call(_WHERE, (condition, self, _wrapped_number(other, self, self.device)))


def _where_scalar_self(condition, self, other):
    _where_numbers_fit((condition, self, other), _where_promotion((condition, self, other))[0], None)
    return call(_WHERE, (condition, _wrapped_number(self, other, other.device), other))


def _where_scalar(condition, self, other):
    device = condition.device
    return call(_WHERE, (condition, _wrapped_number(self, None, device), _wrapped_number(other, None, device)))


_WHERE_NUMBERS = {   # which of self, other is a number -> the overload
    (False, True): composite_op("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
                                _where_scalar_other),
    (True, False): composite_op("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
                                _where_scalar_self),
    (True, True): composite_op("where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", _where_scalar),
}


def where(condition, input=None, other=None, *, out=None):
    """`input` where `condition` is true, else `other`; `where(condition)` is `nonzero(condition, as_tuple=True)`."""
    if input is None and other is None:
        from .indexing_advanced import nonzero     # (same layer; imported here: indexing imports this file)
        return nonzero(condition, as_tuple=True)
    args = (as_operand(condition), as_operand(input), as_operand(other))
    if not isinstance(args[0], Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    if out is not None:
        return call(_WHERE_OUT, args + (out,))
    if type(args[1]) is Tensor and type(args[2]) is Tensor:
        return call(_WHERE, args)
    pattern = (not isinstance(args[1], Tensor), not isinstance(args[2], Tensor))
    if pattern == (False, False) or any(isinstance(a, complex) for a in args[1:]):
        return call(_WHERE, args)
    return call(_WHERE_NUMBERS[pattern], args)


bind_method("where", lambda self, condition, other: where(condition, self, other))


def _self_dtype(operands):
    dt = operands[0].dtype
    return dt, opmath(dt)


def _lerp_check(operands):
    # LerpKernel / Lerp.cpp: `end` and a tensor `weight` must have self's dtype (a 0-dim weight may differ)
    self, end, weight = operands
    if end.dtype is not self.dtype:
        raise RuntimeError(f"expected dtype {TYPEMETA_NAME[self.dtype]} for `end` but got dtype "
                           f"{TYPEMETA_NAME[end.dtype]}")
    if isinstance(weight, Tensor) and weight.dim() > 0 and weight.dtype is not self.dtype:
        raise RuntimeError(f"expected dtype {TYPEMETA_NAME[self.dtype]} for `weight` but got dtype "
                           f"{TYPEMETA_NAME[weight.dtype]}")


def _lerp_late_check(args, out_dtype, compute_dtype):
    if not out_dtype.is_floating_point:
        kernel = "lerp_kernel_tensor" if isinstance(args[2], Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{out_dtype._ptname}\'')


_lerp_fn = pointwise("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", pointwise_math.lerp, _self_dtype,
                     checks=Checks(operands=_lerp_check, late=_lerp_late_check), variants=("inplace", "out"),
                     name="lerp", number_in_opmath=True, number_is_operand=False, out_overload="Tensor_out",
                     scalar_overloads=("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor",))
_LERP_OVERLOADS = {False: OPS["lerp"], True: NUMBER_OVERLOADS["lerp"][(False, False, True)]}   # number weight?


def _lerp_args(name, args, method):
    """The operands, and the overload they pick: `lerp.Scalar` for a number weight, else `lerp.Tensor`."""
    args = tuple(as_operand(a) for a in args)
    if not (isinstance(args[0], Tensor) and isinstance(args[1], Tensor)):
        got = ", ".join(("Tensor" if isinstance(x, Tensor) else type(x).__name__) for x in args[method:])
        first = "" if method else "Tensor input, "
        tail = "" if method else ", *, Tensor out = None"
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f" * ({first}Tensor end, Tensor weight{tail})\n * ({first}Tensor end, Number weight{tail})\n")
    return args, _LERP_OVERLOADS[not isinstance(args[2], Tensor)]


def lerp(input, end, weight, *, out=None):
    """`input + weight * (end - input)`: linear interpolation, with a number or tensor weight."""
    args, (functional, _, out_op) = _lerp_args("lerp", (input, end, weight), False)
    return call(functional, args) if out is None else call(out_op, args + (out,))


def _lerp_method(name, which):
    def method(self, end, weight):
        args, ops = _lerp_args(name, (self, end, weight), True)
        return call(ops[which], args)
    public_name(method, name)
    return method


bind_method("lerp", _lerp_method("lerp", 0))
bind_method("lerp_", _lerp_method("lerp_", 1))


def _value_fits(args, out_dtype, compute_dtype):
    checked_scalar(args[3], opmath(out_dtype))   # `value` is converted to the type the kernel computes in


def _addcdiv_check(operands):
    if not operands[1].dtype.is_floating_point and not operands[2].dtype.is_floating_point:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform "
            "a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


addcmul = pointwise("addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
                    pointwise_math.addcmul,
                    checks=Checks(late=all_checks(not_implemented_for('addcmul_cpu_out', bool_), _value_fits)))
addcdiv = pointwise("addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
                    pointwise_math.addcdiv, checks=Checks(operands=_addcdiv_check, late=_value_fits))


__all__ = ["clamp", "clip", "clamp_min", "clamp_max", "where", "lerp", "addcmul", "addcdiv"]
