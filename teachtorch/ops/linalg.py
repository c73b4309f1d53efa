"""Matrix products: matmul and `@`, mm, bmm, mv, dot, outer, addmm, addmv, baddbmm, trace.

The concept
-----------
A matrix product sums products along one shared dimension: `(n, k) @ (k, p) -> (n, p)`. Every op in this
file is that one idea with a different arrangement of dimensions around it, and every one of them ends in a
BLAS call (NumPy's `matmul`, the same `sgemm` PyTorch calls on the cpu), so a large product costs what the
library costs and the Python around it only checks arguments and moves metadata.

How PyTorch does it
-------------------
There are two layers, and this file keeps them apart the same way:

* **Backend kernels** with fixed shapes (aten/src/ATen/native/LinearAlgebra.cpp, Blas.cpp; here in
  kernels/linalg.py): `mm` (2-D @ 2-D), `bmm` (3-D @ 3-D, one product per batch entry), `mv` (2-D @ 1-D),
  `dot` (1-D . 1-D), and the fused forms `addmm`, `addmv`, `baddbmm` (`beta * self + alpha * product`).
  None of them promotes types: both operands must already have one dtype.
* **Composite ops** made only of other ops (CompositeImplicitAutograd, so autograd comes from the pieces):
  `matmul` (LinearAlgebra.cpp `_matmul_impl`), `outer`; and `einsum`, `tensordot`, `inner` (Linear.cpp),
  which are in ops/einsum.py.

`matmul` (and `a @ b`) picks a kernel by the operands' dimensions:

    1-D @ 1-D   dot                    -> 0-d
    2-D @ 1-D   mv                     -> (n,)
    1-D @ 2-D   unsqueeze(0), mm       -> (p,)      the vector is a 1-row matrix; the row dim is removed
    2-D @ 2-D   mm                     -> (n, p)
    N-D @ 1-D/2-D with N >= 3, when the leading dims fold into one without a copy ("should_fold"):
                reshape to 2-D, mm/mv, view back          (batch, n, k) @ (k, p) is one big (batch*n, k) @ (k, p)
    otherwise   broadcast the batch dims (like `add` broadcasts), flatten them into one, bmm, view back

Which path runs decides which kernel reports a bad shape, so `matmul`'s errors are `mm`'s, `mv`'s, `dot`'s or
`bmm`'s messages. The result is always a fresh contiguous tensor.

`a @= b` is not in-place in PyTorch (Tensor has no `__imatmul__`), so Python falls back to `a = a @ b`; the
same happens here.
"""

import math
import warnings

from .._strides import broadcast_shapes
from .._tensor import Tensor
from .._grad_mode import GradMode
from ..dispatch.dispatcher import call
from ..kernels import linalg as K
from ..kernels.pointwise import resize_out
from ._define import bind_method, composite_op, kernel_op
from .binding import public_function, tensor_method
from .pointwise import OPS as _POINTWISE_OPS
from .views import _unsafe_view_op

_mul_op, _, _mul_out_op = _POINTWISE_OPS["mul"]


# ---- the backend ops (kernels in kernels/linalg.py) ----------------------------------------------------------

mm_op = kernel_op("mm(Tensor self, Tensor mat2) -> Tensor", K.mm_kernel)
mm_out_op = kernel_op("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", K.mm_out_kernel)
bmm_op = kernel_op("bmm(Tensor self, Tensor mat2) -> Tensor", K.bmm_kernel)
bmm_out_op = kernel_op("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", K.bmm_out_kernel)
mv_op = kernel_op("mv(Tensor self, Tensor vec) -> Tensor", K.mv_kernel)
mv_out_op = kernel_op("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)", K.mv_out_kernel)
dot_op = kernel_op("dot(Tensor self, Tensor tensor) -> Tensor", K.dot_kernel)
dot_out_op = kernel_op("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)", K.dot_out_kernel)
trace_op = kernel_op("trace(Tensor self) -> Tensor", K.trace_kernel)

addmm_op = kernel_op(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", K.addmm_kernel)
addmm_out_op = kernel_op(
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    K.addmm_out_kernel)
addmm__op = kernel_op(
    "addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    K.addmm__kernel)
addmv_op = kernel_op(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor", K.addmv_kernel)
addmv_out_op = kernel_op(
    "addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    K.addmv_out_kernel)
addmv__op = kernel_op(
    "addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    K.addmv__kernel)
baddbmm_op = kernel_op(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    K.baddbmm_kernel)
baddbmm_out_op = kernel_op(
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> "
    "Tensor(a!)", K.baddbmm_out_kernel)
baddbmm__op = kernel_op(
    "baddbmm_(Tensor(a!) self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    K.baddbmm__kernel)


# ---- matmul: pick a kernel by the number of dims (LinearAlgebra.cpp `_matmul_impl`) ---------------------------


def _should_fold(tensor1, tensor2, has_out):
    """Can the larger operand's leading dims be folded into one, so that one mm/mv does the whole batch?

    Folding (batch, n, k) into (batch * n, k) must be a view (no copy) of a row-major block of rows.
    When the smaller operand requires grad PyTorch folds even at the cost of a copy, because the unfolded
    backward would build a big batch of gradients only to sum it.
    """
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if tensor1_larger else tensor2.mT      # the larger one, as the left operand
    dim_t2 = tensor2.dim() if tensor1_larger else tensor1.dim()
    if not (t1.dim() >= 3 and dim_t2 <= 2):
        return False
    t2_requires_grad = tensor2.requires_grad if tensor1_larger else tensor1.requires_grad
    if t2_requires_grad and not has_out:
        return True
    if tensor1.dim() == 2:
        # (n, k) @ (batch, k, p) would fold to a transposed result that then needs a copy: use bmm instead
        return False
    if t1.numel() == 0:
        return True
    # PyTorch's test (LinearAlgebra.cpp should_fold): every leading dim steps over the next one exactly, as
    # in a row-major block. Stricter than "reshape would be a view": a size-1 dim with another stride refuses.
    sizes, strides = t1._sizes, t1._strides
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(len(sizes) - 2))


def _squeeze0_(t):
    """`t.squeeze_(0)`: drop `t`'s leading size-1 dim in place (metadata only)."""
    if t._sizes and t._sizes[0] == 1:
        t._set_metadata(t._storage, t._offset, t._sizes[1:], t._strides[1:])
    return t


def _matmul_impl(out, tensor1, tensor2):
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    has_out = out is not None
    if has_out and (tensor1.requires_grad or tensor2.requires_grad or out.requires_grad) and GradMode.enabled:
        raise RuntimeError("matmul(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if dim1 <= 2 and dim2 <= 2:
        return _matmul_1d_2d(out, tensor1, tensor2)
    if _should_fold(tensor1, tensor2, has_out):
        return _matmul_folded(out, tensor1, tensor2)
    return _matmul_batched(out, tensor1, tensor2)


def _matmul_1d_2d(out, tensor1, tensor2):
    """Vectors and matrices: one dot, mv or mm."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    has_out = out is not None
    if dim1 == 1 and dim2 == 1:
        return dot_out_op(tensor1, tensor2, out) if has_out else call(dot_op, (tensor1, tensor2))
    if dim1 == 2 and dim2 == 1:
        return mv_out_op(tensor1, tensor2, out) if has_out else call(mv_op, (tensor1, tensor2))
    if dim1 == 1 and dim2 == 2:
        # the vector is a (1, k) matrix; its size-1 row dim is removed from the result
        if has_out:
            return _squeeze0_(mm_out_op(tensor1.unsqueeze(0), tensor2, out))
        return _unsafe_view_op(call(mm_op, (tensor1.unsqueeze(0), tensor2)), [tensor2._sizes[1]])
    return mm_out_op(tensor1, tensor2, out) if has_out else call(mm_op, (tensor1, tensor2))


def _matmul_folded(out, tensor1, tensor2):
    """(batch..., n, k) @ (k, p): fold the batch into the rows, one mm, view the rows back as a batch.
    For (k,) or (n, k) @ (batch..., k, p) fold the transposed larger operand: (B^T @ A^T)^T = A @ B."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    transpose = dim2 > dim1
    t1 = tensor2.mT if transpose else tensor1
    t2 = (tensor1.t() if dim1 == 2 else tensor1) if transpose else tensor2
    output_shape = list(t1._sizes[:-1])
    folded_dim1 = math.prod(output_shape)
    t2_is_matrix = t2.dim() == 2
    if t2_is_matrix:
        output_shape.append(t2._sizes[1])
    t1_folded = t1.reshape(folded_dim1, t1._sizes[-1])   # a view, except when t2 requires grad
    if out is None:
        if t2_is_matrix:
            output = _unsafe_view_op(t1_folded.mm(t2), output_shape)
            return output.mT.contiguous() if transpose else output
        return _unsafe_view_op(t1_folded.mv(t2), output_shape)
    resize_out(out, output_shape)
    reshaped_out = out.reshape(folded_dim1, t2._sizes[-1]) if t2_is_matrix else out.reshape(folded_dim1)
    if t2_is_matrix:
        mm_out_op(t1_folded, t2, reshaped_out)
    else:
        mv_out_op(t1_folded, t2, reshaped_out)
    if reshaped_out._storage is not out._storage:
        # PyTorch copies without a view_as here, so an `out` that reshape had to copy fails to broadcast
        out.copy_(reshaped_out)
    return out


def _matmul_batched(out, tensor1, tensor2):
    """The general case: broadcast the batch dims, flatten them into one, and run bmm."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    sizes1, sizes2 = tensor1._sizes, tensor2._sizes
    n = sizes1[-2] if dim1 > 1 else 1
    m1 = sizes1[-1]
    m2 = sizes2[-2] if dim2 > 1 else sizes2[0]
    p = sizes2[-1] if dim2 > 1 else 1
    batch1, batch2 = sizes1[:max(dim1 - 2, 0)], sizes2[:max(dim2 - 2, 0)]

    # Same gradient concern as in _should_fold: a size-1 batch that requires grad is squeezed, not expanded
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and tensor1.requires_grad:
            return _matmul_impl(out, tensor1.squeeze(0), tensor2)
        if batch2[0] == 1 and tensor2.requires_grad:
            return _matmul_impl(out, tensor1, tensor2.squeeze(0))

    output_shape = list(broadcast_shapes(batch1, batch2))
    batch = math.prod(output_shape)
    tensor1_expanded = tensor1.expand(output_shape + [n, m1]).reshape(batch, n, m1)
    # a vector right operand is a batch of (m2, 1) matrices: broadcasting alone would not add that dim
    vector_rhs = dim2 == 1
    if vector_rhs:
        tensor2_expanded = tensor2.expand(output_shape + [m2]).reshape(batch, m2).unsqueeze(2)
    else:
        tensor2_expanded = tensor2.expand(output_shape + [m2, p]).reshape(batch, m2, p)
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)

    if out is None:
        result = call(bmm_op, (tensor1_expanded, tensor2_expanded))
        if vector_rhs:
            result = result.squeeze(-1)
        return _unsafe_view_op(result, output_shape)
    resize_out(out, output_shape)
    reshaped_out = out.reshape(batch, n, p)
    bmm_out_op(tensor1_expanded, tensor2_expanded, reshaped_out)
    if vector_rhs:
        reshaped_out = reshaped_out.squeeze(-1)
    if reshaped_out._storage is not out._storage:
        out.copy_(reshaped_out.view(out._sizes))
    return out


def _matmul(self, other):
    return _matmul_impl(None, self, other)


def _matmul_out(self, other, out):
    _matmul_impl(out, self, other)
    return out


matmul_op = composite_op("matmul(Tensor self, Tensor other) -> Tensor", _matmul)
matmul_out_op = composite_op("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _matmul_out)


# ---- vdot, outer, inner --------------------------------------------------------------------------------------


def _vdot(self, other):
    return call(dot_op, (self, other))   # for real dtypes vdot is dot (it conjugates `self` for complex)


def _vdot_out(self, other, out):
    return dot_out_op(self, other, out)


vdot_op = composite_op("vdot(Tensor self, Tensor other) -> Tensor", _vdot)
vdot_out_op = composite_op("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _vdot_out)


def _check_1d(t, arg, fn):
    if t.dim() != 1:
        raise RuntimeError(f"{fn}: Expected 1-D argument {arg}, but got {t.dim()}-D")


def _outer(self, vec2):
    """`outer(u, v)[i, j] = u[i] * v[j]`: PyTorch writes it as broadcasting, `u.reshape(n, 1) * v`."""
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return call(_mul_op, (self.reshape(self._sizes[0], 1), vec2))


def _outer_out(self, vec2, out):
    _check_1d(self, "self", "outer")
    _check_1d(vec2, "vec2", "outer")
    return _mul_out_op(self.reshape(self._sizes[0], 1), vec2, out)


outer_op = composite_op("outer(Tensor self, Tensor vec2) -> Tensor", _outer)
outer_out_op = composite_op("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)", _outer_out)
def _warn_ger():
    warnings.warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer instead.",
                  UserWarning, stacklevel=5)


def _ger(self, vec2):
    _warn_ger()
    return outer_op(self, vec2)


def _ger_out(self, vec2, out):
    _warn_ger()
    return outer_out_op(self, vec2, out=out)


ger_op = composite_op("ger(Tensor self, Tensor vec2) -> Tensor", _ger)
ger_out_op = composite_op("ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)", _ger_out)


# ---- public functions and Tensor methods (their argument checks: binding.py) ---------------------------------


matmul = public_function(matmul_op, matmul_out_op, "matmul", 2,
                         doc="Matrix product with NumPy's rules for 1-D operands and broadcasting of batch dims.")
mm = public_function(mm_op, mm_out_op, "mm", 2, doc="(n, k) @ (k, p) -> (n, p). No broadcasting, no type promotion.")
bmm = public_function(bmm_op, bmm_out_op, "bmm", 2, doc="(b, n, k) @ (b, k, p) -> (b, n, p): one mm per batch entry.")
mv = public_function(mv_op, mv_out_op, "mv", 2, doc="(n, k) @ (k,) -> (n,).")
dot = public_function(dot_op, dot_out_op, "dot", 2,
                      doc="The dot product of two 1-D tensors of one dtype, as a 0-d tensor.")
vdot = public_function(vdot_op, vdot_out_op, "vdot", 2,
                       doc="`dot` with the first vector conjugated; for real tensors, `dot`.")
outer = public_function(outer_op, outer_out_op, "outer", 2,
                        doc="The outer product `input[i] * vec2[j]` of two 1-D tensors (types promote, as in `mul`).")
ger = public_function(ger_op, ger_out_op, "ger", 2, doc="The old name of `outer`.")
addmm = public_function(addmm_op, addmm_out_op, "addmm", 3,
                        doc="`beta * input + alpha * (mat1 @ mat2)`, input broadcast to the product's shape.")
addmv = public_function(addmv_op, addmv_out_op, "addmv", 3, doc="`beta * input + alpha * (mat @ vec)`.")
baddbmm = public_function(baddbmm_op, baddbmm_out_op, "baddbmm", 3, doc="`beta * input + alpha * bmm(batch1, batch2)`.")
trace = public_function(trace_op, None, "trace", 1, doc="The sum of a matrix's diagonal elements.")

bind_method("matmul", tensor_method(matmul_op, "matmul", 2))
bind_method("mm", tensor_method(mm_op, "mm", 2))
bind_method("bmm", tensor_method(bmm_op, "bmm", 2))
bind_method("mv", tensor_method(mv_op, "mv", 2))
bind_method("dot", tensor_method(dot_op, "dot", 2))
bind_method("vdot", tensor_method(vdot_op, "vdot", 2))
bind_method("outer", tensor_method(outer_op, "outer", 2))
bind_method("ger", tensor_method(ger_op, "ger", 2))
bind_method("addmm", tensor_method(addmm_op, "addmm", 3))
bind_method("addmm_", tensor_method(addmm__op, "addmm_", 3))
bind_method("addmv", tensor_method(addmv_op, "addmv", 3))
bind_method("addmv_", tensor_method(addmv__op, "addmv_", 3))
bind_method("baddbmm", tensor_method(baddbmm_op, "baddbmm", 3))
bind_method("baddbmm_", tensor_method(baddbmm__op, "baddbmm_", 3))
bind_method("trace", tensor_method(trace_op, "trace", 1))


def _matmul_dunder(self, other):
    # Anything but a Tensor: NotImplemented, so Python raises "unsupported operand type(s) for @"
    if not isinstance(other, Tensor):
        return NotImplemented
    return call(matmul_op, (self, other))


def _rmatmul_dunder(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return call(matmul_op, (other, self))


Tensor.__matmul__ = _matmul_dunder
Tensor.__rmatmul__ = _rmatmul_dunder
# No Tensor.__imatmul__, as in PyTorch: `a @= b` rebinds `a` to a new tensor and leaves the old one alone.


__all__ = ["addmm", "addmv", "baddbmm", "bmm", "dot", "ger", "matmul", "mm", "mv", "outer", "trace", "vdot"]
