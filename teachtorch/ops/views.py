"""View ops: the public side. Each op's schema, its registration, the ops made of other views, the functions
and the Tensor methods. The kernels, all stride arithmetic, are in kernels/views.py.

A view op's kernel only works out a new (offset, sizes, strides) over the same storage, so, as in PyTorch,
`view_op` registers it once under the alias key `CompositeExplicitAutograd`, which fills the CPU, CUDA and
Meta slots of its dispatch table: a view needs no device code. The ADInplaceOrView layer then links the
output to its base (shared version counter, `_base` = the root base), because each schema says
`Tensor(a) self -> Tensor(a)`.

`reshape`, `flatten`, `view_as`, `movedim`, `narrow`, `chunk`, `expand_as` are *CompositeImplicitAutograd*:
made of the view ops, each dispatched in turn, so a trace shows the pieces. `reshape` is a view when `view`
can be one, and a copy otherwise.
"""

import warnings

from .. import _strides
from .._dispatch_key import CompositeExplicitAutograd
from .._dtype import dtype as _dtype_class
from .._strides import compute_view_strides, infer_size, normalize_dim
from .._tensor import Size, Tensor
from ..dispatch.dispatcher import OpOverload, impl, without_keyset
from ..dispatch.schema import unpack_int64
from ..kernels import views as K
from ._define import bind_method, composite_op, define, method


def view_op(schema, kernel):
    """Define a view op whose kernel (kernels/views.py, `kernel(self, *args)`, no keyset) serves every device."""
    op = define(schema)
    impl(op, CompositeExplicitAutograd, without_keyset(kernel))
    return op


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

view = view_op("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", K.view_kernel)
# Like view, but the schema declares no alias: the output is not linked to its input as a view.
_unsafe_view_op = define("_unsafe_view(Tensor self, SymInt[] size) -> Tensor")
impl(_unsafe_view_op, CompositeExplicitAutograd, without_keyset(K._unsafe_view_kernel))
_reshape_alias_op = view_op("_reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)",
                            K._reshape_alias_kernel)


def tensor_view(self, *shape):
    """`x.view(2, 6)` (the view op) or `x.view(dtype)` (the same bytes read as another dtype)."""
    if len(shape) == 1 and isinstance(shape[0], _dtype_class):
        return K.view_dtype(self, shape[0])
    return view(self, _int_list(shape))


def reshape_kernel(self, shape):
    shape = infer_size(shape, self.numel())
    if self.is_contiguous():
        return view(self, shape)
    strides = compute_view_strides(self._sizes, self._strides, shape)
    if strides is not None:
        # not contiguous, but these elements can still be shown in this shape: a view with these strides
        return _reshape_alias_op(self, shape, strides)
    # No view can show these elements in this order: copy them into a fresh contiguous tensor.
    # PyTorch uses `_unsafe_view` here so the copy is not linked to the input as a view (_base stays None).
    return _unsafe_view_op(self.clone(memory_format="contiguous_format"), shape)


reshape = composite_op("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", reshape_kernel)


def view_as_kernel(self, other):
    return view(self, other._sizes)


view_as = composite_op("view_as(Tensor(a) self, Tensor other) -> Tensor(a)", view_as_kernel)


def reshape_as_kernel(self, other):
    return reshape(self, other._sizes)


reshape_as = composite_op("reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)", reshape_as_kernel)


def flatten_kernel(self, start_dim=0, end_dim=-1):
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


flatten = composite_op("flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
                       flatten_kernel)


def unflatten_kernel(self, dim, sizes):
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


unflatten = composite_op("unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", unflatten_kernel)


# ---- transposes and permutations ------------------------------------------------------------------------

transpose = view_op("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", K.transpose_kernel)
swapaxes = swapdims = transpose
# its own op (not transpose) so that autograd names its node TBackward0, as PyTorch does
t = view_op("t(Tensor(a) self) -> Tensor(a)", K.t_kernel)
permute_op = view_op("permute(Tensor(a) self, int[] dims) -> Tensor(a)", K.permute_kernel)


def permute(self, *dims):
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return permute_op(self, _int_list(dims, "dims"))


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
    return permute_op(self, order)


movedim_op = composite_op("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
                          movedim_kernel)


def movedim(self, source, destination):
    # movedim.int (a lone int, unpacked as an int) or movedim.intlist
    return movedim_op(self, _int_or_ints("source", source), _int_or_ints("destination", destination))


def _int_or_ints(name, x):
    if isinstance(x, (list, tuple)):
        return list(x)
    if isinstance(x, bool) or not hasattr(x, "__index__") or (isinstance(x, Tensor) and x.numel() != 1):
        raise TypeError(f"movedim(): argument '{name}' must be int or tuple of ints, not {type(x).__name__}")
    return [unpack_int64(x.__index__())]


moveaxis = movedim


# ---- adding and removing size-1 dims ----------------------------------------------------------------------

unsqueeze = view_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", K.unsqueeze_kernel)
# PyTorch's three overloads: every size-1 dim, one dim, some dims (one kernel serves them all)
squeeze_op = view_op("squeeze(Tensor(a) self) -> Tensor(a)", K.squeeze_kernel)
squeeze_dim_op = view_op("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", K.squeeze_kernel)
squeeze_dims_op = view_op("squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", K.squeeze_kernel)


def squeeze(self, dim=None):
    if dim is None:
        return squeeze_op(self)
    if isinstance(dim, (list, tuple)):
        return squeeze_dims_op(self, dim)
    return squeeze_dim_op(self, dim)


# ---- broadcasting views -------------------------------------------------------------------------------------

expand_op = view_op("expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", K.expand_kernel)


def expand(self, *size):
    if not size:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    return expand_op(self, _int_list(size))


def expand_as_kernel(self, other):
    return expand_op(self, other._sizes)


expand_as = composite_op("expand_as(Tensor(a) self, Tensor other) -> Tensor(a)", expand_as_kernel)


def broadcast_to(input, size):
    return expand_op(input, _int_list((size,)))


def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = tuple(_strides.broadcast_shapes(*(t._sizes for t in tensors)))
    # a tensor that already has the shape is returned as it is, not expanded (ExpandUtils.h expand_outplace)
    return tuple(t if tuple(t._sizes) == shape else expand_op(t, shape) for t in tensors)


def broadcast_shapes(*shapes):
    """`teachtorch.broadcast_shapes(*shapes)`: the shape an elementwise op would give inputs of these shapes.

    PyTorch writes this one in Python (torch._refs._broadcast_shapes) and its error differs from the C++ one
    that `add` raises (_strides.broadcast_shapes): it names the argument and the shape built so far."""
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

select = view_op("select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", K.select_kernel)
slice_op = view_op("slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) "
                   "-> Tensor(a)", K.slice_kernel)


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
    return slice_op(self, dim, start, start + length, 1)


narrow = composite_op("narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)", narrow_kernel)


# ---- windows, diagonals, any geometry ---------------------------------------------------------------------

unfold = view_op("unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)", K.unfold_kernel)
diagonal = view_op("diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)", K.diagonal_kernel)
as_strided_op = view_op("as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) "
                        "-> Tensor(a)", K.as_strided_kernel)


def as_strided(input, size, stride, storage_offset=None):
    return as_strided_op(input, tuple(size), tuple(stride), storage_offset)


# ---- the backward of the views that pick some elements ------------------------------------------------------
# Zeros of the input's shape with the gradient written into the same view of them: one op each in PyTorch
# (CompositeExplicitAutograd, TensorShape.cpp), so a trace shows `slice_backward`, not its three pieces.


def _zeros_with_view_of(grad_output, input_sizes, take_view):
    grad_input = grad_output.new_zeros(input_sizes)
    take_view(grad_input).copy_(grad_output)
    return grad_input


def slice_backward_kernel(grad_output, input_sizes, dim, start, end, step):
    return _zeros_with_view_of(grad_output, input_sizes, lambda z: slice_op(z, dim, start, end, step))


def select_backward_kernel(grad_output, input_sizes, dim, index):
    return _zeros_with_view_of(grad_output, input_sizes, lambda z: select(z, dim, index))


def diagonal_backward_kernel(grad_output, input_sizes, offset, dim1, dim2):
    return _zeros_with_view_of(grad_output, input_sizes, lambda z: diagonal(z, offset, dim1, dim2))


slice_backward = define("slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, "
                        "SymInt step) -> Tensor")
select_backward = define("select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor")
diagonal_backward = define("diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset, int dim1, "
                           "int dim2) -> Tensor")
impl(slice_backward, CompositeExplicitAutograd, without_keyset(slice_backward_kernel))
impl(select_backward, CompositeExplicitAutograd, without_keyset(select_backward_kernel))
impl(diagonal_backward, CompositeExplicitAutograd, without_keyset(diagonal_backward_kernel))


# ---- many views at once ---------------------------------------------------------------------------------------

split_with_sizes = view_op("split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
                           K.split_with_sizes_kernel)
# An op of its own, not a composite of split_with_sizes, as in PyTorch (its node is SplitBackward0).
split_op = view_op("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", K.split_kernel)


def split(tensor, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, int):
        return split_op(tensor, split_size_or_sections, dim)
    return split_with_sizes(tensor, list(split_size_or_sections), dim)


def chunk_kernel(self, chunks, dim=0):
    if self.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self._sizes[normalize_dim(dim, self.dim())]
    return split_op(self, (size + chunks - 1) // chunks, dim)


chunk = composite_op("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", chunk_kernel)
unbind = view_op("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", K.unbind_kernel)


# ---- aliases ---------------------------------------------------------------------------------------------

detach = view_op("detach(Tensor(a) self) -> Tensor(a)", K.detach_kernel)
alias_op = view_op("alias(Tensor(a) self) -> Tensor(a)", K.alias_kernel)


# ---- Tensor methods and properties ------------------------------------------------------------------------

for _name, _fn in {
    "view": tensor_view, "reshape": lambda self, *shape: reshape(self, _int_list(shape)),
    "view_as": view_as, "reshape_as": reshape_as, "flatten": flatten, "unflatten": unflatten,
    "transpose": transpose, "swapaxes": transpose, "swapdims": transpose, "t": t, "permute": permute,
    "movedim": movedim, "moveaxis": movedim, "unsqueeze": unsqueeze, "squeeze": squeeze, "expand": expand,
    "expand_as": expand_as, "select": select, "narrow": narrow, "unfold": unfold, "diagonal": diagonal,
    "as_strided": as_strided, "split": split, "split_with_sizes": split_with_sizes, "chunk": chunk,
    "unbind": unbind, "detach": detach, "_alias": alias_op,
}.items():
    # an OpOverload is not a descriptor, so ops get a small method that passes the tensor as `self`
    bind_method(_name, method(_fn, _name) if isinstance(_fn, OpOverload) else _fn)


_warned_once = set()    # PyTorch's TORCH_WARN_ONCE: each of these warnings once per process


def _warn_once(message):
    if message not in _warned_once:
        _warned_once.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _T(self):
    """`x.T`: the dims reversed, `permute(n-1, ..., 0)` (PyTorch's `numpy_T`, so its node is PermuteBackward0
    for a matrix too). Deprecated on anything but a matrix, with PyTorch's warnings (TensorShape.cpp)."""
    n = self.dim()
    if n != 2 and n != 0:
        _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                   "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                   "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
    if n == 0:
        _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
    return permute_op(self, list(range(n - 1, -1, -1)))


def _H(self):
    """`x.H`: the conjugate transpose of a matrix, `transpose(0, 1)` for real tensors (PyTorch's `matrix_H`)."""
    if self.dim() == 2:
        return transpose(self, 0, 1)
    return permute_op(self, list(range(self.dim() - 1, -1, -1)))


def _mT(self):
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
    return transpose(self, -2, -1)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_H)
Tensor.mH = property(_mT)


__all__ = ['as_strided', 'broadcast_shapes', 'broadcast_tensors', 'broadcast_to', 'chunk', 'detach', 'diagonal',
           'expand_as', 'flatten', 'movedim', 'moveaxis', 'narrow', 'permute', 'reshape', 'select', 'split',
           'squeeze', 'swapaxes', 'swapdims', 't', 'transpose', 'unbind', 'unflatten', 'unfold', 'unsqueeze',
           'view_as']
