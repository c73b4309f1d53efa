# Over 600 lines: every view op is a schema and a few lines of stride arithmetic, one family (no array code)
"""View ops: new (offset, sizes, strides) over the same storage. No element is copied.

Every kernel here only does stride arithmetic, so, as in PyTorch, each is registered once under the alias
key `CompositeExplicitAutograd`, which fills the CPU, CUDA and Meta slots of its dispatch table: a view needs
no device code. The ADInplaceOrView layer then links the output to its base (shared version counter, `_base`
= the root base), because each schema says `Tensor(a) self -> Tensor(a)`.

The rules, for `x` of sizes (3, 4) and strides (4, 1) (shared/reference/pytorch_internals.md §1.4):

    transpose / t / permute    swap or permute sizes and strides          x.t(): sizes (4, 3), strides (1, 4)
    select(d, i) / x[i]        drop dim d, offset += i * stride[d]         x[1]: offset 4
    slice / narrow             offset += start * stride[d],                x[:, 1::2]: offset 1, strides (4, 2)
                               size = ceil((stop - start) / step), stride *= step
    expand                     broadcast dims get stride 0                 one element seen many times
    unsqueeze(d)               a size-1 dim with stride size[d] * stride[d] (or 1 at the end)
    unfold(d, size, step)      dim d -> windows; a new last dim of length `size`
    diagonal                   one dim whose stride is the sum of two strides
    as_strided                 anything at all, offset counted from the start of the storage
    view(shape)                new strides by the chunk rule (_strides.compute_view_strides), or an error

`reshape`, `flatten`, `view_as`, `movedim`, `narrow`, `chunk` are *CompositeImplicitAutograd*: made of the
ops above. `reshape` is a view when `view` can be one, and a copy otherwise.
"""

from .. import _strides
from .._dispatch_key import CompositeExplicitAutograd
from .._strides import check_numel, compute_storage_nbytes, compute_view_strides, infer_size, normalize_dim
from .._tensor import Tensor
from ..dispatch.dispatcher import OpOverload, impl
from ..dispatch.schema import unpack_int64
from ._define import bind_method, composite_op, define, method


def _view_of(self, offset, sizes, strides):
    """The one way to make a view: same storage and dtype, other geometry."""
    return Tensor._make(self._storage, offset, tuple(sizes), tuple(strides), self.dtype)


def view_op(schema, name=None):
    """Define a view op whose metadata-only kernel is the decorated function."""
    op = define(schema)

    def register(kernel):
        impl(op, CompositeExplicitAutograd, lambda ks, *args: kernel(*args))
        op.kernels[CompositeExplicitAutograd].__qualname__ = kernel.__name__
        op._compute_table()
        return op
    return register


def composite(schema):
    """Define a CompositeImplicitAutograd op whose kernel (calling other ops) is the decorated function."""
    return lambda kernel: composite_op(schema, kernel)


def _int_list(size, name="size"):
    """Accept `f(2, 3)`, `f((2, 3))`, `f([2, 3])` and Size objects."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = int(s.item())
        if isinstance(s, bool) or not hasattr(s, "__index__"):
            raise TypeError(f"{name} must be tuple of ints, but found element of type {type(s).__name__} at pos 0")
        out.append(s.__index__())
    return tuple(out)


# ---- view and reshape -------------------------------------------------------------------------------------


@view_op("view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
def view_kernel(self, size):
    shape = infer_size(size, self.numel())
    strides = compute_view_strides(self._sizes, self._strides, shape)
    if strides is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead.")
    return _view_of(self, self._offset, shape, strides)


view = view_kernel


def _view_dtype(self, dtype):
    """`x.view(dtype)`: the same bytes read as another dtype (PyTorch's `view_dtype`, TensorConversions.cpp).

    With a different element size, only the last dim changes: viewing 4-byte floats as 2-byte halves doubles
    its size (and every other stride and the offset, counted in the new, smaller elements); the other way
    halves it, so the last dim must be contiguous and the other strides and the offset divisible by 2.
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


def tensor_view(self, *shape):
    from .._dtype import dtype as _dtype_cls
    if len(shape) == 1 and isinstance(shape[0], _dtype_cls):
        return _view_dtype(self, shape[0])
    return view(self, _int_list(shape))


_unsafe_view_op = define("_unsafe_view(Tensor self, SymInt[] size) -> Tensor")


def _unsafe_view_kernel(ks, self, size):
    """Like view, but the schema declares no alias: the output is not linked to its input as a view."""
    shape = infer_size(size, self.numel())
    return _view_of(self, self._offset, shape, compute_view_strides(self._sizes, self._strides, shape))


impl(_unsafe_view_op, CompositeExplicitAutograd, _unsafe_view_kernel)


@view_op("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)")
def _reshape_alias(self, size, stride):
    """A view with given sizes and strides that `reshape` has already worked out (PyTorch's _reshape_alias)."""
    return _view_of(self, self._offset, size, stride)


@composite("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)")
def reshape_kernel(self, shape):
    shape = infer_size(shape, self.numel())
    if self.is_contiguous():
        return view(self, shape)
    strides = compute_view_strides(self._sizes, self._strides, shape)
    if strides is not None:
        # not contiguous, but these elements can still be shown in this shape: a view with these strides
        return _reshape_alias(self, shape, strides)
    # No view can show these elements in this order: copy them into a fresh contiguous tensor.
    # PyTorch uses `_unsafe_view` here so the copy is not linked to the input as a view (_base stays None).
    return _unsafe_view_op(self.clone(memory_format="contiguous_format"), shape)


reshape = reshape_kernel


@composite("view_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def view_as(self, other):
    return view(self, other._sizes)


@composite("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def reshape_as(self, other):
    return reshape(self, other._sizes)


@composite("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)")
def flatten(self, start_dim=0, end_dim=-1):
    if self.dim() == 0:
        return reshape(self, (1,))
    start, end = normalize_dim(start_dim, self.dim()), normalize_dim(end_dim, self.dim())
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    n = 1
    for s in self._sizes[start:end + 1]:
        n *= s
    return reshape(self, self._sizes[:start] + (n,) + self._sizes[end + 1:])


@composite("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)")
def unflatten(self, dim, sizes):
    dim = normalize_dim(dim, self.dim())
    sizes = tuple(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        inferred = infer_size(sizes, self._sizes[dim])
    except RuntimeError as e:
        # PyTorch's handle_unflatten_exception rewords the count mismatch and wraps every other error
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the "
                           f"size of dim {dim} ({self._sizes[dim]}) in the input tensor") from None
    return view(self, self._sizes[:dim] + inferred + self._sizes[dim + 1:])


# ---- transposes and permutations ------------------------------------------------------------------------


@view_op("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)")
def transpose_kernel(self, dim0, dim1):
    n = self.dim()
    d0, d1 = normalize_dim(dim0, n), normalize_dim(dim1, n)
    sizes, strides = list(self._sizes), list(self._strides)
    sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    strides[d0], strides[d1] = strides[d1], strides[d0]
    return _view_of(self, self._offset, sizes, strides)


transpose = transpose_kernel
swapaxes = swapdims = transpose


@view_op("t(Tensor(a) self) -> Tensor(a)")
def t_kernel(self):
    # its own op (not transpose) so that autograd names its node TBackward0, as PyTorch does
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    if self.dim() < 2:
        return _view_of(self, self._offset, self._sizes, self._strides)
    return _view_of(self, self._offset, self._sizes[::-1], self._strides[::-1])


t = t_kernel


@view_op("permute(Tensor(a) self, int[] dims) -> Tensor(a)")
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


def permute(self, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return permute_kernel(self, _int_list(dims, "dims"))


@composite("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)")
def movedim_kernel(self, source, destination):
    n = self.dim()
    src = [normalize_dim(d, n) for d in source]
    dst = [normalize_dim(d, n) for d in destination]
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain the same "
            f"number of dims as destination ({list(destination)} dims)")
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute_kernel(self, order)


def movedim(self, source, destination):
    # movedim.int (a lone int, unpacked as an int) or movedim.intlist
    return movedim_kernel(self, _int_or_ints("source", source), _int_or_ints("destination", destination))


def _int_or_ints(name, x):
    if isinstance(x, (list, tuple)):
        return list(x)
    if isinstance(x, bool) or not hasattr(x, "__index__") or (isinstance(x, Tensor) and x.numel() != 1):
        raise TypeError(f"movedim(): argument '{name}' must be int or tuple of ints, not {type(x).__name__}")
    return [unpack_int64(x.__index__())]


moveaxis = movedim


# ---- adding and removing size-1 dims ----------------------------------------------------------------------


@view_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)")
def unsqueeze_kernel(self, dim):
    n = self.dim()
    dim = normalize_dim(dim, n + 1)
    sizes, strides = list(self._sizes), list(self._strides)
    # Any stride is legal for a size-1 dim; PyTorch picks the one that keeps a contiguous tensor contiguous.
    new_stride = 1 if dim >= n else sizes[dim] * strides[dim]
    sizes.insert(dim, 1)
    strides.insert(dim, new_stride)
    return _view_of(self, self._offset, sizes, strides)


unsqueeze = unsqueeze_kernel


@view_op("squeeze.dims(Tensor(a) self, int[]? dim=None) -> Tensor(a)")
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


def squeeze(self, dim=None):
    return squeeze_kernel(self, dim)


# ---- broadcasting views -------------------------------------------------------------------------------------


@view_op("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)")
def expand_kernel(self, size, implicit=False):
    size = tuple(size)
    n, m = self.dim(), len(size)
    if m < n:
        raise RuntimeError(
            f"expand(torch.{self.dtype._ptname}Tensor{{{list(self._sizes)}}}, size={list(size)}): the number of sizes provided ({m}) "
            f"must be greater or equal to the number of dimensions in the tensor ({n})")
    sizes, strides = [], []
    for i in range(m):
        j = i - (m - n)               # the matching dim of self, counted from the right
        target = size[i]
        if j < 0:                     # a new leading dim: every index reads the same elements
            if target < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) isn't allowed in a leading, non-existing dimension {i}")
            sizes.append(target)
            strides.append(0)
            continue
        have = self._sizes[j]
        if target == -1:
            target = have
        if have == target:
            sizes.append(have)
            strides.append(self._strides[j])
        elif have == 1:
            sizes.append(target)
            strides.append(0)         # stride 0: one element, seen `target` times
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({target}) must match the existing size ({have}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: {list(self._sizes)}")
    check_numel(sizes)                # stride-0 dims take no memory, but the element count must still fit
    return _view_of(self, self._offset, sizes, strides)


def expand(self, *size):
    if not size:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    return expand_kernel(self, _int_list(size))


@composite("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)")
def expand_as(self, other):
    return expand_kernel(self, other._sizes)


def broadcast_to(input, size):
    return expand_kernel(input, _int_list((size,)))


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = _strides.broadcast_shapes(*(t._sizes for t in tensors))
    return tuple(expand_kernel(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    """`teachtorch.broadcast_shapes(*shapes)`: the shape an elementwise op would give inputs of these shapes.

    PyTorch writes this one in Python (torch._refs._broadcast_shapes) and its error differs from the C++ one
    that `add` raises (_strides.broadcast_shapes): it names the argument and the shape built so far."""
    from .._tensor import Size
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for shape in shapes:
        if not isinstance(shape, (list, tuple)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common = [1] * max((len(shape) for shape in shapes), default=0)
    for index, shape in enumerate(shapes):
        for dim in range(-1, -1 - len(shape), -1):       # line the shapes up on the right
            if shape[dim] == common[dim]:
                continue
            if common[dim] == 1:
                if shape[dim] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[dim] = shape[dim]
            elif shape[dim] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[dim]} at {dim}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return Size(common)


# ---- picking parts: select, slice, narrow ---------------------------------------------------------------


@view_op("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)")
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


select = select_kernel


@view_op("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)")
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


slice_op = slice_kernel


@composite("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)")
def narrow_kernel(self, dim, start, length):
    if self.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = normalize_dim(dim, self.dim())
    size = self._sizes[dim]
    if isinstance(start, Tensor):
        start = int(start.item())
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_kernel(self, dim, start, start + length, 1)


narrow = narrow_kernel


# ---- windows and diagonals --------------------------------------------------------------------------------


@view_op("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)")
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


unfold = unfold_kernel


@view_op("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)")
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


diagonal = diagonal_kernel


@view_op("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)")
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


def as_strided(input, size, stride, storage_offset=None):
    return as_strided_kernel(input, tuple(size), tuple(stride), storage_offset)


# ---- many views at once ---------------------------------------------------------------------------------------


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


@view_op("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]")
def split_with_sizes_kernel(self, split_sizes, dim=0):
    return _split_views(self, split_sizes, dim)


# An op of its own, not a composite of split_with_sizes, as in PyTorch (its node is SplitBackward0).
@view_op("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")
def split_tensor(self, split_size, dim=0):
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


def split(tensor, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, int):
        return split_tensor(tensor, split_size_or_sections, dim)
    return split_with_sizes_kernel(tensor, list(split_size_or_sections), dim)


@composite("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]")
def chunk_kernel(self, chunks, dim=0):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self._sizes[normalize_dim(dim, self.dim())]
    return split_tensor(self, (size + chunks - 1) // chunks, dim)


chunk = chunk_kernel


@view_op("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")
def unbind_kernel(self, dim=0):
    if self.dim() == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = normalize_dim(dim, self.dim())
    sizes = self._sizes[:dim] + self._sizes[dim + 1:]
    strides = self._strides[:dim] + self._strides[dim + 1:]
    return tuple(_view_of(self, self._offset + i * self._strides[dim], sizes, strides)
                 for i in range(self._sizes[dim]))


unbind = unbind_kernel


# ---- aliases ---------------------------------------------------------------------------------------------


@view_op("detach(Tensor(a) self) -> Tensor(a)")
def detach_kernel(self):
    return _view_of(self, self._offset, self._sizes, self._strides)


detach = detach_kernel


@view_op("alias(Tensor(a) self) -> Tensor(a)")
def alias_kernel(self):
    return _view_of(self, self._offset, self._sizes, self._strides)


# ---- Tensor methods and properties ------------------------------------------------------------------------

for _name, _fn in {
    "view": tensor_view, "reshape": lambda self, *shape: reshape(self, _int_list(shape)),
    "view_as": view_as, "reshape_as": reshape_as, "flatten": flatten, "unflatten": unflatten,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t, "permute": permute,
    "movedim": movedim, "moveaxis": movedim, "unsqueeze": unsqueeze, "squeeze": squeeze, "expand": expand,
    "expand_as": expand_as, "select": select, "narrow": narrow, "unfold": unfold, "diagonal": diagonal,
    "as_strided": as_strided, "split": split, "split_with_sizes": split_with_sizes_kernel, "chunk": chunk,
    "unbind": unbind, "detach": detach, "_alias": alias_kernel,
}.items():
    # an OpOverload is not a descriptor, so ops get a small method that passes the tensor as `self`
    bind_method(_name, method(_fn, _name) if isinstance(_fn, OpOverload) else _fn)


def _T(self):
    if self.dim() == 2:
        return transpose(self, 0, 1)
    return permute_kernel(self, list(range(self.dim() - 1, -1, -1)))


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
    return transpose(self, -2, -1)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_T)
Tensor.mH = property(_mT)


__all__ = ['as_strided', 'broadcast_shapes', 'broadcast_tensors', 'broadcast_to', 'chunk', 'detach', 'diagonal', 'expand_as', 'flatten', 'movedim', 'moveaxis', 'narrow', 'permute', 'reshape', 'select', 'split', 'squeeze', 'swapaxes', 'swapdims', 't', 'transpose', 'unbind', 'unflatten', 'unfold', 'unsqueeze', 'view_as']
