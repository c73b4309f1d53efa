"""Backward formulas of the matrix products: mm, bmm, mv, dot, trace, and addmm / addmv / baddbmm.

One rule covers them all. If C = A @ B, each C[i, j] = sum_k A[i, k] * B[k, j], so a change in A[i, k] moves
every C[i, j] of row i by B[k, j]:

    grad_A = grad_C @ B^T        grad_B = A^T @ grad_C

The shapes check it: grad_C is (n, p), B^T is (p, k), so grad_A is (n, k) like A. The other products are
the same rule in other dimensions: bmm does it per batch, mv treats the vector as a one-column matrix
(so grad_mat is an outer product), dot is the 1 x 1 case (grad_self = grad * other).

The `add*` ops compute `beta * self + alpha * (A @ B)`: self's gradient is `grad * beta`, the products'
gradients are scaled by alpha. Like PyTorch's `maybe_multiply`, a factor of 1 is skipped (no extra node),
and beta=0 still gives `grad * 0`: self did not reach the output, so its gradient is zero.

trace sums the diagonal, so its gradient is the (0-d) incoming gradient placed on the diagonal.

matmul, vdot, outer, inner, tensordot and einsum need no entry: they are compositions (ops/linalg.py) of
mm, bmm, mv, dot, mul, sum and views, and autograd records those pieces.
"""

from ... import ops
from ..derivative import derivative


def maybe_multiply(t, s):
    """`t * s`, or `t` itself when s is 1 (PyTorch's maybe_multiply)."""
    return t if s == 1 else t * s


def _column_major(sizes, strides):
    return strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, alpha):
    """grad @ mat2^T. For a column-major mat1 the same product is formed transposed, (mat2 @ grad^T)^T,
    so that the gradient comes out column-major like mat1 (and `.grad` need not be copied to match it)."""
    if _column_major(mat1_sizes, mat1_strides):
        return maybe_multiply(mat2.mm(grad.t()).t(), alpha)
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, alpha):
    """mat1^T @ grad, transposed the same way for a column-major mat2."""
    if _column_major(mat2_sizes, mat2_strides):
        return maybe_multiply(grad.t().mm(mat1).t(), alpha)
    return maybe_multiply(mat1.t().mm(grad), alpha)


def trace_backward(grad, sizes):
    if len(sizes) != 2:
        raise RuntimeError("expected matrix input")
    # every diagonal element of self added 1 * itself to the trace
    return grad * ops.eye(sizes[0], sizes[1], dtype=grad.dtype, device=grad.device)


derivative("mm",
           self=lambda grad, mat2, self_sym_sizes, self_sym_strides:
           mm_mat1_backward(grad, mat2, self_sym_sizes, self_sym_strides, 1),
           mat2=lambda grad, self, mat2_sym_sizes, mat2_sym_strides:
           mm_mat2_backward(grad, self, mat2_sym_sizes, mat2_sym_strides, 1))
derivative("bmm",
           self=lambda grad, mat2: grad.bmm(mat2.transpose(1, 2)),
           mat2=lambda grad, self: self.transpose(1, 2).bmm(grad))
derivative("mv",
           self=lambda grad, vec: grad.outer(vec),
           vec=lambda grad, self: self.t().mv(grad))
derivative("dot",
           self=lambda grad, tensor: grad * tensor,
           tensor=lambda grad, self: grad * self)
derivative("trace", self=lambda grad, self_sym_sizes: trace_backward(grad, self_sym_sizes))

# beta * self + alpha * (product). `self` broadcasts to the result: the engine sums its gradient back.
# (addmm_, addmv_ and baddbmm_ get the same formulas: none of them reads self's old value.)
derivative("addmm",
           self=lambda grad, beta: maybe_multiply(grad, beta),
           mat1=lambda grad, mat2, mat1_sym_sizes, mat1_sym_strides, alpha:
           mm_mat1_backward(grad, mat2, mat1_sym_sizes, mat1_sym_strides, alpha),
           mat2=lambda grad, mat1, mat2_sym_sizes, mat2_sym_strides, alpha:
           mm_mat2_backward(grad, mat1, mat2_sym_sizes, mat2_sym_strides, alpha))
derivative("addmv",
           self=lambda grad, beta: maybe_multiply(grad, beta),
           mat=lambda grad, vec, alpha: maybe_multiply(grad.outer(vec), alpha),
           vec=lambda grad, mat, alpha: maybe_multiply(mat.t().mv(grad), alpha))
derivative("baddbmm",
           self=lambda grad, beta: maybe_multiply(grad, beta),
           batch1=lambda grad, batch2, alpha: maybe_multiply(grad.bmm(batch2.transpose(1, 2)), alpha),
           batch2=lambda grad, batch1, alpha: maybe_multiply(batch1.transpose(1, 2).bmm(grad), alpha))
