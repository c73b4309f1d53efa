# Over 600 lines: the array code of every reduction shares the dim, keepdim and dtype steps at its top; the
# registered kernels are in reduction_kernels.py.
"""Reduction kernels: ops that combine many elements into fewer (sum, mean, max, var, norm, softmax, cumsum).

A *reduction* collapses one or more dimensions: `x.sum(dim=1)` of a (2, 3, 4) tensor adds the 3 elements
along dim 1 for each of the 2 * 4 positions, giving shape (2, 4), or (2, 1, 4) with `keepdim=True`.
`dim=None` (or, for most ops, an empty list) reduces every dimension, giving a 0-d tensor.

How PyTorch does it (aten/src/ATen/native/ReduceOps.cpp, ReduceOpsUtils.h, TensorIterator.cpp):

1. a **meta** step wraps and checks the dims (`dim_list_to_bitset`: range, then repeats), works out the
   result dtype (`get_dtype_from_self`: integers and bools sum into int64) and the result shape
   (`get_reduction_shape`), and allocates a *contiguous* result (`resize_reduction`), whatever the input's
   strides: unlike elementwise ops, a reduction does not copy its input's layout.
2. an **impl** step builds a reduction TensorIterator and runs a kernel that accumulates in a wider type
   (`at::acc_type`: float16 in float32; on the cpu float32 often in float64) and rounds once at the end.

Here each kernel does both steps over the array module `xp` (NumPy or CuPy): `xp.sum(a, axis=dims,
keepdims=keepdim, dtype=acc)` is the whole impl step. Everything accumulates in `accumulate_dtype` (float16 in
float32, float32 in float64, integers in int64) and is rounded to the result dtype at the end (mean rounds its
sum before dividing, as PyTorch's `sum(...).div_(n)` does), so results differ from PyTorch's only in the last
bits. The exceptions are where PyTorch itself rounds to float16 on the way, which is reproduced here: float16
`prod` multiplies in float16 and `nansum` adds each row's sum into a float16 result (`float16_prod`,
`float16_nansum`), `logsumexp` rounds after each of its ops, and `log_softmax` over the last dim rounds each
row's sum (`softmax`). On the meta device only the meta step runs.

Ops with no identity (max, min, argmax, median) refuse empty reductions with PyTorch's errors; ops with one
give it: an empty sum is 0, an empty product 1, an empty mean NaN, an empty logsumexp -inf.
"""

import warnings

import numpy as np

from .._dtype import TYPEMETA_NAMES, bool_, float16, get_default_dtype, int64, promote_types, uint8
from .._strides import normalize_dim, pointwise_output_strides
from ..backends import ARRAY_MODULES, check_writable, empty, fp_errors, quiet_fp_errors, restore_fp_errors, wrap, write
from ..backends import differences
from .pointwise import check_out, resize_out

# ---- dims -------------------------------------------------------------------------------------------------


def dim_list(dim):
    """A `dim` argument as PyTorch's `int[1]?` sees it: None, or a tuple of ints (an int becomes a 1-tuple)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        return tuple(int(d) for d in dim)
    return (int(dim),)


def reduction_dims(dim, ndim, empty_means_all=True, wrap_first=True):
    """Wrap and check the dims to reduce; return them in the order given, all non-negative.

    `None` reduces every dim. So does an empty list for most ops (`sum(dim=[])`, PyTorch's `make_dim_mask`);
    `all`/`any` treat an empty list as "reduce nothing" (`empty_means_all=False`). Each dim must be in range
    (IndexError) and appear once. Most ops wrap every dim before looking for repeats (`maybe_wrap_dims`
    then `dim_list_to_bitset`); nansum, var/std and vector_norm check each dim in turn (`wrap_first=False`),
    which only shows when a list has both a repeat and, after it, a dim out of range.
    A 0-d tensor has no dims to reduce: its dims 0 and -1 name the scalar itself, so the result is ().
    """
    dims = dim_list(dim)
    if dims is None or (len(dims) == 0 and empty_means_all):
        return tuple(range(ndim))
    if wrap_first:
        for d in dims:
            normalize_dim(d, ndim)           # every dim in range, before looking for repeats
    seen = []
    for d in dims:
        d = normalize_dim(d, ndim)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    return tuple(seen) if ndim else ()


def reduced_shape(sizes, dims, keepdim):
    """The result's shape: reduced dims are dropped, or kept with size 1 when `keepdim`.

    A 0-d input stays 0-d: its "dim 0" is the scalar itself (PyTorch's wrap_scalar).
    """
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(sizes))
    return tuple(s for i, s in enumerate(sizes) if i not in dims)


def axes(dims, ndim):
    """The dims as a NumPy `axis=` tuple (a 0-d array has no axes to name)."""
    return tuple(dims) if ndim else ()


def reduced_numel(sizes, dims):
    n = 1
    for d in dims:
        n *= sizes[d]
    return n


def check_nonempty(t, dims, name, shown=None):
    """Ops with no identity (max, argmax, median) can't reduce over an empty dim: PyTorch's IndexError.

    `shown` are the dims as the message prints them (amax prints what the caller wrote, max the wrapped dim).
    """
    if t.dim() == 0:
        return
    for d, s in zip(dims, shown if shown is not None else dims):
        if t._sizes[d] == 0:
            raise IndexError(f"{name}: Expected reduction dim {s} to have non-zero size.")


# ---- dtypes -----------------------------------------------------------------------------------------------

def accumulate_dtype(dtype):
    """The NumPy dtype a reduction accumulates `dtype` in: wider than the result, rounded once at the end.

    PyTorch's `at::acc_type`: float16 accumulates in float32, integers in int64 (wrapping around on overflow
    exactly as the narrower type would, since the result is cast back). float32 is widened to float64 here, as
    PyTorch's cpu cumsum and var do; its cpu sum instead uses a float32 cascade sum, equally accurate.
    Not every kernel widens all the way: PyTorch's cpu prod multiplies float16 in float16 (`float16_prod`).
    """
    if dtype is float16:
        return np.float32
    return np.float64 if dtype.is_floating_point else np.int64


def opmath_dtype(dtype):
    """The NumPy dtype elementwise math runs in (PyTorch's `opmath_type`): float16 in float32."""
    return np.float32 if dtype is float16 else dtype.numpy


def sum_dtype(self_dtype, dtype=None):
    """PyTorch's `get_dtype_from_self(self, dtype, promote_integers=True)`: bools and ints sum into int64."""
    if dtype is not None:
        return dtype
    return self_dtype if self_dtype.is_floating_point else int64


def not_implemented(kernel_name, dtype):
    """The error AT_DISPATCH raises for a dtype a kernel was not compiled for."""
    return NotImplementedError(f'"{kernel_name}" not implemented for \'{dtype._ptname}\'')


# ---- running a kernel -------------------------------------------------------------------------------------


def is_meta(t):
    return t._storage._data is None


def xp_of(t):
    return ARRAY_MODULES[t._storage.device.type]


def result(array, dtype, shape, device):
    """The result tensor: a fresh contiguous tensor over `array` (cast to `dtype`), or shape only on meta."""
    if array is None:
        return empty(shape, dtype, device)
    xp = ARRAY_MODULES[device.type]
    array = xp.asarray(array)
    if array.dtype != dtype.numpy:
        saved = fp_errors()
        try:
            quiet_fp_errors()           # out-of-range values become inf (floats) or wrap around (ints)
            array = array.astype(dtype.numpy)
        finally:
            restore_fp_errors(saved)
    elif not array.flags.owndata:
        array = array.copy()   # a view (maybe of an input): results never share memory with inputs
    if array.shape != tuple(shape):
        array = array.reshape(shape)
    return wrap(array, dtype, device)


def scalar_to_1d(a):
    """A 0-d array as a 1-element 1-d one, so `axis=0` works on it (the scalar's "dim 0")."""
    return a.reshape(1) if a.ndim == 0 else a


# ---- out= -------------------------------------------------------------------------------------------------


def check_out_dtype(out, dtype):
    """Structured kernels require an `out=` tensor of exactly the result dtype (named as C++ types)."""
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {TYPEMETA_NAMES[dtype.name]}, but got "
                           f"{TYPEMETA_NAMES[out.dtype.name]} instead")


def check_out_castable(out, dtype):
    """Other kernels only need the result dtype to be castable into `out`'s (no float into int)."""
    check_out(out, dtype, None)


def write_outs(pairs, shape):
    """After every check passed: resize each `out=` tensor to `shape` (with PyTorch's warning) and write.

    Every target is checked writable first, so that a failure leaves all of them unchanged.
    """
    for out, _ in pairs:
        if tuple(out._sizes) == tuple(shape):
            check_writable(out)
    for out, _ in pairs:
        resize_out(out, shape)
    for out, array in pairs:
        if array is not None:
            write(out, array)


# ---- sum, nansum, mean, nanmean, prod -------------------------------------------------------------------


def sum_like(self, dim, keepdim, dtype, kind="sum"):
    """sum / nansum / prod / mean / nanmean: (array or None, result dtype, shape).

    The input is first cast to the result dtype (`x.sum(dtype=torch.int64)` truncates floats before adding,
    as PyTorch does), then accumulated in the accumulate dtype (but float16 prod and nansum round on the way).
    """
    dims = reduction_dims(dim, self.dim(), wrap_first=kind != "nansum")
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, dtype, shape
    xp = xp_of(self)
    a = self._data()
    ax = axes(dims, self.dim())
    saved = fp_errors()
    try:
        quiet_fp_errors()
        if kind in ("nansum", "nanmean"):
            not_nan = ~xp.isnan(a)
            if dtype is not float16:          # (float16_nansum skips them itself: it needs the input's strides)
                a = xp.where(not_nan, a, 0)   # NaNs count as 0 (and nanmean leaves them out of the count)
        if a.dtype != dtype.numpy:
            a = differences.astype(xp, a, dtype.numpy)   # (floats into integers: PyTorch's cpu cast)
        acc = accumulate_dtype(dtype)
        if kind == "prod" and dtype is float16:
            r = float16_prod(xp, a, dims, shape)
        elif kind == "prod":
            r = a.prod(axis=ax, keepdims=keepdim, dtype=acc)
        elif kind in ("nansum", "nanmean") and dtype is float16:
            r = float16_nansum(xp, a, dims, shape)
        else:
            r = a.sum(axis=ax, keepdims=keepdim, dtype=acc)
        # mean is PyTorch's `sum(...).div_(n)`: the sum is rounded to the result dtype (float16: to float32,
        # then the quotient is rounded once more); nanmean divides by the count of non-NaNs the same way
        if kind == "mean":
            r = r.astype(opmath_dtype(dtype)) / reduced_numel(self._sizes, dims)
        elif kind == "nanmean":
            r = r.astype(dtype.numpy).astype(opmath_dtype(dtype)) / xp.sum(not_nan, axis=ax, keepdims=keepdim)
    finally:
        restore_fp_errors(saved)
    return r, dtype, shape


# ---- float16 prod and nansum: rounding on the way -------------------------------------------------------------

# Two of PyTorch's cpu kernels round float16 partial results to float16 as they go, so their answers depend on
# the order in which TensorIterator walks the input (cpu/Reduce.h, TensorIterator.cpp):
# * prod (cpu/ReduceOpsKernel.cpp `prod_kernel_impl`) multiplies in the tensor's own type, so every partial
#   product is rounded to float16: it overflows to inf (or underflows to 0) as soon as a partial product does,
#   although the whole product may fit: prod([300, 300, 1/300, 1/300]) is inf.
# * nansum (cpu/SumKernel.cpp `cascade_sum`) adds each row in float32, but adds each row's sum into the float16
#   output. (sum shares that kernel, but where an output has more than one row, ReduceOps.cpp `sum_out` sums a
#   float32 copy of the input into a float32 result instead: `should_use_acc_buffer`, pytorch issue 83149.)
# PyTorch's cuda kernels accumulate both in float32; teachtorch's cuda kernels are these, as its tests compare
# with PyTorch's cpu. Not reproduced: with more than one thread, PyTorch splits a reduction into one output of
# at least 32768 elements (`GRAIN_SIZE`) between its threads (`two_pass_reduction`) and rounds each share to
# float16, for prod, nansum and sum alike: teachtorch gives PyTorch's one-thread answer.
VECTORS, LANES = 4, 16     # prod's `vectorized_reduction`: 4 running vectors of 16 float16 lanes


def reduction_order(a, dims):
    """The reduced `dims` of array `a` that have more than one element, outermost first, in the order
    TensorIterator walks them: the input's memory order.

    TensorIterator sorts a reduction's reduced dims by the input's strides just as it sorts the dims of an
    elementwise op (`reorder_dimensions`), and `pointwise_output_strides` lays an output out in that sorted
    order, so sorting by its strides gives the walk. (A dim the input is expanded along has stride 0 and no
    say in that sort, which is why this is not simply "sort by stride".)
    """
    dims = sorted(d for d in dims if a.shape[d] != 1)
    sizes = [a.shape[d] for d in dims]
    laid_out = pointwise_output_strides(sizes, [(sizes, [a.strides[d] // a.itemsize for d in dims])])
    return [dims[i] for i in sorted(range(len(dims)), key=lambda i: laid_out[i], reverse=True)]


def reduction_rows(a, dims):
    """(rows, stride): `a` as an array (outputs, rows, row length) that holds each output's reduced elements in
    TensorIterator's order, cut into the rows its inner loop runs over; and the stride, in elements, between
    the elements of a row in memory (1: side by side).

    A row is the innermost reduced dim merged with the reduced dims around it as far as TensorIterator can
    merge ("coalesce") them: while a dim's stride is the row's stride times the row's length so far.
    """
    order = reduction_order(a, dims)
    kept = [d for d in range(a.ndim) if d not in dims]
    size_one = [d for d in dims if d not in order]
    stride = a.strides[order[-1]] // a.itemsize if order else 1
    length = 1
    for d in reversed(order):                       # innermost first
        if a.strides[d] // a.itemsize != stride * length:
            break
        length *= a.shape[d]
    rows = a.transpose(tuple(kept + order + size_one)).reshape(reduced_numel(a.shape, kept), -1, length)
    return rows, stride


def float16_prod(xp, a, dims, shape):
    """The product of float16 array `a` over `dims`, as PyTorch's cpu kernel computes it: an array of `shape`.

    Each output starts from 1 and multiplies in its elements one at a time, in memory order, rounding to
    float16 each time (NumPy's and CuPy's float16 `*` round the exact product to float16, as c10::Half does).
    Except in a row of at least 64 elements side by side in memory: there `vectorized_reduction` keeps 4
    vectors of 16 lanes, that is 64 running products, the first taking elements 0, 64, 128, ..., the next
    1, 65, 129, ...; it multiplies the vectors as (v0 * v1) * (v2 * v3), then the 16 lanes of that left to
    right, and that into the output. The elements after the row's last whole block of 64 follow one at a time.
    """
    if a.size == 0:
        return xp.ones(shape, dtype=a.dtype)        # an empty product is 1 (or there is no output at all)
    rows, stride = reduction_rows(a, dims)
    n_out, n_rows, length = rows.shape
    block = VECTORS * LANES
    vectorized = stride == 1 and length >= block
    out = xp.ones(n_out, dtype=a.dtype)
    for r in range(n_rows):
        row = rows[:, r]
        done = 0
        if vectorized:
            done = length // block * block
            blocks = row[:, :done].reshape(n_out, -1, block)
            running = blocks[:, 0]
            for i in range(1, blocks.shape[1]):
                running = running * blocks[:, i]
            v = running.reshape(n_out, VECTORS, LANES)
            lanes = (v[:, 0] * v[:, 1]) * (v[:, 2] * v[:, 3])
            total = lanes[:, 0]
            for j in range(1, LANES):
                total = total * lanes[:, j]
            out = out * total
        for k in range(done, length):
            out = out * row[:, k]
    return out.reshape(shape)


def float16_nansum(xp, a, dims, shape):
    """The sum of float16 array `a` over `dims`, NaNs skipped, as PyTorch's cpu nansum computes it.

    Each row (`reduction_rows`) is added up in float32 (`row_sum`), and the row's sum is added into the
    float16 output (`CastStoreAccumulate`: `*out += row_sum` with a c10::Half `*out`, which rounds the row's
    sum to float16 and then the new total). An output made of several rows is rounded once per row.
    """
    if a.size == 0:
        return xp.zeros(shape, dtype=a.dtype)       # an empty sum is 0 (or there is no output at all)
    rows, _ = reduction_rows(a, dims)
    out = xp.zeros(rows.shape[0], dtype=a.dtype)
    for r in range(rows.shape[1]):
        out = out + xp.nansum(rows[:, r], axis=-1, dtype=np.float32).astype(a.dtype)
    return out.reshape(shape)


# ---- max, min, amax, amin, argmax, argmin, aminmax --------------------------------------------------------


def check_full_nonempty(self, name):
    """max() / amax(dim=()) of an empty tensor: no identity, so PyTorch asks for a dim."""
    if self.numel() == 0:
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument.")


def extreme(self, dim, keepdim, kind):
    """amax / amin over `dim` (None: everything): (array or None, shape).

    PyTorch checks, in order: every dim in range, no reduced dim empty, then no dim repeated.
    """
    given = dim_list(dim)
    if not given:
        check_full_nonempty(self, kind)
    else:
        wrapped = [normalize_dim(d, self.dim()) for d in given]
        check_nonempty(self, wrapped if self.dim() else (), f"{kind}()", shown=given)
    dims = reduction_dims(dim, self.dim())
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    fn = xp.max if kind == "amax" else xp.min
    return fn(self._data(), axis=axes(dims, self.dim()), keepdims=keepdim), shape   # NaN propagates


def extreme_with_index(self, dim, keepdim, kind):
    """max.dim / min.dim: (values, indices, shape). The index is the FIRST extreme (or the first NaN)."""
    d = normalize_dim(dim, self.dim())
    dims = (d,) if self.dim() else ()
    shape = reduced_shape(self._sizes, dims, keepdim)
    check_nonempty(self, dims, f"{kind}()")
    if is_meta(self):
        return None, None, shape
    xp = xp_of(self)
    a = scalar_to_1d(self._data())
    # the first occurrence, and NaN over numbers (as NumPy's argmax picks it; on CuPy, see differences.py)
    indices = differences.arg_extreme(xp, a, kind, axis=d, keepdims=True)
    values = xp.take_along_axis(a, indices, axis=d)
    return values.reshape(shape), indices.reshape(shape), shape


def arg_extreme(self, dim, keepdim, kind):
    """argmax / argmin: the index of the first extreme; with dim=None, into the flattened (C order) input."""
    if self.dtype is bool_:
        raise RuntimeError(f"{kind}(): does not support bool input")
    if dim is None:
        if self.numel() == 0:
            raise IndexError(f"{kind}(): Expected reduction dim to be specified for input.numel() == 0.")
        shape = (1,) * self.dim() if keepdim else ()
        if is_meta(self):
            return None, shape
        xp = xp_of(self)
        # no axis: flattened in C order, as PyTorch does; the first NaN wins (differences.py)
        return differences.arg_extreme(xp, self._data(), kind[3:]), shape
    d = normalize_dim(dim, self.dim())
    dims = (d,) if self.dim() else ()
    shape = reduced_shape(self._sizes, dims, keepdim)
    check_nonempty(self, dims, f"{kind}()")
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    return differences.arg_extreme(xp, scalar_to_1d(self._data()), kind[3:], axis=d, keepdims=keepdim), shape


def aminmax(self, dim, keepdim):
    """(min array, max array, shape) over `dim` (an int, or None for everything)."""
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        dims = tuple(range(self.dim()))
    else:
        d = normalize_dim(dim, self.dim())
        dims = (d,) if self.dim() else ()
        check_nonempty(self, dims, "aminmax")
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, None, shape
    xp = xp_of(self)
    a, ax = self._data(), axes(dims, self.dim())
    return xp.min(a, axis=ax, keepdims=keepdim), xp.max(a, axis=ax, keepdims=keepdim), shape


# ---- var, std ---------------------------------------------------------------------------------------------


def var_std(self, dim, correction, keepdim, name):
    """(variance array or None, mean array or None, shape): the two-pass formula in the accumulate dtype.

        var = sum((x - mean)^2) / max(N - correction, 0)

    PyTorch uses Welford's one-pass algorithm in double on the cpu; both are stable and agree to rounding.
    A divisor <= 0 gives inf or NaN, with PyTorch's warning.
    """
    if not self.dtype.is_floating_point:
        what = "std and var" if name in ("var", "std") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    dims = reduction_dims(dim, self.dim(), wrap_first=False)
    shape = reduced_shape(self._sizes, dims, keepdim)
    correction = 1 if correction is None else correction
    n = reduced_numel(self._sizes, dims)
    if n - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
            "(input numel divided by output numel).", UserWarning, stacklevel=5)
    if is_meta(self):
        return None, None, shape
    xp = xp_of(self)
    a = self._data().astype(accumulate_dtype(self.dtype))
    ax = axes(dims, self.dim())
    saved = fp_errors()
    try:
        quiet_fp_errors()
        mean = xp.sum(a, axis=ax, keepdims=True) / n
        m2 = xp.sum((a - mean) ** 2, axis=ax, keepdims=keepdim)
        var = m2 / max(n - correction, 0)
    finally:
        restore_fp_errors(saved)
    return var, mean.reshape(shape), shape


# ---- logsumexp --------------------------------------------------------------------------------------------


def logsumexp(self, dim, keepdim):
    """log(sum(exp(x))) computed stably as  m + log(sum(exp(x - m)))  with m the max along the dims.

    Subtracting the max keeps exp() from overflowing. An infinite max is replaced by 0 (PyTorch's
    `maxes.masked_fill_(maxes.abs() == INFINITY, 0)`), so a row of -inf gives -inf rather than NaN.
    PyTorch writes it with ops (ReduceOps.cpp `logsumexp_out_impl`: amax, sub, exp, sum, log, add), each giving
    a tensor of the input's dtype, so for float16 every step is rounded to float16 (only inside the sum are the
    terms added in float32). It is computed the same way here, in the input's dtype (integers: the default
    float dtype, as in PyTorch); NumPy's float16 ufuncs also compute in float32 and round each result.
    """
    dims = dim_list(dim)
    if dims is not None and len(dims) == 0 and self.dim() > 0 and self.numel() > 0 and not keepdim:
        # PyTorch reduces everything with keepdim to size-1 dims, then fails to squeeze them into the result
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape {[1] * self.dim()}")
    dims = reduction_dims(dim, self.dim())
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    dtype = self.dtype if self.dtype.is_floating_point else get_default_dtype()
    a = self._data()
    if a.dtype != dtype.numpy:
        a = a.astype(dtype.numpy)
    ax = axes(dims, self.dim())
    saved = fp_errors()
    try:
        quiet_fp_errors()
        if a.size == 0:
            return xp.log(xp.sum(xp.exp(a), axis=ax, keepdims=keepdim)), shape
        m = xp.max(a, axis=ax, keepdims=True)
        m = xp.where(xp.isinf(m), 0, m).astype(a.dtype)
        total = xp.sum(xp.exp(a - m), axis=ax, keepdims=True, dtype=accumulate_dtype(dtype)).astype(a.dtype)
        r = xp.log(total) + m
    finally:
        restore_fp_errors(saved)
    return r.reshape(shape), shape


# ---- vector norm ------------------------------------------------------------------------------------------


def _format_scalar(v):
    """A Scalar as C++ prints it in an error message: 2, -1, 0.5, inf."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def vector_norm(self, ord, dim, keepdim, dtype):
    """linalg.vector_norm: (array or None, result dtype, shape).

        ord = 0      number of non-zeros            ord = inf   max |x|      ord = -inf   min |x|
        otherwise    (sum |x|^ord) ^ (1 / ord)      (ord = 2: the Euclidean length)
    """
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {self.dtype._ptname}")
    dims_given = dim_list(dim)
    p = float(ord)
    if self.numel() == 0 and (p < 0 or p == float("inf")):
        if not dims_given:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_format_scalar(ord)} norm on an empty tensor because the "
                "operation does not have an identity")
        for d in dims_given:
            if self._sizes[normalize_dim(d, self.dim())] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_format_scalar(ord)} norm on the dimension {d}because "
                    "this dimension is empty and the operation does not have an identity")
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError(
                f"linalg.vector_norm: dtype should be floating point or complex, but got {dtype._ptname}")
        if promote_types(self.dtype, dtype) is not dtype:
            raise RuntimeError(
                f"linalg.vector_norm: the dtype of the input ({self.dtype._ptname}) should be convertible without "
                f"narrowing to the specified dtype ({dtype._ptname})")
    out_dtype = dtype or self.dtype
    dims = reduction_dims(dim, self.dim(), wrap_first=False)
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, out_dtype, shape
    xp = xp_of(self)
    a = xp.abs(self._data().astype(out_dtype.numpy).astype(accumulate_dtype(out_dtype)))
    ax = axes(dims, self.dim())
    saved = fp_errors()
    try:
        quiet_fp_errors()
        if p == 0:
            r = xp.sum(a != 0, axis=ax, keepdims=keepdim, dtype=a.dtype)
        elif p == float("inf"):
            r = xp.max(a, axis=ax, keepdims=keepdim)
        elif p == float("-inf"):
            r = xp.min(a, axis=ax, keepdims=keepdim)
        elif p == 1:
            r = xp.sum(a, axis=ax, keepdims=keepdim)
        elif p == 2:
            r = xp.sqrt(xp.sum(a * a, axis=ax, keepdims=keepdim))
        else:
            r = xp.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)
    finally:
        restore_fp_errors(saved)
    return r, out_dtype, shape


# ---- softmax, log_softmax ---------------------------------------------------------------------------------


def softmax(self, dim, log, dtype):
    """softmax along `dim`:  exp(x - m) / sum(exp(x - m)),  m = max along dim (subtracted for stability).

    log_softmax is  (x - m) - log(sum(exp(x - m))),  which never takes the log of a rounded-to-0 probability.
    A row of -inf gives NaN, as in PyTorch. The input is first cast to the result `dtype` (`softmax(x, dim,
    dtype=torch.float64)`). Returns (array or None, shape).

    PyTorch's cpu kernels compute float16 in float32 and round once at the end, except that log_softmax over the
    last dim (its own kernel, cpu/LogSoftmaxKernelImpl.h) keeps each row's sum of exponentials, and then the log
    of it, in float16 buffers (`tmp_sum_scalar`): a row whose sum is 1.0004 has log-sum 0 there, not 0.0004.
    """
    d = normalize_dim(dim, self.dim())
    shape = self._sizes
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    if self.numel() == 0:
        return xp.empty(shape, dtype=dtype.numpy), shape
    a = scalar_to_1d(self._data()).astype(dtype.numpy).astype(accumulate_dtype(dtype))
    saved = fp_errors()
    try:
        quiet_fp_errors()
        shifted = a - xp.max(a, axis=d, keepdims=True)
        if log:
            total = xp.sum(xp.exp(shifted), axis=d, keepdims=True)
            if dtype is float16 and d == a.ndim - 1:
                total = total.astype(np.float16)          # the float16 buffers: the log is rounded too
            r = shifted - xp.log(total).astype(a.dtype)
        else:
            e = xp.exp(shifted)
            r = e / xp.sum(e, axis=d, keepdims=True)
    finally:
        restore_fp_errors(saved)
    return r.reshape(shape), shape


def softmax_backward(grad_output, output, dim, log, input_dtype):
    """The gradient of softmax (or log_softmax) from its output y, along `dim`, in one pass: PyTorch's
    `_softmax_backward_data` and `_log_softmax_backward_data` kernels (SoftMax.cpp, cpu/SoftMaxKernel.cpp):

        softmax:      grad_input = y * (g - sum(g * y))
        log_softmax:  grad_input = g - exp(y) * sum(g)

    float16 is computed in float32 (opmath); the result has `input_dtype`, the dtype softmax's input had.
    Returns (array or None, shape)."""
    d = normalize_dim(dim, output.dim())
    shape = output._sizes
    if is_meta(output):
        return None, shape
    xp = xp_of(output)
    compute = np.float32 if output.dtype is float16 else output.dtype.numpy
    g = scalar_to_1d(grad_output._data()).astype(compute, copy=False)
    y = scalar_to_1d(output._data()).astype(compute, copy=False)
    saved = fp_errors()
    try:
        quiet_fp_errors()
        if log:
            r = g - xp.exp(y) * xp.sum(g, axis=d, keepdims=True)
        else:
            r = y * (g - xp.sum(g * y, axis=d, keepdims=True))
    finally:
        restore_fp_errors(saved)
    return r.reshape(shape), shape


# ---- cumsum, cumprod --------------------------------------------------------------------------------------


def cumulative(self, dim, dtype, kind):
    """cumsum / cumprod along `dim` in `dtype`: (array or None, shape). Each prefix is rounded once."""
    d = normalize_dim(dim, self.dim())
    if dtype is bool_:
        raise not_implemented(f"{kind}_out_cpu", dtype)
    shape = self._sizes
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    a = scalar_to_1d(self._data())
    fn = xp.cumsum if kind == "cumsum" else xp.cumprod
    saved = fp_errors()
    try:
        quiet_fp_errors()                     # inf + -inf is nan, an overflow is inf: silently, as in PyTorch
        if a.dtype != dtype.numpy:
            # cast first: cumsum(dtype=int64) of floats adds truncated values
            a = differences.astype(xp, a, dtype.numpy)
        return fn(a, axis=d, dtype=accumulate_dtype(dtype)).reshape(shape), shape
    finally:
        restore_fp_errors(saved)


# ---- all, any, count_nonzero ------------------------------------------------------------------------------


def all_any(self, dim, keepdim, kind, out_dtype=None):
    """all / any: (bool array or None, shape). NaN counts as true (it is not zero).

    With a uint8 `out=`, PyTorch's kernel reads the input *as uint8*: all(tensor([0.5]), out=uint8) is 0.
    """
    dims = reduction_dims(dim, self.dim(), empty_means_all=False)
    shape = reduced_shape(self._sizes, dims, keepdim)
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    a = self._data()
    if out_dtype is uint8 and a.dtype != np.uint8:
        saved = fp_errors()
        try:
            quiet_fp_errors()
            a = a.astype(np.uint8)
        finally:
            restore_fp_errors(saved)
    fn = xp.all if kind == "all" else xp.any
    return fn(a, axis=axes(dims, self.dim()), keepdims=keepdim), shape


def count_nonzero(self, dim):
    """(int64 array or None, shape): how many elements along the dims are not zero. No keepdim."""
    dims = reduction_dims(dim, self.dim())
    shape = reduced_shape(self._sizes, dims, False)
    if is_meta(self):
        return None, shape
    xp = xp_of(self)
    return xp.sum(self._data() != 0, axis=axes(dims, self.dim()), dtype=np.int64), shape


# ---- median, nanmedian ------------------------------------------------------------------------------------


def median(self, dim, keepdim, ignore_nan):
    """median.dim / nanmedian.dim: (values, indices, shape), or (value, None, ()) when `dim` is None.

    The median is the *lower* median: element number (n - 1) // 2 in sorted order. PyTorch finds it with
    `std::nth_element` under the order "smaller value, or equal value and smaller index", which is exactly a
    stable sort, so ties give the same index here. `median` returns the first NaN if a row has one;
    `nanmedian` sorts NaNs last and takes the median of the rest.
    """
    if dim is None:
        if self.dtype is bool_:
            raise not_implemented("median_cpu", self.dtype)
        shape = ()
        if is_meta(self):
            return None, None, shape
        xp = xp_of(self)
        values, _ = _median_along(xp, self._data().reshape(-1), 0, ignore_nan)
        return values, None, shape
    d = normalize_dim(dim, self.dim())
    dims = (d,) if self.dim() else ()
    shape = reduced_shape(self._sizes, dims, keepdim)
    check_nonempty(self, dims, "median()")
    if self.dtype is bool_:
        raise not_implemented("median_out", self.dtype)
    if is_meta(self):
        return None, None, shape
    xp = xp_of(self)
    a = scalar_to_1d(self._data())
    if a.size == 0:
        return xp.empty(shape, dtype=a.dtype), xp.empty(shape, dtype=np.int64), shape
    values, indices = _median_along(xp, a, d, ignore_nan)
    return values.reshape(shape), indices.reshape(shape), shape


def _median_along(xp, a, d, ignore_nan):
    n = a.shape[d]
    order = xp.argsort(a, axis=d, kind="stable")          # NaNs sort last; equal values keep their order
    isnan = xp.isnan(a) if a.dtype.kind == "f" else xp.zeros(a.shape, dtype=bool)
    nan_count = xp.sum(isnan, axis=d, keepdims=True)
    if ignore_nan:
        k = xp.maximum(n - nan_count - 1, 0) // 2           # C++ division truncates: (-1) / 2 == 0
    else:
        k = xp.full(nan_count.shape, (n - 1) // 2)
    indices = xp.take_along_axis(order, k, axis=d)
    if not ignore_nan:
        indices = xp.where(nan_count > 0, xp.argmax(isnan, axis=d, keepdims=True), indices)   # the first NaN
    values = xp.take_along_axis(a, indices, axis=d)
    return values, indices
