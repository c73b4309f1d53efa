"""Reductions: sum, mean, prod, max/min, argmax, var/std, norm, logsumexp, softmax, cumsum, all/any, median.

A reduction combines the elements along some dims into one value per remaining position: `x.sum(1)` of a
(2, 3) tensor is a (2,) tensor of row sums. `dim` may be None (every dim), an int, or a list of ints;
`keepdim=True` keeps each reduced dim with size 1, so the result still broadcasts against `x`
(`x - x.mean(1, keepdim=True)`). softmax and cumsum are not reductions in shape (the result has `x`'s shape)
but they work along one dim the same way, and live here as they do in PyTorch's ReduceOps.cpp / SoftMax.cpp.

How PyTorch does it: every op has a schema in native_functions.yaml, often several *overloads* (`sum` with no
dim, `sum.dim_IntList`, `sum.IntList_out`); the Python binding picks the overload from the arguments you
pass. The kernels (aten/src/ATen/native/ReduceOps.cpp, SoftMax.cpp, Sorting.cpp, LinearAlgebra.cpp) are in
kernels/reduction_kernels.py here (one per overload, with its dtype and out= checks) over the array code of
kernels/reduction.py. Results are always fresh and contiguous, whatever the input's strides.

`max(x, dim)` returns two tensors as a *named tuple*, `torch.return_types.max(values=..., indices=...)`:
a tuple you can unpack or index, whose fields also have names (ops/return_types.py makes those classes).
"""

import functools

from .. import _dtype, _strides
from .._tensor import Tensor
from ..dispatch.dispatcher import lookup
from ..kernels import reduction_kernels as R
from ._define import bind_method, composite_op, kernel_op, public_name
from .return_types import return_types, structseq

for _name, _fields in [("max", ("values", "indices")), ("min", ("values", "indices")),
                       ("median", ("values", "indices")), ("nanmedian", ("values", "indices")),
                       ("aminmax", ("min", "max"))]:
    structseq(_name, _fields)
    structseq(_name + "_out", _fields)


# ---- helpers ------------------------------------------------------------------------------------------------


def _dims_arg(dim, name):
    """Check a `dim` argument's type as the Python binding does (an int, a list/tuple of ints, or None).

    (PyTorch's message also gives the argument's position when it was passed positionally; these don't.)
    """
    if dim is None or isinstance(dim, (list, tuple)):
        for i, d in enumerate(dim or ()):
            if isinstance(d, bool) or not hasattr(d, "__index__"):
                raise TypeError(f"{name}(): argument 'dim' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(d).__name__}\"")
        return dim
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise TypeError(f"{name}(): argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    return dim.__index__()


def _int_arg(dim, name):
    if isinstance(dim, bool) or not hasattr(dim, "__index__"):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return dim.__index__()


# ---- sum, nansum, prod ------------------------------------------------------------------------------------


_sum = kernel_op("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", R.sum_kernel)
_sum_dim = kernel_op(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    R.sum_dim_IntList_kernel)
_sum_out = kernel_op("sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
                     "Tensor(a!) out) -> Tensor(a!)", R.sum_IntList_out_kernel)


def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum of the elements over `dim` (all of them when None). Bools and integers sum into int64."""
    dim = _dims_arg(dim, "sum")
    if out is not None:
        return _sum_out(input, dim, keepdim, dtype=dtype, out=out)
    if dim is None and not keepdim:
        return _sum(input, dtype)
    return _sum_dim(input, dim, keepdim, dtype)


_nansum = kernel_op("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                    R.nansum_kernel)
_nansum_out = kernel_op("nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
                        "Tensor(a!) out) -> Tensor(a!)", R.nansum_out_kernel)


def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Like `sum`, treating NaN as zero."""
    dim = _dims_arg(dim, "nansum")
    if out is not None:
        return _nansum_out(input, dim, keepdim, dtype=dtype, out=out)
    return _nansum(input, dim, keepdim, dtype)


_prod = kernel_op("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", R.prod_kernel)
_prod_dim = kernel_op("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                      R.prod_dim_int_kernel)
_prod_out = kernel_op("prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, "
                      "Tensor(a!) out) -> Tensor(a!)", R.prod_int_out_kernel)


def prod(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Product of the elements (over one `dim`, an int). Bools and integers multiply into int64."""
    if dim is None:
        if out is not None or keepdim:
            raise TypeError("prod() received an invalid combination of arguments")
        return _prod(input, dtype)
    dim = _int_arg(dim, "prod")
    if out is not None:
        return _prod_out(input, dim, keepdim, dtype=dtype, out=out)
    return _prod_dim(input, dim, keepdim, dtype)


# ---- mean, nanmean ----------------------------------------------------------------------------------------


_mean = kernel_op("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", R.mean_kernel)
_mean_dim = kernel_op("mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
                      R.mean_dim_kernel)
_mean_out = kernel_op("mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, "
                      "Tensor(a!) out) -> Tensor(a!)", R.mean_out_kernel)


def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the elements over `dim`. Needs a floating input (or `dtype=`): the mean of ints isn't an int."""
    dim = _dims_arg(dim, "mean")
    if out is not None:
        return _mean_out(input, dim, keepdim, dtype=dtype, out=out)
    if dim is None and not keepdim:
        return _mean(input, dtype)
    return _mean_dim(input, dim, keepdim, dtype)


def _nanmean_composite(self, dim, keepdim, dtype):
    # PyTorch's nanmean is a composite (ReduceOps.cpp): the NaN-skipping sum over the count of non-NaNs
    R.check_nanmean(self, dtype)
    count = self.isnan().logical_not_().sum(dim, keepdim)
    return _nansum(self, dim, keepdim, dtype).div(count)


_nanmean = composite_op(
    "nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _nanmean_composite)
_nanmean_out = kernel_op("nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, "
                         "Tensor(a!) out) -> Tensor(a!)", R.nanmean_out_kernel)


def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements over `dim`."""
    dim = _dims_arg(dim, "nanmean")
    if out is not None:
        return _nanmean_out(input, dim, keepdim, dtype=dtype, out=out)
    return _nanmean(input, dim, keepdim, dtype)


# ---- max, min (three forms each), amax, amin, aminmax -----------------------------------------------------


def _extreme_ops(kind):
    """The overloads of max (or min): full reduction, along a dim with indices, and elementwise with another."""
    idx_name = "max_values" if kind == "max" else "min_indices"
    full_kernel, unary_out_kernel, dim_kernel, dim_out_kernel = R.extreme_kernels(kind)

    def other(self, other):
        # PyTorch's max(a, b) is a composite: just at::maximum(a, b) (BinaryOps.cpp)
        return lookup("maximum" if kind == "max" else "minimum")(self, other)

    def other_out(self, other, out):
        return lookup("maximum.out" if kind == "max" else "minimum.out")(self, other, out=out)

    return (
        kernel_op(f"{kind}(Tensor self) -> Tensor", full_kernel),
        kernel_op(f"{kind}.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", unary_out_kernel),
        kernel_op(
            f"{kind}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", dim_kernel),
        kernel_op(
            f"{kind}.dim_{kind}(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) {kind}, Tensor(b!) {idx_name}) "
            "-> (Tensor(a!) values, Tensor(b!) indices)", dim_out_kernel),
        composite_op(f"{kind}.other(Tensor self, Tensor other) -> Tensor", other),
        composite_op(f"{kind}.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", other_out),
    )


_MAX_OPS = _extreme_ops("max")
_MIN_OPS = _extreme_ops("min")


def _extreme_function(kind, ops):
    full, unary_out, along, along_out, other_op, other_out = ops
    named, named_out = getattr(return_types, kind), getattr(return_types, kind + "_out")

    def fn(input, dim=None, keepdim=False, *, other=None, out=None):
        if isinstance(dim, Tensor):
            dim, other = None, dim
        if other is not None:                       # max(a, b): the elementwise maximum
            return other_op(input, other) if out is None else other_out(input, other, out=out)
        if dim is None:
            if keepdim:
                raise TypeError(f"{kind}() received an invalid combination of arguments - got (Tensor, keepdim=bool)")
            return full(input) if out is None else unary_out(input, out=out)
        dim = _int_arg(dim, kind)
        if out is None:
            return named(along(input, dim, keepdim))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"expected tuple of 2 elements but got {len(out) if isinstance(out, (tuple, list)) else 1}")
        return named_out(along_out(input, dim, keepdim, out[0], out[1]))

    public_name(fn, kind)
    fn.__doc__ = (f"`{kind}(x)`: the {kind}imum element (0-d). `{kind}(x, dim, keepdim=False)`: a named tuple "
                  f"(values, indices), the index of the first {kind}imum along `dim` (NaN counts as the {kind}imum). "
                  f"`{kind}(x, other)`: the elementwise {kind}imum.")
    return fn


max = _extreme_function("max", _MAX_OPS)
min = _extreme_function("min", _MIN_OPS)


def _amax_ops(kind):
    kernel, out_kernel = R.amax_kernels(kind)
    op = kernel_op(f"{kind}(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", kernel)
    out_op = kernel_op(f"{kind}.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
                       out_kernel)

    def fn(input, dim=(), keepdim=False, *, out=None):
        dim = _dims_arg(dim, kind)
        return op(input, dim, keepdim) if out is None else out_op(input, dim, keepdim, out=out)

    public_name(fn, kind)
    fn.__doc__ = f"The {kind[1:]}imum over `dim` (an int or a tuple; () means all). Values only, NaN propagates."
    return fn


amax = _amax_ops("amax")
amin = _amax_ops("amin")


_aminmax = kernel_op("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
                     R.aminmax_kernel)
_aminmax_out = kernel_op(
    "aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, Tensor(b!) max) "
    "-> (Tensor(a!) min, Tensor(b!) max)", R.aminmax_out_kernel)


def aminmax(input, *, dim=None, keepdim=False, out=None):
    """min and max together, as the named tuple (min, max)."""
    if dim is not None:
        dim = _int_arg(dim, "aminmax")
    if out is None:
        return return_types.aminmax(_aminmax(input, dim=dim, keepdim=keepdim))
    return return_types.aminmax_out(_aminmax_out(input, dim=dim, keepdim=keepdim, min=out[0], max=out[1]))


def _argext_ops(kind):
    kernel, out_kernel = R.arg_extreme_kernels(kind)
    op = kernel_op(f"{kind}(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", kernel)
    out_op = kernel_op(f"{kind}.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
                       out_kernel)

    def fn(input, dim=None, keepdim=False, *, out=None):
        if dim is not None:
            dim = _int_arg(dim, kind)
        return op(input, dim, keepdim) if out is None else out_op(input, dim, keepdim, out=out)

    public_name(fn, kind)
    fn.__doc__ = (f"Index of the first {kind[3:]}imum along `dim`; with dim=None, into the flattened input. "
                  "NaN counts as the extreme.")
    return fn


argmax = _argext_ops("argmax")
argmin = _argext_ops("argmin")


# ---- var, std, var_mean, std_mean --------------------------------------------------------------------------


def _var_ops(kind):
    """var / std, and the out= form."""
    kernel, out_kernel = R.var_std_kernels(kind)
    op = kernel_op(f"{kind}.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) "
                   "-> Tensor", kernel)
    out_op = kernel_op(f"{kind}.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                       "bool keepdim=False, Tensor(a!) out) -> Tensor(a!)", out_kernel)
    return op, out_op


def _var_mean_op(kind):
    kernel = R.var_mean_kernel(kind)
    return kernel_op(f"{kind}_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
                     "bool keepdim=False) -> (Tensor, Tensor)", kernel)


_var, _var_out = _var_ops("var")
_std, _std_out = _var_ops("std")
_var_mean = _var_mean_op("var")
_std_mean = _var_mean_op("std")


def _correction_args(name, dim, unbiased, keepdim, correction):
    """Sort out PyTorch's three signatures: (dim, unbiased, keepdim), (dim, *, correction, keepdim), (unbiased)."""
    if isinstance(dim, bool):                # var(x, True): the old `unbiased` positional form
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both correction and unbiased")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    return _dims_arg(dim, name), keepdim, correction


def _var_function(name, op, out_op):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None):
        dim, keepdim, correction = _correction_args(name, dim, unbiased, keepdim, correction)
        if out is not None:
            return out_op(input, dim, correction=correction, keepdim=keepdim, out=out)
        return op(input, dim, correction=correction, keepdim=keepdim)

    public_name(fn, name)
    return fn


var = _var_function("var", _var, _var_out)
var.__doc__ = ("Variance over `dim`: sum((x - mean)^2) / (N - correction). correction=1 (the default, or "
               "unbiased=True) is Bessel's correction; correction=0 (unbiased=False) divides by N.")
std = _var_function("std", _std, _std_out)
std.__doc__ = "Standard deviation over `dim`: the square root of `var` (same arguments)."


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) in one pass over the data, as a plain tuple."""
    dim, keepdim, correction = _correction_args("var_mean", dim, unbiased, keepdim, correction)
    return _var_mean(input, dim, correction=correction, keepdim=keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) in one pass over the data, as a plain tuple."""
    dim, keepdim, correction = _correction_args("std_mean", dim, unbiased, keepdim, correction)
    return _std_mean(input, dim, correction=correction, keepdim=keepdim)


# ---- logsumexp ----------------------------------------------------------------------------------------------


_logsumexp = kernel_op("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", R.logsumexp_kernel)
_logsumexp_out = kernel_op(
    "logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    R.logsumexp_out_kernel)


def logsumexp(input, dim, keepdim=False, *, out=None):
    """log(sum(exp(x))) over `dim`, computed without overflow by subtracting the max first."""
    dim = _dims_arg(dim, "logsumexp")
    return _logsumexp(input, dim, keepdim) if out is None else _logsumexp_out(input, dim, keepdim, out=out)


# ---- norms --------------------------------------------------------------------------------------------------


_vector_norm = kernel_op("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
                         "ScalarType? dtype=None) -> Tensor", R.linalg_vector_norm_kernel)
_vector_norm_out = kernel_op(
    "linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", R.linalg_vector_norm_out_kernel)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """`torch.linalg.vector_norm`: (sum |x|^ord)^(1/ord) over `dim`; ord may be 0, inf, -inf or any number."""
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float)) and not hasattr(ord, "__float__"):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    dim = _dims_arg(dim, "linalg_vector_norm")
    if out is not None:
        return _vector_norm_out(x, ord, dim, keepdim, dtype=dtype, out=out)
    return _vector_norm(x, ord, dim, keepdim, dtype=dtype)



def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """`torch.norm`, ported from torch/functional.py: every vector norm (and 'fro' over <= 2 dims) is
    `linalg.vector_norm`; 'nuc' and 'fro' over other dims are matrix norms (`linalg.matrix_norm`)."""
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype=dtype, out=out)
        if _dim is None:
            _dim = list(range(input.dim()))
        _matrix_norm_checks(input, p, list(_dim))
        matrix_norm = getattr(lookup_linalg(), "matrix_norm", None)
        if matrix_norm is None:
            raise NotImplementedError(f"norm(p={p!r}) needs linalg.matrix_norm, which teachtorch does not have yet")
        return matrix_norm(input, p, _dim, keepdim, dtype=dtype, out=out)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, out=out)


def _matrix_norm_checks(A, ord, dim):
    """The argument checks of linalg.matrix_norm (LinearAlgebra.cpp), in PyTorch's order."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {A.dtype._ptname}")
    if ord == "nuc" and A.dtype is _dtype.float16:
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(map(str, dim)))
    d0, d1 = (_strides.normalize_dim(d, A.dim()) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")


def lookup_linalg():
    """The linear-algebra ops module (imported when first needed: it is a sibling of this one)."""
    from . import linalg
    return linalg


# ---- softmax, log_softmax ---------------------------------------------------------------------------------


def _softmax_ops(kind):
    """`_softmax(x, dim, half_to_float)` is the kernel; `softmax.int(x, dim, dtype)` casts to `dtype` first."""
    kernel, out_kernel = R.softmax_kernels(kind)

    def int_composite(self, dim, dtype):
        # softmax.int is a composite, as in PyTorch (SoftMax.cpp): convert, then the `_softmax` kernel, which is
        # the op autograd knows the derivative of
        converted = self if dtype is None else self.to(dtype)
        return private(converted, dim, False)

    private = kernel_op(f"_{kind}(Tensor self, int dim, bool half_to_float) -> Tensor", kernel)
    # its backward is one op too (PyTorch's `_softmax_backward_data`), with a derivative of its own
    backward = kernel_op(
        f"_{kind}_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
        functools.partial(R.softmax_backward_data_kernel, kind))
    op = composite_op(f"{kind}.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", int_composite)
    out_op = kernel_op(f"{kind}.int_out(Tensor self, int dim, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)",
                       out_kernel)

    def fn(input, dim, dtype=None, *, out=None):
        dim = _int_arg(dim, kind)
        return op(input, dim, dtype) if out is None else out_op(input, dim, dtype, out=out)

    public_name(fn, kind)
    return fn, private, backward


softmax, _softmax, _softmax_backward_data = _softmax_ops("softmax")
softmax.__doc__ = "exp(x) / sum(exp(x)) along `dim`, computed as exp(x - max) / sum(exp(x - max)) to avoid overflow."
log_softmax, _log_softmax, _log_softmax_backward_data = _softmax_ops("log_softmax")
log_softmax.__doc__ = "log(softmax(x)) along `dim`, computed as (x - max) - log(sum(exp(x - max)))."


# ---- cumsum, cumprod --------------------------------------------------------------------------------------


def _cumulative_ops(kind):
    kernel, inplace_kernel, out_kernel = R.cumulative_kernels(kind)
    op = kernel_op(f"{kind}(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", kernel)
    inplace_op = kernel_op(
        f"{kind}_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)", inplace_kernel)
    out_op = kernel_op(f"{kind}.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
                       out_kernel)

    def fn(input, dim, *, dtype=None, out=None):
        dim = _int_arg(dim, kind)
        return op(input, dim, dtype=dtype) if out is None else out_op(input, dim, dtype=dtype, out=out)

    def inplace(self, dim, *, dtype=None):
        return inplace_op(self, _int_arg(dim, kind + "_"), dtype=dtype)

    public_name(fn, kind)
    public_name(inplace, kind + "_")
    return fn, inplace


cumsum, cumsum_ = _cumulative_ops("cumsum")
cumsum.__doc__ = "Running sums along `dim`: out[i] = x[0] + ... + x[i]. Bools and integers sum into int64."
cumprod, cumprod_ = _cumulative_ops("cumprod")
cumprod.__doc__ = "Running products along `dim`: out[i] = x[0] * ... * x[i]. Bools and integers into int64."


# ---- all, any, count_nonzero ------------------------------------------------------------------------------


def _logical_ops(kind):
    kernel, dims_kernel, all_out_kernel, dims_out_kernel = R.all_any_kernels(kind)
    full = kernel_op(f"{kind}(Tensor self) -> Tensor", kernel)
    dims = kernel_op(f"{kind}.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", dims_kernel)
    full_out = kernel_op(f"{kind}.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", all_out_kernel)
    dims_out = kernel_op(f"{kind}.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) "
                         "-> Tensor(a!)", dims_out_kernel)

    def fn(input, dim=None, keepdim=False, *, out=None):
        dim = _dims_arg(dim, kind)
        if dim is None and not keepdim:
            return full(input) if out is None else full_out(input, out=out)
        return dims(input, dim, keepdim) if out is None else dims_out(input, dim, keepdim, out=out)

    public_name(fn, kind)
    return fn


all = _logical_ops("all")
all.__doc__ = "True where every element over `dim` is non-zero (None: all dims; an empty list: none)."
any = _logical_ops("any")
any.__doc__ = "True where some element over `dim` is non-zero (None: all dims; an empty list: none)."


_count_nonzero = kernel_op(
    "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", R.count_nonzero_dim_IntList_kernel)
# the int? overload is a composite of the list one (None: every dim)
_count_nonzero_all = composite_op("count_nonzero(Tensor self, int? dim=None) -> Tensor",
                                  lambda self, dim: _count_nonzero(self, [] if dim is None else [dim]))


def count_nonzero(input, dim=None):
    """How many elements over `dim` are not zero (int64; no keepdim)."""
    dim = _dims_arg(dim, "count_nonzero")
    if isinstance(dim, (list, tuple)):
        return _count_nonzero(input, dim)
    return _count_nonzero_all(input, dim)


# ---- median, nanmedian --------------------------------------------------------------------------------------

def _median_ops(kind):
    full_kernel, dim_kernel, dim_out_kernel = R.median_kernels(kind)
    full = kernel_op(f"{kind}(Tensor self) -> Tensor", full_kernel)
    along = kernel_op(
        f"{kind}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", dim_kernel)
    along_out = kernel_op(f"{kind}.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
                          "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", dim_out_kernel)
    named, named_out = getattr(return_types, kind), getattr(return_types, kind + "_out")

    def fn(input, dim=None, keepdim=False, *, out=None):
        if dim is None:
            return full(input)
        dim = _int_arg(dim, kind)
        if out is None:
            return named(along(input, dim, keepdim))
        return named_out(along_out(input, dim, keepdim, values=out[0], indices=out[1]))

    public_name(fn, kind)
    return fn


median = _median_ops("median")
median.__doc__ = ("The lower median (element (n-1)//2 in sorted order). With `dim`: a named tuple (values, "
                  "indices). NaN propagates.")
nanmedian = _median_ops("nanmedian")
nanmedian.__doc__ = "Like `median`, ignoring NaNs."


# ---- NumPy's argument names, and the Tensor methods ---------------------------------------------------------


def _numpy_names(fn):
    """PyTorch's Python binding also takes NumPy's names for two arguments: `axis=` for `dim=`, `keepdims=` for
    `keepdim=` (`x.sum(axis=0, keepdims=True)`)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "axis" in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return wrapper


sum, nansum, mean, nanmean, prod = map(_numpy_names, (sum, nansum, mean, nanmean, prod))
max, min, amax, amin, aminmax, argmax, argmin = map(_numpy_names, (max, min, amax, amin, aminmax, argmax, argmin))
var, std, var_mean, std_mean, logsumexp = map(_numpy_names, (var, std, var_mean, std_mean, logsumexp))
softmax, log_softmax, cumsum, cumprod = map(_numpy_names, (softmax, log_softmax, cumsum, cumprod))
all, any, count_nonzero, median, nanmedian = map(_numpy_names, (all, any, count_nonzero, median, nanmedian))

for _f in (sum, nansum, mean, nanmean, prod, max, min, amax, amin, aminmax, argmax, argmin, var, std, logsumexp,
           softmax, log_softmax, cumsum, cumprod, all, any, count_nonzero, median, nanmedian):
    bind_method(_f.__name__, _f)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """`Tensor.norm` (torch/_tensor.py): torch.norm with dtype where torch.norm has out."""
    return norm(self, p, dim, keepdim, dtype=dtype)


bind_method("norm", _norm_method)
bind_method("cumsum_", cumsum_)
bind_method("cumprod_", cumprod_)


__all__ = ["_log_softmax_backward_data", "_softmax_backward_data", "all", "amax", "amin", "aminmax", "any",
           "argmax", "argmin", "count_nonzero", "cumprod", "cumsum", "log_softmax", "logsumexp", "max", "mean", "median", "min", "nanmean",
           "nanmedian", "nansum", "norm", "prod", "softmax", "std", "std_mean", "sum", "var",
           "var_mean"]
