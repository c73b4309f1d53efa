"""Matrix products: matmul and `@`, mm, bmm, mv, dot, outer, addmm, addmv, baddbmm, einsum, tensordot, trace.

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
  `matmul` (LinearAlgebra.cpp `_matmul_impl`), `einsum` and `tensordot` (Linear.cpp), `outer`, `inner`.

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

from .._strides import broadcast_shapes, normalize_dim
from .._tensor import Tensor
from .._grad_mode import GradMode
from ..dispatch.dispatcher import call
from ..kernels import linalg as K
from ..kernels.pointwise import resize_out
from ._define import bind_method
from ._define import composite_op as _composite_op, kernel_op as _kernel_op
from .pointwise import OPS as _POINTWISE_OPS
from .views import _unsafe_view_op

_mul_op, _, _mul_out_op = _POINTWISE_OPS["mul"]


# ---- the backend ops (kernels in kernels/linalg.py) ----------------------------------------------------------

mm_op = _kernel_op("mm(Tensor self, Tensor mat2) -> Tensor", K.mm_kernel)
mm_out_op = _kernel_op("mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", K.mm_out_kernel)
bmm_op = _kernel_op("bmm(Tensor self, Tensor mat2) -> Tensor", K.bmm_kernel)
bmm_out_op = _kernel_op("bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)", K.bmm_out_kernel)
mv_op = _kernel_op("mv(Tensor self, Tensor vec) -> Tensor", K.mv_kernel)
mv_out_op = _kernel_op("mv.out(Tensor self, Tensor vec, *, Tensor(a!) out) -> Tensor(a!)", K.mv_out_kernel)
dot_op = _kernel_op("dot(Tensor self, Tensor tensor) -> Tensor", K.dot_kernel)
dot_out_op = _kernel_op("dot.out(Tensor self, Tensor tensor, *, Tensor(a!) out) -> Tensor(a!)", K.dot_out_kernel)
trace_op = _kernel_op("trace(Tensor self) -> Tensor", K.trace_kernel)

addmm_op = _kernel_op(
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", K.addmm_kernel)
addmm_out_op = _kernel_op(
    "addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    K.addmm_out_kernel)
addmm__op = _kernel_op(
    "addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    K.addmm__kernel)
addmv_op = _kernel_op(
    "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor", K.addmv_kernel)
addmv_out_op = _kernel_op(
    "addmv.out(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    K.addmv_out_kernel)
addmv__op = _kernel_op(
    "addmv_(Tensor(a!) self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    K.addmv__kernel)
baddbmm_op = _kernel_op(
    "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    K.baddbmm_kernel)
baddbmm_out_op = _kernel_op(
    "baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> "
    "Tensor(a!)", K.baddbmm_out_kernel)
baddbmm__op = _kernel_op(
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

    if dim1 == 1 and dim2 == 1:
        return dot_out_op(tensor1, tensor2, out) if has_out else call(dot_op, (tensor1, tensor2))
    if dim1 == 2 and dim2 == 1:
        return mv_out_op(tensor1, tensor2, out) if has_out else call(mv_op, (tensor1, tensor2))
    if dim1 == 1 and dim2 == 2:
        # the vector is a (1, k) matrix; its size-1 row dim is removed from the result
        if has_out:
            return _squeeze0_(mm_out_op(tensor1.unsqueeze(0), tensor2, out))
        return _unsafe_view_op(call(mm_op, (tensor1.unsqueeze(0), tensor2)), [tensor2._sizes[1]])
    if dim1 == 2 and dim2 == 2:
        return mm_out_op(tensor1, tensor2, out) if has_out else call(mm_op, (tensor1, tensor2))

    if _should_fold(tensor1, tensor2, has_out):
        # (batch..., n, k) @ (k, p): fold the batch into the rows, one mm, view the rows back as a batch.
        # For (k,) or (n, k) @ (batch..., k, p) fold the transposed larger operand: (B^T @ A^T)^T = A @ B.
        transpose = dim2 > dim1
        t1 = tensor2.mT if transpose else tensor1
        t2 = (tensor1.t() if dim1 == 2 else tensor1) if transpose else tensor2
        output_shape = list(t1._sizes[:-1])
        folded_dim1 = math.prod(output_shape)
        t2_is_matrix = t2.dim() == 2
        if t2_is_matrix:
            output_shape.append(t2._sizes[1])
        t1_folded = t1.reshape(folded_dim1, t1._sizes[-1])   # a view, except when t2 requires grad
        if not has_out:
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

    # The general case: broadcast the batch dims, flatten them into one, and run bmm.
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

    if not has_out:
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


matmul_op = _composite_op("matmul(Tensor self, Tensor other) -> Tensor", _matmul)
matmul_out_op = _composite_op("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _matmul_out)


# ---- vdot, outer, inner --------------------------------------------------------------------------------------


def _vdot(self, other):
    return call(dot_op, (self, other))   # for real dtypes vdot is dot (it conjugates `self` for complex)


def _vdot_out(self, other, out):
    return dot_out_op(self, other, out)


vdot_op = _composite_op("vdot(Tensor self, Tensor other) -> Tensor", _vdot)
vdot_out_op = _composite_op("vdot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _vdot_out)


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


outer_op = _composite_op("outer(Tensor self, Tensor vec2) -> Tensor", _outer)
outer_out_op = _composite_op("outer.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)", _outer_out)
def _warn_ger():
    warnings.warn("torch.ger is deprecated and will be removed in a future PyTorch release. Use torch.outer instead.",
                  UserWarning, stacklevel=5)


def _ger(self, vec2):
    _warn_ger()
    return outer_op(self, vec2)


def _ger_out(self, vec2, out):
    _warn_ger()
    return outer_out_op(self, vec2, out=out)


ger_op = _composite_op("ger(Tensor self, Tensor vec2) -> Tensor", _ger)
ger_out_op = _composite_op("ger.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)", _ger_out)


# ---- tensordot (Linear.cpp) ------------------------------------------------------------------------------------


def _dim_list_to_bitset(dims, ndims):
    """The set of (wrapped) dims, refusing repeats (ATen's `dim_list_to_bitset`)."""
    seen = set()
    for d in dims:
        d = normalize_dim(d, ndims)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return seen


def _tensordot(input1, input2, dims1, dims2):
    """Contract `dims1` of input1 with `dims2` of input2: permute each so the contracted dims meet, reshape
    both to matrices, one mm, reshape back."""
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if input1.dtype is not input2.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1            # total size of the contracted dims
    t1, t2 = input1, input2
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = input1.size(d1), input2.size(d2)
        if s2 == 1:      # a broadcast (size-1) dim can be summed right away
            t1 = t1.sum(d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    cdims1 = _dim_list_to_bitset(dims1, input1.dim())
    cdims2 = _dim_list_to_bitset(dims2, input2.dim())
    p1, p2, rsizes = [], [], []     # the two permutations and the result's sizes
    size1 = size2 = 1               # elements left uncontracted in each input
    for i in range(input1.dim()):
        if i not in cdims1:
            p1.append(i)
            size1 *= t1._sizes[i]
            rsizes.append(t1._sizes[i])
    p1 += list(dims1)
    p2 += list(dims2)
    for i in range(input2.dim()):
        if i not in cdims2:
            p2.append(i)
            size2 *= t2._sizes[i]
            rsizes.append(t2._sizes[i])
    if size1 != 1 or size2 != 1:
        t1 = t1.permute(p1).reshape(size1, csize)
        t2 = t2.permute(p2).reshape(csize, size2)
        return call(mm_op, (t1, t2)).reshape(rsizes)
    # A full contraction: a dot product is faster than a 1x1 gemm
    t1, t2 = t1.permute(p1), t2.permute(p2)
    if t1.is_contiguous() and t2.is_contiguous():
        return call(dot_op, (t1.flatten(), t2.flatten())).reshape(rsizes)
    return (t1.squeeze() * t2.squeeze()).sum(dtype=t1.dtype).reshape(rsizes)


def _tensordot_out(input1, input2, dims1, dims2, out):
    result = _tensordot(input1, input2, dims1, dims2)
    if result.dtype is not out.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {result.dtype._ptname}, but got an "
                           f"output tensor with dtype {out.dtype._ptname}")
    resize_out(out, result._sizes)
    return out.copy_(result)


tensordot_op = _composite_op("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
                             _tensordot)
tensordot_out_op = _composite_op(
    "tensordot.out(Tensor self, Tensor other, int[] dims_self, int[] dims_other, *, Tensor(a!) out) -> Tensor(a!)",
    _tensordot_out)


def _inner_check(self, other):
    if self._sizes[-1] != other._sizes[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(self._sizes)} and {list(other._sizes)}")


def _inner(self, other):
    """`inner(a, b)`: contract the last dim of each (a tensordot over dims [-1] and [-1])."""
    if self.dim() == 0 or other.dim() == 0:
        return call(_mul_op, (self, other))
    _inner_check(self, other)
    return tensordot_op(self, other, [-1], [-1])


def _inner_out(self, other, out):
    if self.dim() == 0 or other.dim() == 0:
        return _mul_out_op(self, other, out)
    _inner_check(self, other)
    return tensordot_out_op(self, other, [-1], [-1], out)


inner_op = _composite_op("inner(Tensor self, Tensor other) -> Tensor", _inner)
inner_out_op = _composite_op("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _inner_out)


# ---- einsum (Linear.cpp) ---------------------------------------------------------------------------------------
#
# Three steps: (1) parse the equation into labels per operand and for the output; (2) for each operand take
# diagonals of repeated labels, unsqueeze the labels it lacks and permute, so that every operand has the
# same dims in the same order: output dims first, then the dims to sum out; (3) multiply the operands left
# to right, each pair as one bmm (`_sumproduct_pair`), summing a dim out as soon as no later operand has it.

_NUM_LETTERS = 26
_TOTAL_LABELS = 2 * _NUM_LETTERS   # A-Z are labels 0-25, a-z are 26-51
_ELLIPSIS = _TOTAL_LABELS          # the marker for "..."


def _is_letter(c):
    return "a" <= c <= "z" or "A" <= c <= "Z"


def _label_to_subscript(c):
    return ord(c) - ord("A") if c <= "Z" else ord(c) - ord("a") + _NUM_LETTERS


def _subscript_to_label(s):
    return chr(s + ord("A")) if s < _NUM_LETTERS else chr(s - _NUM_LETTERS + ord("a"))


def _sumproduct_pair(left, right, sum_dims, keepdim):
    """`(left * right).sum(sum_dims)` for two operands with the same number of dims, as one bmm.

    Each dim is one of: in both and kept (lro), only in left (lo), only in right (ro), or summed. Permute
    left to (lro, lo, sum) and right to (lro, sum, ro), flatten each group, and bmm gives (lro, lo, ro).
    """
    if left.dim() != right.dim():
        raise RuntimeError("number of dimensions must match")
    if not sum_dims:
        return call(_mul_op, (left, right))
    dim = left.dim()
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left._sizes[i] != 1, right._sizes[i] != 1
        if i in summed:
            if sl and sr:        # in both: bmm sums it
                if left._sizes[i] != right._sizes[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._sizes[i]
            elif sl:             # in one only: sum it right away
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left._sizes[i] != right._sizes[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._sizes[i]
        elif sl:
            lo.append(i)
            lo_size *= left._sizes[i]
        else:
            ro.append(i)
            ro_size *= right._sizes[i]
    # If every right-only dim comes before every left-only dim in the output, swap the operands so that
    # bmm writes the result in memory order
    if lo and ro and ro[-1] < lo[0]:
        left, right = right, left
        lo, ro = ro, lo
        lo_size, ro_size = ro_size, lo_size
    out_size = ([left._sizes[d] for d in lro] + [left._sizes[d] for d in lo] + [1] * len(sum_dims)
                + [right._sizes[d] for d in ro])
    lpermutation = lro + lo + list(sum_dims) + ro
    rpermutation = lro + list(sum_dims) + ro + lo
    opermutation = [-1] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        opermutation[d] = i
    left = left.permute(lpermutation).reshape(lro_size, lo_size, sum_size)
    right = right.permute(rpermutation).reshape(lro_size, sum_size, ro_size)
    result = call(bmm_op, (left, right)).view(out_size).permute(opermutation)
    if not keepdim:
        result = result.view([s for i, s in enumerate(result._sizes) if i not in summed])
    return result


def _einsum(equation, tensors, path=None):
    operands = list(tensors)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size "
                               f"{path_size} but got {len(path)}")

    # (1) Parse the labels of each operand ("ij,jk->ik": [i, j] and [j, k]), "..." as _ELLIPSIS
    arrow_pos = equation.find("->")
    lhs = equation if arrow_pos == -1 else equation[:arrow_pos]
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    curr_op = 0
    i = 0
    while i < len(lhs):
        label = lhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {curr_op} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {curr_op} that is not part of any ellipsis")
            i += 2
            op_labels[curr_op].append(_ELLIPSIS)
            ell_in_input = True
        elif label == ",":
            curr_op += 1
            if curr_op >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        else:
            if not _is_letter(label):
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                                   "subscripts must be in [a-zA-Z]")
            op_labels[curr_op].append(_label_to_subscript(label))
        i += 1
    if curr_op != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")

    # How often each label is used, and how many dims the widest "..." covers
    label_count = [0] * _TOTAL_LABELS
    ell_num_dim = 0
    for i, operand in enumerate(operands):
        labels = op_labels[i]
        ndims = operand.dim()
        nlabels = len(labels)
        has_ellipsis = False
        for label in labels:
            if label == _ELLIPSIS:
                nlabels -= 1
                has_ellipsis = True
                ell_num_dim = max(ell_num_dim, ndims - nlabels)
            else:
                label_count[label] += 1
        if not (nlabels <= ndims if has_ellipsis else nlabels == ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}"
                + (") is more than the number of dimensions (" if has_ellipsis
                   else ") does not match the number of dimensions (")
                + f"{ndims}) for operand {i}" + ("" if has_ellipsis else " and no ellipsis was given"))

    # Where each label goes in the aligned operands: output dims first, then the dims to sum out
    label_perm_index = [-1] * _TOTAL_LABELS
    perm_index = 0          # the next free position
    ell_index = 0           # where the "..." dims start
    ell_in_output = False
    if arrow_pos == -1:
        # Implicit output: "..." first, then the labels used exactly once, in alphabetical order (A-Z, a-z)
        perm_index = ell_num_dim
        ell_in_output = True
        for label in range(_TOTAL_LABELS):
            if label_count[label] == 1:
                label_perm_index[label] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow_pos + 2:]
        i = 0
        while i < len(rhs):
            label = rhs[i]
            if label == " ":
                pass
            elif label == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not _is_letter(label):
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       "equation string, subscripts must be in [a-zA-Z]")
                index = _label_to_subscript(label)
                if not (label_count[index] > 0 and label_perm_index[index] == -1):
                    raise RuntimeError(f"einsum(): output subscript {label}" + (
                        " appears more than once in the output" if label_perm_index[index] > -1
                        else " does not appear in the equation for any input operand"))
                label_perm_index[index] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:       # "..." not in the output: its dims are summed out
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(_TOTAL_LABELS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1

    # (2) Align every operand to the same perm_index dims; count, per dim, the operands where its size is not 1
    label_size = [1] * _TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * perm_index
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = operand.dim() - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if op._sizes[dim] != 1:
                        if not (ell_sizes[j] == 1 or ell_sizes[j] == op._sizes[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                f"{op._sizes[dim]} which does not broadcast with previously seen ellipsis with size "
                                f"{ell_sizes[j]} for the respective dimension")
                        ell_sizes[j] = op._sizes[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[label_perm_index[s]] == -1:
                if op._sizes[dim] != 1:
                    if not (label_size[s] == 1 or label_size[s] == op._sizes[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_subscript_to_label(s)} has size {op._sizes[dim]} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op._sizes[dim]
                    dim_counts[label_perm_index[s]] += 1
                permutation[label_perm_index[s]] = dim
                dim += 1
            else:
                # A label repeated within one operand ("ii"): keep only the diagonal, where the indices agree
                prev_dim = permutation[label_perm_index[s]]
                if op._sizes[dim] != op._sizes[prev_dim]:
                    raise RuntimeError(
                        f"einsum(): subscript {_subscript_to_label(s)} is repeated for operand {i} but the sizes "
                        f"don't match, {op._sizes[dim]} != {op._sizes[prev_dim]}")
                op = op.diagonal(0, prev_dim, dim).movedim(-1, prev_dim)
        for k, val in enumerate(permutation):
            if val == -1:       # a label this operand lacks: a size-1 dim, broadcast later
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(permutation))

    # (3) Contract the operands pairwise (left to right, or in the order of `path`)
    path_iter = iter(path or [])
    while len(ops) > 1:
        i, j = 0, 1
        if path is not None:
            i, j = next(path_iter), next(path_iter)
            if j < i:
                i, j = j, i
            if not (i != j and i >= 0 and j < len(ops)):
                raise RuntimeError(f"einsum(): invalid contraction ({i}, {j}" + (
                    ") cannot contract an operand with itself" if i == j else ") operand index is out of bounds"))
        a, b = ops[i], ops[j]
        del ops[j]
        del ops[i]
        # A dim to sum out can go now if no other operand still has it
        sum_dims, a_dims_to_sum, b_dims_to_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            sa, sb = a._sizes[dim] != 1, b._sizes[dim] != 1
            if sa and sb:
                if a._sizes[dim] != b._sizes[dim]:
                    raise RuntimeError("non-broadcast dimensions must match")
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if sa:
                    a_dims_to_sum.append(dim)
                    dim_counts[dim] = 0
                elif sb:
                    b_dims_to_sum.append(dim)
                    dim_counts[dim] = 0
        if a_dims_to_sum:
            a = a.sum(a_dims_to_sum, True)
        if b_dims_to_sum:
            b = b.sum(b_dims_to_sum, True)
        if path is not None:
            ops.append(_sumproduct_pair(a, b, sum_dims, True))
        else:
            ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))

    # Sum out the contraction dims (with several operands they are size 1 by now: a view drops them)
    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return ops[0].view(list(ops[0]._sizes[:out_num_dim]))
        return ops[0].sum(list(range(out_num_dim, perm_index)))
    return ops[0]


einsum_op = _composite_op("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", _einsum)


# ---- public functions --------------------------------------------------------------------------------------------


def _tp_name(value):
    """How CPython names a type in an error: `int`, `list`, `numpy.ndarray` (its tp_name)."""
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" or t.__flags__ & (1 << 9) else f"{t.__module__}.{t.__name__}"


def _expect_tensors(fn_name, first_position, **args):
    """PyTorch's argument parser: each named argument must be a Tensor."""
    for position, (name, value) in enumerate(args.items(), first_position):
        if not isinstance(value, Tensor):
            raise TypeError(f"{fn_name}(): argument '{name}' (position {position}) must be Tensor, not "
                            f"{_tp_name(value)}")


def matmul(input, other, *, out=None):
    """Matrix product with NumPy's rules for 1-D operands and broadcasting of batch dims (see above)."""
    _expect_tensors("matmul", 1, input=input, other=other)
    if out is None:
        return call(matmul_op, (input, other))
    return matmul_out_op(input, other, out=out)


def mm(input, mat2, *, out=None):
    """(n, k) @ (k, p) -> (n, p). No broadcasting, no type promotion."""
    _expect_tensors("mm", 1, input=input, mat2=mat2)
    return call(mm_op, (input, mat2)) if out is None else mm_out_op(input, mat2, out=out)


def bmm(input, mat2, *, out=None):
    """(b, n, k) @ (b, k, p) -> (b, n, p): one mm per batch entry. No broadcasting."""
    _expect_tensors("bmm", 1, input=input, mat2=mat2)
    return call(bmm_op, (input, mat2)) if out is None else bmm_out_op(input, mat2, out=out)


def mv(input, vec, *, out=None):
    """(n, k) @ (k,) -> (n,)."""
    _expect_tensors("mv", 1, input=input, vec=vec)
    return call(mv_op, (input, vec)) if out is None else mv_out_op(input, vec, out=out)


def dot(input, tensor, *, out=None):
    """The dot product of two 1-D tensors of one dtype, as a 0-d tensor."""
    _expect_tensors("dot", 1, input=input, tensor=tensor)
    return call(dot_op, (input, tensor)) if out is None else dot_out_op(input, tensor, out=out)


def vdot(input, other, *, out=None):
    """`dot` with the first vector conjugated; for real tensors, `dot`."""
    _expect_tensors("vdot", 1, input=input, other=other)
    return call(vdot_op, (input, other)) if out is None else vdot_out_op(input, other, out=out)


def outer(input, vec2, *, out=None):
    """The outer product `input[i] * vec2[j]` of two 1-D tensors (types promote, as in `mul`)."""
    _expect_tensors("outer", 1, input=input, vec2=vec2)
    return call(outer_op, (input, vec2)) if out is None else outer_out_op(input, vec2, out=out)


def ger(input, vec2, *, out=None):
    """The old name of `outer`."""
    _expect_tensors("ger", 1, input=input, vec2=vec2)
    return call(ger_op, (input, vec2)) if out is None else ger_out_op(input, vec2, out=out)


def inner(input, other, *, out=None):
    """Sum of products over the last dim of each (for 0-d operands, their product)."""
    _expect_tensors("inner", 1, input=input, other=other)
    return call(inner_op, (input, other)) if out is None else inner_out_op(input, other, out=out)


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * (mat1 @ mat2)`, input broadcast to the product's shape."""
    _expect_tensors("addmm", 1, input=input, mat1=mat1, mat2=mat2)
    if out is None:
        return call(addmm_op, (input, mat1, mat2, beta, alpha))
    return addmm_out_op(input, mat1, mat2, beta=beta, alpha=alpha, out=out)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * (mat @ vec)`."""
    _expect_tensors("addmv", 1, input=input, mat=mat, vec=vec)
    if out is None:
        return call(addmv_op, (input, mat, vec, beta, alpha))
    return addmv_out_op(input, mat, vec, beta=beta, alpha=alpha, out=out)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * bmm(batch1, batch2)`."""
    _expect_tensors("baddbmm", 1, input=input, batch1=batch1, batch2=batch2)
    if out is None:
        return call(baddbmm_op, (input, batch1, batch2, beta, alpha))
    return baddbmm_out_op(input, batch1, batch2, beta=beta, alpha=alpha, out=out)


def trace(input):
    """The sum of a matrix's diagonal elements."""
    _expect_tensors("trace", 1, input=input)
    return call(trace_op, (input,))


def einsum(*args):
    """Einstein summation: `einsum("ij,jk->ik", a, b)` is `a @ b`.

    Also takes the operands as one list (`einsum("ij,jk", [a, b])`) and the sublist form
    `einsum(a, [0, 1], b, [1, 2], [0, 2])`, whose integers 0-51 stand for A-Z, a-z (torch/functional.py).
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):
        # The sublist form: operands interleaved with their subscript lists, and maybe an output list
        def parse_subscript(n):
            if n == Ellipsis:
                return "..."
            if 0 <= n < 26:
                return chr(ord("A") + n)
            if 26 <= n < 52:
                return chr(ord("a") + n - 26)
            raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")

        equation = ",".join("".join(parse_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(parse_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])     # the old interface: the operands as one list
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {_tp_name(equation)}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {_tp_name(t)}")
    return call(einsum_op, (equation, list(operands), None))


def tensordot(a, b, dims=2, out=None):
    """Contract dims of `a` with dims of `b`: `dims=d` means the last d of `a` with the first d of `b`;
    `dims=([1, 0], [0, 1])` names them. The argument handling is torch/functional.py's."""
    if not isinstance(dims, (tuple, list, Tensor, int)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    dims_a, dims_b = [], []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims.size()[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.size()[0]}")
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            dims_val = int(dims.item())
            if dims_val < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-dims_val, 0)), list(range(dims_val))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    for name, position, d in (("dims_self", 3, dims_a), ("dims_other", 4, dims_b)):
        if not isinstance(d, (list, tuple)):
            raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, not "
                            f"{_tp_name(d)}")
    if out is None:
        return tensordot_op(a, b, list(dims_a), list(dims_b))
    return tensordot_out_op(a, b, list(dims_a), list(dims_b), out=out)


# ---- Tensor methods and the @ operator ---------------------------------------------------------------------------


def _method(fn_name, op, *arg_names):
    """A Tensor method `self.<fn_name>(*others)` that checks its Tensor arguments, then dispatches `op`."""
    def m(self, *args, **kwargs):
        _expect_tensors(fn_name, 1, **dict(zip(arg_names, args)))
        return op(self, *args, **kwargs)
    m.__name__ = m.__qualname__ = fn_name
    m.__doc__ = f"Dispatches `{op.schema}`."
    return m


for _name, _op, _args in [
    ("matmul", matmul_op, ("other",)), ("mm", mm_op, ("mat2",)), ("bmm", bmm_op, ("mat2",)),
    ("mv", mv_op, ("vec",)), ("dot", dot_op, ("tensor",)), ("vdot", vdot_op, ("other",)),
    ("outer", outer_op, ("vec2",)), ("ger", ger_op, ("vec2",)), ("inner", inner_op, ("other",)),
    ("addmm", addmm_op, ("mat1", "mat2")), ("addmm_", addmm__op, ("mat1", "mat2")),
    ("addmv", addmv_op, ("mat", "vec")), ("addmv_", addmv__op, ("mat", "vec")),
    ("baddbmm", baddbmm_op, ("batch1", "batch2")), ("baddbmm_", baddbmm__op, ("batch1", "batch2")),
    ("trace", trace_op, ()),
]:
    bind_method(_name, _method(_name, _op, *_args))


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


__all__ = ["addmm", "addmv", "baddbmm", "bmm", "dot", "einsum", "ger", "inner", "matmul", "mm", "mv", "outer",
           "tensordot", "trace", "vdot"]
