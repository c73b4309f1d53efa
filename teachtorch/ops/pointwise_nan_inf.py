"""Elementwise tests for nan and inf: isnan, isinf, isfinite, isposinf, isneginf, signbit; and nan_to_num.

The tests are `pointwise(...)` ops (pointwise.py) of type promotion kind ALWAYS_BOOL. Integers and bools are
never nan or inf (all False, or all True for isfinite). isnan, isinf and isfinite have no out= variant in
PyTorch, and isposinf, isneginf and signbit refuse a non-bool out= tensor (aten/src/ATen/native/UnaryOps.cpp,
TensorCompare.cpp). `nan_to_num` replaces nan and the infinities with numbers, in the input's own dtype.
"""

from .._dtype import bool_
from ..backends import empty, preserve_strides
from ..dispatch.dispatcher import call
from ..kernels import unary_math
from ..kernels.pointwise import ALWAYS_BOOL
from ._define import register_kernel
from .pointwise import Checks, OPS, pointwise

isnan = pointwise("isnan(Tensor self) -> Tensor", unary_math.isnan, ALWAYS_BOOL, variants=("method",))
isinf = pointwise("isinf(Tensor self) -> Tensor", unary_math.isinf, ALWAYS_BOOL, variants=("method",))
isfinite = pointwise("isfinite(Tensor self) -> Tensor", unary_math.isfinite, ALWAYS_BOOL, variants=("method",))


def _bool_out(name):
    def out_check(out, out_dtype, shape, operands):
        if out.dtype is not bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return out_check


isposinf = pointwise("isposinf(Tensor self) -> Tensor", unary_math.isposinf, ALWAYS_BOOL,
                     checks=Checks(out=_bool_out('isposinf')), variants=("method", "out"))
isneginf = pointwise("isneginf(Tensor self) -> Tensor", unary_math.isneginf, ALWAYS_BOOL,
                     checks=Checks(out=_bool_out('isneginf')), variants=("method", "out"))
# signbit: is the sign bit set? True for -0.0 and for a nan with its sign bit set
signbit = pointwise("signbit(Tensor self) -> Tensor", unary_math.signbit, ALWAYS_BOOL,
                    checks=Checks(out=_bool_out('signbit')), variants=("method", "out"))


def _dtype_itself(operands):
    dt = operands[0].dtype
    return dt, dt


def _nan_to_num_out(out, out_dtype, shape, operands):
    if out.dtype is not out_dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {out.dtype._ptname} should be same as input: "
                           f"{out_dtype._ptname}")


nan_to_num = pointwise("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
                       unary_math.nan_to_num, _dtype_itself, checks=Checks(out=_nan_to_num_out))
_NAN_TO_NUM, _, _NAN_TO_NUM_OUT = OPS["nan_to_num"]


def _nan_to_num_kernel(ks, self, nan, posinf, neginf):
    # UnaryOps.cpp: the result is `empty_like(self)` (laid out like self, as `clone` is), filled by the out= op
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    return call(_NAN_TO_NUM_OUT, (self, nan, posinf, neginf, out))


register_kernel(_NAN_TO_NUM, _nan_to_num_kernel)


__all__ = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "nan_to_num"]
