"""Helpers that backward formulas share (PyTorch's torch/csrc/autograd/FunctionsManual.cpp).

All of them are made of teachtorch ops, so they are differentiable in turn: that is what makes
`create_graph=True` and gradients of gradients work with no extra code.
"""

from ..ops.range_factories import arange


def is_expandable_to(shape, desired):
    """Can a tensor of `shape` be broadcast to `desired`? (ATen's `is_expandable_to`)"""
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != d and s != 1:
            return False
    return True


def sum_to(grad, shape):
    """Sum `grad` down to `shape`, undoing a broadcast (ATen's `sum_to`).

    Broadcasting made the input look bigger in two ways: new leading dims, and size-1 dims stretched.
    The gradient of a broadcast is the sum over the copies, so sum the leading dims away and sum the
    stretched dims with keepdim.
    """
    shape = tuple(shape)
    if tuple(grad._sizes) == shape:
        return grad
    if not shape:
        return grad.sum()          # to a 0-d tensor: one full sum, as ATen's sum_to does
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and grad._sizes[lead + i] != 1]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    if lead:
        grad = grad.reshape(shape)
    return grad


def as_strided_backward(grad, input_geometry, size, stride, storage_offset=None):
    """Gradient of `as_strided`: scatter the output's gradient onto the storage, read the input back.

    Both the input and the output are windows on one flat storage. Each output element's gradient is
    added at its storage position (an output that repeats a position, stride 0, adds up there); each input
    element then reads its position. If the *input* saw a position several times, that gradient is
    shared among them (divided by the count), as PyTorch does.
    """
    in_sizes, in_strides, in_offset = input_geometry
    if storage_offset is None:
        storage_offset = in_offset
    if any(s == 0 for s in in_sizes):
        return grad.new_zeros(in_sizes)
    extent = 1 + max(_last(size, stride, storage_offset), _last(in_sizes, in_strides, in_offset))
    positions = arange(extent, device=grad.device)
    flat = grad.new_zeros((extent,))
    if grad.numel():
        out_pos = positions.as_strided(size, stride, storage_offset).reshape(-1)
        flat = flat.index_add(0, out_pos, grad.reshape(-1))
    in_pos = positions.as_strided(in_sizes, in_strides, in_offset)
    result = flat.take(in_pos)
    if _overlaps(in_sizes, in_strides):
        count = grad.new_zeros((extent,)).index_add(0, in_pos.reshape(-1), grad.new_ones((in_pos.numel(),)))
        result = result / count.take(in_pos)
    return result


def _last(sizes, strides, offset):
    """The storage position of the last element a geometry can reach."""
    return offset + sum((n - 1) * st for n, st in zip(sizes, strides) if n > 0)


def _overlaps(sizes, strides):
    from .._strides import is_non_overlapping_and_dense
    if is_non_overlapping_and_dense(sizes, strides):
        return False
    pairs = sorted((st, n) for n, st in zip(sizes, strides) if n > 1)
    reach = 0
    for st, n in pairs:
        if st <= reach:
            return True
        reach += st * (n - 1)
    return False


def unsqueeze_multiple(t, dims, ndim):
    """Put back the dims a reduction removed (keepdim=False), so the gradient broadcasts again."""
    for d in sorted(d % ndim for d in dims):
        t = t.unsqueeze(d)
    return t


def restore_reduced_dims(grad, dims, keepdim, sizes):
    """A reduction's gradient, expanded back to the input's shape (`sum_backward` in PyTorch)."""
    ndim = len(sizes)
    if isinstance(dims, int):
        dims = [dims]
    if not keepdim and ndim:
        grad = unsqueeze_multiple(grad, range(ndim) if dims is None or len(dims) == 0 else dims, ndim)
    return grad.expand(sizes)
