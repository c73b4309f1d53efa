"""Elementwise functions of two tensors: atan2, hypot, logaddexp, copysign, xlogy, nextafter, maximum,
minimum, fmax, fmin.

Each is one `pointwise(...)` line (pointwise.py), the op's function a NumPy/CuPy expression. As in PyTorch
(aten/src/ATen/native/BinaryOps.cpp, cpu/BinaryOpsKernel.cpp) they differ in their type promotion kind
(atan2, copysign and xlogy give the default float dtype for integers: INT_TO_FLOAT), in the dtypes their
kernel has (hypot, logaddexp and nextafter have no integer kernel: `not_implemented_for(...)`), in whether
a Python number may stand for a tensor (`copysign(t, 2)`, `xlogy(2, t)`; `maximum(t, 2)` is a TypeError),
and in the variants PyTorch has (no `maximum_`, no `logaddexp_`).
"""

from ..kernels import pointwise_math
from ..kernels.pointwise import INT_TO_FLOAT
from .binding import NUMBERS_EITHER, NUMBERS_OTHER
from .pointwise import Checks, alias, not_implemented_for, pointwise, promoted_no_opmath

atan2 = pointwise("atan2(Tensor self, Tensor other) -> Tensor", pointwise_math.atan2, INT_TO_FLOAT)
arctan2 = alias("arctan2", "atan2")
hypot = pointwise("hypot(Tensor self, Tensor other) -> Tensor", pointwise_math.hypot,
                  checks=Checks(late=not_implemented_for('hypot_cpu', 'integral')))
logaddexp = pointwise("logaddexp(Tensor self, Tensor other) -> Tensor", pointwise_math.logaddexp,
                      checks=Checks(late=not_implemented_for('logaddexp_cpu', 'integral')),
                      variants=("method", "out"))
logaddexp2 = pointwise("logaddexp2(Tensor self, Tensor other) -> Tensor", pointwise_math.logaddexp2,
                       checks=Checks(late=not_implemented_for('logaddexp2_cpu', 'integral')),
                       variants=("method", "out"))
copysign = pointwise("copysign.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.copysign, INT_TO_FLOAT,
                     numbers=NUMBERS_OTHER, scalar_overloads=("copysign.Scalar(Tensor self, Scalar other) -> Tensor",))
xlogy = pointwise("xlogy.Tensor(Tensor self, Tensor other) -> Tensor", pointwise_math.xlogy, INT_TO_FLOAT,
                  numbers=NUMBERS_EITHER, out_overload="OutTensor",
                  scalar_overloads=(("xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor", "OutScalar_Self"),
                                    ("xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor", "OutScalar_Other")))
nextafter = pointwise("nextafter(Tensor self, Tensor other) -> Tensor", pointwise_math.nextafter, promoted_no_opmath,
                      checks=Checks(late=not_implemented_for('nextafter_cpu', 'integral')))

# maximum and minimum propagate nan (like NumPy's); fmax and fmin ignore it unless both are nan
maximum = pointwise("maximum(Tensor self, Tensor other) -> Tensor", pointwise_math.maximum,
                    variants=("method", "out"))
minimum = pointwise("minimum(Tensor self, Tensor other) -> Tensor", pointwise_math.minimum,
                    variants=("method", "out"))
fmax = pointwise("fmax(Tensor self, Tensor other) -> Tensor", pointwise_math.fmax, variants=("method", "out"))
fmin = pointwise("fmin(Tensor self, Tensor other) -> Tensor", pointwise_math.fmin, variants=("method", "out"))


__all__ = ["atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "xlogy", "nextafter",
           "maximum", "minimum", "fmax", "fmin"]
