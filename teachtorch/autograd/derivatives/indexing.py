"""Backward formulas of indexing, gather/scatter and masked ops (derivatives.yaml entries for index, gather, ...).

Every op here moves values around by index: it reads some elements (index, gather, take, masked_select) or
writes some (index_put, scatter, index_copy, put, masked_scatter, the fills). Their gradients are the same moves
run backwards:

* **Reading** elements: each element read sends its gradient back to where it was read from. An element
  read twice (a repeated index) gets both gradients, so the backward *adds* into zeros: `index` -> `index_put`
  with accumulate=True, `gather` -> `scatter_add`, `index_select` -> `index_add`, `take` -> `put` with
  accumulate=True, `masked_select` -> `masked_scatter` (in the mask's logical order, whatever the strides).
* **Writing** elements: the written positions of `self` were overwritten, so their old values get no
  gradient: self's gradient is `grad` with those positions zeroed (`grad.scatter(dim, index, 0)`,
  `grad.index_fill(dim, index, 0)`, `grad.masked_fill(mask, 0)`). The values written get the gradient of
  where they landed: the same op's *reading* twin (`gather`, `index_select`, `index`, `take`, `masked_select`).
* **Adding** elements (`scatter_add`, `index_add`, `index_put(accumulate=True)`, `put(accumulate=True)`):
  self passes `grad` through untouched; the source reads its gradient as above.
* A scalar **fill** value (`masked_fill`, `index_fill` with a 0-dim tensor) was copied to many places, so its
  gradient is the sum of the gradients there.

Index tensors and masks are integers and bools: they get no gradient. `scatter_reduce` ("sum", "prod", "mean",
"amax", "amin") follows PyTorch's `scatter_reduce_backward` below. `scatter(..., reduce=...)` has no formula in
PyTorch either: its backward raises "not implemented", as here.
"""

import math

from ... import ops
from ..._strides import broadcast_shapes
from ...ops.indexing_advanced import index_op, index_put_op
from .. import variable
from ..derivative import derivative, no_formula
from ..grad_mode import is_grad_enabled
from ..node import Error
from ..saved_variable import _alias


def _times(t, alpha):
    """PyTorch's `maybe_multiply`: skip the multiplication when alpha is 1."""
    return t if alpha == 1 else t * alpha


def _select_source_grad(grad, dim, index, source_dim, source_sym_sizes):
    """index_add / index_copy: the source's gradient is the gradient of the slices it landed in.
    A 0-dim source goes with a one-element index (PyTorch squeezes the index for it)."""
    if source_dim > 0:
        return grad.index_select(dim, index).expand(source_sym_sizes)
    return grad.index_select(dim, index.squeeze(0))


def _masked_scatter_source_grad(grad, mask, source_sym_sizes):
    """masked_scatter: source element k landed at the k-th True of the mask; the rest of source was unused."""
    selected = grad.masked_select(mask)
    missing = math.prod(source_sym_sizes) - selected.numel()
    if missing > 0:
        selected = ops.cat([selected, grad.new_zeros((missing,))], 0)
    return selected.view(source_sym_sizes)


def _masked_select_self_grad(grad, self_sym_sizes, mask):
    """masked_select read the elements of self (broadcast with mask) where mask is True, in logical order:
    put the gradients back there, in zeros of the broadcast shape (the engine sums that down to self)."""
    zeros = grad.new_zeros(broadcast_shapes(tuple(self_sym_sizes), tuple(mask.shape)))
    return zeros.masked_scatter(mask, grad)


def _delayed_error(t, message):
    """PyTorch's DelayedError: `t` itself, but any gradient *through* it (double backward) raises `message`."""
    node = Error(message, variable.collect_next_edges([t]))
    out = _alias(t)
    variable.set_history([out], node)
    return out


def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    """PyTorch's `scatter_reduce_backward` (FunctionsManual.cpp), for each reduction."""
    if reduce == "sum":
        grad_self = grad
        grad_src = grad.gather(dim, index)
    elif reduce == "prod":
        # d(prod)/dx is the product of the *others*: result / x, except where x is 0. So compute the
        # products again with zeros replaced by 1 (for self), and for a src that is the only zero reaching
        # its position, with that zero replaced by 1.
        masked_self = self.masked_fill(self == 0, 1)
        masked_self_result = masked_self.scatter_reduce(dim, index, src, reduce, include_self=include_self)
        grad_self = grad * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = self.new_zeros(self.shape).scatter_add(dim, index, src_zero.to(self.dtype)).gather(dim, index)
        src_single_zero = src_zero & (src_num_zeros == 1)
        masked_src = src.masked_fill(src_single_zero, 1)
        masked_src_result = self.scatter_reduce(dim, index, masked_src, reduce, include_self=include_self)
        grad_src = ops.where(src_single_zero, (grad * masked_src_result).gather(dim, index),
                             (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
        if is_grad_enabled() and bool((src_num_zeros > 1).any().item()):
            grad_src = _delayed_error(grad_src, "scatter_reduce(): Double backward is unsupported for src when >1 "
                                                "zeros in src are scattered to the same position in self")
    elif reduce == "mean":
        # each output is (self + the srcs that reached it) / their count
        count = grad.new_ones(grad.shape) if include_self else grad.new_zeros(grad.shape)
        count = count.scatter_add(dim, index, src.new_ones(src.shape).to(grad.dtype))
        count.masked_fill_(count == 0, 1)
        grad_self = grad / count
        grad_src = grad.gather(dim, index) / count.gather(dim, index)
    elif reduce in ("amax", "amin"):
        # the gradient is shared evenly among all the elements equal to the result
        value = result.gather(dim, index)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        grad_distributed = grad / self_is_result.scatter_add(dim, index, src_is_result)
        grad_self = (self == result) * grad_distributed
        grad_src = (src == value) * grad_distributed.gather(dim, index)
    else:
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    if not include_self:
        # the old values at the scattered positions took no part in the result
        grad_self = grad_self.scatter(dim, index, 0)
    return grad_self, grad_src


# ---- aten::index and aten::index_put (x[idx], x[idx] = v) ---------------------------------------------------

derivative("index.Tensor",
           self=lambda grad, self_sym_sizes, indices: index_put_op(grad.new_zeros(self_sym_sizes), indices, grad, True))
derivative("index_put",
           self=lambda grad, indices, accumulate:
           grad if accumulate else index_put_op(grad, indices, grad.new_zeros(()), False),
           values=lambda grad, indices: index_op(grad, indices))

# ---- one dim at a time ------------------------------------------------------------------------------------

derivative("index_select",
           self=lambda grad, self_sym_sizes, dim, index: grad.new_zeros(self_sym_sizes).index_add(dim, index, grad))
derivative("gather",
           self=lambda grad, self_sym_sizes, dim, index: grad.new_zeros(self_sym_sizes).scatter_add(dim, index, grad))
derivative("scatter.src",
           self=lambda grad, dim, index: grad.scatter(dim, index, 0),
           src=lambda grad, dim, index: grad.gather(dim, index))
derivative("scatter.value", name="ScatterBackward1",
           self=lambda grad, dim, index: grad.scatter(dim, index, 0))
derivative("scatter_add",
           self=lambda grad: grad,
           src=lambda grad, dim, index: grad.gather(dim, index))
derivative("scatter_reduce.two", entries={
    "self, src": lambda grad, self, dim, index, src, reduce, include_self, result:
    scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result)})
derivative("index_add",
           self=lambda grad: grad,
           source=lambda grad, dim, index, source_dim, source_sym_sizes, alpha:
           _times(_select_source_grad(grad, dim, index, source_dim, source_sym_sizes), alpha))
derivative("index_copy",
           self=lambda grad, dim, index: grad.index_fill(dim, index, 0),
           source=lambda grad, dim, index, source_dim, source_sym_sizes:
           _select_source_grad(grad, dim, index, source_dim, source_sym_sizes))
derivative("index_fill.int_Scalar", self=lambda grad, dim, index: grad.index_fill(dim, index, 0))
# a fill value written to the same slice twice (a repeated index) still lands there once: count it once
derivative("index_fill.int_Tensor", name="IndexFillBackward1",
           self=lambda grad, dim, index: grad.index_fill(dim, index, 0),
           value=lambda grad, dim, index: grad.index_select(dim, ops.unique(index, sorted=False)).sum())

# ---- masks --------------------------------------------------------------------------------------------------

derivative("masked_fill.Scalar", self=lambda grad, mask: grad.masked_fill(mask, 0))
derivative("masked_fill.Tensor", name="MaskedFillBackward1",
           self=lambda grad, mask: grad.masked_fill(mask, 0),
           value=lambda grad, mask: grad.masked_select(mask).sum())
derivative("masked_select",
           self=lambda grad, self_sym_sizes, mask: _masked_select_self_grad(grad, self_sym_sizes, mask))
derivative("masked_scatter",
           self=lambda grad, mask: grad.masked_fill(mask, 0),
           source=lambda grad, mask, source_sym_sizes: _masked_scatter_source_grad(grad, mask, source_sym_sizes))

# ---- flat indices -------------------------------------------------------------------------------------------

derivative("take", self=lambda grad, self_sym_sizes, index: grad.new_zeros(self_sym_sizes).put(index, grad, True))
derivative("put",
           self=lambda grad, index, accumulate:
           grad if accumulate else grad.put(index, grad.new_zeros(index.shape), False),
           source=lambda grad, index, source_sym_sizes: grad.take(index).reshape(source_sym_sizes))

no_formula("nonzero", "repeat_interleave.Tensor", why="integer results")
no_formula("scatter.reduce", "scatter_.reduce", "scatter.value_reduce", "scatter_.value_reduce",
           why="no derivative in PyTorch either")
