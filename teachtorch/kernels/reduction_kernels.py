"""The registered kernels of the reductions: one per overload, named as the dispatch trace shows it.

ops/reductions.py defines each op from its schema and registers the kernel of this file under CPU, CUDA
and Meta. A kernel does PyTorch's two steps (kernels/reduction.py says more): the meta step's checks of
`dtype=` and `out=` (ReduceOps.cpp's `TORCH_META_FUNC`s, SoftMax.cpp, Sorting.cpp), then the array code of
kernels/reduction.py, whose result it wraps (`finish`) or writes into `out` (`write_outs`, the write path).
Ops that come in pairs (max and min, var and std, cumsum and cumprod) share kernels that take the op's name
first, bound with `functools.partial` once per op (`extreme_kernels("max")`): a trace shows
`max_min_dim_kernel('max')`.
"""

from functools import partial

from .. import _dtype
from .._strides import normalize_dim
from . import reduction as K


def out_dtype(out, dtype):
    """Reductions that take `dtype=`: with `out=`, dtype must match out's; without it, out's dtype is used."""
    if dtype is not None:
        K.check_out_dtype(out, dtype)
        return dtype
    return out.dtype


def finish(array, dtype, shape, self):
    return K.result(array, dtype, shape, self.device)


# ---- sum, nansum, prod -----------------------------------------------------------------------------------------


def sum_kernel(ks, self, dtype):
    array, dt, shape = K.sum_like(self, None, False, K.sum_dtype(self.dtype, dtype))
    return finish(array, dt, shape, self)


def sum_dim_IntList_kernel(ks, self, dim, keepdim, dtype):
    array, dt, shape = K.sum_like(self, dim, keepdim, K.sum_dtype(self.dtype, dtype))
    return finish(array, dt, shape, self)


def sum_IntList_out_kernel(ks, self, dim, keepdim, dtype, out):
    array, dt, shape = K.sum_like(self, dim, keepdim, out_dtype(out, dtype))
    K.write_outs([(out, array)], shape)
    return out


def nansum_kind(self):
    # integers have no NaN: PyTorch's nansum simply calls sum for them
    return "nansum" if self.dtype.is_floating_point else "sum"


def nansum_kernel(ks, self, dim, keepdim, dtype):
    array, dt, shape = K.sum_like(self, dim, keepdim, K.sum_dtype(self.dtype, dtype), kind=nansum_kind(self))
    return finish(array, dt, shape, self)


def check_nansum_out(self, out, dtype):
    """nansum's own out= rules (ReduceOps.cpp nansum_out)."""
    if not self.dtype.is_floating_point:
        return out_dtype(out, dtype)          # integers go through sum
    if dtype is not None:
        if out.dtype is not dtype:
            raise RuntimeError(f"nansum: provided dtype must match dtype of result. Got {out.dtype._ptname} and "
                               f"{dtype._ptname}.")
        return dtype
    if not out.dtype.is_floating_point:        # no dtype=: the NaN-skipping kernel runs in out's dtype
        raise K.not_implemented("nansum_cpu", out.dtype)
    return out.dtype


def nansum_out_kernel(ks, self, dim, keepdim, dtype, out):
    dt = check_nansum_out(self, out, dtype)
    array, dt, shape = K.sum_like(self, dim, keepdim, dt, kind=nansum_kind(self))
    K.write_outs([(out, array)], shape)
    return out


def prod_kernel(ks, self, dtype):
    array, dt, shape = K.sum_like(self, None, False, K.sum_dtype(self.dtype, dtype), kind="prod")
    return finish(array, dt, shape, self)


def prod_dim_int_kernel(ks, self, dim, keepdim, dtype):
    array, dt, shape = K.sum_like(self, dim, keepdim, K.sum_dtype(self.dtype, dtype), kind="prod")
    return finish(array, dt, shape, self)


def prod_int_out_kernel(ks, self, dim, keepdim, dtype, out):
    array, dt, shape = K.sum_like(self, dim, keepdim, out_dtype(out, dtype), kind="prod")
    K.write_outs([(out, array)], shape)
    return out


# ---- mean, nanmean ---------------------------------------------------------------------------------------------


def mean_dtype(self, dtype, name="mean"):
    """mean() needs a floating result: it can't infer one from an integer input (ReduceOps.cpp mean meta)."""
    d = dtype if dtype is not None else self.dtype
    if not d.is_floating_point:
        what, got = ("Optional", dtype) if dtype is not None else ("Input", self.dtype)
        raise RuntimeError(f"{name}(): could not infer output dtype. {what} dtype must be either a floating point or "
                           f"complex dtype. Got: {got._ptname}")
    return d


def mean_kernel(ks, self, dtype):
    array, dt, shape = K.sum_like(self, None, False, mean_dtype(self, dtype), kind="mean")
    return finish(array, dt, shape, self)


def mean_dim_kernel(ks, self, dim, keepdim, dtype):
    array, dt, shape = K.sum_like(self, dim, keepdim, mean_dtype(self, dtype), kind="mean")
    return finish(array, dt, shape, self)


def mean_out_kernel(ks, self, dim, keepdim, dtype, out):
    mean_dtype(self, dtype)
    dt = out_dtype(out, dtype)
    # PyTorch sums into out, then divides it in place: a float quotient can't go into an integer out
    K.check_out_castable(out, self.dtype if dtype is None else dtype)
    array, dt, shape = K.sum_like(self, dim, keepdim, dt, kind="mean")
    K.write_outs([(out, array)], shape)
    return out


def check_nanmean(self, dtype):
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {self.dtype._ptname}")
    return mean_dtype(self, dtype, "nanmean")


def nanmean_out_kernel(ks, self, dim, keepdim, dtype, out):
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "nanmean(): integral types and 'Bool' are not supported for nanmean, even for empty tensors.")
    check_nanmean(self, dtype)
    dt = check_nansum_out(self, out, dtype)     # PyTorch: nansum_out(out, ...).div_(count of non-NaNs)
    array, dt, shape = K.sum_like(self, dim, keepdim, dt, kind="nanmean")
    K.write_outs([(out, array)], shape)
    return out


# ---- max, min, amax, amin, aminmax, argmax, argmin -------------------------------------------------------------


def max_min_full_kernel(kind, ks, self):
    K.check_full_nonempty(self, kind)
    array, shape = K.extreme(self, None, False, "amax" if kind == "max" else "amin")
    return finish(array, self.dtype, shape, self)


def max_min_unary_out_kernel(kind, ks, self, out):
    K.check_full_nonempty(self, kind)
    if not _dtype.can_cast(self.dtype, out.dtype):
        raise RuntimeError(
            "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) to be true, "
            "but got false.  (Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)")
    array, shape = K.extreme(self, None, False, "amax" if kind == "max" else "amin")
    K.write_outs([(out, array)], shape)
    return out


def max_min_dim_kernel(kind, ks, self, dim, keepdim):
    values, indices, shape = K.extreme_with_index(self, dim, keepdim, kind)
    return (finish(values, self.dtype, shape, self), finish(indices, _dtype.int64, shape, self))


def max_min_dim_out_kernel(kind, ks, self, dim, keepdim, values_out, indices_out):
    K.check_out_dtype(values_out, self.dtype)
    K.check_out_dtype(indices_out, _dtype.int64)
    values, indices, shape = K.extreme_with_index(self, dim, keepdim, kind)
    K.write_outs([(values_out, values), (indices_out, indices)], shape)
    return values_out, indices_out


def extreme_kernels(kind):
    """The kernels of max (or min): the full reduction (and its out=), along a dim with indices (and its out=)."""
    return (partial(max_min_full_kernel, kind),
            partial(max_min_unary_out_kernel, kind),
            partial(max_min_dim_kernel, kind),
            partial(max_min_dim_out_kernel, kind))


def amax_amin_kernel(kind, ks, self, dim, keepdim):
    array, shape = K.extreme(self, dim, keepdim, kind)
    return finish(array, self.dtype, shape, self)


def amax_amin_out_kernel(kind, ks, self, dim, keepdim, out):
    if out.dtype is not self.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {self.dtype._ptname} for "
                           f"input's dtype and {out.dtype._ptname} for out's dtype.")
    array, shape = K.extreme(self, dim, keepdim, kind)
    K.write_outs([(out, array)], shape)
    return out


def amax_kernels(kind):
    """amax (or amin) and its out=: values only, over any dims."""
    return partial(amax_amin_kernel, kind), partial(amax_amin_out_kernel, kind)


def aminmax_kernel(ks, self, dim, keepdim):
    lo, hi, shape = K.aminmax(self, dim, keepdim)
    return finish(lo, self.dtype, shape, self), finish(hi, self.dtype, shape, self)


def aminmax_out_kernel(ks, self, dim, keepdim, min, max):
    K.check_out_dtype(min, self.dtype)
    K.check_out_dtype(max, self.dtype)
    lo, hi, shape = K.aminmax(self, dim, keepdim)
    K.write_outs([(min, lo), (max, hi)], shape)
    return min, max


def argmax_argmin_kernel(kind, ks, self, dim, keepdim):
    array, shape = K.arg_extreme(self, dim, keepdim, kind)
    return finish(array, _dtype.int64, shape, self)


def argmax_argmin_out_kernel(kind, ks, self, dim, keepdim, out):
    K.check_out_dtype(out, _dtype.int64)
    array, shape = K.arg_extreme(self, dim, keepdim, kind)
    K.write_outs([(out, array)], shape)
    return out


def arg_extreme_kernels(kind):
    """argmax (or argmin) and its out=: int64 indices."""
    return partial(argmax_argmin_kernel, kind), partial(argmax_argmin_out_kernel, kind)


# ---- var, std, var_mean, std_mean ------------------------------------------------------------------------------


def var_std_compute(kind, self, dim, correction, keepdim):
    var, _, shape = K.var_std(self, dim, correction, keepdim, name=kind)
    if var is not None and kind == "std":
        var = K.xp_of(self).sqrt(var)
    return var, shape


def var_std_kernel(kind, ks, self, dim, correction, keepdim):
    array, shape = var_std_compute(kind, self, dim, correction, keepdim)
    return finish(array, self.dtype, shape, self)


def var_std_out_kernel(kind, ks, self, dim, correction, keepdim, out):
    if self.dtype.is_floating_point:
        K.check_out_castable(out, self.dtype)
    array, shape = var_std_compute(kind, self, dim, correction, keepdim)
    K.write_outs([(out, array)], shape)
    return out


def var_std_kernels(kind):
    """var / std (and the out= form) from the one `var_std` kernel: std is the square root of var."""
    return partial(var_std_kernel, kind), partial(var_std_out_kernel, kind)


def var_std_mean_kernel(kind, ks, self, dim, correction, keepdim):
    var, mean, shape = K.var_std(self, dim, correction, keepdim, name=f"{kind}_mean")
    if var is not None and kind == "std":
        var = K.xp_of(self).sqrt(var)
    return finish(var, self.dtype, shape, self), finish(mean, self.dtype, shape, self)


def var_mean_kernel(kind):
    """var_mean (or std_mean): both results of one pass."""
    return partial(var_std_mean_kernel, kind)


# ---- logsumexp, vector_norm ------------------------------------------------------------------------------------


def logsumexp_dtype(self):
    # integers are first converted to the default float dtype (ReduceOps.cpp logsumexp)
    return self.dtype if self.dtype.is_floating_point else _dtype.get_default_dtype()


def logsumexp_kernel(ks, self, dim, keepdim):
    array, shape = K.logsumexp(self, dim, keepdim)
    return finish(array, logsumexp_dtype(self), shape, self)


def logsumexp_out_kernel(ks, self, dim, keepdim, out):
    if not out.dtype.is_floating_point:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, but got: {out.dtype._ptname}")
    array, shape = K.logsumexp(self, dim, keepdim)
    K.write_outs([(out, array)], shape)
    return out


def linalg_vector_norm_kernel(ks, self, ord, dim, keepdim, dtype):
    array, dt, shape = K.vector_norm(self, ord, dim, keepdim, dtype)
    return finish(array, dt, shape, self)


def linalg_vector_norm_out_kernel(ks, self, ord, dim, keepdim, dtype, out):
    array, dt, shape = K.vector_norm(self, ord, dim, keepdim, dtype)
    K.check_out_dtype(out, dt)
    K.write_outs([(out, array)], shape)
    return out


# ---- softmax, log_softmax --------------------------------------------------------------------------------------


def softmax_check(kind, self, dim, dtype):
    """Integers can't be softmaxed (unless `dtype=` converts them): the cpu kernel has no such instance.
    The last dim has its own kernel (SoftMax.cpp), whose name is in the message. Empty inputs return early."""
    d = normalize_dim(dim, self.dim())
    if not dtype.is_floating_point and self.numel() > 0:
        last = self.dim() == 0 or d == self.dim() - 1      # a 0-d input is viewed as 1-d
        raise K.not_implemented(f"{kind}_lastdim_kernel_impl" if last else f"{kind}_kernel_impl", dtype)


def softmax_kernel(kind, ks, self, dim, half_to_float):
    dt = _dtype.float32 if half_to_float else self.dtype
    softmax_check(kind, self, dim, dt)
    array, shape = K.softmax(self, dim, kind == "log_softmax", dt)
    return finish(array, dt, shape, self)


def softmax_out_kernel(kind, ks, self, dim, dtype, out):
    result_dtype = self.dtype if dtype is None else dtype
    K.check_out_dtype(out, result_dtype)      # the meta step's check runs before the kernel is chosen
    softmax_check(kind, self, dim, result_dtype)
    array, shape = K.softmax(self, dim, kind == "log_softmax", result_dtype)
    K.write_outs([(out, array)], shape)
    return out


def softmax_backward_data_kernel(kind, ks, grad_output, output, dim, input_dtype):
    array, shape = K.softmax_backward(grad_output, output, dim, kind == "log_softmax", input_dtype)
    return finish(array, input_dtype, shape, output)


def softmax_kernels(kind):
    """`_softmax(x, dim, half_to_float)` (or `_log_softmax`) and `softmax.int_out`."""
    return partial(softmax_kernel, kind), partial(softmax_out_kernel, kind)


# ---- cumsum, cumprod -------------------------------------------------------------------------------------------


def cumsum_cumprod_kernel(kind, ks, self, dim, dtype):
    dt = K.sum_dtype(self.dtype, dtype)
    array, shape = K.cumulative(self, dim, dt, kind)
    return finish(array, dt, shape, self)


def cumsum_cumprod_inplace_kernel(kind, ks, self, dim, dtype):
    if dtype is not None and dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_dtype.TYPEMETA_NAMES[self.dtype.name]} and "
                           f"output tensor dtype {_dtype.TYPEMETA_NAMES[dtype.name]} should match")
    array, shape = K.cumulative(self, dim, self.dtype, kind)   # in place: the sum stays in self's dtype
    K.write(self, array)     # refuses overlapping (expanded) targets; writes nothing on meta
    return self


def cumsum_cumprod_out_kernel(kind, ks, self, dim, dtype, out):
    dt = out_dtype(out, dtype)
    array, shape = K.cumulative(self, dim, dt, kind)
    K.write_outs([(out, array)], shape)
    return out


def cumulative_kernels(kind):
    """cumsum (or cumprod), its in-place form and its out=."""
    return (partial(cumsum_cumprod_kernel, kind),
            partial(cumsum_cumprod_inplace_kernel, kind),
            partial(cumsum_cumprod_out_kernel, kind))


# ---- all, any, count_nonzero -----------------------------------------------------------------------------------


def all_any_result_dtype(kind, self):
    # uint8 in, uint8 out: a relic of the days before torch.bool, kept for backward compatibility
    return _dtype.uint8 if self.dtype is _dtype.uint8 else _dtype.bool_


def all_any_kernel(kind, ks, self):
    array, shape = K.all_any(self, None, False, kind)
    return finish(array, all_any_result_dtype(kind, self), shape, self)


def all_any_dims_kernel(kind, ks, self, dim, keepdim):
    array, shape = K.all_any(self, dim, keepdim, kind)
    return finish(array, all_any_result_dtype(kind, self), shape, self)


def all_any_check_out(kind, out):
    if out.dtype is not _dtype.bool_ and out.dtype is not _dtype.uint8:
        raise RuntimeError(f"{kind} only supports bool tensor for result, got: {out.dtype._ptname}")


def all_any_all_out_kernel(kind, ks, self, out):
    all_any_check_out(kind, out)
    array, shape = K.all_any(self, None, False, kind, out.dtype)
    K.write_outs([(out, array)], shape)
    return out


def all_any_dims_out_kernel(kind, ks, self, dim, keepdim, out):
    all_any_check_out(kind, out)
    array, shape = K.all_any(self, dim, keepdim, kind, out.dtype)
    K.write_outs([(out, array)], shape)
    return out


def all_any_kernels(kind):
    """all (or any) over every dim or some, each with its out=."""
    return (partial(all_any_kernel, kind),
            partial(all_any_dims_kernel, kind),
            partial(all_any_all_out_kernel, kind),
            partial(all_any_dims_out_kernel, kind))


def count_nonzero_dim_IntList_kernel(ks, self, dim):
    array, shape = K.count_nonzero(self, dim)
    return finish(array, _dtype.int64, shape, self)


# ---- median, nanmedian -----------------------------------------------------------------------------------------


# What PyTorch's cpu median of an empty tensor returns: NaN converted to the dtype (x86 gives the lowest
# value for 32- and 64-bit ints, which the narrower ints then truncate to 0; NaN is true as a bool).
_NAN_AS = {"int64": -2 ** 63, "int32": -2 ** 31, "int16": 0, "int8": 0, "uint8": 0, "bool": True}


def legacy_type(dtype):
    return f"torch.{dtype._ptname}Tensor"


def median_full_kernel(kind, ks, self):
    if self.numel() == 0:     # PyTorch returns NaN converted to the dtype, before looking at the dtype
        value = None if K.is_meta(self) else K.xp_of(self).asarray(_NAN_AS.get(self.dtype.name, float("nan")))
        return finish(value, self.dtype, (), self)
    value, _, shape = K.median(self, None, False, kind == "nanmedian")
    return finish(value, self.dtype, shape, self)


def median_dim_kernel(kind, ks, self, dim, keepdim):
    values, indices, shape = K.median(self, dim, keepdim, kind == "nanmedian")
    return finish(values, self.dtype, shape, self), finish(indices, _dtype.int64, shape, self)


def median_dim_out_kernel(kind, ks, self, dim, keepdim, values_out, indices_out):
    # Sorting.cpp checks with the old TensorArg helpers, whose messages name legacy tensor types
    if indices_out.dtype is not _dtype.int64:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                           f"{legacy_type(indices_out.dtype)} instead (while checking arguments for median)")
    if values_out.dtype is not self.dtype:
        raise RuntimeError(f"Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
                           f"but type {legacy_type(values_out.dtype)} does not equal {legacy_type(self.dtype)} "
                           "(while checking arguments for median)")
    values, indices, shape = K.median(self, dim, keepdim, kind == "nanmedian")
    K.write_outs([(values_out, values), (indices_out, indices)], shape)
    return values_out, indices_out


def median_kernels(kind):
    """median (or nanmedian): of everything, along a dim with indices, and that with out=."""
    return partial(median_full_kernel, kind), partial(median_dim_kernel, kind), partial(median_dim_out_kernel, kind)


