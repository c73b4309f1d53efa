"""Elementwise math functions of one tensor: exp, log, sqrt, the trigonometric and hyperbolic functions,
sigmoid, erf, sinc.

Each is one line: `pointwise(schema, fn, INT_TO_FLOAT)` (pointwise.py) with `fn` a NumPy/CuPy expression,
which makes the functional, in-place and `out=` operators (`exp`, `exp_`, `exp.out`), the public function and
the Tensor methods. Their type promotion kind is INT_TO_FLOAT (torch/_prims_common
ELEMENTWISE_TYPE_PROMOTION_KIND): integers and bools give the default float dtype, float16 is computed in
float32. PyTorch's kernels are in aten/src/ATen/native/cpu/UnaryOpsKernel.cpp (many of them handed to a
vectorised math library); `arcsin` and the other `arc*` names are aliases (torch/_torch_docs.py "Alias for").
"""

from ..kernels import special, unary_math
from ..kernels.pointwise import INT_TO_FLOAT
from .pointwise import alias, pointwise

exp = pointwise("exp(Tensor self) -> Tensor", unary_math.exp, INT_TO_FLOAT)
exp2 = pointwise("exp2(Tensor self) -> Tensor", unary_math.exp2, INT_TO_FLOAT)
expm1 = pointwise("expm1(Tensor self) -> Tensor", unary_math.expm1, INT_TO_FLOAT)
log = pointwise("log(Tensor self) -> Tensor", unary_math.log, INT_TO_FLOAT)
log2 = pointwise("log2(Tensor self) -> Tensor", unary_math.log2, INT_TO_FLOAT)
log10 = pointwise("log10(Tensor self) -> Tensor", unary_math.log10, INT_TO_FLOAT)
log1p = pointwise("log1p(Tensor self) -> Tensor", unary_math.log1p, INT_TO_FLOAT)
sqrt = pointwise("sqrt(Tensor self) -> Tensor", unary_math.sqrt, INT_TO_FLOAT)
rsqrt = pointwise("rsqrt(Tensor self) -> Tensor", unary_math.rsqrt, INT_TO_FLOAT)
reciprocal = pointwise("reciprocal(Tensor self) -> Tensor", unary_math.reciprocal, INT_TO_FLOAT)
sin = pointwise("sin(Tensor self) -> Tensor", unary_math.sin, INT_TO_FLOAT)
cos = pointwise("cos(Tensor self) -> Tensor", unary_math.cos, INT_TO_FLOAT)
tan = pointwise("tan(Tensor self) -> Tensor", unary_math.tan, INT_TO_FLOAT)
asin = pointwise("asin(Tensor self) -> Tensor", unary_math.asin, INT_TO_FLOAT)
acos = pointwise("acos(Tensor self) -> Tensor", unary_math.acos, INT_TO_FLOAT)
atan = pointwise("atan(Tensor self) -> Tensor", unary_math.atan, INT_TO_FLOAT)
sinh = pointwise("sinh(Tensor self) -> Tensor", unary_math.sinh, INT_TO_FLOAT)
cosh = pointwise("cosh(Tensor self) -> Tensor", unary_math.cosh, INT_TO_FLOAT)
tanh = pointwise("tanh(Tensor self) -> Tensor", unary_math.tanh, INT_TO_FLOAT)
asinh = pointwise("asinh(Tensor self) -> Tensor", unary_math.asinh, INT_TO_FLOAT)
acosh = pointwise("acosh(Tensor self) -> Tensor", unary_math.acosh, INT_TO_FLOAT)
atanh = pointwise("atanh(Tensor self) -> Tensor", unary_math.atanh, INT_TO_FLOAT)
sigmoid = pointwise("sigmoid(Tensor self) -> Tensor", unary_math.sigmoid, INT_TO_FLOAT)
# fdlibm's piecewise approximation, vectorised (kernels/special.py)
erf = pointwise("erf(Tensor self) -> Tensor", special.erf, INT_TO_FLOAT)
erfc = pointwise("erfc(Tensor self) -> Tensor", special.erfc, INT_TO_FLOAT)
sinc = pointwise("sinc(Tensor self) -> Tensor", unary_math.sinc, INT_TO_FLOAT)

arcsin = alias("arcsin", "asin")
arccos = alias("arccos", "acos")
arctan = alias("arctan", "atan")
arcsinh = alias("arcsinh", "asinh")
arccosh = alias("arccosh", "acosh")
arctanh = alias("arctanh", "atanh")


__all__ = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "sigmoid", "erf", "erfc", "sinc",
    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
]
