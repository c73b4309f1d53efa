"""The multi-tensor ops `_foreach_*`: one dispatched call for a whole list of tensors.

    torch._foreach_add_(params, grads, alpha=-0.1)      # for p, g in zip(params, grads): p.add_(g, alpha=-0.1)

Each is declared here as PyTorch declares it in `native_functions.yaml`: an overload per kind of second
argument (`.List` a list of tensors, `.Scalar` one number, `.ScalarList` one number per tensor, `.Tensor` one
tensor), a functional op returning a new list (`_foreach_add.List(Tensor[] self, ...) -> Tensor[]`) and an
in-place one returning nothing (`_foreach_add_.List(Tensor(a!)[] self, ...) -> ()`). Their kernel is
kernels/foreach.py `ForeachKernel`: PyTorch's slow path (ForeachOpsKernels.cpp), a loop of the per-tensor
op's kernel, so each tensor gets exactly what `self[i].add_(other[i], alpha=alpha)` gives it, and PyTorch's
fast route for lists of one float dtype and dense layouts (the same numbers, less work per tensor).

They are what PyTorch's optimizers call with `foreach=True` (torch/optim/adam.py `_multi_tensor_adam`), and
what teachtorch's optimizers call too (optim/*.py `_multi_tensor_*`). The Python functions below pick the
overload from the second argument, as PyTorch's binding does.
"""

from .._dispatch_key import DispatchKey
from .._tensor import Tensor
from ..dispatch.dispatcher import lookup
from ..kernels.copy import copy_kernel, zero_kernel
from ..kernels.foreach import (
    PACKED, SAME, SCALAR_TENSOR, SCALARS, TENSORS, ForeachKernel, ScalarSelfForeachKernel, vector_norm_of_one,
)
from . import (  # noqa: F401  (the per-tensor ops, defined first)
    pointwise, pointwise_binary, pointwise_division, pointwise_powers, pointwise_rounding, pointwise_ternary,
    pointwise_unary,
)
from ._define import define, public_name, register_kernel

OVERLOADS = {}    # "_foreach_add_.List" -> op


def _per_tensor(name):
    """The backend kernel of the per-tensor op `name` (the same function under CPU, CUDA and Meta)."""
    return lookup(name).kernels[DispatchKey.CPU]


def _kinds(op):
    """How each argument after `self` is spread over the list (kernels/foreach.py TENSORS, SCALARS, ...)."""
    kinds = []
    for a in op.schema.arguments[1:]:
        if a.type == "Tensor[]":
            kinds.append(TENSORS)
        elif a.type == "Scalar[]":
            kinds.append(SCALARS)
        elif a.type == "Tensor" and a.name == "scalars":
            kinds.append(PACKED)
        elif a.type == "Tensor":
            kinds.append(SCALAR_TENSOR)
        else:
            kinds.append(SAME)
    return kinds


def foreach_op(schema, per_tensor, extra=()):
    """Define one `_foreach_*` overload whose kernel loops `per_tensor` (a kernel) over the list."""
    op = define(schema)
    kernel = ForeachKernel(per_tensor, _kinds(op), extra)
    register_kernel(op, kernel.inplace if op.schema.mutable_positions else kernel.functional)
    OVERLOADS[op.schema.full_name] = op
    return op


def _inplace_schema(schema):
    """`_foreach_add.List(Tensor[] self, ...) -> Tensor[]`  ->  `_foreach_add_.List(Tensor(a!)[] self, ...) -> ()`."""
    head, rest = schema.split("(", 1)
    base, _, overload = head.partition(".")
    args = rest.rsplit("->", 1)[0].rstrip()
    args = args.replace("Tensor[] self", "Tensor(a!)[] self", 1)
    return f"{base}_{'.' + overload if overload else ''}({args} -> ()"


def foreach_pair(schema, per_tensor_name, extra=(), inplace_name=None):
    """The functional overload and its in-place twin, looping the per-tensor op `per_tensor_name` and its
    in-place twin (`add.Tensor` and `add_.Tensor`; `inplace_name` where PyTorch names it otherwise)."""
    if inplace_name is None:
        base, _, overload = per_tensor_name.partition(".")
        inplace_name = f"{base}_.{overload}" if overload else f"{base}_"
    foreach_op(schema, _per_tensor(per_tensor_name), extra)
    foreach_op(_inplace_schema(schema), _per_tensor(inplace_name), extra)


# ---- the declarations, as in native_functions.yaml ----------------------------------------------------------
# add, sub: `.Scalar` and `.ScalarList` have no alpha; the per-tensor call gets alpha=1 (`extra`)
for _name in ("add", "sub"):
    foreach_pair(f"_foreach_{_name}.List(Tensor[] self, Tensor[] other, *, Scalar alpha=1) -> Tensor[]",
                 f"{_name}.Tensor")
    foreach_pair(f"_foreach_{_name}.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", f"{_name}.Tensor", (1,))
    foreach_pair(f"_foreach_{_name}.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]", f"{_name}.Tensor",
                 (1,))
foreach_pair("_foreach_add.Tensor(Tensor[] self, Tensor other, *, Scalar alpha=1) -> Tensor[]", "add.Tensor")
for _name in ("mul", "div"):
    foreach_pair(f"_foreach_{_name}.List(Tensor[] self, Tensor[] other) -> Tensor[]", f"{_name}.Tensor")
    foreach_pair(f"_foreach_{_name}.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", f"{_name}.Tensor")
    foreach_pair(f"_foreach_{_name}.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]", f"{_name}.Tensor")
    foreach_pair(f"_foreach_{_name}.Tensor(Tensor[] self, Tensor other) -> Tensor[]", f"{_name}.Tensor")
for _name in ("addcmul", "addcdiv"):
    foreach_pair(f"_foreach_{_name}.Scalar(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Scalar value=1) "
                 "-> Tensor[]", _name)
    foreach_pair(f"_foreach_{_name}.ScalarList(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, "
                 "Scalar[] scalars) -> Tensor[]", _name)
    foreach_pair(f"_foreach_{_name}.Tensor(Tensor[] self, Tensor[] tensor1, Tensor[] tensor2, Tensor scalars) "
                 "-> Tensor[]", _name)
foreach_pair("_foreach_lerp.List(Tensor[] self, Tensor[] tensors1, Tensor[] weights) -> Tensor[]", "lerp.Tensor")
foreach_pair("_foreach_lerp.Scalar(Tensor[] self, Tensor[] tensors1, Scalar weight) -> Tensor[]", "lerp.Tensor")
foreach_pair("_foreach_lerp.ScalarList(Tensor[] self, Tensor[] tensors1, Scalar[] weight) -> Tensor[]",
             "lerp.Tensor")
# maximum's slow path is clamp_min (ForeachOpsKernels.cpp FOREACH_BINARY_OP_LIST(clamp_min) under _foreach_maximum)
foreach_pair("_foreach_maximum.List(Tensor[] self, Tensor[] other) -> Tensor[]", "clamp_min.Tensor")
foreach_pair("_foreach_maximum.Scalar(Tensor[] self, Scalar scalar) -> Tensor[]", "clamp_min.Tensor")
foreach_pair("_foreach_maximum.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]", "clamp_min.Tensor")
# pow: the per-tensor in-place ops are named pow_.Tensor and pow_.Scalar; `.ScalarAndTensor` has a number first
# (no in-place twin: there is nothing to write into)
foreach_pair("_foreach_pow.List(Tensor[] self, Tensor[] exponent) -> Tensor[]", "pow.Tensor_Tensor",
             inplace_name="pow_.Tensor")
foreach_pair("_foreach_pow.Scalar(Tensor[] self, Scalar exponent) -> Tensor[]", "pow.Tensor_Scalar",
             inplace_name="pow_.Scalar")
foreach_pair("_foreach_pow.ScalarList(Tensor[] self, Scalar[] exponent) -> Tensor[]", "pow.Tensor_Scalar",
             inplace_name="pow_.Scalar")
_pow_scalar_and_tensor = define("_foreach_pow.ScalarAndTensor(Scalar self, Tensor[] exponent) -> Tensor[]")
register_kernel(_pow_scalar_and_tensor, ScalarSelfForeachKernel(_per_tensor("pow.Scalar")).functional)
OVERLOADS[_pow_scalar_and_tensor.schema.full_name] = _pow_scalar_and_tensor
for _name in ("sqrt", "neg", "reciprocal", "abs", "sign", "exp"):
    foreach_pair(f"_foreach_{_name}(Tensor[] self) -> Tensor[]", _name)
foreach_op("_foreach_zero_(Tensor(a!)[] self) -> ()", zero_kernel)
foreach_op("_foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> ()", copy_kernel)
# _foreach_norm's slow path: linalg_vector_norm(self[i], ord, dim=None, keepdim=False, dtype=dtype)
foreach_op("_foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None) -> Tensor[]",
           vector_norm_of_one)


# ---- the Python functions: pick the overload from the second argument --------------------------------------


def _overload(other):
    """PyTorch's binding: a list of tensors is `.List`, a list of numbers `.ScalarList`, a tensor `.Tensor`."""
    if isinstance(other, (list, tuple)):
        return "List" if len(other) == 0 or isinstance(other[0], Tensor) else "ScalarList"
    return "Tensor" if isinstance(other, Tensor) else "Scalar"


def _check_list(name, self):
    if not isinstance(self, (list, tuple)) or not all(isinstance(t, Tensor) for t in self):
        raise TypeError(f"{name}(): argument 'self' (position 1) must be tuple of Tensors, not "
                        f"{type(self).__name__}")
    if len(self) == 0:       # (no tensor, so no dispatch key: PyTorch's kernel check, made before dispatch)
        raise RuntimeError("Tensor list must have at least one tensor.")


def _binary(name):
    """`_foreach_add(self, other, *, alpha=1)` and its siblings, with and without the trailing `_`."""
    def fn(self, other, *, alpha=None):
        _check_list(name, self)
        op = OVERLOADS[f"{name}.{_overload(other)}"]
        args = (self, other) if alpha is None else (self, other, alpha)
        out = op(*args)
        return self if name.endswith("_") else out
    fn.__doc__ = f"`{name}(self, other, *, alpha=1)`: one dispatched call over the list (see the module docstring)."
    return public_name(fn, name)


def _pointwise3(name):
    """`_foreach_addcmul(self, tensor1, tensor2, value=1)` (or a list or 1-d tensor of values)."""
    def fn(self, tensor1, tensor2, value=1):
        _check_list(name, self)
        kind = {"ScalarList": "ScalarList", "Tensor": "Tensor"}.get(_overload(value), "Scalar")
        out = OVERLOADS[f"{name}.{kind}"](self, tensor1, tensor2, value)
        return self if name.endswith("_") else out
    return public_name(fn, name)


def _lerp(name):
    def fn(self, tensors1, weight):
        _check_list(name, self)
        out = OVERLOADS[f"{name}.{_overload(weight)}"](self, tensors1, weight)
        return self if name.endswith("_") else out
    return public_name(fn, name)


def _unary(name):
    def fn(self):
        _check_list(name, self)
        out = OVERLOADS[name](self)
        return self if name.endswith("_") else out
    return public_name(fn, name)


_foreach_add, _foreach_add_ = _binary("_foreach_add"), _binary("_foreach_add_")
_foreach_sub, _foreach_sub_ = _binary("_foreach_sub"), _binary("_foreach_sub_")
_foreach_mul, _foreach_mul_ = _binary("_foreach_mul"), _binary("_foreach_mul_")
_foreach_div, _foreach_div_ = _binary("_foreach_div"), _binary("_foreach_div_")
_foreach_maximum, _foreach_maximum_ = _binary("_foreach_maximum"), _binary("_foreach_maximum_")
_foreach_addcmul, _foreach_addcmul_ = _pointwise3("_foreach_addcmul"), _pointwise3("_foreach_addcmul_")
_foreach_addcdiv, _foreach_addcdiv_ = _pointwise3("_foreach_addcdiv"), _pointwise3("_foreach_addcdiv_")
_foreach_lerp, _foreach_lerp_ = _lerp("_foreach_lerp"), _lerp("_foreach_lerp_")
_foreach_sqrt, _foreach_sqrt_ = _unary("_foreach_sqrt"), _unary("_foreach_sqrt_")
_foreach_neg, _foreach_neg_ = _unary("_foreach_neg"), _unary("_foreach_neg_")
_foreach_reciprocal, _foreach_reciprocal_ = _unary("_foreach_reciprocal"), _unary("_foreach_reciprocal_")
_foreach_abs, _foreach_abs_ = _unary("_foreach_abs"), _unary("_foreach_abs_")
_foreach_sign, _foreach_sign_ = _unary("_foreach_sign"), _unary("_foreach_sign_")
_foreach_exp, _foreach_exp_ = _unary("_foreach_exp"), _unary("_foreach_exp_")
_foreach_zero_ = _unary("_foreach_zero_")


def _pow(name):
    """`_foreach_pow(self, exponent)`: `self` a list (exponent a list of tensors, a number or a list of numbers),
    or, for the functional op, a number raised to each tensor of `exponent` (`.ScalarAndTensor`)."""
    def fn(self, exponent):
        if not name.endswith("_") and not isinstance(self, (list, tuple)):
            _check_list(name, exponent)
            return OVERLOADS[f"{name}.ScalarAndTensor"](self, exponent)
        _check_list(name, self)
        overload = _overload(exponent)
        if overload == "Tensor":     # PyTorch has no `_foreach_pow.Tensor`
            raise TypeError(f"{name}(): argument 'exponent' must be a number, a list of numbers or a list of "
                            "Tensors, not Tensor")
        out = OVERLOADS[f"{name}.{overload}"](self, exponent)
        return self if name.endswith("_") else out
    return public_name(fn, name)


_foreach_pow, _foreach_pow_ = _pow("_foreach_pow"), _pow("_foreach_pow_")


def _foreach_copy_(self, src, non_blocking=False):
    """`self[i].copy_(src[i])` for every i, in one dispatched call."""
    _check_list("_foreach_copy_", self)
    OVERLOADS["_foreach_copy_"](self, src, non_blocking)
    return self


def _foreach_norm(self, ord=2, dtype=None):
    """`[linalg.vector_norm(t, ord, dtype=dtype) for t in self]`, in one dispatched call."""
    _check_list("_foreach_norm", self)
    return OVERLOADS["_foreach_norm.Scalar"](self, ord, dtype)


__all__ = [
    "_foreach_add", "_foreach_add_", "_foreach_sub", "_foreach_sub_", "_foreach_mul", "_foreach_mul_",
    "_foreach_div", "_foreach_div_", "_foreach_maximum", "_foreach_maximum_", "_foreach_addcmul",
    "_foreach_addcmul_", "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_lerp", "_foreach_lerp_",
    "_foreach_sqrt", "_foreach_sqrt_", "_foreach_neg", "_foreach_neg_", "_foreach_reciprocal",
    "_foreach_reciprocal_", "_foreach_abs", "_foreach_abs_", "_foreach_sign", "_foreach_sign_", "_foreach_exp",
    "_foreach_exp_", "_foreach_pow", "_foreach_pow_", "_foreach_zero_",
    "_foreach_copy_", "_foreach_norm",
]
