"""Backward formulas of the view ops (derivatives.yaml entries for view, transpose, select, ...).

A view's gradient is the gradient of the elements it shows, put back where they sit in the input:
a reshape is undone by a reshape, a transpose by the same transpose, a permute by the inverse permute.
A view that shows only some elements (select, slice, diagonal) gets a zero tensor of the input's shape
with the gradient written into the same view of it (its backward op, `slice_backward`: ops/views.py); an
expand sums the copies back.
"""

from ... import ops
from ..._strides import INT64_MAX, normalize_dim
from ...ops.views import diagonal_backward, select_backward, slice_backward, slice_op
from ..derivative import derivative, not_differentiable
from ..functions_manual import as_strided_backward, sum_to


def _unfold_geometry(sizes, dimension, size, step):
    """Sizes and strides `unfold` gives a contiguous tensor of `sizes`."""
    from ..._strides import contiguous_strides
    strides = contiguous_strides(sizes)
    if not sizes:
        return (size,), (1,)
    n = (sizes[dimension] - size) // step + 1
    out_sizes = sizes[:dimension] + (n,) + sizes[dimension + 1:] + (size,)
    out_strides = strides[:dimension] + (strides[dimension] * step,) + strides[dimension + 1:] + (strides[dimension],)
    return out_sizes, out_strides


def unfold_backward(grad, sizes, dimension, size, step):
    from ..._strides import contiguous_strides, normalize_dim
    dimension = normalize_dim(dimension, max(len(sizes), 1))
    out_sizes, out_strides = _unfold_geometry(tuple(sizes), dimension, size, step)
    return as_strided_backward(grad, (tuple(sizes), contiguous_strides(sizes), 0), out_sizes, out_strides, 0)


def _inverse(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d % len(dims)] = i
    return inv


derivative("view", self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
derivative("_unsafe_view", self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
derivative("_reshape_alias", self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
derivative("alias", self=lambda grad: grad)
derivative("t", self=lambda grad: grad.t())
derivative("transpose.int", self=lambda grad, dim0, dim1: grad.transpose(dim0, dim1))
derivative("permute", self=lambda grad, dims: grad.permute(_inverse(dims)))
derivative("unsqueeze", self=lambda grad, dim: grad.squeeze(dim))


def _unsqueeze_to(grad, dims, sizes):
    """FunctionsManual.cpp `unsqueeze_to`: put back each of `dims` that squeeze removed (a size-1 dim)."""
    if not sizes:
        return grad
    for d in sorted({normalize_dim(d, len(sizes)) for d in dims}):
        if sizes[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


# squeeze(), squeeze(dim) and squeeze(dims): three ops, three nodes
derivative("squeeze", self=lambda grad, self_sym_sizes: grad.reshape(self_sym_sizes))
derivative("squeeze.dim", name="SqueezeBackward1",
           self=lambda grad, self_sym_sizes, dim: _unsqueeze_to(grad, [dim], self_sym_sizes))
derivative("squeeze.dims", name="SqueezeBackward2",
           self=lambda grad, self_sym_sizes, dim: _unsqueeze_to(grad, dim, self_sym_sizes))
derivative("expand", self=lambda grad, self_sym_sizes: sum_to(grad, self_sym_sizes))
# select, slice, diagonal: their backward ops (ops/views.py), each differentiable in turn
derivative("select.int",
           self=lambda grad, self_sym_sizes, dim, index: select_backward(grad, self_sym_sizes, dim, index))
derivative("select_backward", grad_output=lambda grad, dim, index: grad.select(dim, index))
derivative("slice.Tensor",
           self=lambda grad, self_sym_sizes, dim, start, end, step:
           slice_backward(grad, self_sym_sizes, dim, 0 if start is None else start,
                          INT64_MAX if end is None else end, step))
derivative("slice_backward", grad_output=lambda grad, dim, start, end, step: slice_op(grad, dim, start, end, step))
derivative("diagonal", self=lambda grad, self_sym_sizes, offset, dim1, dim2:
           diagonal_backward(grad, self_sym_sizes, offset, dim1, dim2))
derivative("diagonal_backward", grad_output=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))
derivative("unfold", self=lambda grad, self_sym_sizes, dimension, size, step:
           unfold_backward(grad, self_sym_sizes, dimension, size, step))
derivative("as_strided", self=lambda grad, self_geometry, size, stride, storage_offset:
           as_strided_backward(grad, self_geometry, size, stride, storage_offset))
derivative("split_with_sizes", name="SplitWithSizesBackward0",
           self=lambda grads, dim: ops.cat(grads, dim))
derivative("split.Tensor", self=lambda grads, dim: ops.cat(grads, dim))
derivative("unbind.int", name="UnbindBackward0", self=lambda grads, dim: ops.stack(grads, dim))
not_differentiable("detach")

