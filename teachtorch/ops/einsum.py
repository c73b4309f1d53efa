"""Contractions over named dims: tensordot, inner and einsum (PyTorch's aten/src/ATen/native/Linear.cpp).

The concept
-----------
`tensordot(a, b, dims)` multiplies the elements of `a` and `b` that agree on the contracted dims and sums
over them: `tensordot(a, b, ([1], [0]))` of two matrices is `a @ b`. `einsum("ij,jk->ik", a, b)` says the
same with letters, one per dim: a letter in two operands is multiplied along, a letter missing from the
output is summed out, `"ii"` is a diagonal and `"..."` stands for the dims not named.

How PyTorch does it
-------------------
Both are composites (CompositeImplicitAutograd) made of views and the matrix products of ops/linalg.py:
permute and reshape each operand so that the contracted dims meet, then one `mm` (tensordot) or one `bmm`
per pair of operands (einsum). Autograd therefore comes from the pieces.
"""

from .._strides import normalize_dim
from .._tensor import Tensor
from .._tensor import typename as _type_name
from ..dispatch.dispatcher import call
from ..kernels.pointwise import resize_out
from ._define import bind_method, composite_op
from .binding import public_function, tensor_method
from .linalg import _mul_op, _mul_out_op, bmm_op, dot_op, mm_op


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


tensordot_op = composite_op("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
                            _tensordot)
tensordot_out_op = composite_op(
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


inner_op = composite_op("inner(Tensor self, Tensor other) -> Tensor", _inner)
inner_out_op = composite_op("inner.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", _inner_out)


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
    _check_path(path, len(operands))
    # (1) the labels of each operand, then where each label goes: output dims first, then the dims to sum out
    arrow_pos = equation.find("->")
    lhs = equation if arrow_pos == -1 else equation[:arrow_pos]
    op_labels = _parse_input_labels(lhs, len(operands))
    label_count, ell_num_dim = _count_labels(operands, op_labels)
    label_perm_index = [-1] * _TOTAL_LABELS
    if arrow_pos == -1:
        out_num_dim, ell_index = _implicit_output(label_count, ell_num_dim, label_perm_index)
    else:
        out_num_dim, ell_index = _explicit_output(equation[arrow_pos + 2:], len(lhs) + 2, label_count, ell_num_dim,
                                                  label_perm_index)
    perm_index = out_num_dim
    if ell_index is None:       # "..." not in the output: its dims are summed out
        ell_index = perm_index
        perm_index += ell_num_dim
    for label in range(_TOTAL_LABELS):
        if label_count[label] > 0 and label_perm_index[label] == -1:
            label_perm_index[label] = perm_index
            perm_index += 1
    # (2) every operand aligned to the same perm_index dims
    ops, dim_counts = _align_operands(operands, op_labels, label_perm_index, perm_index, ell_index, ell_num_dim)
    # (3) contract them pairwise
    result = _contract(ops, dim_counts, out_num_dim, perm_index, path)
    # Sum out the contraction dims (with several operands they are size 1 by now: a view drops them)
    if perm_index - out_num_dim > 0:
        if len(operands) > 1:
            return result.view(list(result._sizes[:out_num_dim]))
        return result.sum(list(range(out_num_dim, perm_index)))
    return result


def _check_path(path, num_ops):
    if path is not None:
        path_size = 1 if num_ops == 1 else (num_ops - 1) * 2
        if len(path) != path_size:
            raise RuntimeError(f"einsum(): expected contraction path given in path parameter to have size "
                               f"{path_size} but got {len(path)}")


def _parse_input_labels(lhs, num_ops):
    """The labels of each operand ("ij,jk": [i, j] and [j, k]), "..." as _ELLIPSIS."""
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
    return op_labels


def _count_labels(operands, op_labels):
    """How often each label is used, and how many dims the widest "..." covers."""
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
    return label_count, ell_num_dim


def _implicit_output(label_count, ell_num_dim, label_perm_index):
    """No "->": the output is "..." first, then the labels used exactly once, in alphabetical order (A-Z, a-z).
    Places them in `label_perm_index`; returns the number of output dims and where the "..." dims start."""
    perm_index = ell_num_dim
    for label in range(_TOTAL_LABELS):
        if label_count[label] == 1:
            label_perm_index[label] = perm_index
            perm_index += 1
    return perm_index, 0


def _explicit_output(rhs, offset, label_count, ell_num_dim, label_perm_index):
    """The output's labels after "->", in their order. Places them in `label_perm_index`; returns the number of
    output dims and where the "..." dims start (None when the output has no "...")."""
    perm_index = 0          # the next free position
    ell_index = None        # where the "..." dims start
    i = 0
    while i < len(rhs):
        label = rhs[i]
        if label == " ":
            pass
        elif label == ".":
            if ell_index is not None:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
            i += 2
            ell_index = perm_index
            perm_index += ell_num_dim
        else:
            if not _is_letter(label):
                raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the "
                                   "equation string, subscripts must be in [a-zA-Z]")
            index = _label_to_subscript(label)
            if not (label_count[index] > 0 and label_perm_index[index] == -1):
                raise RuntimeError(f"einsum(): output subscript {label}" + (
                    " appears more than once in the output" if label_perm_index[index] > -1
                    else " does not appear in the equation for any input operand"))
            label_perm_index[index] = perm_index
            perm_index += 1
        i += 1
    return perm_index, ell_index


def _align_operands(operands, op_labels, label_perm_index, num_dims, ell_index, ell_num_dim):
    """Take diagonals of repeated labels, unsqueeze the labels an operand lacks and permute, so that every
    operand has the same `num_dims` dims in the same order. Also counts, per dim, the operands where its size
    is not 1 (a dim can be summed out once only one operand still has it)."""
    label_size = [1] * _TOTAL_LABELS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * num_dims
    ops = []
    for i, operand in enumerate(operands):
        op = operand
        permutation = [-1] * num_dims
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
                op = _diagonal_of_repeated_label(op, s, i, permutation[label_perm_index[s]], dim)
        for k, val in enumerate(permutation):
            if val == -1:       # a label this operand lacks: a size-1 dim, broadcast later
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(permutation))
    return ops, dim_counts


def _diagonal_of_repeated_label(op, label, i, prev_dim, dim):
    """A label repeated within one operand ("ii"): keep only the diagonal, where the indices agree."""
    if op._sizes[dim] != op._sizes[prev_dim]:
        raise RuntimeError(
            f"einsum(): subscript {_subscript_to_label(label)} is repeated for operand {i} but the sizes "
            f"don't match, {op._sizes[dim]} != {op._sizes[prev_dim]}")
    return op.diagonal(0, prev_dim, dim).movedim(-1, prev_dim)


def _contract(ops, dim_counts, out_num_dim, num_dims, path):
    """Multiply the aligned operands pairwise (left to right, or in the order of `path`), summing a dim out
    as soon as no other operand still has it. Returns the one operand left."""
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
        sum_dims, a_dims_to_sum, b_dims_to_sum = _dims_to_sum_now(a, b, dim_counts, out_num_dim, num_dims)
        if a_dims_to_sum:
            a = a.sum(a_dims_to_sum, True)
        if b_dims_to_sum:
            b = b.sum(b_dims_to_sum, True)
        if path is not None:
            ops.append(_sumproduct_pair(a, b, sum_dims, True))
        else:
            ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))
    return ops[0]


def _dims_to_sum_now(a, b, dim_counts, out_num_dim, num_dims):
    """The dims to sum out of `a * b` (in both), of `a` alone, of `b` alone: those no other operand still has."""
    sum_dims, a_dims_to_sum, b_dims_to_sum = [], [], []
    for dim in range(out_num_dim, num_dims):
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
    return sum_dims, a_dims_to_sum, b_dims_to_sum


einsum_op = composite_op("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", _einsum)


# ---- public functions --------------------------------------------------------------------------------------------


inner = public_function(inner_op, inner_out_op, "inner", 2,
                        doc="Sum of products over the last dim of each (for 0-d operands, their product).")


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
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not {_type_name(equation)}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {_type_name(t)}")
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
                            f"{_type_name(d)}")
    if out is None:
        return tensordot_op(a, b, list(dims_a), list(dims_b))
    return tensordot_out_op(a, b, list(dims_a), list(dims_b), out=out)


bind_method("inner", tensor_method(inner_op, "inner", 2))

__all__ = ["einsum", "inner", "tensordot"]
