"""Sorting kernels: sort, argsort, topk, kthvalue, unique.

Each works along one dim and returns values together with *indices*: where each value came from along that
dim (int64), so `x.gather(dim, indices)` gives the values back.

How PyTorch does it (aten/src/ATen/native/Sorting.cpp, TensorCompare.cpp, Unique.cpp, cpu/SortingKernel.cpp):

* `sort` allocates its outputs laid out like the input (dense strides in the input's memory order), copies
  the input into `values`, and sorts each slice in place along `dim`. NaN counts as larger than every
  number, so it goes last (first with `descending=True`). On the cpu the sort is stable, so equal values
  keep their order (`stable=True` only makes that a promise).
* `topk` and `kthvalue` use a partial sort (`std::nth_element` / `std::partial_sort`) per slice; their
  results are contiguous. Which of several *equal* values they report, and the order of `topk(...,
  sorted=False)`, depend on that algorithm and are not promised.
* `unique` sorts the flattened input (or the slices along `dim`) and keeps the first of each run.

Here a stable NumPy argsort does the work. Descending order reverses the slice, sorts it stably, and maps
the indices back, so equal values still keep their original order.
"""

import numpy as np

from .._dtype import bool_, int64
from .._strides import contiguous_strides, normalize_dim
from ..backends import empty, wrap
from ..backends import preserve_strides
from .indexing import finish_out, fresh, is_meta, xp_for


def stable_argsort(xp, a, axis, descending=False):
    """Indices that sort `a` along `axis`, equal values in their original order, NaN as the largest value."""
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    # reverse, sort ascending, reverse back: largest first, and equal values still in their original order
    n = a.shape[axis]
    order = xp.flip(xp.argsort(xp.flip(a, axis), axis=axis, kind="stable"), axis)
    return (n - 1) - order


def _as_nonempty(a):
    return a.reshape(1) if a.ndim == 0 else a


def sort_compute(self, dim, descending):
    """(values, indices) arrays of `self` sorted along `dim`; None on the meta device."""
    if is_meta(self):
        return None, None
    xp = xp_for(self)
    a = _as_nonempty(self._data())
    indices = stable_argsort(xp, a, dim, descending)
    values = xp.take_along_axis(a, indices, axis=dim)
    return values.reshape(self._sizes), indices.reshape(self._sizes)


def sort_kernel(ks, self, stable=None, dim=-1, descending=False):
    dim = normalize_dim(dim, self.dim())
    strides = preserve_strides(self)       # dense, in the input's memory order (sort's meta function)
    values, indices = sort_compute(self, dim, descending)
    if values is None:
        return (empty(self._sizes, self.dtype, self.device, strides),
                empty(self._sizes, int64, self.device, strides))
    return fresh(values, self.dtype, self.device, strides), fresh(indices.astype(np.int64), int64, self.device,
                                                                  strides)


def check_out_pair(values_out, indices_out, dtype):
    from .indexing import check_out_dtype
    check_out_dtype(values_out, dtype)
    check_out_dtype(indices_out, int64)


def sort_out_kernel(ks, self, stable, dim, descending, values_out, indices_out):
    dim = normalize_dim(dim, self.dim())
    check_out_pair(values_out, indices_out, self.dtype)
    values, indices = sort_compute(self, dim, descending)
    strides = preserve_strides(self)
    finish_out(values_out, values, self._sizes, strides)
    finish_out(indices_out, indices, self._sizes, strides)
    return values_out, indices_out


def topk_compute(self, k, dim, largest):
    dim = normalize_dim(dim, self.dim())
    size = self._sizes[dim] if self.dim() else 1
    if k < 0 or k > size:
        raise RuntimeError("selected index k out of range")
    if self.dtype is bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    sizes = list(self._sizes)
    if sizes:
        sizes[dim] = k
    sizes = tuple(sizes)
    if is_meta(self):
        return None, None, sizes
    xp = xp_for(self)
    if self.dim() == 0:          # a 0-d input is its own top-1 (and, oddly, its own top-0)
        return self._data().copy(), xp.zeros((), np.int64), sizes
    a = _as_nonempty(self._data())
    order = stable_argsort(xp, a, dim, descending=largest)
    indices = xp.take(order, xp.arange(k), axis=dim)
    values = xp.take_along_axis(a, indices, axis=dim)
    return values.reshape(sizes), indices.reshape(sizes).astype(np.int64), sizes


def topk_kernel(ks, self, k, dim=-1, largest=True, sorted=True):
    values, indices, sizes = topk_compute(self, k, dim, largest)
    if values is None:
        return empty(sizes, self.dtype, self.device), empty(sizes, int64, self.device)
    return wrap(values, self.dtype, self.device), wrap(indices, int64, self.device)


def topk_out_kernel(ks, self, k, dim, largest, sorted, values_out, indices_out):
    values, indices, sizes = topk_compute(self, k, dim, largest)
    check_out_pair(values_out, indices_out, self.dtype)
    finish_out(values_out, values, sizes)
    finish_out(indices_out, indices, sizes)
    return values_out, indices_out


def quick_select(values, indices, k):
    """PyTorch's `quick_select_template` (aten/src/ATen/native/SortingUtils.h), on Python lists, in place.

    Afterwards position k holds the k-th smallest value (NaN counting as the largest) and `indices[k]` where
    it came from. Unlike a sort it only works on the part that still contains position k: pick a pivot
    (median of three), move the smaller values left of it and the larger right, keep the side with k.
    Which of several equal values lands on k is decided by this exact sequence of swaps, so it is ported
    step by step: that is how `kthvalue` reports the same index as PyTorch.
    """
    def gt(x, y):                      # "x > y", with NaN greater than everything
        return (x != x and y == y) or x > y

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    left, right = 0, len(values) - 1
    while True:
        if right <= left:                                      # one element
            return
        if right == left + 1:                                  # two elements
            if gt(values[left], values[right]):
                swap(left, right)
            return
        middle = left + (right - left) // 2                    # median of three as the pivot, kept at `left`
        swap(middle, left + 1)
        if gt(values[left + 1], values[right]):
            swap(left + 1, right)
        if gt(values[left], values[right]):
            swap(left, right)
        if gt(values[left + 1], values[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, values[left]
        while True:                                            # partition around the pivot
            i += 1
            while gt(pivot, values[i]):
                i += 1
            j -= 1
            while gt(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def kthvalue_compute(self, k, dim, keepdim):
    dim = normalize_dim(dim, self.dim())
    size = self._sizes[dim] if self.dim() else 1
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {dim} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    if self.dtype is bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    sizes = list(self._sizes)
    if sizes:
        if keepdim:
            sizes[dim] = 1
        else:
            del sizes[dim]
    sizes = tuple(sizes)
    if is_meta(self):
        return None, None, sizes
    xp = xp_for(self)
    rows = xp.moveaxis(_as_nonempty(self._data()), dim, -1).reshape(-1, size)
    values = xp.empty(rows.shape[0], self.dtype.numpy)
    indices = xp.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows.tolist()):          # one quickselect per slice along `dim`
        order = list(range(size))
        quick_select(row, order, k - 1)
        values[r], indices[r] = row[k - 1], order[k - 1]
    return values.reshape(sizes), indices.reshape(sizes), sizes


def kthvalue_kernel(ks, self, k, dim=-1, keepdim=False):
    values, indices, sizes = kthvalue_compute(self, k, dim, keepdim)
    if values is None:
        return empty(sizes, self.dtype, self.device), empty(sizes, int64, self.device)
    return wrap(values, self.dtype, self.device), wrap(indices, int64, self.device)


def kthvalue_out_kernel(ks, self, k, dim, keepdim, values_out, indices_out):
    if values_out.dtype is not self.dtype:
        raise RuntimeError("output values must be of same type as input")
    if indices_out.dtype is not int64:
        raise RuntimeError("output indices must be of scalar type Long")
    values, indices, sizes = kthvalue_compute(self, k, dim, keepdim)
    finish_out(values_out, values, sizes)
    finish_out(indices_out, indices, sizes)
    return values_out, indices_out


# ---- unique -----------------------------------------------------------------------------------------------------


def _empty_long(xp):
    return xp.zeros((0,), np.int64)


def _dim_first_layout(values, dim, self):
    """PyTorch computes `unique(dim=d)` on the input with dim d moved to the front, then moves it back: the
    result is laid out with dim d outermost (`unique(dim=1)` of a matrix is a transposed tensor)."""
    moved = (values.shape[dim],) + values.shape[:dim] + values.shape[dim + 1:]
    moved_strides = contiguous_strides(moved)
    strides = moved_strides[1:dim + 1] + moved_strides[:1] + moved_strides[dim + 1:]
    return fresh(values, self.dtype, self.device, strides)


def unique_kernel(ks, self, sorted=True, return_inverse=False, return_counts=False):
    """`_unique2`: the distinct values of the flattened input in ascending order (each NaN counts as
    distinct, as in PyTorch), the position of each input element among them, and how often each occurs."""
    if is_meta(self):
        raise NotImplementedError("aten::_unique2: the result's size depends on the values, which a meta tensor "
                                  "does not have")
    xp = xp_for(self)
    values, inverse, counts = xp.unique(self._data().reshape(-1), return_inverse=True, return_counts=True,
                                        equal_nan=False)
    return (wrap(values, self.dtype, self.device),
            wrap(inverse.reshape(self._sizes) if return_inverse else _empty_long(xp), int64, self.device),
            wrap(counts if return_counts else _empty_long(xp), int64, self.device))


def _check_unique_dim(self, dim):
    """Slices along `dim` with no elements cannot be compared; PyTorch refuses, or returns nothing."""
    zero_dims = sum(1 for s in self._sizes if s == 0)
    if self._sizes[dim] == 0:
        if zero_dims != 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        return True
    if zero_dims:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    return False


def _nothing_unique(self):
    return (empty(self._sizes, self.dtype, self.device), empty((0,), int64, self.device),
            empty((0,), int64, self.device))


def unique_dim_kernel(ks, self, dim, sorted=True, return_inverse=False, return_counts=False):
    """`unique_dim`: the distinct slices along `dim`, in lexicographic order."""
    dim = normalize_dim(dim, self.dim())
    if _check_unique_dim(self, dim):
        return _nothing_unique(self)
    if is_meta(self):
        raise NotImplementedError("aten::unique_dim: the result's size depends on the values")
    xp = xp_for(self)
    a = self._data()
    if a.dtype == np.bool_:
        # CuPy orders the slices by subtracting them (cupy/_manipulation/add_remove.py `unique`), which it
        # refuses for bools: compare them as 0 and 1
        a = a.astype(np.uint8)
    values, inverse, counts = xp.unique(a, axis=dim, return_inverse=True, return_counts=True)
    values = values.astype(self.dtype.numpy, copy=False)
    return (_dim_first_layout(values, dim, self),
            wrap(inverse.reshape(-1) if return_inverse else _empty_long(xp), int64, self.device),
            wrap(counts if return_counts else _empty_long(xp), int64, self.device))


def unique_consecutive_kernel(ks, self, return_inverse=False, return_counts=False, dim=None):
    """`unique_consecutive`: collapse each run of equal consecutive values (or slices along `dim`)."""
    if is_meta(self):
        raise NotImplementedError("aten::unique_consecutive: the result's size depends on the values")
    xp = xp_for(self)
    if dim is None:
        a = self._data().reshape(-1)
        axis = 0
    else:
        axis = normalize_dim(dim, self.dim())
        if _check_unique_dim(self, axis):
            return _nothing_unique(self)
        a = xp.moveaxis(self._data(), axis, 0)
    n = a.shape[0]
    if n == 0:
        starts = xp.zeros((0,), dtype=bool)
    else:
        equal = a[1:] == a[:-1]               # each slice against the one before it
        same = equal.reshape(n - 1, int(np.prod(a.shape[1:]))).all(axis=1) if a.ndim > 1 else equal
        starts = xp.concatenate([xp.ones((1,), dtype=bool), ~same])
    first = xp.nonzero(starts)[0]
    values = a[first]
    if dim is not None:
        values = xp.moveaxis(values, 0, axis)
    inverse = xp.cumsum(starts) - 1
    counts = xp.diff(xp.concatenate([first, xp.asarray([n])]))
    inverse_shape = self._sizes if dim is None else (n,)
    return (_dim_first_layout(values, axis, self) if dim is not None else wrap(values, self.dtype, self.device),
            wrap(inverse.reshape(inverse_shape) if return_inverse else _empty_long(xp), int64, self.device),
            wrap(counts if return_counts else _empty_long(xp), int64, self.device))
