"""The Python binding: how `teachtorch.<op>(...)` and `Tensor.<op>(...)` check their arguments, then dispatch.

PyTorch generates one binding per public function from native_functions.yaml
(tools/autograd/gen_python_functions.py, python_torch_functions.cpp) and checks the arguments with
torch/csrc/utils/python_arg_parser.cpp: each argument must match the schema's type, or the call raises
`TypeError: mm(): argument 'mat2' (position 2) must be Tensor, not int`. Which arguments may be Python
numbers differs from op to op: `torch.add(2, 3)` is allowed (add is on the list
`should_allow_numbers_as_tensors`), `torch.pow(2, t)` and `torch.remainder(2, t)` have a `Scalar self`
overload, `torch.fmod(t, 2)` only a `Scalar other` one, and `torch.maximum(t, 2)` has none. NumPy scalars count
as Python numbers and NumPy arrays become tensors, as in PyTorch.

    mm = public_function(mm_op, mm_out_op, "mm", 2)        # teachtorch.mm(input, mat2, *, out=None)
    bind_method("mm", tensor_method(mm_op, "mm", 2))        # x.mm(mat2)

An op with `Scalar` overloads (`eq.Scalar(Tensor self, Scalar other)`, `pow.Scalar(Scalar self, Tensor
exponent)`) is one public function over all of them: the parser tries the overloads in turn, and the one
whose `Scalar` arguments hold the Python numbers wins, so `x == 1` runs `eq.Scalar` and `x == y` `eq.Tensor`.
`overloads` maps which operands are numbers, `(False, True)`, to the overload to run (`number_pattern`).
"""

import numpy as np

from .._tensor import Tensor
from .._tensor import typename as _type_name
from ..dispatch.dispatcher import call
from ..dispatch.schema import check_scalar_int
from ._define import public_name

# Which operands of an op may be Python numbers (PyTorch's overloads of the op):
NUMBERS_ANY = "any"          # add, sub, mul, div: any operand, even all (`torch.add(2, 3)` is tensor(5))
NUMBERS_EITHER = "either"    # pow, remainder, bitwise ops: `Tensor, Scalar` and `Scalar, Tensor` overloads
NUMBERS_OTHER = "other"      # fmod, eq, copysign: only the second (`Tensor, Scalar` overload)
NUMBERS_NONE = "none"        # maximum, atan2, logical_and: tensors only


def as_operand(x):
    """What PyTorch's operators (`t + x`) and its `Tensor or Scalar` arguments make of `x`: NumPy scalars
    become Python numbers, NumPy arrays tensors."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        from .tensor_new import as_tensor
        return as_tensor(x)
    if type(x) is int:
        check_scalar_int(x)
    return x


def number_pattern(args, n):
    """Which of the operands args[:n] are numbers: the key of an op's `overloads` table."""
    return tuple(not isinstance(a, Tensor) for a in args[:n])


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
    # The common call first, as PyTorch's parser tries the `Tensor, Tensor` overload first: every operand
    # already a Tensor, so there is nothing to convert or refuse; only the Scalars and ints after the
    # operands (alpha=, value=) are checked. The general rules below give the same answer, more slowly.
    for i in range(n):
        if not isinstance(args[i], Tensor):
            break
    else:
        if op.int_args and op.int_args[-1][0] >= n:
            args = op.schema.check_int64(tuple(args), op.int_args)
        return tuple(args)
    given = args
    args = list(args)
    for i in range(n):
        a = args[i]
        if isinstance(a, np.generic):
            args[i] = a.item()       # a NumPy scalar is a Python number (a NumPy array is not a Tensor here)
        elif type(a) is int:
            check_scalar_int(a)
    if op.int_args and op.int_args[-1][0] >= n:   # Scalars and ints after the operands (alpha=, value=, decimals=)
        args = list(op.schema.check_int64(tuple(args), op.int_args))
    operands = args[:n]
    kinds = [isinstance(a, Tensor) for a in operands]
    # an operand that is neither a Tensor nor a number (a list, a NumPy array) is refused whatever the op
    not_a_number = [i for i, a in enumerate(operands) if not kinds[i] and not isinstance(a, (int, float, complex))]
    if not not_a_number and n > 1:        # the rules for numbers, the common ones first (`x.mul_(0.9)`)
        if numbers == NUMBERS_OTHER and kinds[0]:
            return tuple(args)
        if numbers == NUMBERS_EITHER and any(kinds):
            return tuple(args)
    arg_names = [a.name for a in op.schema.arguments]
    if numbers == NUMBERS_NONE or n == 1 or not_a_number:
        i = not_a_number[0] if not_a_number else kinds.index(False)
        arg = "input" if i == 0 and arg_names[0] == "self" and not method else arg_names[i]
        where = f" (position {i + (0 if method else 1)})" if i < n_positional else ""
        raise TypeError(f"{name}(): argument '{arg}'{where} must be Tensor, not {_type_name(given[i])}")
    if numbers == NUMBERS_ANY:
        if not any(kinds):
            # Both numbers: the binding turns the first into a tensor (`torch.add(2, 3)` is tensor(5)).
            from .tensor_new import tensor
            args[0] = tensor(args[0])
        return tuple(args)
    raise _invalid_combination(name.rstrip("_"), args, n, numbers, method)


def public_function(op, out_op, name, n, numbers=NUMBERS_NONE, doc=None, overloads=None):
    """`teachtorch.<name>(...)`: check the arguments like PyTorch's binding, then dispatch.

    `n` is the number of leading Tensor arguments (operands), `numbers` which of them may be Python numbers;
    `overloads` maps a `number_pattern` to the (op, out op) of the Scalar overload that takes those numbers.
    """
    schema = op.schema

    if out_op is None:
        def fn(*args, **kwargs):
            n_positional = len(args)
            if "input" in kwargs:
                kwargs["self"] = kwargs.pop("input")   # the binding calls `self` "input"
            args = check_operands(op, name, schema.bind(args, kwargs, name), n, numbers, n_positional)
            if overloads is not None:
                return call(overloads.get(number_pattern(args, n), (op,))[0], args)
            return call(op, args)
    else:
        def fn(*args, out=None, **kwargs):
            n_positional = len(args)
            if "input" in kwargs:
                kwargs["self"] = kwargs.pop("input")   # the binding calls `self` "input"
            args = check_operands(op, name, schema.bind(args, kwargs, name), n, numbers, n_positional)
            functional, out_variant = op, out_op
            if overloads is not None:
                functional, out_variant = overloads.get(number_pattern(args, n), (op, out_op))
            if out is None:
                return call(functional, args)
            return call(out_variant, args + (out,))
    public_name(fn, name)
    fn.__doc__ = doc or (f"Dispatches `{schema}`" + (f" (or `{out_op.schema}` with out=)." if out_op else "."))
    return fn


def tensor_method(op, name, n, numbers=NUMBERS_NONE, overloads=None):
    """`Tensor.<name>(...)`: the tensor is `self`, the other arguments are checked as for the function;
    `overloads` maps a `number_pattern` to the Scalar overload that takes those numbers."""
    schema = op.schema

    def m(self, *args, **kwargs):
        n_positional = len(args) + 1
        args = check_operands(op, name, schema.bind((self,) + args, kwargs, name), n, numbers, n_positional,
                              method=True)
        if overloads is not None:
            return call(overloads.get(number_pattern(args, n), op), args)
        return call(op, args)
    public_name(m, name)
    m.__doc__ = f"Dispatches `{schema}`."
    return m


__all__ = ["NUMBERS_ANY", "NUMBERS_EITHER", "NUMBERS_NONE", "NUMBERS_OTHER", "as_operand", "check_operands",
           "number_pattern", "public_function", "tensor_method"]
