"""Kernels that work along one dim, or on the flattened tensor: `take` / `put_`, `index_select` / `gather`,
`scatter` and its reductions, `index_add_` / `index_copy_` / `index_fill_`.

PyTorch: aten/src/ATen/native/TensorAdvancedIndexing.cpp, ScatterGatherChecks.h and
cpu/ScatterGatherKernel.cpp. `gather` and `scatter` pair each element of `index` with one element of
`self` along `dim`: `out[i][j] = self[index[i][j]][j]` for dim 0. Like the kernels in indexing.py, each does
the meta step with PyTorch's checks and messages first, computes with NumPy's (or CuPy's) fancy indexing,
and writes only through `write_elements` / `backends.write`.
"""

import warnings

import numpy as np

from .._dtype import bool_, int32, int64
from .._strides import (
    normalize_dim,
)
from .._tensor import Tensor
from ..backends import check_writable, empty, preserve_strides, wrap, write
from ..backends.differences import ufunc_at
from .indexing import (  # the pieces every indexing kernel shares
    assert_no_overlap, check_out_dtype, checked_scalar, finish_out, is_meta, shape_str, warn_if_expanded,
    write_elements, xp_for,
)


# ---- take / put_: indices into the flattened tensor ----------------------------------------------------------


def _check_flat_bounds(index_values, numel):
    outside = (index_values < -numel) | (index_values >= numel)
    if outside.any():
        value = int(index_values.ravel()[int(outside.ravel().argmax())])
        raise IndexError(f"out of range: tried to access index {value} on a tensor of {numel} elements.")


def take_compute(self, index):
    if index.dtype is not int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype._ptname}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("take(): tried to take from an empty tensor")
    if is_meta(self, index):
        return None
    _check_flat_bounds(index._data(), self.numel())
    # reshape(-1) reads self in logical order, whatever its strides
    return self._data().reshape(-1)[index._data()]


def take_kernel(ks, self, index):
    result = take_compute(self, index)
    if result is None:
        return empty(index._sizes, self.dtype, self.device)
    return wrap(result, self.dtype, self.device)


def take_out_kernel(ks, self, index, out):
    if out.dtype is not self.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{self.dtype._ptname} and out.dtype = {out.dtype._ptname}")
    return finish_out(out, take_compute(self, index), index._sizes)


def put__kernel(ks, self, index, source, accumulate=False):
    """`put_`: self, seen as flattened in logical order, gets source's elements at the given positions."""
    if index.dtype is not int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype._ptname}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{self.dtype._ptname} and source.dtype = {source.dtype._ptname}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    if self.numel() == 0 and index.numel() != 0:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    check_writable(self)
    assert_no_overlap(self, index)
    assert_no_overlap(self, source)
    if index.numel() == 0 or is_meta(self, index, source):
        return self
    xp = xp_for(self)
    flat = index._data().reshape(-1)
    _check_flat_bounds(flat, self.numel())
    target = self if self.dim() else _as_1d(self)
    position = xp.unravel_index(xp.where(flat < 0, flat + self.numel(), flat), target._sizes)
    write_elements(target, position, source._data().reshape(-1), accumulate)
    return self


def _as_1d(t):
    """A 0-d tensor seen as a 1-element 1-d tensor over the same memory (a write target, not a result)."""
    return Tensor._make(t._storage, t._offset, (1,), (1,), t.dtype)


def put_kernel(ks, self, index, source, accumulate=False):
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return put__kernel(ks, out, index, source, accumulate)


# ---- index_select / gather: read along one dim ---------------------------------------------------------------


def index_select_compute(self, dim, index):
    dim = normalize_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if self.dim() == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if index.dtype not in (int64, int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    shape = list(self._sizes)
    if self.dim() > 0:
        shape[dim] = index.numel()
    shape = tuple(shape)
    if is_meta(self, index):
        return None, shape
    xp = xp_for(self)
    idx = index._data().reshape(-1)
    if self.dim() > 1:
        if idx.size == 0:
            return xp.empty(shape, self.dtype.numpy), shape
        size = self._sizes[dim]
        outside = (idx < 0) | (idx >= size)
        if self.numel() == 0 and size == 0:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
        if outside.any():
            bad = int(idx[int(outside.argmax())])
            # PyTorch's cpu kernel has a fast path for dim 1 (from caffe2) with a message of its own
            if dim == 1 or self.numel() == 0:
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
            raise IndexError("index out of range in self")
        return xp.take(self._data(), idx, axis=dim), shape
    # 0-d and 1-d self: no negative indices either
    numel = self.numel()
    if ((idx < 0) | (idx >= numel)).any():
        raise IndexError("index out of range in self")
    return self._data().reshape(-1)[idx].reshape(shape), shape


def index_select_kernel(ks, self, dim, index):
    result, shape = index_select_compute(self, dim, index)
    if result is None:
        return empty(shape, self.dtype, self.device)
    return wrap(result, self.dtype, self.device)


def index_select_out_kernel(ks, self, dim, index, out):
    if out.dtype is not self.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    result, shape = index_select_compute(self, dim, index)
    return finish_out(out, result, shape)


def nonempty_dim(t):
    return max(t.dim(), 1)


def nonempty_size(t, d):
    return t._sizes[d] if t.dim() else 1


def as_nonempty(array):
    """0-d arrays seen as 1-d (PyTorch's ensure_nonempty_*: scatter/gather treat a scalar as a vector)."""
    return array.reshape(1) if array.ndim == 0 else array


def check_dim_bounds(values, dim, size):
    """gather/scatter's kernel check (ScatterGatherKernel.cpp): no negative indices, none >= size."""
    outside = (values < 0) | (values >= size)
    if outside.any():
        bad = int(values.ravel()[int(outside.ravel().argmax())])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def gather_compute(self, dim, index):
    dim = normalize_dim(dim, self.dim())
    if index.numel() == 0:
        return None, dim
    if index.dtype not in (int64, int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if nonempty_dim(self) != nonempty_dim(index):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d in range(nonempty_dim(self)):
        if d != dim and nonempty_size(index, d) > nonempty_size(self, d):
            raise RuntimeError(f"Size does not match at dimension {d} expected index {shape_str(index._sizes)} to "
                               f"be no larger than self {shape_str(self._sizes)} apart from dimension {dim}")
    if is_meta(self, index):
        return None, dim
    xp = xp_for(self)
    src, idx = as_nonempty(self._data()), as_nonempty(index._data())
    check_dim_bounds(idx, dim, src.shape[dim])
    # index may be smaller than self in the other dims: gather from the matching corner of self
    corner = tuple(slice(None) if d == dim else slice(0, idx.shape[d]) for d in range(src.ndim))
    return xp.take_along_axis(src[corner], idx, axis=dim).reshape(index._sizes), dim


def gather_kernel(ks, self, dim, index, sparse_grad=False):
    result, _ = gather_compute(self, dim, index)
    if result is None:
        out = empty(index._sizes, self.dtype, self.device)
        return out
    return wrap(result, self.dtype, self.device)


def gather_out_kernel(ks, self, dim, index, sparse_grad, out):
    normalize_dim(dim, self.dim())
    check_out_dtype(out, self.dtype)
    result, _ = gather_compute(self, dim, index)
    return finish_out(out, result, index._sizes)


# ---- scatter: write along one dim ----------------------------------------------------------------------------

_SCATTER_REDUCES = {"add": "sum", "multiply": "prod"}
_SCATTER_REDUCE_TWO = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
                       "max": "amax", "min": "amin"}
_warned_once = set()


def scatter_checks(self, dim, index, src, reduce=None, new_reduce=False):
    """`scatter_meta_impl`: dtypes, then shapes (ScatterGatherChecks.h), then the reduce name."""
    dim = normalize_dim(dim, self.dim())
    if index.numel() != 0 and index.dtype not in (int64, int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and self.dtype is not src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() != 0:
        if nonempty_dim(self) != nonempty_dim(index):
            raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
        wrong = any(d != dim and nonempty_size(index, d) > nonempty_size(self, d) for d in range(nonempty_dim(self)))
        if isinstance(src, Tensor):
            wrong = wrong or any(nonempty_size(index, d) > nonempty_size(src, d) for d in range(nonempty_dim(self)))
            if nonempty_dim(src) != nonempty_dim(index):
                raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
            if wrong:
                raise RuntimeError(f"Expected index {shape_str(index._sizes)} to be no larger than self "
                                   f"{shape_str(self._sizes)} apart from dimension {dim} and to be no larger size "
                                   f"than src {shape_str(src._sizes)}")
        elif wrong:
            raise RuntimeError(f"Expected index {shape_str(index._sizes)} to be no larger than self "
                               f"{shape_str(self._sizes)} apart from dimension {dim}")
    if reduce is not None:
        table = _SCATTER_REDUCE_TWO if new_reduce else _SCATTER_REDUCES
        if reduce not in table:
            if new_reduce:
                raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
            raise RuntimeError("reduce argument must be either add or multiply.")
        return dim, table[reduce]
    return dim, None


def scatter_positions(xp, index, dim):
    """For each element of `index`, the coordinates it writes to in self: its own, with `dim` replaced by its
    value (`self[i][index[i][j][k]][k] = src[i][j][k]` for dim 1)."""
    idx = as_nonempty(index._data()).astype(np.int64)
    # NumPy's `indices(shape, sparse=True)` (CuPy has no `sparse=`): one broadcastable arange per dim
    coords = [xp.arange(n).reshape([n if d == k else 1 for k in range(idx.ndim)]) for d, n in enumerate(idx.shape)]
    coords[dim] = idx
    return tuple(coords), idx


def scatter_into(self, dim, index, src, reduce=None, include_self=True):
    """The new contents of `self` after scattering `src` (a tensor or a number), as an array; None on meta."""
    if is_meta(self, index, src):
        return None
    xp = xp_for(self)
    out = as_nonempty(self._data()).copy()
    if index.numel() == 0:
        return out.reshape(self._sizes)
    positions, idx = scatter_positions(xp, index, dim)
    check_dim_bounds(idx, dim, out.shape[dim])
    if isinstance(src, Tensor):
        values = as_nonempty(src._data())[tuple(slice(0, n) for n in idx.shape)]
    else:
        values = xp.broadcast_to(checked_scalar(src, self.dtype, xp), idx.shape)
    if reduce is None:
        out[positions] = values
        return out.reshape(self._sizes)
    if reduce == "mean" and self.dtype is bool_:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    if not include_self:
        # the positions written to start from the reduction's identity instead of self's value
        out[positions] = _reduce_identity(reduce, self.dtype)
    ufunc = {"sum": "add", "prod": "multiply", "mean": "add", "amax": "maximum", "amin": "minimum"}[reduce]
    if self.dtype is bool_ and reduce in ("sum", "prod"):
        ufunc = "logical_or" if reduce == "sum" else "logical_and"
    ufunc_at(xp, ufunc, out, positions, values)
    if reduce == "mean":
        count = xp.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        ufunc_at(xp, "add", count, positions, xp.ones(values.shape, dtype=np.int64))
        count = xp.maximum(count, 1)
        if self.dtype.is_floating_point:
            out = (out / count).astype(out.dtype)
        else:
            out = xp.floor_divide(out, count).astype(out.dtype)
    return out.reshape(self._sizes)


def _reduce_identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype.numpy) if dtype is not bool_ else None
    if info is None:
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


class ScatterKernel:
    """The functional, in-place and out kernels of one scatter overload (a trace shows
    `ScatterKernel('scatter.reduce').inplace`).

    Every overload has the arguments (self, dim, index, src-or-value, [reduce], [include_self]): `reduce_kind`
    says whether a `reduce` argument follows (and which warning it gets), `new_reduce` whether
    `include_self` follows it (scatter_reduce.two), `fixed_reduce` the reduction of an overload without one
    (scatter_add).
    """

    def __init__(self, name, reduce_kind=None, new_reduce=False, fixed_reduce=None):
        self.name, self.reduce_kind, self.new_reduce, self.fixed_reduce = name, reduce_kind, new_reduce, fixed_reduce

    def __repr__(self):
        return f"ScatterKernel({self.name!r})"

    def args_of(self, rest):
        src = rest[0]
        reduce = self.fixed_reduce
        include_self = True
        if self.reduce_kind is not None:
            reduce = rest[1]
            if self.new_reduce:
                include_self = rest[2]
        return src, reduce, include_self

    def compute(self, input, dim, index, rest, target):
        src, reduce, include_self = self.args_of(rest)
        dim, op = scatter_checks(input, dim, index, src, reduce, self.new_reduce)
        if target is not None:
            check_writable(target)
            assert_no_overlap(target, index)
            assert_no_overlap(target, src)
        if self.reduce_kind == "tensor_reduce" and not self.new_reduce and "scatter_reduce" not in _warned_once:
            _warned_once.add("scatter_reduce")
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in "
                          "a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
                          UserWarning, stacklevel=5)
        return scatter_into(input, dim, index, src, op, include_self)

    def functional(self, ks, input, dim, index, *rest):
        result = self.compute(input, dim, index, rest, None)
        if result is None:
            return empty(input._sizes, input.dtype, input.device)
        return wrap(result, input.dtype, input.device)

    def inplace(self, ks, input, dim, index, *rest):
        result = self.compute(input, dim, index, rest, input)
        if result is not None:
            write(input, result)
        return input

    def out(self, ks, input, dim, index, *rest):
        *rest, out = rest
        result = self.compute(input, dim, index, rest, None)
        check_out_dtype(out, input.dtype)
        return finish_out(out, result, input._sizes)


# ---- index_add_ / index_copy_ / index_fill_: whole slices along one dim ---------------------------------------


def _slice_positions(ndim, dim, idx):
    """The NumPy index for "the slices `idx` along `dim`": (:, :, idx, :)."""
    return (slice(None),) * dim + (idx,)


def index_add_compute(self, dim, index, source, alpha):
    dim = normalize_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{index.dtype._ptname} and size: {shape_str(index._sizes)}")
    if index.dtype not in (int64, int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {index.dtype._ptname}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"index_add_(): self ({self.dtype._ptname}) and source ({source.dtype._ptname}) must have "
                           "the same scalar type")
    if not (dim == 0 or dim < source.dim()):
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.dim()}")
    n = 1 if source.dim() == 0 else source._sizes[dim]
    if index.numel() != n:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({n}), for dim: {dim}")
    self_rest = self._sizes[:dim] + self._sizes[dim + 1:]
    source_rest = source._sizes[:dim] + source._sizes[dim + 1:]
    if self.dim() > 0 and source.dim() > 0 and self_rest != source_rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {shape_str(self._sizes)} source.shape = {shape_str(source._sizes)}")
    if is_meta(self, index, source):
        return None, dim
    xp = xp_for(self)
    idx = index._data().reshape(-1)
    size = self._sizes[dim] if self.dim() else 1
    check_dim_bounds(idx, dim, size)
    out = as_nonempty(self._data()).copy()
    values = as_nonempty(source._data())
    if alpha != 1:
        values = values * checked_scalar(alpha, self.dtype, xp)
    if self.dtype is bool_:
        ufunc_at(xp, "logical_or", out, _slice_positions(out.ndim, dim, idx), values)
    else:
        ufunc_at(xp, "add", out, _slice_positions(out.ndim, dim, idx), values.astype(out.dtype))
    return out.reshape(self._sizes), dim


def index_add_kernel(ks, self, dim, index, source, alpha=1):
    result, _ = index_add_compute(self, dim, index, source, alpha)
    return empty(self._sizes, self.dtype, self.device) if result is None else wrap(result, self.dtype,
                                                                                    self.device)


def index_add__kernel(ks, self, dim, index, source, alpha=1):
    check_writable(self)
    assert_no_overlap(self, index)
    assert_no_overlap(self, source)
    result, _ = index_add_compute(self, dim, index, source, alpha)
    if result is not None:
        write(self, result)
    return self


def index_add_out_kernel(ks, self, dim, index, source, alpha, out):
    result, _ = index_add_compute(self, dim, index, source, alpha)
    check_out_dtype(out, self.dtype)
    return finish_out(out, result, self._sizes)


def index_add_kernels():
    return index_add_kernel, index_add__kernel, index_add_out_kernel


def index_copy_compute(self, dim, index, source):
    dim = normalize_dim(dim, self.dim())
    if index.dim() >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.dim() != self.dim() and source.dim() != 0 and self.dim() != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.dim()}), destination dimensionality ({self.dim()})")
    if index.dtype is not int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index.dtype._ptname}")
    if self.dtype is not source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{self.dtype._ptname} and (source) {source.dtype._ptname}")
    self_rest = list(self._sizes[:dim] + self._sizes[dim + 1:])
    source_rest = list(source._sizes[:dim] + source._sizes[dim + 1:])
    if self_rest != source_rest:
        # (the shapes are printed the way C++ prints a std::vector: "2 4")
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, self_rest))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, source_rest))} at dimension 0.")
    if source.dim() != 0 and n != source._sizes[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source._sizes[dim]})")
    if is_meta(self, index, source):
        return None
    idx = index._data().reshape(-1)
    size = self._sizes[dim] if self.dim() else 1
    outside = (idx < 0) | (idx >= size)
    if outside.any():
        bad = int(idx[int(outside.argmax())])
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    out = as_nonempty(self._data()).copy()
    out[_slice_positions(out.ndim, dim, idx)] = as_nonempty(source._data())
    return out.reshape(self._sizes)


def index_copy_kernel(ks, self, dim, index, source):
    result = index_copy_compute(self, dim, index, source)
    return empty(self._sizes, self.dtype, self.device) if result is None else wrap(result, self.dtype,
                                                                                    self.device)


def index_copy__kernel(ks, self, dim, index, source):
    check_writable(self)
    assert_no_overlap(self, index)
    assert_no_overlap(self, source)
    result = index_copy_compute(self, dim, index, source)
    if result is not None:
        write(self, result)
    return self


def index_copy_kernels():
    return index_copy_kernel, index_copy__kernel


def index_fill__kernel(ks, self, dim, index, value):
    """`index_fill_(dim, index, value)`: the slices `index` along `dim` become `value`; negative indices count
    from the end."""
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    if index.dtype is not int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    assert_no_overlap(self, index)
    warn_if_expanded(self, "index_fill_", "tensor[mask] = scalar")
    dim = normalize_dim(dim, max(self.dim(), 1))
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    value = checked_scalar(value, self.dtype)
    if is_meta(self, index):
        return self
    idx = index._data().reshape(-1)
    size = self._sizes[dim] if self.dim() else 1
    outside = (idx < -size) | (idx >= size)
    if outside.any():
        bad = int(idx[int(outside.argmax())])
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    target = self if self.dim() else _as_1d(self)
    write_elements(target, _slice_positions(target.dim(), dim, idx), value)
    return self


def index_fill_kernel(ks, self, dim, index, value):
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return index_fill__kernel(ks, out, dim, index, value)
