"""Joining and rearranging tensors: cat, stack, flip, roll, repeat, tril, diag and friends.

These ops make a *new* tensor from whole blocks of their inputs' elements (kernels/shape.py says how, and
how PyTorch picks each result's layout). Several are compositions, exactly as in PyTorch
(aten/src/ATen/native/TensorShape.cpp), and are registered as CompositeImplicitAutograd so a dispatch trace
shows the pieces (`stack` is an op of its own, as in PyTorch: node StackBackward0):

    hstack / vstack   atleast_1d / atleast_2d, then cat along dim 1 (0 for 1-d) / dim 0
    dstack            atleast_3d, then cat along dim 2
    tile(t, reps)     repeat, with 1s prepended to `reps`
    fliplr / flipud   flip(1) / flip(0)
    repeat_interleave(t, n)   unsqueeze, expand, clone, flatten: each element n times in a row
    meshgrid          views: each input viewed along its own dim and expanded to the grid
    atleast_Nd        views (reshape / unsqueeze)

`cat`'s two old rules are kept: a 1-d empty tensor (`torch.tensor([])`) is skipped whatever the other
shapes, and the inputs' dtypes are promoted (`cat([int, float])` is float).
"""

import operator
import warnings

from .._strides import normalize_dim
from .._tensor import Tensor
from ..dispatch.schema import unpack_int64
from ..kernels import shape as K
from . import views
from .factories import zeros_like as _zeros_like
from ._define import bind_method, composite_op, function, inplace_schema, kernel_op, method, out_schema


def _tensor_list(tensors, name):
    """The Python binding wants a tuple or list of Tensors (not a Tensor)."""
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    return list(tensors)


def _int_list(value):
    """An `int[]` argument given as an int, a tuple or a list (or varargs)."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and isinstance(value[0], (list, tuple)):
            value = value[0]
        return [_index(v) for v in value]
    return [_index(value)]


def _index(value):
    """An int-like value as an int; anything else (1.5) is left for the schema check to refuse, not truncated."""
    return operator.index(value) if hasattr(value, "__index__") and not isinstance(value, bool) else value


# ---- cat / stack ----------------------------------------------------------------------------------------------

_CAT = "cat(Tensor[] tensors, int dim=0) -> Tensor"
cat_op = kernel_op(_CAT, K.cat_kernel)
cat_out = kernel_op(out_schema(_CAT), K.cat_out_kernel)


def cat(tensors, dim=0, *, axis=None, out=None):
    """Join tensors along an existing dim."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dim = axis if axis is not None else dim
    return cat_op(tensors, dim) if out is None else cat_out(tensors, dim, out=out)


def concat(tensors, dim=0, *, axis=None, out=None):
    return cat(tensors, dim, axis=axis, out=out)


concatenate = concat


def _stack_inputs(tensors, dim):
    for i, t in enumerate(tensors[1:], 1):
        if t._sizes != tensors[0]._sizes:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0]._sizes)} at "
                               f"entry 0 and {list(t._sizes)} at entry {i}")
    return [views.unsqueeze(t, dim) for t in tensors]


def _stack_out(tensors, dim, out):
    """stack.out: cat of the inputs each unsqueezed at `dim`, into `out`."""
    dim = normalize_dim(dim, tensors[0].dim() + 1)
    return cat_out(_stack_inputs(tensors, dim), dim, out=out)


stack_op = kernel_op("stack(Tensor[] tensors, int dim=0) -> Tensor", K.stack_kernel)


def stack(tensors, dim=0, *, out=None):
    """Join tensors of equal shape along a new dim."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return stack_op(tensors, dim) if out is None else _stack_out(tensors, dim, out)


def _atleast(n):
    def fn(t):
        if t.dim() >= n:
            return t
        if t.dim() == 0:
            return views.reshape(t, (1,) * n)
        if n == 2:
            return views.unsqueeze(t, 0)
        return views.unsqueeze(t, -1) if t.dim() == 2 else views.unsqueeze(views.unsqueeze(t, 0), -1)
    return fn


atleast_1d_op = composite_op("atleast_1d(Tensor self) -> Tensor", _atleast(1))
atleast_2d_op = composite_op("atleast_2d(Tensor self) -> Tensor", _atleast(2))
atleast_3d_op = composite_op("atleast_3d(Tensor self) -> Tensor", _atleast(3))


def _atleast_public(op):
    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return op(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tensors[0]
        return tuple(op(t) for t in tensors)
    fn.__name__ = op.schema.name
    return fn


atleast_1d = _atleast_public(atleast_1d_op)
atleast_2d = _atleast_public(atleast_2d_op)
atleast_3d = _atleast_public(atleast_3d_op)


def _joined(name, prepare, dim_of):
    def kernel(tensors):
        if len(tensors) == 0:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        ready = [prepare(t) for t in tensors]
        return cat_op(ready, dim_of(ready))
    op = composite_op(f"{name}(Tensor[] tensors) -> Tensor", kernel)

    def public(tensors, *, out=None):
        tensors = _tensor_list(tensors, name)
        if len(tensors) == 0:     # (checked before dispatching: with no tensor there is no backend to pick)
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        if out is None:
            return op(tensors)
        ready = [prepare(t) for t in tensors]
        return cat_out(ready, dim_of(ready), out=out)
    public.__name__ = name
    return public


hstack = _joined("hstack", _atleast(1), lambda ts: 0 if ts[0].dim() == 1 else 1)
vstack = _joined("vstack", _atleast(2), lambda ts: 0)
row_stack = vstack
dstack = _joined("dstack", _atleast(3), lambda ts: 2)
column_stack = _joined("column_stack", lambda t: views.reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t,
                       lambda ts: 1)


# ---- flip / roll / rot90 ---------------------------------------------------------------------------------------

flip_op = kernel_op("flip(Tensor self, int[] dims) -> Tensor", K.flip_kernel)


def flip(input, *dims):
    return flip_op(input, _int_list(dims))


def _fliplr(self):
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip_op(self, [1])


def _flipud(self):
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip_op(self, [0])


fliplr_op = composite_op("fliplr(Tensor self) -> Tensor", _fliplr)
flipud_op = composite_op("flipud(Tensor self) -> Tensor", _flipud)
fliplr = function(fliplr_op, None, "fliplr")
flipud = function(flipud_op, None, "flipud")

roll_op = kernel_op("roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", K.roll_kernel)


def _int_or_list(value):
    """An `int[1]` argument: a lone int is unpacked as an int (ValueError when too big), a list as a list."""
    return _int_list(unpack_int64(value))


def roll(input, shifts, dims=None):
    return roll_op(input, _int_or_list(shifts), [] if dims is None else _int_or_list(dims))


rot90_op = kernel_op("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", K.rot90_kernel)


def rot90(input, k=1, dims=(0, 1)):
    return rot90_op(input, k, _int_list(dims))


# ---- repeat / tile / repeat_interleave ---------------------------------------------------------------------------

repeat_op = kernel_op("repeat(Tensor self, SymInt[] repeats) -> Tensor", K.repeat_kernel)


def _repeat(self, *repeats):
    return repeat_op(self, _int_list(repeats))


def _tile(self, dims):
    dims = list(dims)
    if len(dims) < self.dim():
        dims = [1] * (self.dim() - len(dims)) + dims
    return repeat_op(self, dims)


tile_op = composite_op("tile(Tensor self, SymInt[] dims) -> Tensor", _tile)


def tile(input, dims):
    return tile_op(input, _int_list(dims))


def _repeat_interleave_int(self, repeats, dim=None, output_size=None):
    flat = self if dim is not None else views.flatten(self)
    d = normalize_dim(0 if dim is None else dim, self.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # each element followed by its copies: a new dim after `d`, expanded, copied, and merged back
    unsqueezed = views.unsqueeze(flat, d + 1)
    sizes = list(unsqueezed._sizes)
    sizes[d + 1] = repeats
    return views.flatten(views.expand_op(unsqueezed, sizes).clone(memory_format="contiguous_format"), d, d + 1)


def _repeats_to_indices(repeats, output_size=None):
    """`repeat_interleave(repeats)`: [1, 0, 2] -> [0, 2, 2], the index of each element's copies."""
    from ..backends import wrap
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype.is_floating_point or repeats.dtype.name in ("bool", "uint8", "int8", "int16"):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{repeats.dtype._ptname}'")
    xp = K.xp_for(repeats)
    counts = repeats._data()
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    result = xp.repeat(xp.arange(counts.shape[0], dtype=counts.dtype), counts)
    if output_size is not None and output_size != result.shape[0]:
        raise RuntimeError("allocated size does not match required size")
    return wrap(result, repeats.dtype, repeats.device)


def _repeat_interleave_tensor(self, repeats, dim=None, output_size=None):
    from .indexing_advanced import index_select_op
    flat = self if dim is not None else views.flatten(self)
    d = 0 if dim is None else normalize_dim(dim, self.dim())
    if repeats.dim() == 0 or (repeats.dim() == 1 and repeats._sizes[0] == 1):
        repeats = views.expand_op(views.reshape(repeats, (1,)), (flat._sizes[d],))
    elif repeats.dim() == 1:
        if repeats._sizes[0] != flat._sizes[d]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._sizes[0]} and input.size({d}) = {flat._sizes[d]}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return index_select_op(flat, d, repeat_interleave_repeats_op(repeats, output_size=output_size))


repeat_interleave_int_op = composite_op(
    "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    _repeat_interleave_int)
repeat_interleave_tensor_op = composite_op(
    "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
    _repeat_interleave_tensor)
repeat_interleave_repeats_op = kernel_op(
    "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
    lambda ks, repeats, output_size=None: _repeats_to_indices(repeats, output_size))


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element repeated `repeats` times in a row (along `dim`, or over the flattened tensor)."""
    if repeats is None:
        return repeat_interleave_repeats_op(input, output_size=output_size)
    if isinstance(repeats, Tensor):
        return repeat_interleave_tensor_op(input, repeats, dim, output_size=output_size)
    return repeat_interleave_int_op(input, repeats, dim, output_size=output_size)


# ---- triangles and diagonals ------------------------------------------------------------------------------------

TRIANGLE_OPS = {}
for _name, _lower in (("tril", True), ("triu", False)):
    _schema = f"{_name}(Tensor self, int diagonal=0) -> Tensor"
    _k = K.TriangleKernel(_lower)
    _f, _i, _o = _k.functional, _k.inplace, _k.out
    TRIANGLE_OPS[_name] = (kernel_op(
        _schema, _f), kernel_op(
        inplace_schema(
        _schema), _i), kernel_op(out_schema(_schema), _o))

tril = function(TRIANGLE_OPS["tril"][0], TRIANGLE_OPS["tril"][2], "tril")
triu = function(TRIANGLE_OPS["triu"][0], TRIANGLE_OPS["triu"][2], "triu")

_DIAG = "diag(Tensor self, int diagonal=0) -> Tensor"
diag_op = kernel_op(_DIAG, K.diag_kernel)
diag_out = kernel_op(out_schema(_DIAG), K.diag_out_kernel)
diag = function(diag_op, diag_out, "diag")

diag_embed_op = kernel_op(
    "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor", K.diag_embed_kernel)
diag_embed = function(diag_embed_op, None, "diag_embed")

diagflat_op = composite_op("diagflat(Tensor self, int offset=0) -> Tensor",
                           lambda self, offset=0: diag_op(views.flatten(self) if self.dim() != 1 else self, offset))
diagflat = function(diagflat_op, None, "diagflat")


# ---- meshgrid -------------------------------------------------------------------------------------------------------


def _meshgrid(tensors, indexing="ij"):
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    tensors = list(tensors)
    swap = indexing == "xy" and len(tensors) >= 2
    if swap:   # "xy" (Cartesian): the first two inputs trade places, then so do the first two outputs
        tensors[0], tensors[1] = tensors[1], tensors[0]
    grid = [t.numel() for t in tensors]
    out = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[i] = -1
        out.append(views.expand_op(views.view(t, view_shape), grid))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


meshgrid_op = composite_op("meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", _meshgrid)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output i holds input i's values along dim i, repeated (as a view) along the others."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if len(tensors) == 0:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    return meshgrid_op(list(tensors), indexing=indexing)


# ---- ravel, diff -----------------------------------------------------------------------------------------------


def _ravel(self):
    """All elements in one dimension, as PyTorch writes it: `contiguous().view(-1)` (a view of a contiguous
    tensor, else a view of its contiguous copy)."""
    return views.tensor_view(self.contiguous(), [-1])


ravel_op = composite_op("ravel(Tensor(a) self) -> Tensor(a)", _ravel)
ravel = function(ravel_op, None, "ravel")


def _diff(self, n, dim, prepend, append):
    """The n-th forward difference along `dim`: out[i] = x[i + 1] - x[i], n times (xor for bools), after
    putting `prepend` before and `append` after the input along `dim` (PyTorch's diff, a composite too)."""
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for extra in (prepend, append):
        if extra is not None and extra.dim() != self.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    dim = normalize_dim(dim, self.dim())
    parts = [t for t in (prepend, self, append) if t is not None]
    x = cat(parts, dim) if len(parts) > 1 else self
    if n == 0:                                    # PyTorch: zeros_like(x).copy_(x), a CopyBackwards node
        return _zeros_like(x).copy_(x)
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break                                 # more differences than elements: the dim stays empty
        later, earlier = views.narrow(x, dim, 1, length - 1), views.narrow(x, dim, 0, length - 1)
        x = later.logical_xor(earlier) if x.dtype.name == "bool" else later - earlier
    return x


diff_op = composite_op("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
                       _diff)
diff = function(diff_op, None, "diff")


# ---- Tensor methods ------------------------------------------------------------------------------------------

for _name, _fn in {
    "flip": flip, "fliplr": method(fliplr_op, "fliplr"), "flipud": method(flipud_op, "flipud"), "roll": roll,
    "rot90": rot90, "repeat": _repeat, "tile": lambda self, *dims: tile(self, dims),
    "repeat_interleave": repeat_interleave,
    "tril": method(TRIANGLE_OPS["tril"][0], "tril"), "tril_": method(TRIANGLE_OPS["tril"][1], "tril_"),
    "triu": method(TRIANGLE_OPS["triu"][0], "triu"), "triu_": method(TRIANGLE_OPS["triu"][1], "triu_"),
    "diag": method(diag_op, "diag"), "diag_embed": method(diag_embed_op, "diag_embed"),
    "diagflat": method(diagflat_op, "diagflat"), "ravel": method(ravel_op, "ravel"), "diff": method(diff_op, "diff"),
}.items():
    bind_method(_name, _fn)


__all__ = ['atleast_1d', 'atleast_2d', 'atleast_3d', 'cat', 'column_stack', 'concat', 'concatenate', 'diag',
           'diag_embed', 'diagflat', 'diff', 'dstack', 'flip', 'fliplr', 'flipud', 'hstack', 'meshgrid', 'repeat_interleave',
           'ravel', 'roll', 'rot90', 'row_stack', 'stack', 'tile', 'tril', 'triu', 'vstack']
