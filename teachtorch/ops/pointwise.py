"""Elementwise ops, part 1: how one is made, the checks PyTorch makes, and `+ - *`.

An elementwise (pointwise) op computes each element of its result from the elements at the same position
of its inputs, after broadcasting them to one shape. PyTorch writes each one as a *structured kernel* run by
TensorIterator (aten/src/ATen/native/BinaryOps.cpp, UnaryOps.cpp, TensorIterator.cpp); here each op is one
line of schema plus one NumPy/CuPy expression, and `pointwise(...)` below turns it into:

* three operators, as PyTorch has them: `exp`, `exp_` (in-place) and `exp.out` (the `out=` variant), with
  their kernels from kernels/pointwise.py (broadcasting, type promotion, output strides, the write path);
* the public function `teachtorch.exp(input, *, out=None)` and the methods `Tensor.exp`, `Tensor.exp_`;
* for an op declared with `scalar_overloads=`, the same operators for each of PyTorch's overloads that take a
  Python number (`eq.Scalar`, `eq_.Scalar`, `eq.Scalar_out`), sharing the kernels; the function and the
  methods pick the one PyTorch's binding picks (`x == 1` runs `eq.Scalar`, `x == y` `eq.Tensor`).

The public function first checks its arguments the way PyTorch's Python binding does (binding.py): which
arguments may be Python numbers differs from op to op (`torch.add(2, 3)` is allowed, `torch.maximum(t, 2)`
raises TypeError), and each declaration says so with `numbers=`.

The rest of the elementwise ops are in the other ops/pointwise_*.py files, one family each (division, powers,
math functions, rounding, functions of two and three tensors, comparisons, logical and bitwise ops, nan and
inf); their array code is in kernels/pointwise_math.py. The Python operators (`a + b`, `a / b`, `a == b`, ...)
are in operators.py.
"""

from dataclasses import dataclass
from typing import Callable

from .._dtype import (
    ALL_DTYPES, TYPEMETA_NAMES, bool_, checked_convert, float16, float32,
)
from .._tensor import Tensor
from ..kernels import pointwise_math, unary_math
from ..kernels.pointwise import (  # noqa: F401  (the promotion kinds: part of declaring an op, with `Checks`)
    ALWAYS_BOOL, DEFAULT, INT_TO_FLOAT, NO_CHECKS, Checks, PointwiseKernel, promote,
)
from ..dispatch.schema import parse_schema
from ._define import bind_method, define, inplace_schema, out_schema, register_kernel
from .binding import NUMBERS_ANY, NUMBERS_NONE, NUMBERS_OTHER, public_function, tensor_method

OPS = {}   # public name -> (functional op, in-place op or None, out op or None)
OPERANDS = {}   # public name -> (number of operands, which of them may be Python numbers)
KERNELS = {}   # public name -> its PointwiseKernel (for ops of other names sharing it: `__lshift__`)
NUMBER_OVERLOADS = {}   # public name -> {number_pattern: (functional op, in-place op or None, out op or None)}



@dataclass(frozen=True)
class Pointwise:
    """One elementwise op, declared: what its `native_functions.yaml` entry says in PyTorch, and its kernel.

        exp = pointwise("exp(Tensor self) -> Tensor", unary_math.exp, INT_TO_FLOAT)

    makes the operators `exp`, `exp_` and `exp.out` (their kernels: kernels/pointwise.py `PointwiseKernel`
    computing `unary_math.exp`), the function `teachtorch.exp(input, *, out=None)` and the methods `Tensor.exp`
    and `Tensor.exp_`. The derivative is declared one grep away, in autograd/derivatives/pointwise.py
    (`derivative("exp", ...)`), as PyTorch keeps it in derivatives.yaml.
    """

    schema: str                  # the functional overload: "add.Tensor(Tensor self, Tensor other, ...) -> Tensor"
    compute: Callable            # compute(xp, *operands, *params): the arithmetic, in kernels/
    promotion: object = DEFAULT  # type promotion kind, or a function (operands) -> (result, compute dtype)
    numbers: str = NUMBERS_NONE  # which operands the Python binding lets be numbers (NUMBERS_* above)
    checks: Checks = NO_CHECKS   # PyTorch's errors particular to this op (kernels/pointwise.py `Checks`)
    variants: tuple = ("method", "inplace", "out")   # besides the function; no "method": the caller binds them
    name: str | None = None      # the public name, when the schema's is not it (`div.Tensor_mode` is `div`)
    out_overload: str = "out"    # the out= overload's name (`div.out_mode`, `round.decimals_out`)
    number_is_operand: bool = True    # False: a number is a kernel parameter (`x ** 2`), see output_strides
    number_in_opmath: bool = False    # True: a number is not rounded to float16 first, see kernels/pointwise.py run
    kernel: type = PointwiseKernel    # PowKernel for pow's `pow.Scalar` layout
    scalar_overloads: tuple = ()      # PyTorch's overloads taking numbers: "eq.Scalar(Tensor self, Scalar other)",
                                      # or (schema, out= overload name) where it is not `<overload>_out`
    inplace_overloads: tuple = ()     # (functional, in-place) overload names that differ: ("Tensor_Tensor", "Tensor")


def pointwise(schema, compute, promotion=DEFAULT, **fields):
    """Declare an elementwise op (see `Pointwise`) and return its public function."""
    return define_pointwise(Pointwise(schema, compute, promotion, **fields))


def define_pointwise(spec):
    """Register the operators, kernels, methods and function of one declared elementwise op."""
    # operands are the leading `Tensor` arguments; what follows (alpha, rounding_mode, ...) are params
    n = 0
    for a in parse_schema(spec.schema).arguments:
        if not a.is_tensor:
            break
        n += 1
    kernel = spec.kernel(spec.compute, spec.promotion, n, spec.checks, spec.number_is_operand,
                         spec.number_in_opmath)
    op, inplace_op, out_op = _define_overload(spec, spec.schema, kernel, spec.out_overload)
    public = spec.name or op.schema.name
    OPS[public] = (op, inplace_op, out_op)
    OPERANDS[public] = (n, spec.numbers)
    KERNELS[public] = kernel
    # The Scalar overloads share the kernels: a kernel already takes a number for any operand.
    by_numbers = None
    if spec.scalar_overloads:
        by_numbers = {(False,) * n: OPS[public]}
        for schema in spec.scalar_overloads:
            schema, out_name = (schema, None) if isinstance(schema, str) else schema
            variants = _define_overload(spec, schema, kernel, out_name)
            pattern = tuple(a.type.startswith("Scalar") for a in variants[0].schema.arguments[:n])
            by_numbers[pattern] = variants
        NUMBER_OVERLOADS[public] = by_numbers
        if spec.numbers == NUMBERS_ANY:
            # add, sub, mul, div: PyTorch's parser turns a number into a tensor for them, so Python calls run
            # `add.Tensor`; their Scalar overloads are called by C++ code (backward formulas: `grad / numel`)
            by_numbers = None
    if "method" in spec.variants:
        bind_method(public, tensor_method(op, public, n, spec.numbers, _pick(by_numbers, 0)))
        if inplace_op is not None:
            bind_method(public + "_", tensor_method(inplace_op, public + "_", n, spec.numbers, _pick(by_numbers, 1)))
    return public_function(op, out_op, public, n, spec.numbers, overloads=_pick(by_numbers, (0, 2)))


def _define_overload(spec, schema, kernel, out_overload=None):
    """One overload's operators: functional, in-place (when `self` is a Tensor) and out=, with their kernels."""
    op = define(schema)
    register_kernel(op, kernel.functional)
    overload = op.schema.overload
    out_op = None
    if "out" in spec.variants:
        # `div.out`, `eq.Scalar_out`; PyTorch names each overload's out variant (`div.out_mode`, `pow.Scalar_out`)
        base = op.schema.name
        out_overload = out_overload or (f"{overload}_out" if overload else "out")
        out_op = define(out_schema(schema).replace(f"{base}.out(", f"{base}.{out_overload}(", 1))
        register_kernel(out_op, kernel.out)
    inplace_op = None
    if "inplace" in spec.variants and not op.schema.arguments[0].type.startswith("Scalar"):
        text = inplace_schema(schema)
        renamed = dict(spec.inplace_overloads).get(overload)
        if renamed is not None:   # pow.Tensor_Tensor -> pow_.Tensor, as native_functions.yaml names it
            text = text.replace(f"_.{overload}(", f"_.{renamed}(", 1)
        inplace_op = define(text)
        register_kernel(inplace_op, kernel.inplace)
    return op, inplace_op, out_op


def _pick(by_numbers, which):
    """The binding's table for the functional (0), in-place (1) or (functional, out=) (0, 2) operators."""
    if by_numbers is None:
        return None
    if isinstance(which, tuple):
        return {k: tuple(v[i] for i in which) for k, v in by_numbers.items()}
    return {k: v[which] for k, v in by_numbers.items() if v[which] is not None}


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
                checks=Checks(late=_alpha_check), numbers=NUMBERS_ANY, number_in_opmath=True,
                scalar_overloads=("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",))
sub = pointwise("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pointwise_math.sub,
                checks=Checks(operands=_sub_check, late=_alpha_check), numbers=NUMBERS_ANY, number_in_opmath=True,
                scalar_overloads=("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",))
mul = pointwise("mul.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.mul, numbers=NUMBERS_ANY,
                number_in_opmath=True, scalar_overloads=("mul.Scalar(Tensor self, Scalar other) -> Tensor",))
neg = pointwise("neg(Tensor self) -> Tensor", unary_math.neg,
                checks=Checks(operands=_no_bool_neg, out=exact_out_dtype))
# `2 - x` is rsub(x, 2): rsub.Scalar
rsub = pointwise("rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pointwise_math.rsub,
                 checks=Checks(operands=_sub_check, late=_alpha_check), variants=("method",), numbers=NUMBERS_OTHER,
                 scalar_overloads=("rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",))


def alias(alias_name, name):
    """An alias (torch/_torch_docs.py "Alias for ..."): the same operators under a second name.

    Binds the alias's methods and returns its public function (their error messages use the alias's name).
    """
    op, inplace_op, out_op = OPS[name]
    n, numbers = OPERANDS[name]
    by_numbers = NUMBER_OVERLOADS.get(name) if numbers != NUMBERS_ANY else None
    bind_method(alias_name, tensor_method(op, alias_name, n, numbers, _pick(by_numbers, 0)))
    if inplace_op is not None:
        bind_method(alias_name + "_", tensor_method(inplace_op, alias_name + "_", n, numbers, _pick(by_numbers, 1)))
    return public_function(op, out_op, alias_name, n, numbers, overloads=_pick(by_numbers, (0, 2)))


subtract = alias("subtract", "sub")
multiply = alias("multiply", "mul")
negative = alias("negative", "neg")


__all__ = ['add', 'mul', 'multiply', 'neg', 'negative', 'rsub', 'sub', 'subtract']
