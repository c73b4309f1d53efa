"""Plausible wrong answers to lesson 8's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch as tt


def _unbroadcast(grad, shape):                        # a right un-broadcast, for the wrong answers to use
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    return grad.sum(dim=dims, keepdim=True) if dims else grad


def mul_swapped(grad, a, b):                          # each input gets grad times *itself*
    return _unbroadcast(grad * a, a.shape), _unbroadcast(grad * b, b.shape)


def mul_not_unbroadcast(grad, a, b):                  # forgets broadcasting: gradients of the output's shape
    return grad * b, grad * a


def _unbroadcast_no_keepdim(grad, shape):
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    return grad.sum(dim=dims) if dims else grad       # the size-1 dims vanish


def mul_no_keepdim(grad, a, b):
    return _unbroadcast_no_keepdim(grad * b, a.shape), _unbroadcast_no_keepdim(grad * a, b.shape)


def mul_leading_dims_only(grad, a, b):                # sums the new leading dims, not the stretched size-1 ones
    def lead_only(g, shape):
        lead = g.dim() - len(shape)
        return g.sum(dim=tuple(range(lead))) if lead else g
    return lead_only(grad * b, a.shape), lead_only(grad * a, b.shape)


def sum_not_reinserted(grad, shape, dim, keepdim):    # expands without putting the summed dim back
    return grad.expand(shape)


def sum_reinserted_in_front(grad, shape, dim, keepdim):   # puts the summed dim back at the front
    return (grad if keepdim else grad.unsqueeze(0)).expand(shape)


def sum_ignores_grad(grad, shape, dim, keepdim):      # "the derivative of a sum is 1"
    return tt.ones(shape, dtype=grad.dtype)


def sum_like_mean(grad, shape, dim, keepdim):         # divides by the count, as mean's backward does
    return (grad if keepdim else grad.unsqueeze(dim)).expand(shape) / shape[dim]


def matmul_no_transpose(grad, a, b):                  # grad @ b instead of grad @ b^T
    return grad @ b, a.mT @ grad


def matmul_grad_b_transposed(grad, a, b):             # grad^T @ a: the right numbers, transposed
    return grad @ b.mT, grad.mT @ a


def matmul_swapped(grad, a, b):                       # a's formula given to b and b's to a
    return a.mT @ grad, grad @ b.mT


WRONG = {
    "L08.mul_backward": [mul_swapped, mul_not_unbroadcast, mul_no_keepdim, mul_leading_dims_only],
    "L08.sum_backward": [sum_not_reinserted, sum_reinserted_in_front, sum_ignores_grad, sum_like_mean],
    "L08.matmul_backward": [matmul_no_transpose, matmul_grad_b_transposed, matmul_swapped],
}
