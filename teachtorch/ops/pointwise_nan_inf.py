"""Elementwise tests for nan and inf: isnan, isinf, isfinite, isposinf, isneginf, signbit; and nan_to_num.

The tests are `pointwise(...)` ops (pointwise.py) of type promotion kind ALWAYS_BOOL. Integers and bools are
never nan or inf (all False, or all True for isfinite). isnan, isinf and isfinite have no out= variant in
PyTorch, and isposinf, isneginf and signbit refuse a non-bool out= tensor (aten/src/ATen/native/UnaryOps.cpp,
TensorCompare.cpp). `nan_to_num` replaces nan and the infinities with numbers, in the input's own dtype.
"""

from .._dtype import bool_
from ..backends import empty, preserve_strides
from ..dispatch.dispatcher import call
from ..kernels import pointwise_math
from ..kernels.pointwise import ALWAYS_BOOL
from ..kernels.pointwise_math import is_floating, none_like
from ._define import register_kernel
from .pointwise import OPS, pointwise

isnan = pointwise("isnan(Tensor self) -> Tensor",
                  lambda xp, a: xp.isnan(a) if is_floating(a) else none_like(xp, a), ALWAYS_BOOL,
                  inplace=False, out=False)
isinf = pointwise("isinf(Tensor self) -> Tensor",
                  lambda xp, a: xp.isinf(a) if is_floating(a) else none_like(xp, a), ALWAYS_BOOL,
                  inplace=False, out=False)
isfinite = pointwise("isfinite(Tensor self) -> Tensor",
                     lambda xp, a: xp.isfinite(a) if is_floating(a) else ~none_like(xp, a), ALWAYS_BOOL,
                     inplace=False, out=False)


def _bool_out(name):
    def out_check(out, out_dtype, shape, operands):
        if out.dtype is not bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return out_check


isposinf = pointwise("isposinf(Tensor self) -> Tensor",
                     lambda xp, a: a == xp.inf if is_floating(a) else none_like(xp, a), ALWAYS_BOOL,
                     inplace=False, out_check=_bool_out("isposinf"))
isneginf = pointwise("isneginf(Tensor self) -> Tensor",
                     lambda xp, a: a == -xp.inf if is_floating(a) else none_like(xp, a), ALWAYS_BOOL,
                     inplace=False, out_check=_bool_out("isneginf"))
# signbit: is the sign bit set? True for -0.0 and for a nan with its sign bit set
signbit = pointwise("signbit(Tensor self) -> Tensor",
                    lambda xp, a: xp.signbit(a) if is_floating(a) else xp.less(a, 0), ALWAYS_BOOL, inplace=False,
                    out_check=_bool_out("signbit"))


def _dtype_itself(operands):
    dt = operands[0].dtype
    return dt, dt


def _nan_to_num_out(out, out_dtype, shape, operands):
    if out.dtype is not out_dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {out.dtype._ptname} should be same as input: "
                           f"{out_dtype._ptname}")


nan_to_num = pointwise("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
                       pointwise_math.nan_to_num, _dtype_itself, out_check=_nan_to_num_out)
_NAN_TO_NUM, _, _NAN_TO_NUM_OUT = OPS["nan_to_num"]


def _nan_to_num_kernel(ks, self, nan, posinf, neginf):
    # UnaryOps.cpp: the result is `empty_like(self)` (laid out like self, as `clone` is), filled by the out= op
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    return call(_NAN_TO_NUM_OUT, (self, nan, posinf, neginf, out))


register_kernel(_NAN_TO_NUM, _nan_to_num_kernel)


__all__ = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "nan_to_num"]
