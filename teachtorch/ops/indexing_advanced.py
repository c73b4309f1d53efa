"""Advanced indexing and the gather / scatter family: ops that pick elements by index tensors, so they copy.

`x[1:, 0]` is *basic* indexing: views (ops/indexing.py). Anything else in the index, an index tensor, a list,
a NumPy array, a bool mask, a Python bool, is *advanced* indexing: the elements it picks sit at no regular
stride from each other, so `x[idx]` returns a **copy** (`_base` is None) and `x[idx] = v` writes in place
into x's own storage.

How PyTorch does it. Python's `x[index]` lands in torch/csrc/autograd/python_variable_indexing.cpp:
`applySlicing` walks the index tuple, applying ints (`select`), slices (`slice`) and `None` (`unsqueeze`)
as views as it goes, and collecting the tensor indices, one per dim, in a list. If the list is empty the
view is the result; otherwise it calls `aten::index.Tensor(view, [None, idx, ...])` (or, for assignment,
`aten::index_put_`). A dispatch trace of `x[1:, [0, 2]]` shows `aten.slice.Tensor` then `aten.index.Tensor`.
The NumPy rules follow from there (kernels/indexing.py):

    x[[0, 2]]            the rows 0 and 2                          shape (2, 4) for x of shape (3, 4)
    x[[0, 1], [1, 2]]    index tensors broadcast together: x[0, 1], x[1, 2]      shape (2,)
    x[:, [0, 1], [1, 2]] adjacent indices stay in place                          shape (3, 2)
    x[[0, 1], :, [1, 2]] separated by a slice: the indexed dims go first         shape (2, x.size(1))
    x[mask]              a bool mask indexes as many dims as it has (`mask.nonzero()`)
    x[True]              a new dim of size 1 (False: of size 0)

The other ops here (`index_select`, `gather`, `scatter_`, `index_add_`, `masked_fill_`, `nonzero`, ...) are the
same idea along one dim, each with its own schema in native_functions.yaml.
"""

import numpy as np

from .._dtype import bool_, int64, uint8
from .._tensor import Tensor
from ..kernels import indexing as K
from ..kernels import scatter_gather as SG
from . import indexing, views
from ._define import bind_method, composite_op, function, inplace_schema, kernel_op, method, out_schema


# ---- aten::index and aten::index_put_ ------------------------------------------------------------------------

index_op = kernel_op("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", K.index_kernel)
index_put__op = kernel_op("index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> "
                          "Tensor(a!)", K.index_put_kernel)
index_put_op = kernel_op("index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
                         K.index_put_functional_kernel)


def _tensor_list(indices, name):
    """The Python binding takes `indices` as a tuple of Tensors (None is not accepted there)."""
    if isinstance(indices, Tensor) or not isinstance(indices, (list, tuple)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(indices)


def index_put_(input, indices, values, accumulate=False):
    return index_put__op(input, _tensor_list(indices, "index_put_"), values, accumulate)


def index_put(input, indices, values, accumulate=False):
    return index_put_op(input, _tensor_list(indices, "index_put"), values, accumulate)


# ---- tensor[index] and tensor[index] = value: the Python layer ------------------------------------------------


def _index_tensor_from_data(data):
    """A list or array used as an index (PyTorch's `indexing_tensor_from_data`): a bool (or uint8) mask if
    its values are bools (or uint8), otherwise a long tensor; floats are truncated."""
    from .tensor_new import tensor
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    t = tensor(data if isinstance(data, np.ndarray) else list(data))
    if t.dtype in (bool_, uint8):
        return t
    return t.to(int64) if t.dtype is not int64 else t      # (`t` is on the default device, maybe a GPU)


def _bool_index(value, device):
    """A Python bool adds a dim of size 1; True then indexes it as [0], False as [] (boolToIndexingTensor)."""
    from .tensor_new import tensor
    return tensor([0] if value else [], dtype=int64, device=device)


def _count_specified_dims(index):
    """How many dims of the tensor the index uses up: masks count one per mask dim; None, ..., bools none."""
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            count += obj.dim() if obj.dtype in (bool_, uint8) else 1
        elif not (obj is None or obj is Ellipsis or isinstance(obj, bool)):
            count += 1
    return count


def apply_slicing(self, index):
    """PyTorch's `applySlicing`: apply the basic parts of `index` as views, collect the tensor indices.

    Returns (view, indices): `indices` has one entry per dim of `view` up to the last indexed one, None for
    a dim that is not indexed (a k-dim mask is one entry that covers k dims).
    """
    specified = _count_specified_dims(index)
    if specified > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    result, dim = self, 0
    indices, covered = [], 0      # covered: how many dims of `result` the entries of `indices` span

    def record(t):
        nonlocal dim, covered
        indices.extend([None] * (dim - covered))
        covered = dim
        indices.append(t)
        span = t.dim() if t.dtype in (bool_, uint8) else 1
        dim += span
        covered += span

    for position, obj in enumerate(index):
        if isinstance(obj, np.ndarray) and obj.ndim == 0:
            obj = _index_tensor_from_data(obj.reshape(1)).reshape(())
        if obj is None:
            result = views.unsqueeze(result, dim)
            dim += 1
        elif obj is Ellipsis:
            dim += self.dim() - specified
        elif isinstance(obj, slice):
            step = 1 if obj.step is None else indexing._as_int(obj.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = None if obj.start is None else indexing._as_int(obj.start)
            stop = None if obj.stop is None else indexing._as_int(obj.stop)
            if not indexing.is_full_slice(result._sizes[dim], start, stop, step):
                result = views.slice_op(result, dim, start, stop, step)
            dim += 1
        elif isinstance(obj, bool):
            result = views.unsqueeze(result, dim)
            record(_bool_index(obj, self.device))
        elif isinstance(obj, Tensor):
            if obj.dim() == 0 and obj.dtype in (bool_, uint8):
                result = views.unsqueeze(result, dim)
                record(_bool_index(bool(obj.item()), self.device))
            elif obj.dim() == 0 and not obj.dtype.is_floating_point:
                result = _select(result, dim, int(obj.item()), position)
            else:
                record(obj)
        elif isinstance(obj, (list, tuple, range, np.ndarray, str)):
            record(_index_tensor_from_data(obj))
        elif hasattr(obj, "__index__") and not isinstance(obj, np.bool_):
            result = _select(result, dim, obj.__index__(), position)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             f"valid indices (got {indexing._type_name(obj)})")
    return result, indices


def _select(t, dim, i, position):
    size = t._sizes[dim]
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {position} with size {size}")
    return views.select(t, dim, i)


def advanced_getitem(self, index):
    """`self[index]` when the index holds anything but ints, slices, None and `...`."""
    view, indices = apply_slicing(self, index)
    if not indices:
        return view if view is not self else views.alias_op(self)
    return index_op(view, indices)


def _strip_leading_ones(value):
    """`x[idx] = v` ignores leading size-1 dims of v (NumPy compatibility: slicePrefix1sSize)."""
    sizes = value._sizes
    k = 0
    while k < len(sizes) and sizes[k] == 1:
        k += 1
    return views.view(value, sizes[k:]) if k else value


def advanced_setitem(self, index, value):
    """`self[index] = value` when the index holds anything but ints, slices, None and `...`: index_put_."""
    value = indexing.value_to_tensor(self, value)
    view, indices = apply_slicing(self, index)
    value = _strip_leading_ones(value)
    if not indices:
        view.copy_(value)
        return
    index_put__op(view, indices, value)


indexing.advanced_getitem = advanced_getitem
indexing.advanced_setitem = advanced_setitem


# ---- one dim at a time: index_select, gather, scatter ----------------------------------------------------------

index_select_op = kernel_op("index_select(Tensor self, int dim, Tensor index) -> Tensor", SG.index_select_kernel)
index_select_out = kernel_op(out_schema("index_select(Tensor self, int dim, Tensor index) -> Tensor"),
                             SG.index_select_out_kernel)
index_select = function(index_select_op, index_select_out, "index_select")

_GATHER = "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor"
gather_op = kernel_op(_GATHER, SG.gather_kernel)
gather_out = kernel_op(out_schema(_GATHER), SG.gather_out_kernel)
gather = function(gather_op, gather_out, "gather")

SCATTER_OPS = {}   # (overload, "" or "_" or "out") -> op

for _overload, _schema, _kw in [
    ("src", "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", {}),
    ("value", "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", {}),
    ("reduce", "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
     {"reduce_kind": "tensor_reduce"}),
    ("value_reduce", "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor",
     {"reduce_kind": "value_reduce"}),
    ("add", "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", {"fixed_reduce": "add"}),
    ("reduce_two", "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                   "bool include_self=True) -> Tensor", {"reduce_kind": "two", "new_reduce": True}),
]:
    _k = SG.ScatterKernel(_schema.partition("(")[0], **_kw)
    _functional_k, _inplace_k, _out_k = _k.functional, _k.inplace, _k.out
    SCATTER_OPS[_overload, ""] = kernel_op(_schema, _functional_k)
    SCATTER_OPS[_overload, "_"] = kernel_op(inplace_schema(_schema), _inplace_k)
    _name, _, _rest = _schema.partition("(")
    _out_name = _name + "_out" if "." in _name else _name + ".out"      # scatter.src_out, scatter_add.out
    SCATTER_OPS[_overload, "out"] = kernel_op(_out_name + "(" + out_schema(_schema).partition("(")[2], _out_k)


def _scatter_op(src, value, reduce, variant):
    s = src if src is not None else value
    if s is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if isinstance(s, Tensor):
        return SCATTER_OPS["reduce" if reduce is not None else "src", variant], s
    return SCATTER_OPS["value_reduce" if reduce is not None else "value", variant], s


def scatter(input, dim, index, src=None, *, value=None, reduce=None, out=None):
    op, s = _scatter_op(src, value, reduce, "" if out is None else "out")
    args = (input, dim, index, s) + ((reduce,) if reduce is not None else ())
    return op(*args) if out is None else op(*args, out=out)


def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    op, s = _scatter_op(src, value, reduce, "_")
    return op(self, dim, index, s) if reduce is None else op(self, dim, index, s, reduce=reduce)


def scatter_add(input, dim, index, src, *, out=None):
    if out is None:
        return SCATTER_OPS["add", ""](input, dim, index, src)
    return SCATTER_OPS["add", "out"](input, dim, index, src, out=out)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    if out is None:
        return SCATTER_OPS["reduce_two", ""](input, dim, index, src, reduce, include_self=include_self)
    return SCATTER_OPS["reduce_two", "out"](input, dim, index, src, reduce, include_self=include_self, out=out)


def _take_along_dim(self, indices, dim=None):
    """`take_along_dim`, a composite (CompositeImplicitAutograd, so it stays here, above the kernels): gather,
    with self and indices broadcast against each other except along `dim`."""
    if dim is None:
        # PyTorch: self.view(-1).gather(0, indices.view(-1)); view, so a non-contiguous self is refused
        return gather_op(views.view(self, (-1,)), 0, views.view(indices, (-1,)))
    if self.dim() != indices.dim():
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    if indices.dtype is not int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype._ptname}")
    from .._strides import broadcast_shapes, normalize_dim
    dim = normalize_dim(dim, self.dim())
    self_sizes = list(self._sizes)
    self_sizes[dim] = indices._sizes[dim]
    indices = views.expand_op(indices, broadcast_shapes(self_sizes, indices._sizes))
    indices_sizes = list(indices._sizes)
    indices_sizes[dim] = self._sizes[dim]
    self = views.expand_op(self, broadcast_shapes(indices_sizes, self._sizes))
    return gather_op(self, dim, indices)


take_along_dim_op = composite_op("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
                                 _take_along_dim)


def take_along_dim(input, indices, dim=None, *, out=None):
    result = take_along_dim_op(input, indices, dim)
    if out is None:
        return result
    return _copy_into_out(out, result)


def _copy_into_out(out, result):
    """`out=` for a composite op: the out tensor (resized when needed) gets the result."""
    K.check_out_dtype(out, result.dtype)
    return K.finish_out(out, None if K.is_meta(result) else result._data(), result._sizes)


# ---- whole slices along one dim: index_add, index_copy, index_fill ---------------------------------------------

_INDEX_ADD = "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor"
_k = SG.index_add_kernels()
index_add_op = kernel_op(_INDEX_ADD, _k[0])
index_add__op = kernel_op(inplace_schema(_INDEX_ADD), _k[1])
index_add_out = kernel_op(out_schema(_INDEX_ADD), _k[2])
index_add = function(index_add_op, index_add_out, "index_add")

_INDEX_COPY = "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor"
_k = SG.index_copy_kernels()
index_copy_op = kernel_op(_INDEX_COPY, _k[0])
index_copy__op = kernel_op(inplace_schema(_INDEX_COPY), _k[1])
index_copy = function(index_copy_op, None, "index_copy")

index_fill_ops = {
    "Scalar": kernel_op("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
                        SG.index_fill_kernel),
    "Scalar_": kernel_op("index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
                         SG.index_fill__kernel),
    "Tensor": kernel_op("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor",
                        SG.index_fill_kernel),
    "Tensor_": kernel_op("index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)",
                         SG.index_fill__kernel),
}


def index_fill(input, dim, index, value):
    return index_fill_ops["Tensor" if isinstance(value, Tensor) else "Scalar"](input, dim, index, value)


def index_fill_(self, dim, index, value):
    return index_fill_ops["Tensor_" if isinstance(value, Tensor) else "Scalar_"](self, dim, index, value)


# ---- masks -------------------------------------------------------------------------------------------------------

masked_fill_ops = {
    "Scalar": kernel_op("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", K.masked_fill_kernel),
    "Scalar_": kernel_op("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
                         K.masked_fill__kernel),
    "Tensor": kernel_op("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", K.masked_fill_kernel),
    "Tensor_": kernel_op("masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
                         K.masked_fill__kernel),
}


def masked_fill(input, mask, value):
    return masked_fill_ops["Tensor" if isinstance(value, Tensor) else "Scalar"](input, mask, value)


def masked_fill_(self, mask, value):
    return masked_fill_ops["Tensor_" if isinstance(value, Tensor) else "Scalar_"](self, mask, value)


masked_select_op = kernel_op("masked_select(Tensor self, Tensor mask) -> Tensor", K.masked_select_kernel)
masked_select_out = kernel_op(
    out_schema("masked_select(Tensor self, Tensor mask) -> Tensor"), K.masked_select_out_kernel)
masked_select = function(masked_select_op, masked_select_out, "masked_select")

masked_scatter_op = kernel_op(
    "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", K.masked_scatter_kernel)
masked_scatter__op = kernel_op("masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
                               K.masked_scatter__kernel)
masked_scatter = function(masked_scatter_op, None, "masked_scatter")

nonzero_op = kernel_op("nonzero(Tensor self) -> Tensor", K.nonzero_kernel)
nonzero_out = kernel_op(out_schema("nonzero(Tensor self) -> Tensor"), K.nonzero_out_kernel)


def nonzero(input, *, out=None, as_tuple=False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor in row-major order, or with
    `as_tuple=True` one 1-d tensor per dim (a 0-d input counts as 1-d)."""
    if as_tuple:
        t = views.unsqueeze(input, 0) if input.dim() == 0 else input
        return views.unbind(nonzero_op(t), 1)
    return nonzero_op(input) if out is None else nonzero_out(input, out=out)


def _argwhere(self):
    return nonzero_op(self)


argwhere_op = composite_op("argwhere(Tensor self) -> Tensor", _argwhere)


def argwhere(input):
    return argwhere_op(input)


# ---- flat indices: take, put ----------------------------------------------------------------------------------

take_op = kernel_op("take(Tensor self, Tensor index) -> Tensor", SG.take_kernel)
take_out = kernel_op(out_schema("take(Tensor self, Tensor index) -> Tensor"), SG.take_out_kernel)
take = function(take_op, take_out, "take")

put__op = kernel_op("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
                    SG.put__kernel)
put_op = kernel_op("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor", SG.put_kernel)
put = function(put_op, None, "put")


# ---- Tensor methods --------------------------------------------------------------------------------------------

for _name, _fn in {
    "index_put_": index_put_, "index_put": index_put, "index_select": method(index_select_op, "index_select"),
    "gather": method(gather_op, "gather"), "scatter": scatter, "scatter_": scatter_, "scatter_add": scatter_add,
    "scatter_add_": method(SCATTER_OPS["add", "_"], "scatter_add_"), "scatter_reduce": scatter_reduce,
    "scatter_reduce_": lambda self, dim, index, src, reduce, *, include_self=True: SCATTER_OPS["reduce_two", "_"](
        self, dim, index, src, reduce, include_self=include_self),
    "take_along_dim": take_along_dim,
    "index_add": method(index_add_op, "index_add"), "index_add_": method(index_add__op, "index_add_"),
    "index_copy": method(index_copy_op, "index_copy"), "index_copy_": method(index_copy__op, "index_copy_"),
    "index_fill": index_fill, "index_fill_": index_fill_, "masked_fill": masked_fill, "masked_fill_": masked_fill_,
    "masked_select": method(masked_select_op, "masked_select"),
    "masked_scatter": method(masked_scatter_op, "masked_scatter"),
    "masked_scatter_": method(masked_scatter__op, "masked_scatter_"),
    "nonzero": lambda self, *, as_tuple=False: nonzero(self, as_tuple=as_tuple), "argwhere": argwhere,
    "take": method(take_op, "take"), "put_": method(put__op, "put_"), "put": method(put_op, "put"),
}.items():
    bind_method(_name, _fn)


__all__ = ['argwhere', 'gather', 'index_add', 'index_copy', 'index_fill', 'index_put', 'index_put_', 'index_select',
           'masked_fill', 'masked_scatter', 'masked_select', 'nonzero', 'put', 'scatter', 'scatter_add',
           'scatter_reduce', 'take', 'take_along_dim']
