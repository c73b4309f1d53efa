"""Backward formulas of the ops that rearrange elements into a new tensor: cat, flip, roll, rot90, repeat,
tril / triu, diag, diag_embed.

None of these ops computes anything: each output element is a copy of one input element (or a zero).
So the gradient just travels back along the same arrangement, undone:

    cat        each input gets its own slice of the gradient (a `narrow` along `dim`)
    flip       flipping again puts every element back: grad.flip(dims)
    roll       roll back the other way: the shifts negated (PyTorch also reverses the lists; rolls commute,
               so the order does not matter)
    rot90      rotate back: rot90(-k)
    repeat     each input element was copied to several places: add up the copies' gradients
    tril/triu  the kept elements pass their gradient, the zeroed ones get none: the same mask on grad
    diag_embed the input sits on a diagonal of the output: read that diagonal of grad

stack, hstack/vstack/dstack, column_stack, atleast_*, tile, fliplr/flipud, diagflat, repeat_interleave and
meshgrid need no entry: they are compositions of cat, repeat, flip, diag, index_select and views.
"""

from ..._strides import normalize_dim
from ..derivative import derivative


def _is_legacy_empty(sizes):
    """cat skips 1-d tensors of size [0] whatever the other inputs' shapes (an old rule kept for BC)."""
    return len(sizes) == 1 and sizes[0] == 0


def cat_tensors_backward(grad, sizes, dim):
    """One slice of `grad` per input, in order, each as wide as that input along `dim`."""
    ndim = next((len(s) for s in sizes if not _is_legacy_empty(s)), 1)
    dim = normalize_dim(dim, ndim)
    grads, start = [], 0
    for shape in sizes:
        if _is_legacy_empty(shape):
            grads.append(grad.new_zeros((0,)))
            continue
        grads.append(grad.narrow(dim, start, shape[dim]))
        start += shape[dim]
    return grads


def repeat_backward(grad, repeats, input_shape):
    """Sum the copies. `x.repeat(r0, r1)` on a (d0, d1) input is a (r0 * d0, r1 * d1) tensor; viewing the
    gradient as (r0, d0, r1, d1) lines every copy of an element up along the r dims, which are summed."""
    input_shape = tuple(input_shape)
    if 0 in repeats:
        return grad.new_zeros(input_shape)
    # leading repeats added new dims: sum them away first
    for _ in range(grad.dim() - len(input_shape)):
        grad = grad.sum(0)
    lead = len(repeats) - len(input_shape)
    grad_size, sum_dims = [], []
    for d, size in enumerate(input_shape):
        r = repeats[d + lead]
        if r != 1:
            grad_size.append(r)
            sum_dims.append(len(grad_size) - 1)
        grad_size.append(size)
    if sum_dims:
        grad = grad.reshape(grad_size).sum(sum_dims)
    return grad


def diag_backward(grad, sizes, diagonal):
    """diag of a vector builds a matrix (read the gradient's diagonal back); diag of a matrix reads its
    diagonal (put the gradient on the diagonal of a zero matrix)."""
    if len(sizes) == 1:
        return grad.diagonal(diagonal)
    z = grad.new_zeros(sizes)
    z.diagonal(diagonal).copy_(grad)
    return z


derivative("cat", tensors=lambda grad, tensors_args_sizes, dim: cat_tensors_backward(grad, tensors_args_sizes, dim))
derivative("flip", self=lambda grad, dims: grad.flip(dims))
derivative("roll", self=lambda grad, shifts, dims: grad.roll([-s for s in reversed(shifts)], list(reversed(dims))))
derivative("rot90", self=lambda grad, k, dims: grad.rot90(-k, dims))
derivative("repeat", self=lambda grad, repeats, self_sym_sizes: repeat_backward(grad, repeats, self_sym_sizes))
# (tril_ and triu_ get these formulas too)
derivative("tril", self=lambda grad, diagonal: grad.tril(diagonal))
derivative("triu", self=lambda grad, diagonal: grad.triu(diagonal))
derivative("diag_embed", self=lambda grad, offset, dim1, dim2: grad.diagonal(offset, dim1, dim2))
# PyTorch's diag is a composition: diag_embed for a vector, diagonal_copy for a matrix. Here it is one
# op, named after the vector case (a matrix input shows DiagonalBackward0_copy in PyTorch).
derivative("diag", name="DiagEmbedBackward0",
           self=lambda grad, self_sym_sizes, diagonal: diag_backward(grad, self_sym_sizes, diagonal))
