"""Elementwise ops, part 1: how one is made, the checks PyTorch makes, and `+ - *`.

An elementwise (pointwise) op computes each element of its result from the elements at the same position
of its inputs, after broadcasting them to one shape. PyTorch writes each one as a *structured kernel* run by
TensorIterator (aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp, TensorIterator.cpp); here each op is one
line of schema plus one NumPy/CuPy expression, and `pointwise(...)` below turns it into:

* three operators, as PyTorch has them: `exp`, `exp_` (in-place) and `exp.out` (the `out=` variant), with
  their kernels from kernels/pointwise.py (broadcasting, type promotion, output strides, the write path);
* the public function `teachtorch.exp(input, *, out=None)` and the methods `Tensor.exp`, `Tensor.exp_`.

The public function first checks its arguments the way PyTorch's Python binding does
(torch/csrc/utils/python_arg_parser.cpp): which arguments may be Python numbers differs from op to op.
`torch.add(2, 3)` is allowed (add is on the list `should_allow_numbers_as_tensors`), `torch.pow(2, t)` and
`torch.remainder(2, t)` have a `Scalar self` overload, `torch.fmod(t, 2)` only a `Scalar other` one, and
`torch.maximum(t, 2)` has none: it raises TypeError. NumPy scalars count as Python numbers and NumPy arrays
become tensors, as in PyTorch.

The rest of the elementwise ops are in the other ops/pointwise_*.py files, one family each (division, powers,
math functions, rounding, functions of two and three tensors, comparisons, logical and bitwise ops, nan and
inf); their array code is in kernels/pointwise_math.py. The Python operators (`a + b`, `a / b`, `a == b`, ...)
are in operators.py.
"""

import numpy as np

from .._dtype import (
    ALL_DTYPES, TYPEMETA_NAMES, bool_, checked_convert, float16, float32,
)
from .._tensor import Tensor
from .._tensor import typename as _type_name
from ..dispatch.dispatcher import call
from ..dispatch.schema import check_scalar_int
from ..kernels import pointwise_math
from ..kernels.pointwise import ALWAYS_BOOL, DEFAULT, INT_TO_FLOAT, pointwise_kernels, promote  # noqa: F401
from ._define import bind_method, define, inplace_schema, out_schema, register_kernel

OPS = {}   # public name -> (functional op, in-place op or None, out op or None)
OPERANDS = {}   # public name -> (number of operands, which of them may be Python numbers)

# Which operands of an op may be Python numbers (PyTorch's overloads of the op):
NUMBERS_ANY = "any"          # add, sub, mul, div: any operand, even all (`torch.add(2, 3)` is tensor(5))
NUMBERS_EITHER = "either"    # pow, remainder, bitwise ops: `Tensor, Scalar` and `Scalar, Tensor` overloads
NUMBERS_OTHER = "other"      # fmod, eq, copysign: only the second (`Tensor, Scalar` overload)
NUMBERS_NONE = "none"        # maximum, atan2, logical_and: tensors only


def pointwise(schema, fn, kind=DEFAULT, check=None, inplace=True, name=None, late_check=None,
              inplace_check=None, out_check=None, numbers=NUMBERS_NONE, out=True, bind=True, out_overload="out",
              opmath_scalar=False, numbers_take_part=True):
    """Define an elementwise op from its functional schema and `fn(xp, *operands, *params)`.

    Returns the public function. `kind` is the type promotion kind (kernels/pointwise.py), `check` and
    `late_check`, `inplace_check` and `out_check` raise PyTorch's errors (see `pointwise_kernels`), `numbers`
    says which operands may be Python numbers, `out=False` and `inplace=False` leave out the variants PyTorch
    does not have, and `bind=False` leaves the Tensor methods to the caller (for ops whose public function
    picks one of two overloads). `opmath_scalar`: see kernels/pointwise.py `run`; `numbers_take_part=False`: a number is a parameter of the
    kernel, not an operand of its TensorIterator (kernels/pointwise.py `output_strides`).
    """
    op = define(schema)
    # operands are the leading `Tensor` arguments; what follows (alpha, rounding_mode, ...) are params
    n = 0
    for a in op.schema.arguments:
        if not a.is_tensor:
            break
        n += 1
    functional_k, inplace_k, out_k = pointwise_kernels(fn, kind, n, check, late_check, inplace_check, out_check,
                                                       opmath_scalar, numbers_take_part)
    base = op.schema.name
    functional_k.__qualname__, inplace_k.__qualname__ = f"{base}_kernel", f"{base}__kernel"
    out_k.__qualname__ = f"{base}_out_kernel"
    register_kernel(op, functional_k)
    out_op = None
    if out:
        # `div.out`; a second overload names its out variant itself (`div.out_mode`, `round.decimals_out`)
        out_op = define(out_schema(schema).replace(f"{base}.out(", f"{base}.{out_overload}(", 1))
        register_kernel(out_op, out_k)
    inplace_op = None
    if inplace:
        inplace_op = define(inplace_schema(schema))
        register_kernel(inplace_op, inplace_k)
    public = name or op.schema.name
    OPS[public] = (op, inplace_op, out_op)
    OPERANDS[public] = (n, numbers)
    if bind:
        bind_method(public, tensor_method(op, public, n, numbers))
        if inplace_op is not None:
            bind_method(public + "_", tensor_method(inplace_op, public + "_", n, numbers))
    return public_function(op, out_op, public, n, numbers)


# ---- the Python binding: which arguments may be numbers ----------------------------------------------------


def as_operand(x):
    """What PyTorch's binding makes of an argument: NumPy scalars become Python numbers, arrays tensors."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        from .tensor_new import as_tensor
        return as_tensor(x)
    if type(x) is int:
        check_scalar_int(x)
    return x


def _invalid_combination(name, args, n, numbers, method):
    """PyTorch's TypeError for a call that matches none of an op's overloads (the `Tensor, Scalar` ones)."""
    got = ", ".join(_type_name(a) for a in (args[1:n] if method else args[:n]))
    if method:
        sigs = ["(Tensor other)", "(Number other)"]
    else:
        sigs = ["(Tensor input, Tensor other, *, Tensor out = None)"]
        if numbers == NUMBERS_EITHER:
            sigs.append("(Number self, Tensor other, *, Tensor out = None)")
        sigs.append("(Tensor input, Number other, *, Tensor out = None)")
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + "".join(f" * {s}\n" for s in sigs))


def check_operands(op, name, args, n, numbers, n_positional, method=False):
    """Apply the binding's rules to the operands args[:n]; return the arguments, numbers wrapped as needed."""
    args = list(args)
    for i in range(n):
        args[i] = as_operand(args[i])
    if op.int_args and op.int_args[-1][0] >= n:   # Scalars and ints after the operands (alpha=, value=, decimals=)
        args = list(op.schema.check_int64(tuple(args), op.int_args))
    operands = args[:n]
    kinds = [isinstance(a, Tensor) for a in operands]
    if all(kinds):
        return tuple(args)
    arg_names = [a.name for a in op.schema.arguments]
    if numbers == NUMBERS_NONE or n == 1:
        i = kinds.index(False)
        arg = "input" if i == 0 and arg_names[0] == "self" and not method else arg_names[i]
        where = f" (position {i + (0 if method else 1)})" if i < n_positional else ""
        raise TypeError(f"{name}(): argument '{arg}'{where} must be Tensor, not {_type_name(operands[i])}")
    if numbers == NUMBERS_ANY:
        if not any(kinds):
            # Both numbers: the binding turns the first into a tensor (`torch.add(2, 3)` is tensor(5)).
            from .tensor_new import tensor
            args[0] = tensor(args[0])
        return tuple(args)
    if numbers == NUMBERS_EITHER and any(kinds):
        return tuple(args)
    if numbers == NUMBERS_OTHER and kinds[0]:
        return tuple(args)
    raise _invalid_combination(name.rstrip("_"), args, n, numbers, method)


def public_function(op, out_op, name, n, numbers=NUMBERS_NONE):
    """`teachtorch.<name>(...)`: check the arguments like PyTorch's binding, then dispatch."""
    schema = op.schema

    if out_op is None:
        def fn(*args, **kwargs):
            n_positional = len(args)
            if "input" in kwargs:
                kwargs["self"] = kwargs.pop("input")   # the binding calls `self` "input"
            args = check_operands(op, name, schema.bind(args, kwargs, name), n, numbers, n_positional)
            return call(op, args)
    else:
        def fn(*args, out=None, **kwargs):
            n_positional = len(args)
            if "input" in kwargs:
                kwargs["self"] = kwargs.pop("input")   # the binding calls `self` "input"
            args = check_operands(op, name, schema.bind(args, kwargs, name), n, numbers, n_positional)
            if out is None:
                return call(op, args)
            return call(out_op, args + (out,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Dispatches `{schema}`" + (f" (or `{out_op.schema}` with out=)." if out_op else ".")
    return fn


def tensor_method(op, name, n, numbers=NUMBERS_NONE):
    """`Tensor.<name>(...)`: the tensor is `self`, the other arguments are checked as for the function."""
    schema = op.schema

    def m(self, *args, **kwargs):
        n_positional = len(args) + 1
        args = check_operands(op, name, schema.bind((self,) + args, kwargs, name), n, numbers, n_positional,
                              method=True)
        return call(op, args)
    m.__name__ = m.__qualname__ = name
    m.__doc__ = f"Dispatches `{schema}`."
    return m


# ---- dtype checks PyTorch makes ------------------------------------------------------------------------------
# The names C++ gives the dtypes, which some of PyTorch's messages print: `checked_convert` names the target
# type of a Scalar conversion (c10/util/TypeCast.h), `caffe2::TypeMeta` the dtype of a tensor (its typeid).

TYPEMETA_NAME = {d: TYPEMETA_NAMES[d.name] for d in ALL_DTYPES}   # keyed by dtype, for the messages here


def opmath(dtype):
    """The type a kernel computes in: float32 for float16 (at::opmath_type), the dtype itself otherwise."""
    return float32 if dtype is float16 else dtype


def promoted_no_opmath(operands):
    """A promotion kind: the promoted dtype, computed in itself, float16 included (the op itself decides how
    float16 is computed: div with rounding, pow, nextafter)."""
    dt = promote(operands, DEFAULT)[0]
    return dt, dt


def not_implemented_for(kernel_name, *refused):
    """A late check raising what PyTorch's dtype dispatch (AT_DISPATCH_...) raises for a dtype it lacks.

    `refused` holds dtypes, or "integral" (bool and the integer types) or "floating".
    """
    def refuse(args, out_dtype, compute_dtype):
        if (out_dtype in refused or ("integral" in refused and not out_dtype.is_floating_point)
                or ("floating" in refused and out_dtype.is_floating_point)):
            raise NotImplementedError(f'"{kernel_name}" not implemented for \'{out_dtype._ptname}\'')
    return refuse


def checked_scalar(value, dtype):
    """Raise as `c10::checked_convert` does when the Python number `value` does not fit in `dtype`.

    Negative ints may go into unsigned types (they wrap around: PyTorch allows `uint8_tensor - 1`); floats
    never go into integer types out of range; infinity and nan go into any floating type.
    """
    if dtype is not bool_ and not isinstance(value, bool):
        checked_convert(value, dtype)


def exact_out_dtype(out, out_dtype, shape, operands):
    """out= of an op whose kernel has no dtype conversion: the out tensor must have the result dtype."""
    if out.dtype is not out_dtype:
        raise RuntimeError(f"Found dtype {out.dtype._ptname} but expected {out_dtype._ptname}")


def all_checks(*checks):
    """One late check running several in turn."""
    def late_check(args, out_dtype, compute_dtype):
        for c in checks:
            c(args, out_dtype, compute_dtype)
    return late_check


def _alpha_check(args, out_dtype, compute_dtype):
    """BinaryOps.cpp `alpha_check`, then the conversion of alpha to the type the kernel computes in."""
    alpha = args[2]
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    if isinstance(alpha, bool) and out_dtype is not bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not out_dtype.is_floating_point and isinstance(alpha, float):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if alpha != 1:
        # add_kernel converts alpha to the result's own type first (`alpha.to<scalar_t>()`), so 1e6 overflows
        # a float16 add even though the sum is computed in float32
        checked_scalar(alpha, out_dtype)


def _is_bool(a):
    return a.dtype is bool_ if isinstance(a, Tensor) else isinstance(a, bool)


def _sub_check(operands):
    """BinaryOps.cpp `sub_check`: `-` on bool is refused, whether one operand is bool or both are."""
    a, b = operands
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead.")


def _no_bool_neg(operands):
    if operands[0].dtype is bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead.")


# ---- arithmetic -----------------------------------------------------------------------------------------


add = pointwise("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pointwise_math.add,
                late_check=_alpha_check, numbers=NUMBERS_ANY, opmath_scalar=True)
sub = pointwise("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pointwise_math.sub,
                check=_sub_check, late_check=_alpha_check, numbers=NUMBERS_ANY, opmath_scalar=True)
mul = pointwise("mul.Tensor(Tensor self, Tensor other) -> Tensor", lambda xp, a, b: xp.multiply(a, b),
                numbers=NUMBERS_ANY, opmath_scalar=True)
neg = pointwise("neg(Tensor self) -> Tensor", lambda xp, a: xp.negative(a), check=_no_bool_neg,
                out_check=exact_out_dtype)
rsub = pointwise("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                 lambda xp, a, b, alpha: pointwise_math.sub(xp, b, a, alpha), check=_sub_check,
                 late_check=_alpha_check, inplace=False, out=False, numbers=NUMBERS_OTHER)


def alias(alias_name, name):
    """An alias (torch/_torch_docs.py "Alias for ..."): the same operators under a second name.

    Binds the alias's methods and returns its public function (their error messages use the alias's name).
    """
    op, inplace_op, out_op = OPS[name]
    n, numbers = OPERANDS[name]
    bind_method(alias_name, tensor_method(op, alias_name, n, numbers))
    if inplace_op is not None:
        bind_method(alias_name + "_", tensor_method(inplace_op, alias_name + "_", n, numbers))
    return public_function(op, out_op, alias_name, n, numbers)


subtract = alias("subtract", "sub")
multiply = alias("multiply", "mul")
negative = alias("negative", "neg")


__all__ = ['add', 'mul', 'multiply', 'neg', 'negative', 'rsub', 'sub', 'subtract']
