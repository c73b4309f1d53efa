"""Shape kernels: ops that build a new tensor by moving whole blocks of elements around.

`cat` / `stack` join tensors, `flip` / `roll` / `rot90` reorder elements along dims, `repeat` / `tile` /
`repeat_interleave` copy them several times, `tril` / `triu` / `diag` / `diag_embed` pick triangles and
diagonals. Unlike views (ops/views.py) none of these can be expressed as new strides over the same storage,
so each result is a fresh tensor.

How PyTorch does it (aten/src/ATen/native/TensorShape.cpp, TensorTransformations.cpp, TriangularOps.cpp):
each op is a small kernel that works out the result's shape and *layout* first, and these differ:

    cat / stack      contiguous, or channels-last when every input "suggests" channels-last
                     (`cat_compute_output_memory_format`, `suggest_memory_format`)
    flip             laid out like the input (`empty_like(self)`, preserve_format)
    roll, repeat, tril, triu, diag, diag_embed    contiguous

Here the values come from NumPy (or CuPy) (`concatenate`, `flip`, `roll`, `tile`, `tril`), and the layout is
computed the way PyTorch does it.
"""

from .._dtype import can_cast, result_type
from .._strides import (channels_last_strides, check_size_nonnegative, compute_storage_nbytes_contiguous,
                        contiguous_strides, normalize_dim)
from ..backends import check_writable, empty, write
from ..backends import preserve_strides
from ..dispatch import dispatcher
from . import views as VK
from .indexing import assert_no_overlap, check_out_dtype, finish_out, fresh, is_meta, write_elements, xp_for

# ---- memory formats -----------------------------------------------------------------------------------------


def _strides_like_channels_last(sizes, strides, order):
    """`is_channels_last_strides_2d_s4` / `_3d_s5` (c10/core/MemoryFormat.h): do the strides grow in the
    channels-last order (C fastest, then W, H, (D,) N)? Ambiguous cases count as contiguous."""
    if strides[1] == 0:
        return False
    smallest = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < smallest:
            return False
        if d == 0 and smallest == strides[1]:
            return False
        smallest = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def suggest_memory_format(t):
    """`Tensor.suggest_memory_format()`: "channels_last" (4-d), "channels_last_3d" (5-d) or "contiguous"."""
    if t.dim() == 4 and _strides_like_channels_last(t._sizes, t._strides, (1, 3, 2, 0)):
        return "channels_last"
    if t.dim() == 5 and _strides_like_channels_last(t._sizes, t._strides, (1, 4, 3, 2, 0)):
        return "channels_last_3d"
    return "contiguous"


def format_strides(sizes, memory_format):
    if memory_format == "channels_last" and len(sizes) == 4:
        return channels_last_strides(sizes)
    if memory_format == "channels_last_3d" and len(sizes) == 5:
        n, c, d, h, w = sizes
        return (c * d * h * w, 1, h * w * c, w * c, c)
    return contiguous_strides(sizes)


# ---- cat ----------------------------------------------------------------------------------------------------


def _skipped(t):
    """The legacy rule: a 1-d empty tensor (`torch.tensor([])`) may be concatenated with anything."""
    return t.dim() == 1 and t._sizes[0] == 0


def cat_meta(tensors, dim, out=None):
    """PyTorch's cat meta function: (shape, dtype, strides, the tensors that take part, wrapped dim)."""
    if len(tensors) == 0:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    valid = [t for t in tensors if not _skipped(t)]
    if valid:
        dim = normalize_dim(dim, valid[0].dim())
    # The result is channels-last only when every input suggests it (cat_compute_output_memory_format).
    formats = {suggest_memory_format(t) for t in tensors}
    memory_format = formats.pop() if len(formats) == 1 else "contiguous"
    dtype = result_type(*tensors)
    if out is not None:
        if not can_cast(dtype, out.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{out.dtype._ptname}")
        dtype = out.dtype
    if not valid:
        return (0,), dtype, (1,), valid, dim
    first = valid[0]
    size_at_dim = 0
    for i, t in enumerate(tensors):
        if _skipped(t):
            continue
        if t.dim() != first.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.dim()} and {t.dim()}")
        for d in range(first.dim()):
            if d != dim and t._sizes[d] != first._sizes[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{first._sizes[d]} but got size {t._sizes[d]} for tensor number {i} in the list.")
        size_at_dim += t._sizes[dim]
    sizes = list(first._sizes)
    sizes[dim] = size_at_dim
    sizes = tuple(sizes)
    return sizes, dtype, format_strides(sizes, memory_format), valid, dim


def cat_compute(valid, dim, dtype, sizes):
    """The joined array (None on the meta device, or when every input was skipped: the result is empty)."""
    if not valid or any(is_meta(t) for t in valid):
        return None
    xp = xp_for(valid[0])
    return xp.concatenate([t._data().astype(dtype.numpy, copy=False) for t in valid], axis=dim)


def cat_kernel(ks, tensors, dim=0):
    sizes, dtype, strides, valid, dim = cat_meta(tensors, dim)
    device = tensors[0].device
    result = cat_compute(valid, dim, dtype, sizes)
    if result is None:
        return empty(sizes, dtype, device, strides)
    return fresh(result, dtype, device, strides)


def stack_kernel(ks, tensors, dim=0):
    """PyTorch's stack kernel (TensorShape.cpp `stack`, CompositeExplicitAutograd): cat of the inputs each
    unsqueezed at `dim`. It runs below autograd, as one op with one node (StackBackward0), so it calls the
    kernels, not the ops: `cat_kernel` and the view kernels."""
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    ndim = tensors[0].dim()
    dim = normalize_dim(dim, ndim + 1)
    for i, t in enumerate(tensors[1:], 1):
        if t._sizes != tensors[0]._sizes:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0]._sizes)} at "
                               f"entry 0 and {list(t._sizes)} at entry {i}")
    if dim < ndim:
        # cat along `dim`, then split that dim in two (always possible on cat's fresh result): cat's layout
        sizes = list(tensors[0]._sizes)
        sizes.insert(dim, len(tensors))
        return VK._unsafe_view_kernel(cat_kernel(ks, tensors, dim), sizes)
    return cat_kernel(ks, [VK.unsqueeze_kernel(t, dim) for t in tensors], dim)


def cat_out_kernel(ks, tensors, dim, out):
    sizes, dtype, strides, valid, dim = cat_meta(tensors, dim, out)
    if out._sizes == sizes:      # (a resized `out` gets fresh memory, which nothing can overlap)
        check_writable(out)
        for t in tensors:
            assert_no_overlap(out, t)
    return finish_out(out, cat_compute(valid, dim, dtype, sizes), sizes, strides)


# ---- flip, roll, rot90 ----------------------------------------------------------------------------------------


def flip_dims(self, dims):
    wrapped = [normalize_dim(d, self.dim()) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def flip_kernel(ks, self, dims):
    """`flip`: the elements in reverse order along `dims`; the result is laid out like self."""
    wrapped = flip_dims(self, dims)
    strides = preserve_strides(self)
    if is_meta(self):
        return empty(self._sizes, self.dtype, self.device, strides)
    result = xp_for(self).flip(self._data(), axis=tuple(wrapped)) if self.dim() else self._data().copy()
    return fresh(result, self.dtype, self.device, strides)


def _wrap_dim_no_scalar(dim, ndim):
    """`maybe_wrap_dim(dim, ndim, wrap_scalar=false)`: a 0-d tensor has no dim to name."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return normalize_dim(dim, ndim)


def roll_kernel(ks, self, shifts, dims):
    """`roll`: shift elements along dims, wrapping around; with no dims, over the flattened tensor."""
    shifts, dims = list(shifts), list(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) != 1 or dims and len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    axes = [_wrap_dim_no_scalar(d, self.dim()) for d in dims]
    if len(axes) == 1 and len(shifts) == 1:
        # PyTorch's roll_cpu: the two parts, as views, joined by cat; so the result is laid out as cat lays it
        # out (an empty tensor is cloned, keeping its layout)
        if self.numel() == 0:
            return dispatcher.lookup("clone")(self)
        dim, size = axes[0], self._sizes[axes[0]]
        start = (size - shifts[0]) % size
        narrow = dispatcher.lookup("narrow")
        return dispatcher.lookup("cat")([narrow(self, dim, start, size - start), narrow(self, dim, 0, start)], dim)
    if dims:
        # PyTorch's roll_common: roll the first dim (as above), then the rest of the result, so the layout is
        # the one those cats give (it differs from a fresh contiguous result on the strides of size-1 dims)
        if self.numel() == 0:
            return dispatcher.lookup("clone")(self)
        roll = dispatcher.lookup("roll")
        return roll(roll(self, shifts[:1], dims[:1]), shifts[1:], dims[1:])
    if is_meta(self):
        return empty(self._sizes, self.dtype, self.device)
    xp = xp_for(self)
    result = xp.roll(self._data().reshape(-1), shifts[0]).reshape(self._sizes)   # flatten, roll, view
    return fresh(result, self.dtype, self.device)


def rot90_kernel(ks, self, k=1, dims=(0, 1)):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = self.dim()
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = normalize_dim(dims[0], n), normalize_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k = (4 + k % 4) % 4
    if k == 0:     # PyTorch: self.clone(contiguous)
        return _contiguous_copy(self)
    if k == 2:
        return flip_kernel(ks, self, [d0, d1])
    # k == 1: flip(dims[1]) then transpose_(dims[0], dims[1]); k == 3: flip(dims[0]) then transpose_
    flipped = flip_kernel(ks, self, [d1 if k == 1 else d0])
    sizes, strides = list(flipped._sizes), list(flipped._strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    flipped._set_metadata(flipped._storage, 0, tuple(sizes), tuple(strides))
    return flipped


def _contiguous_copy(self):
    out = empty(self._sizes, self.dtype, self.device)
    if not is_meta(self):
        xp_for(self).copyto(out._data(), self._data())
    return out


# ---- repeat -----------------------------------------------------------------------------------------------------


def repeat_kernel(ks, self, repeats):
    """`repeat`: the whole tensor tiled `repeats` times along each dim (new leading dims for extra repeats)."""
    repeats = tuple(repeats)
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    padded = (1,) * (len(repeats) - self.dim()) + self._sizes
    sizes = tuple(s * r for s, r in zip(padded, repeats))
    # PyTorch allocates the result with `empty(sizes)` first, which refuses what an int64 cannot count
    check_size_nonnegative(sizes)
    compute_storage_nbytes_contiguous(sizes, self.dtype.itemsize)
    if is_meta(self):
        return empty(sizes, self.dtype, self.device)
    xp = xp_for(self)
    result = xp.tile(self._data().reshape(padded), repeats) if repeats else self._data().copy()
    return fresh(result.reshape(sizes), self.dtype, self.device)


# ---- triangles and diagonals --------------------------------------------------------------------------------------


def _triangle_mask(xp, sizes, diagonal, lower):
    """True where tril (lower) / triu keeps an element of the last two dims."""
    rows, cols = sizes[-2], sizes[-1]
    i = xp.arange(rows).reshape(rows, 1)
    j = xp.arange(cols).reshape(1, cols)
    return (j - i <= diagonal) if lower else (j - i >= diagonal)


def _check_triangle(self, name):
    if self.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


class TriangleKernel:
    """The functional, in-place and out kernels of `tril` (lower=True) or `triu`: a trace shows
    `TriangleKernel('tril').functional`."""

    def __init__(self, lower):
        self.lower = lower
        self.name = "tril" if lower else "triu"

    def __repr__(self):
        return f"TriangleKernel({self.name!r})"

    def compute(self, input, diagonal):
        _check_triangle(input, self.name)
        if is_meta(input):
            return None
        xp = xp_for(input)
        keep = _triangle_mask(xp, input._sizes, diagonal, self.lower)
        return xp.where(keep, input._data(), xp.zeros((), input.dtype.numpy))

    def functional(self, ks, input, diagonal=0):
        result = self.compute(input, diagonal)
        if result is None:
            return empty(input._sizes, input.dtype, input.device)
        return fresh(result, input.dtype, input.device)

    def inplace(self, ks, input, diagonal=0):
        _check_triangle(input, self.name)
        if is_meta(input) or input.numel() == 0:
            return input
        # Only the elements outside the triangle are written (zeros), as PyTorch's kernel does.
        outside = ~_triangle_mask(xp_for(input), input._sizes, diagonal, self.lower)
        write_elements(input, xp_for(input).broadcast_to(outside, input._sizes), 0)
        return input

    def out(self, ks, input, diagonal, out):
        result = self.compute(input, diagonal)
        check_out_dtype(out, input.dtype)
        return finish_out(out, result, input._sizes)


def diag_compute(self, diagonal):
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")
    if self.dim() == 1:
        n = self._sizes[0] + abs(diagonal)
        sizes = (n, n)
    else:
        rows, cols = self._sizes
        length = min(rows, cols - diagonal) if diagonal >= 0 else min(rows + diagonal, cols)
        sizes = (max(length, 0),)
    if is_meta(self):
        return None, sizes
    xp = xp_for(self)
    if self.dim() == 1:
        return xp.diag(self._data(), diagonal), sizes
    return xp.diagonal(self._data(), diagonal).copy(), sizes


def diag_kernel(ks, self, diagonal=0):
    result, sizes = diag_compute(self, diagonal)
    return empty(sizes, self.dtype, self.device) if result is None else fresh(result, self.dtype, self.device)


def diag_out_kernel(ks, self, diagonal, out):
    result, sizes = diag_compute(self, diagonal)
    check_out_dtype(out, self.dtype)
    return finish_out(out, result, sizes)


def diag_embed_kernel(ks, self, offset=0, dim1=-2, dim2=-1):
    """`diag_embed`: the last dim of self becomes the diagonal (`offset`) of the plane (dim1, dim2) of a new
    tensor of zeros."""
    n = self.dim() + 1
    d1, d2 = normalize_dim(dim1, n), normalize_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    length = self._sizes[-1] + abs(offset)
    rest = list(self._sizes[:-1])
    sizes = []
    for d in range(n):
        sizes.append(length if d in (d1, d2) else rest.pop(0))
    sizes = tuple(sizes)
    out = empty(sizes, self.dtype, self.device)
    if is_meta(self):
        return out
    xp = xp_for(self)
    result = xp.zeros(sizes, self.dtype.numpy)
    # move the plane (d1, d2) to the end, then write self's last dim along its diagonal number `offset`
    plane = xp.moveaxis(result, (d1, d2), (-2, -1))
    k = xp.arange(self._sizes[-1])
    plane[..., k + max(-offset, 0), k + max(offset, 0)] = self._data()
    write(out, result)
    return out
