"""View kernels: a new (offset, sizes, strides) over the same storage. No element is read, none is copied.

A view kernel is stride arithmetic and nothing else: it takes a tensor and the op's arguments, works out the
geometry of the result, and returns a new Tensor over the *same* storage (`_view_of`). It touches no array,
so one kernel serves every device: ops/views.py registers each one once, under the alias key
`CompositeExplicitAutograd`, which fills the CPU, CUDA and Meta slots of the op's dispatch table. A view
never redispatches, so its kernel takes no keyset (`dispatcher.without_keyset` drops it, and a trace shows
the `def` here: `-> CPU: t_kernel  teachtorch/kernels/views.py:...`). What makes the result a *view* for
autograd and for version counters (a shared counter, `_base` = the root base) is done one key above, by the
ADInplaceOrView layer, because each schema says `Tensor(a) self -> Tensor(a)`.

PyTorch's counterpart is aten/src/ATen/native/TensorShape.cpp (`transpose`, `select`, `slice`, `expand`,
`unfold`, `diagonal`, `as_strided_tensorimpl`, ...): there too most view functions work out sizes, strides and
an offset and end in `self.as_strided(...)` (or `alias_with_sizes_and_strides`) over self's storage.

The rules, for `x` of sizes (3, 4) and strides (4, 1) (shared/reference/pytorch_internals.md §1.4):

    transpose / t / permute    swap or permute sizes and strides          x.t(): sizes (4, 3), strides (1, 4)
    select(d, i) / x[i]        drop dim d, offset += i * stride[d]         x[1]: offset 4
    slice                      offset += start * stride[d],                x[:, 1::2]: offset 1, strides (4, 2)
                               size = ceil((stop - start) / step), stride *= step
    expand                     broadcast dims get stride 0                 one element seen many times
    unsqueeze(d)               a size-1 dim with stride size[d] * stride[d] (or 1 at the end)
    unfold(d, size, step)      dim d -> windows; a new last dim of length `size`
    diagonal                   one dim whose stride is the sum of two strides
    as_strided                 anything at all, offset counted from the start of the storage
    view(shape)                new strides by the chunk rule (_strides.compute_view_strides), or an error
    split / unbind             several views, each with its own offset

The ops made of these (`reshape`, `flatten`, `narrow`, `chunk`, `movedim`, ...) are in ops/views.py.
"""

from .._strides import check_numel, compute_storage_nbytes, compute_view_strides, infer_size, normalize_dim
from .._tensor import Tensor


# ---- view and reshape --------------------------------------------------------------------------------------


def _view_of(self, offset, sizes, strides):
    """The one way to make a view: same storage and dtype, other geometry."""
    return Tensor._make(self._storage, offset, tuple(sizes), tuple(strides), self.dtype)


def view_kernel(self, size):
    shape = infer_size(size, self.numel())
    strides = compute_view_strides(self._sizes, self._strides, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead.")
    return _view_of(self, self._offset, shape, strides)


def _reshape_alias_kernel(self, size, stride):
    """A view with given sizes and strides that `reshape` has already worked out (PyTorch's _reshape_alias)."""
    return _view_of(self, self._offset, size, stride)


def _unsafe_view_kernel(self, size):
    """Like view, but the schema declares no alias: the output is not linked to its input as a view."""
    shape = infer_size(size, self.numel())
    return _view_of(self, self._offset, shape, compute_view_strides(self._sizes, self._strides, shape))


def view_dtype(self, dtype):
    """`x.view(dtype)`: the same bytes read as another dtype (PyTorch's `view_dtype`, TensorConversions.cpp).

    With a different element size, only the last dim changes: viewing 4-byte floats as 2-byte halves doubles
    its size (and every other stride and the offset, counted in the new, smaller elements); the other way
    halves it, so the last dim must be contiguous and the other strides and the offset divisible by 2.
    Not a dispatched op here: `Tensor.view(dtype)` (ops/views.py `tensor_view`) calls it directly, and it
    links the result to its base itself.
    """
    sizes, strides, offset = self._sizes, self._strides, self._offset
    old, new = self.dtype.itemsize, dtype.itemsize
    what = f"to view {self.dtype._ptname} as {dtype._ptname} (different element sizes)"
    if old != new and not sizes:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")

    def check_last_dim_contiguous():
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")

    if old > new:       # each element becomes `ratio` smaller ones, side by side in the last dim
        check_last_dim_contiguous()
        ratio = old // new
        sizes = sizes[:-1] + (sizes[-1] * ratio,)
        strides = tuple(s * ratio for s in strides[:-1]) + (1,)
        offset = offset * ratio
    elif old < new:     # `ratio` neighbours in the last dim merge into one element
        ratio = new // old
        if sizes[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {sizes[-1]}")
        if offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
        check_last_dim_contiguous()      # (PyTorch checks in this order: size, offset, strides)
        for d, s in enumerate(strides[:-1]):
            if s % ratio:
                raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {s}")
        sizes = sizes[:-1] + (sizes[-1] // ratio,)
        strides = tuple(s // ratio for s in strides[:-1]) + (1,)
        offset = offset // ratio
    t = Tensor._make(self._storage, offset, sizes, strides, dtype)
    t._vc = self._vc
    t._base = self._base if self._base is not None else self
    return t


# ---- transposes and permutations ---------------------------------------------------------------------------


def transpose_kernel(self, dim0, dim1):
    n = self.dim()
    d0, d1 = normalize_dim(dim0, n), normalize_dim(dim1, n)
    sizes, strides = list(self._sizes), list(self._strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return _view_of(self, self._offset, sizes, strides)


def t_kernel(self):
    # its own op (not transpose) so that autograd names its node TBackward0, as PyTorch does
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    if self.dim() < 2:
        return _view_of(self, self._offset, self._sizes, self._strides)
    return _view_of(self, self._offset, self._sizes[::-1], self._strides[::-1])


def permute_kernel(self, dims):
    n = self.dim()
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = [normalize_dim(d, n) for d in dims]
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_of(self, self._offset, [self._sizes[d] for d in dims], [self._strides[d] for d in dims])


# ---- adding and removing size-1 dims -----------------------------------------------------------------------


def unsqueeze_kernel(self, dim):
    n = self.dim()
    dim = normalize_dim(dim, n + 1)
    sizes, strides = list(self._sizes), list(self._strides)
    # Any stride is legal for a size-1 dim; PyTorch picks the one that keeps a contiguous tensor contiguous.
    new_stride = 1 if dim >= n else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return _view_of(self, self._offset, sizes, strides)


def squeeze_kernel(self, dim=None):
    n = self.dim()
    if dim is None:
        drop = {d for d in range(n) if self._sizes[d] == 1}
    else:
        dims = dim if isinstance(dim, (list, tuple)) else [dim]
        drop = {normalize_dim(d, n) for d in dims}
        drop = {d for d in drop if n > 0 and self._sizes[d] == 1}
    keep = [d for d in range(n) if d not in drop]
    return _view_of(self, self._offset, [self._sizes[d] for d in keep], [self._strides[d] for d in keep])


# ---- broadcasting ------------------------------------------------------------------------------------------


def expand_kernel(self, size, implicit=False):
    size = tuple(size)
    n, m = self.dim(), len(size)
    if m < n:
        raise RuntimeError(
            f"expand(torch.{self.dtype._ptname}Tensor{{{list(self._sizes)}}}, size={list(size)}): the number of sizes provided ({m}) "
            f"must be greater or equal to the number of dimensions in the tensor ({n})")
    sizes, strides = [0] * m, [0] * m
    for i in reversed(range(m)):      # from the right, as PyTorch's inferExpandGeometry
        j = i - (m - n)               # the matching dim of self, counted from the right
        target = size[i]
        if j < 0:                     # a new leading dim: a size-1 one steps over everything to its right
            if target < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, non-existing dimension {i}")
            sizes[i] = target
            strides[i] = sizes[i + 1] * strides[i + 1] if target == 1 and n > 0 else 0
            continue
        have = self._sizes[j]
        if target == -1:
            target = have
        if have == target:
            sizes[i], strides[i] = have, self._strides[j]
        elif have == 1:
            sizes[i], strides[i] = target, 0     # stride 0: one element, seen `target` times
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({have}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: {list(self._sizes)}")
    check_numel(sizes)                # stride-0 dims take no memory, but the element count must still fit
    return _view_of(self, self._offset, sizes, strides)


# ---- picking parts: select, slice --------------------------------------------------------------------------


def select_kernel(self, dim, index):
    n = self.dim()
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, n)
    size = self._sizes[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(self._sizes)} at dimension {dim}")
    if index < 0:
        index += size
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    return _view_of(self, self._offset + index * self._strides[dim], sizes, strides)


def slice_kernel(self, dim=0, start=None, end=None, step=1):
    n = self.dim()
    if n == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, n)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    size = self._sizes[dim]
    # Python's rules: negative bounds count from the end, and bounds past the ends are clamped.
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    length = (end - start + step - 1) // step
    sizes = list(self._sizes)
    strides = list(self._strides)
    sizes[dim] = length
    strides[dim] *= step
    return _view_of(self, self._offset + start * self._strides[dim], sizes, strides)


# ---- windows, diagonals, any geometry ----------------------------------------------------------------------


def unfold_kernel(self, dimension, size, step):
    n = self.dim()
    d = normalize_dim(dimension, n)
    have = self._sizes[d] if n else 1
    if size > have:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {have} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        return _view_of(self, self._offset, (size,), (1,))
    sizes, strides = list(self._sizes), list(self._strides)
    sizes[d] = (have - size) // step + 1       # how many windows fit
    strides[d] = step * self._strides[d]       # the next window starts `step` elements later
    sizes.append(size)                         # ... and each window runs along the old dim
    strides.append(self._strides[d])
    return _view_of(self, self._offset, sizes, strides)


def diagonal_kernel(self, offset=0, dim1=0, dim2=1):
    n = self.dim()
    d1, d2 = normalize_dim(dim1, n), normalize_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    start = self._offset
    if offset >= 0:
        length = max(min(self._sizes[d1], self._sizes[d2] - offset), 0)
        start += offset * self._strides[d2] if length else 0
    else:
        length = max(min(self._sizes[d1] + offset, self._sizes[d2]), 0)
        start += -offset * self._strides[d1] if length else 0
    keep = [d for d in range(n) if d not in (d1, d2)]
    sizes = [self._sizes[d] for d in keep] + [length]
    # one step along the diagonal is one step along both dims at once
    strides = [self._strides[d] for d in keep] + [self._strides[d1] + self._strides[d2]]
    return _view_of(self, start, sizes, strides)


def as_strided_kernel(self, size, stride, storage_offset=None):
    """Any geometry over self's storage, checked as PyTorch's `setStrided` checks it, in the same order."""
    size, stride = tuple(size), tuple(stride)
    offset = self._offset if storage_offset is None else storage_offset
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if self._storage.device.type != "meta":   # a meta storage holds no bytes to stay inside of
        # checkInBoundsForStorage: every element must lie inside the storage (nothing is allocated here)
        itemsize = self.dtype.itemsize
        need = compute_storage_nbytes(size, stride, itemsize, offset)
        have = self._storage.nbytes()
        if need > have:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
                f"{itemsize} requiring a storage size of {need} are out of bounds for storage of size {have}")
    check_numel(size)
    return _view_of(self, offset, size, stride)


# ---- many views at once ------------------------------------------------------------------------------------


def _split_views(self, split_sizes, dim):
    """Consecutive pieces of `self` along `dim`, each a view with the same strides and a moved offset."""
    dim = normalize_dim(dim, self.dim())
    size = self._sizes[dim]
    if sum(split_sizes) != size or any(s < 0 for s in split_sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
            f"{dim}), but got split_sizes={list(split_sizes)}")
    out, start = [], 0
    for s in split_sizes:
        sizes = list(self._sizes)
        sizes[dim] = s
        out.append(_view_of(self, self._offset + start * self._strides[dim], sizes, self._strides))
        start += s
    return tuple(out)


def split_with_sizes_kernel(self, split_sizes, dim=0):
    """Pieces of the given sizes along `dim`."""
    return _split_views(self, split_sizes, dim)


def split_kernel(self, split_size, dim=0):
    """split.Tensor: pieces of `split_size` elements along `dim`, the last one shorter if they do not fit."""
    if self.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = normalize_dim(dim, self.dim())
    size = self._sizes[dim]
    if split_size < 0 or (split_size == 0 and size != 0):
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    if size == 0:
        return _split_views(self, [0], dim)
    sizes = [split_size] * (size // split_size) + ([size % split_size] if size % split_size else [])
    return _split_views(self, sizes, dim)


def unbind_kernel(self, dim=0):
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = normalize_dim(dim, self.dim())
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    return tuple(_view_of(self, self._offset + i * self._strides[dim], sizes, strides)
                 for i in range(self._sizes[dim]))


# ---- aliases -----------------------------------------------------------------------------------------------


def detach_kernel(self):
    """The same geometry over the same storage; what makes it detached (no grad_fn) is the autograd layer's."""
    return _view_of(self, self._offset, self._sizes, self._strides)


def alias_kernel(self):
    """The same geometry over the same storage: a second Tensor object for the same elements."""
    return _view_of(self, self._offset, self._sizes, self._strides)
