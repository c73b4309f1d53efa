# Over 600 lines: reading and writing through advanced indices share one index-normalisation pipeline
# (aten/src/ATen/native/TensorAdvancedIndexing.cpp).
"""Indexing kernels: reading and writing the elements that index tensors point at.

Basic indexing (`x[1:, 0]`) only changes (offset, sizes, strides), so it gives views (ops/views.py). Every op
here instead picks elements that no single (offset, strides) can describe, so it **copies** them into a fresh
tensor (reading: `index`, `index_select`, `gather`, `masked_select`, `take`, `nonzero`) or **writes** them into an
existing one (`index_put_`, `scatter_`, `index_add_`, `index_copy_`, `index_fill_`, `masked_fill_`,
`masked_scatter_`, `put_`).

How PyTorch does it (aten/src/ATen/native/TensorAdvancedIndexing.cpp, IndexingUtils.h, IndexKernel.cpp,
ScatterGatherChecks.h, cpu/ScatterGatherKernel.cpp):

* `x[idx]` becomes `aten::index(x, [idx, None, ...])`. `make_info` turns bool masks into long indices
  (`mask.nonzero()`), broadcasts all index tensors together, and, if they are not next to each other,
  moves the indexed dims to the front (NumPy's rule). `AdvancedIndex` then *restrides* `x`: each indexed dim
  gets stride 0, and a TensorIterator runs over the result, the restrided `x` and the indices, computing
  each element's address as `&x[...] + idx_1 * x.stride(d_1) + idx_2 * x.stride(d_2) + ...`. Because it is
  a TensorIterator, the result is laid out like its inputs, not always contiguous.
* Writes (`x[idx] = v`, `index_put_`) run the same iterator the other way round.
* `gather` / `scatter` pair each element of `index` with one element of `self`, along one dim.

Here each kernel does the meta step (checks, result shape and strides) with PyTorch's error messages, then
computes with NumPy's (or CuPy's) fancy indexing, which follows the same rules. A write never touches a
tensor's array directly: `write_elements` computes the new contents and hands them to `backends.write`.
"""

import warnings

import numpy as np

from .._dtype import CONVERT_NAMES, TYPEMETA_NAMES, bool_, checked_convert, int32, int64, uint8
from .._strides import (
    broadcast_shapes, compute_view_strides, contiguous_strides, has_internal_overlap, is_non_overlapping_and_dense,
    normalize_dim, pointwise_output_strides,
)
from .._tensor import Tensor
from ..backends import ARRAY_MODULES, check_writable, empty, preserve_strides, wrap, wrap_strided, write
from ..backends.differences import ufunc_at

# ---- small shared pieces --------------------------------------------------------------------------------

# The names C++ gives each dtype in messages built from `caffe2::TypeMeta` (`... with dtype unsigned char`).
CPP_TYPE_NAMES = TYPEMETA_NAMES
OVERFLOW_TYPE_NAMES = CONVERT_NAMES


def shape_str(sizes):
    """A shape as c10 prints it: `[2, 3]`."""
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def xp_for(t):
    return ARRAY_MODULES[t._storage.device.type]


def array_module(array):
    """The array module (NumPy or CuPy) an array belongs to."""
    for xp in ARRAY_MODULES.values():
        if isinstance(array, xp.ndarray):
            return xp
    return np


def is_meta(*tensors):
    """On the meta device a tensor has no elements: kernels work out shapes, dtypes and strides only."""
    return any(isinstance(t, Tensor) and t._storage._data is None for t in tensors)


def fresh(array, dtype, device, strides=None):
    """A result tensor over a freshly computed array, with `strides` (None: contiguous).

    An array that does not own its memory may be a view of an input (NumPy's `flip` is one): copy it, so
    that a result never shares an input's storage."""
    if not array.flags.owndata:
        array = array.copy()
    if strides is None or strides == contiguous_strides(array.shape):
        return wrap(array, dtype, device)
    return wrap_strided(array, dtype, device, tuple(strides))


def check_out_dtype(out, dtype):
    """A structured kernel's `out=` check (TensorIteratorBase / set_output): the dtype must be the result's."""
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {CPP_TYPE_NAMES[dtype.name]}, but got "
                           f"{CPP_TYPE_NAMES[out.dtype.name]} instead")


def finish_out(out, result, shape, strides=None):
    """Write a computed `result` array into `out=`, resizing it first when its shape is wrong (with PyTorch's
    deprecation warning when it had elements); a resized `out` gets `strides` (default: contiguous)."""
    from .pointwise import resize_out
    shape = tuple(shape)
    if out._sizes != shape:
        resize_out(out, shape)
        if strides is not None:
            fresh_out = empty(shape, out.dtype, out.device, strides)
            out._set_metadata(fresh_out._storage, 0, fresh_out._sizes, fresh_out._strides)
    if result is not None and out._storage._data is not None:
        write(out, result)
    return out


# ---- numbers: c10's checked conversion of a Scalar ----------------------------------------------------------


def checked_scalar(value, dtype, xp=np):
    """`value` (a Python number or a 0-dim tensor) converted to `dtype`, as c10's `Scalar::to<T>()` does.

    The conversion refuses values the type cannot hold (`_dtype.checked_convert`): `masked_fill(mask, 300)` on
    a uint8 tensor raises. Two quirks are PyTorch's own: an integer may wrap into an unsigned type if its
    magnitude fits (`-1` becomes 255), and anything converts to bool.
    """
    return xp.asarray(checked_convert(value, dtype)).astype(dtype.numpy)


# ---- memory overlap (aten/src/ATen/MemoryOverlap.cpp) --------------------------------------------------------

_OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to "
                    "a single memory location. Please clone() the tensor before performing the operation.")


def overlap_status(a, b):
    """Do `a` and `b` share memory? "full" (the same elements), "partial", "no", or "too_hard" to say."""
    if a is b:
        return "full"
    if a.numel() == 0 or b.numel() == 0:
        return "no"
    if not is_non_overlapping_and_dense(a._sizes, a._strides) or not is_non_overlapping_and_dense(b._sizes,
                                                                                                   b._strides):
        return "too_hard"
    if a._storage is b._storage:
        a_begin, a_end = a._offset, a._offset + a.numel()
        b_begin, b_end = b._offset, b._offset + b.numel()
        if a_begin == b_begin and a_end == b_end:
            return "full" if a._strides == b._strides else "partial"
        if a_begin < b_end and b_begin < a_end:
            return "partial"
    return "no"


def assert_no_overlap(written, read):
    """Refuse an input that shares any memory with the tensor being written (PyTorch's assert_no_overlap)."""
    if isinstance(read, Tensor) and overlap_status(written, read) in ("full", "partial"):
        raise RuntimeError(_OVERLAP_MESSAGE)


def assert_no_partial_overlap(written, read):
    if isinstance(read, Tensor) and overlap_status(written, read) == "partial":
        raise RuntimeError(_OVERLAP_MESSAGE)


def warn_if_expanded(self, op_name, example):
    """Some ops write into expanded tensors with only a deprecation warning (`index_put_`, `masked_fill_`)."""
    if has_internal_overlap(self._sizes, self._strides):
        warnings.warn(f"Use of {op_name} on expanded tensors is deprecated. Please clone() the tensor before "
                      f"performing this operation. This also applies to advanced indexing e.g. {example}",
                      UserWarning, stacklevel=5)


# ---- writing chosen elements --------------------------------------------------------------------------------


def element_addresses(t, xp):
    """Where each element of `t` lives in its storage: `offset + i0 * stride[0] + i1 * stride[1] + ...`."""
    addresses = xp.full(t._sizes, t._offset, dtype=xp.int64)
    for d, (size, stride) in enumerate(zip(t._sizes, t._strides)):
        shape = [1] * len(t._sizes)
        shape[d] = size
        addresses = addresses + (xp.arange(size, dtype=xp.int64) * stride).reshape(shape)
    return addresses


def write_elements(dst, index, values, accumulate=False):
    """`dst[index] = values` (or `+=` with `accumulate`, duplicates adding up), in place, via backends.write.

    `index` is anything NumPy can index with (a tuple of slices and integer arrays, or a bool mask). The new
    contents of `dst` are computed in a copy first, then written in one go, so the elements outside `index`
    are written back unchanged and an error never leaves a half-written target.
    """
    if dst._storage._data is None:
        return
    xp = xp_for(dst)
    if not has_internal_overlap(dst._sizes, dst._strides):
        new = dst._data().copy()
        if accumulate:
            ufunc_at(xp, "add", new, index, values)
        else:
            new[index] = values
        write(dst, new)
        return
    # An expanded target (PyTorch allows it here, with a warning): several of its elements are one memory
    # cell, so the writes are made to the storage cells themselves, the last write to a cell winning, as in
    # PyTorch's element-by-element loop. They go through a dense 1-d alias of the cells concerned.
    addresses = element_addresses(dst, xp)[index]
    if addresses.size == 0:
        return
    low, high = int(addresses.min()), int(addresses.max())
    cells = Tensor._make(dst._storage, low, (high - low + 1,), (1,), dst.dtype)
    new = cells._data().copy()
    values = xp.broadcast_to(xp.asarray(values, dtype=dst.dtype.numpy), addresses.shape)
    if accumulate:
        ufunc_at(xp, "add", new, (addresses - low).ravel(), values.ravel())
    else:
        new[(addresses - low).ravel()] = values.ravel()
    write(cells, new)


# ---- advanced indexing: x[idx], x[idx] = v ------------------------------------------------------------------


class IndexOperand:
    """One index tensor as the indexing kernels use it: its values (an int64 array) and its geometry.

    The geometry (sizes, strides) matters only for the *strides of the result*: PyTorch's TensorIterator
    lays the result out like its operands, the index tensors included.
    """

    __slots__ = ("values", "sizes", "strides")

    def __init__(self, values, sizes, strides):
        self.values, self.sizes, self.strides = values, tuple(sizes), tuple(strides)

    @classmethod
    def of(cls, t):
        return cls(None if t._storage._data is None else t._data(), t._sizes, t._strides)

    def expand(self, shape):
        """Broadcast to `shape` (a view: broadcast dims get stride 0), as `expand_outplace` does."""
        if self.sizes == shape:
            return self
        lead = len(shape) - len(self.sizes)
        strides = [0] * lead + [st if sz == n else 0 for sz, st, n in zip(self.sizes, self.strides, shape[lead:])]
        values = None if self.values is None else array_module(self.values).broadcast_to(self.values, shape)
        return IndexOperand(values, shape, strides)

    def to_long(self):
        """int32 indices become int64 ones (`index.to(kLong)`: a copy laid out like the original)."""
        strides = self.strides if is_non_overlapping_and_dense(self.sizes, self.strides) else \
            pointwise_output_strides(self.sizes, [(self.sizes, self.strides)])
        values = None if self.values is None else self.values.astype(np.int64)
        return IndexOperand(values, self.sizes, strides)


def check_index_types(indices):
    for index in indices:
        if index is not None and index.dtype not in (int64, int32, uint8, bool_):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def nonzero_array(xp, values):
    """The (n, ndim) coordinates of the nonzero elements, in row-major (logical) order."""
    return xp.stack(xp.nonzero(values), axis=1) if values.ndim else xp.zeros((int(bool(values)), 0), xp.int64)


def expand_masks(self, indices):
    """Bool and uint8 masks become long indices, one per mask dim: the columns of `mask.nonzero()`.

    PyTorch's `expandTensors` (IndexingUtils.h): a mask indexes as many dims as it has, and must match
    their sizes exactly.
    """
    result = []
    for index in indices:
        if index is None or index.dtype not in (bool_, uint8):
            result.append(None if index is None else IndexOperand.of(index))
            continue
        if index.dtype is uint8:
            warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                          UserWarning, stacklevel=5)
        for j in range(index.dim()):
            src = normalize_dim(len(result) + j, self.dim())
            if index._sizes[j] != self._sizes[src]:
                raise IndexError(
                    f"The shape of the mask {shape_str(index._sizes)} at index {j} does not match the shape of the "
                    f"indexed tensor {shape_str(self._sizes)} at index {src}")
        if is_meta(index):
            raise NotImplementedError("aten::nonzero: a bool mask needs its values to know the result's shape, "
                                      "and a meta tensor has none")
        coords = nonzero_array(xp_for(index), index._data())
        n = coords.shape[0]
        for j in range(index.dim()):
            # nonzero() is laid out column by column (strides (1, n)), so each column has stride 1
            result.append(IndexOperand(coords[:, j].astype(np.int64), (n,), (1,)))
    return result


class AdvancedIndex:
    """What PyTorch's `make_info` + `AdvancedIndex` work out for `self[indices]` (TensorAdvancedIndexing.cpp).

    indices       one IndexOperand (or None) per dim of self, broadcast together, int64
    numpy_index   the same as a NumPy index: a slice for each dim that is not indexed
    shape         the result's shape; `strides` its strides (TensorIterator's choice)
    order         the dims of self with the indexed ones first when they were not adjacent (transposeToFront)
    indexed_sizes the sizes of the indexed dims, in that order: the bounds of each index
    """

    def __init__(self, self_, indices):
        check_index_types(indices)
        operands = expand_masks(self_, indices)
        defined = [i for i in operands if i is not None]
        try:
            shape = broadcast_shapes(*(i.sizes for i in defined))
        except RuntimeError:
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                             + ", ".join(shape_str(i.sizes) for i in defined)) from None
        operands = [None if i is None else i.expand(shape) for i in operands]
        operands += [None] * (self_.dim() - len(operands))
        # Not next to each other (x[idx, :, idx]): the indexed dims go to the front, NumPy's rule.
        where = [d for d, i in enumerate(operands) if i is not None]
        self.order = list(range(self_.dim()))
        if where and where[-1] - where[0] + 1 != len(where):
            self.order = where + [d for d in range(self_.dim()) if d not in where]
        # int32 indices become int64 ones (`index.to(kLong)`)
        self.indices = [i.to_long() if i is not None and i.values is not None and i.values.dtype != np.int64
                        else i for i in operands]
        # NumPy's fancy indexing follows the same rules, so this tuple computes the same elements
        self.numpy_index = tuple(slice(None) if i is None else i.values for i in self.indices)
        # Below, self seen with its dims in `order`: `before` plain dims, the indexed ones, `after` plain dims
        sizes = [self_._sizes[d] for d in self.order]
        strides = [self_._strides[d] for d in self.order]
        ordered = [self.indices[d] for d in self.order]
        first = next(k for k, i in enumerate(ordered) if i is not None) if defined else 0
        n_indexed = len(where)
        before, after = first, len(ordered) - first - n_indexed
        self.indexed_sizes = [sizes[k] for k in range(first, first + n_indexed)]
        if 0 in self.indexed_sizes and 0 not in shape:
            raise IndexError("index is out of bounds for dimension with size 0")
        # The restrided self: the indexed dims replaced by the index shape, with stride 0 ...
        src_sizes = tuple(sizes[:before]) + shape + tuple(sizes[first + n_indexed:])
        src_strides = tuple(strides[:before]) + (0,) * len(shape) + tuple(strides[first + n_indexed:])
        # ... and each index viewed with size-1 dims around it, so all operands line up with the result.
        operand_layouts = [(src_sizes, src_strides)]
        for i in ordered[first:first + n_indexed]:
            view_sizes = (1,) * before + shape + (1,) * after
            view_strides = compute_view_strides(i.sizes, i.strides, view_sizes) or contiguous_strides(view_sizes)
            operand_layouts.append((view_sizes, view_strides))
        self.shape = src_sizes
        self.strides = pointwise_output_strides(src_sizes, operand_layouts)
        self.ordered_indices = ordered[first:first + n_indexed]

    def check_bounds(self, xp):
        """Each index within its dim's size; negative ones count from the end (IndexKernel.cpp's message)."""
        bad = []
        for i, (index, size) in enumerate(zip(self.ordered_indices, self.indexed_sizes)):
            if index.values is None:
                continue
            outside = (index.values < -size) | (index.values >= size)
            if outside.any():
                bad.append((int(xp.argmax(outside.ravel())), i, index, size))
        if bad:
            # The first element, in order, with an index out of range; for that element, the first index.
            position, i, index, size = min(bad, key=lambda b: (b[0], b[1]))
            value = int(index.values.ravel()[position])
            raise IndexError(f"index {value} is out of bounds for dimension {i} with size {size}")


def indices_on_device_of(self, indices):
    """Index tensors may be on the cpu for a cuda `self` (PyTorch moves them); on another GPU they may not."""
    moved = []
    for index in indices:
        if isinstance(index, Tensor) and index._storage.device != self._storage.device:
            if index._storage.device.type != "cpu":
                raise IndexError(f"indices should be either on cpu or on the same device as the indexed tensor "
                                 f"({self.device})")
            index = index.to(self.device)
        moved.append(index)
    return moved


def value_on_device_of(self, values):
    """A 0-dim value on another device is moved to self's (`_index_put_impl_`); any other must be there."""
    if values._storage.device != self._storage.device:
        if values.dim() != 0:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{self.device} and {values.device}!")
        values = values.to(self.device)
    return values


def index_kernel(ks, self, indices):
    """`aten::index.Tensor`: `self[indices]`, a fresh tensor."""
    indices = indices_on_device_of(self, indices)
    if len(indices) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    info = AdvancedIndex(self, indices)
    if is_meta(self):
        return empty(info.shape, self.dtype, self.device, info.strides)
    xp = xp_for(self)
    info.check_bounds(xp)
    return fresh(self._data()[info.numpy_index], self.dtype, self.device, info.strides)


def _mask_for_masked_fill(self, indices, values):
    """PyTorch's `canDispatchToMaskedFill`: `x[mask] = scalar` is done by `masked_fill_`. Returns (mask, the
    number of dims of self after the ones it covers), or None when the shortcut does not apply."""
    if values.numel() != 1:
        return None
    mask, covered = None, 0
    for index in indices:
        if index is None:
            covered += 1
            continue
        if index.dtype not in (bool_, uint8) or mask is not None:
            return None
        mask = index
        for j in range(index.dim()):
            src = covered + j
            if index._sizes[j] != self._sizes[normalize_dim(src, self.dim())]:
                raise IndexError(
                    f"The shape of the mask {shape_str(index._sizes)} at index {j} does not match the shape of the "
                    f"indexed tensor {shape_str(self._sizes)} at index {src}")
        covered += index.dim()
    if mask is None:
        return None
    return mask, self.dim() - covered


def index_put_kernel(ks, self, indices, values, accumulate=False):
    """`aten::index_put_`: `self[indices] = values` (or `+=` with accumulate), in place."""
    indices = indices_on_device_of(self, indices)
    values = value_on_device_of(self, values)
    if len(indices) > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()} (got {len(indices)})")
    warn_if_expanded(self, "index_put_", "tensor[indices] = tensor")
    if not accumulate:
        found = _mask_for_masked_fill(self, indices, values)
        if found is not None:    # PyTorch calls self.masked_fill_(mask, value.item()) here
            mask, trailing = found
            check_bool_mask(mask, "masked_fill_")
            warn_if_expanded(self, "masked_fill_", "tensor[mask] = scalar")
            assert_no_partial_overlap(self, mask)
            masked_fill_into(self, mask, values.item(), trailing)
            return self
    assert_no_overlap(self, values)
    for index in indices:
        assert_no_overlap(self, index)
    info = AdvancedIndex(self, indices)
    if not is_expandable_to(values._sizes, info.shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {shape_str(values._sizes)} cannot be broadcast "
                           f"to indexing result of shape {shape_str(info.shape)}")
    if values.dtype is not self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {self.dtype._ptname} "
                           f"for the destination and {values.dtype._ptname} for the source.")
    if is_meta(self, values):
        return self
    xp = xp_for(self)
    info.check_bounds(xp)
    # NumPy's fancy-index assignment puts the indexed dims where PyTorch's result has them, so `values`
    # broadcast to the result's shape lines up with self[numpy_index].
    write_elements(self, info.numpy_index, xp.broadcast_to(values._data(), info.shape), accumulate)
    return self


def index_put_functional_kernel(ks, self, indices, values, accumulate=False):
    """`index_put`: `self.clone().index_put_(...)`; the clone keeps self's layout (preserve_format)."""
    out = empty(self._sizes, self.dtype, self.device, preserve_strides(self))
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return index_put_kernel(ks, out, indices, values, accumulate)


# `device_check: NoCheck` in native_functions.yaml: these kernels move cpu indices and 0-dim values themselves
index_kernel.device_check = index_put_kernel.device_check = index_put_functional_kernel.device_check = False


def is_expandable_to(sizes, shape):
    """PyTorch's `is_expandable_to`: may a tensor of `sizes` be broadcast to `shape`?"""
    if len(sizes) > len(shape):
        return False
    return all(s == n or s == 1 for s, n in zip(reversed(sizes), reversed(shape)))


# ---- masks: masked_fill_, masked_select, masked_scatter_, nonzero --------------------------------------------


def masked_fill_into(self, mask, value, trailing=0):
    """Write `value` where `mask` is True (mask broadcast to self after `trailing` size-1 dims are added)."""
    value = checked_scalar(value, self.dtype)
    if is_meta(self, mask):
        return
    xp = xp_for(self)
    m = mask._data().astype(bool).reshape(mask._sizes + (1,) * trailing)
    write_elements(self, xp.broadcast_to(m, self._sizes), value)


def check_bool_mask(mask, op_name):
    if mask.dtype is not bool_:
        raise RuntimeError(f"{op_name} only supports boolean masks, but got mask with dtype "
                           f"{CPP_TYPE_NAMES[mask.dtype.name]}")


def masked_fill__kernel(ks, self, mask, value):
    """`masked_fill_(mask, value)`: value where mask is True; the mask broadcasts to self, never the other way."""
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    check_bool_mask(mask, "masked_fill_")
    warn_if_expanded(self, "masked_fill_", "tensor[mask] = scalar")
    assert_no_partial_overlap(self, mask)
    shape = broadcast_shapes(self._sizes, mask._sizes)
    if shape != self._sizes:
        raise RuntimeError(f"output with shape {list(self._sizes)} doesn't match the broadcast shape {list(shape)}")
    masked_fill_into(self, mask, value)
    return self


def masked_fill_kernel(ks, self, mask, value):
    """`masked_fill`: broadcast self and mask together, then a contiguous copy of self is filled."""
    shape = broadcast_shapes(mask._sizes, self._sizes)
    out = empty(shape, self.dtype, self.device)
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return masked_fill__kernel(ks, out, mask, value)


def masked_select_compute(self, mask):
    if mask.dtype is not bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._sizes, self._sizes)
    if is_meta(self, mask):
        raise NotImplementedError("aten::masked_select: the result's size depends on the mask's values, "
                                  "which a meta tensor does not have")
    xp = xp_for(self)
    # Boolean indexing visits the elements in logical (row-major) order, whatever the memory layout: the
    # order PyTorch promises (pytorch#99638 was a kernel that followed the memory order instead).
    return xp.broadcast_to(self._data(), shape)[xp.broadcast_to(mask._data(), shape)]


def masked_select_kernel(ks, self, mask):
    return wrap(masked_select_compute(self, mask), self.dtype, self.device)


def masked_select_out_kernel(ks, self, mask, out):
    if out.dtype is not self.dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    result = masked_select_compute(self, mask)
    return finish_out(out, result, result.shape)


def expand_check(sizes, shape, dtype):
    """Would `t.expand(shape)` work for a tensor of `sizes`? Raise `expand`'s errors if not."""
    n, m = len(shape), len(sizes)
    if m > n:
        raise RuntimeError(
            f"expand(CPU{dtype._ptname}Type{{{shape_str(sizes)}}}, size={shape_str(shape)}): the number of sizes "
            f"provided ({n}) must be greater or equal to the number of dimensions in the tensor ({m})")
    for i in range(n):
        j = i - (n - m)
        if j >= 0 and sizes[j] != shape[i] and sizes[j] != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[i]}) must match the existing size ({sizes[j]}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: {list(sizes)}")


def masked_scatter__kernel(ks, self, mask, source):
    """`masked_scatter_`: the elements of `source`, taken in its logical order, go where mask is True."""
    check_writable(self)
    if self.dtype is not source.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{self.dtype._ptname} and {source.dtype._ptname}")
    expand_check(mask._sizes, self._sizes, mask.dtype)    # the mask broadcasts to self, never the other way
    if mask.dtype is uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.", UserWarning, stacklevel=4)
    if mask.dtype is not bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype._ptname}")
    if is_meta(self, mask, source):
        return self
    xp = xp_for(self)
    m = xp.broadcast_to(mask._data(), self._sizes)
    count = int(m.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    write_elements(self, m, source._data().reshape(-1)[:count])
    return self


def masked_scatter_kernel(ks, self, mask, source):
    shape = broadcast_shapes(mask._sizes, self._sizes)
    out = empty(shape, self.dtype, self.device)
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return masked_scatter__kernel(ks, out, mask, source)


def nonzero_compute(self):
    if is_meta(self):
        raise NotImplementedError("aten::nonzero: the result's size depends on the values, which a meta tensor "
                                  "does not have")
    return nonzero_array(xp_for(self), self._data())


def nonzero_layout(n, ndim):
    """nonzero's result is (n, ndim) laid out column by column: strides (1, n)."""
    return (n, ndim), (1, n)


def nonzero_kernel(ks, self):
    coords = nonzero_compute(self)
    sizes, strides = nonzero_layout(coords.shape[0], self.dim())
    out = empty(sizes, int64, self.device, strides)
    xp_for(self).copyto(out._data(), coords)
    return out


def nonzero_out_kernel(ks, self, out):
    if out.dtype is not int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                           f"{out.dtype._ptname}")
    coords = nonzero_compute(self)
    sizes, strides = nonzero_layout(coords.shape[0], self.dim())
    return finish_out(out, coords, sizes, strides)
