"""Sorting and selecting: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive.

`x.sort(dim)` returns a named tuple `torch.return_types.sort(values, indices)`: the sorted values and, for
each, where it came from along `dim`. `topk(k)` keeps the k largest (or smallest), `kthvalue(k)` the k-th
smallest, `unique` the distinct values. The kernels (kernels/sorting.py) explain PyTorch's rules: NaN sorts
as the largest value, the cpu sort is stable, and `sort`'s results are laid out like its input while
`topk`'s and `kthvalue`'s are contiguous.

The schemas are PyTorch's (native_functions.yaml): `sort.stable`, `sort.values_stable` (out=), `topk`,
`kthvalue`, `_unique2`, `unique_dim`, `unique_consecutive`. `torch.unique` itself is a Python function
(torch/functional.py) that picks `_unique2` or `unique_dim` and returns only the outputs you asked for.
"""

from .._dtype import int64
from ..kernels import sorting as K
from ._define import bind_method, kernel_op
from .return_types import structseq


_sort_type = structseq("sort", ("values", "indices"))
_topk_type = structseq("topk", ("values", "indices"))
_kthvalue_type = structseq("kthvalue", ("values", "indices"))

sort_op = kernel_op("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
                    "(Tensor values, Tensor indices)", K.sort_kernel)
sort_out = kernel_op(
    "sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", K.sort_out_kernel)


def sort(input, dim=-1, descending=False, stable=False, *, out=None):
    """(values, indices) of `input` sorted along `dim`; equal values keep their order, NaN is the largest."""
    if out is not None:
        values, indices = out
        return _sort_type(sort_out(input, stable=stable, dim=dim, descending=descending, values=values,
                                   indices=indices))
    return _sort_type(sort_op(input, stable=stable, dim=dim, descending=descending))


def argsort(input, dim=-1, descending=False, stable=False, *, out=None):
    """The indices that sort `input` along `dim` (the second half of `sort`)."""
    if out is not None:
        sort_out(input, stable=stable, dim=dim, descending=descending, values=_empty_like_values(input), indices=out)
        return out
    return sort_op(input, stable=stable, dim=dim, descending=descending)[1]


def _empty_like_values(t):
    from ..backends import empty
    return empty((0,), t.dtype, t.device)


def msort(input, *, out=None):
    """`sort(input, dim=0).values`."""
    if out is not None:
        sort_out(input, stable=False, dim=0, descending=False, values=out, indices=_empty_long(input))
        return out
    return sort_op(input, stable=False, dim=0, descending=False)[0]


def _empty_long(t):
    from ..backends import empty
    return empty((0,), int64, t.device)


_TOPK = ("topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> "
         "(Tensor values, Tensor indices)")
topk_op = kernel_op(_TOPK, K.topk_kernel)
topk_out = kernel_op(
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, "
    "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", K.topk_out_kernel)


def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The k largest (or smallest) elements along `dim`, with their indices, largest first.

    Which of several equal elements are reported, and the order with `sorted=False`, are not promised by
    PyTorch; here the order is always sorted and ties keep their original order.
    """
    if out is not None:
        values, indices = out
        return _topk_type(topk_out(input, k, dim, largest, sorted, values=values, indices=indices))
    return _topk_type(topk_op(input, k, dim, largest, sorted))


_KTH = "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)"
kthvalue_op = kernel_op(_KTH, K.kthvalue_kernel)
kthvalue_out = kernel_op("kthvalue.values(Tensor self, int k, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
                         "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", K.kthvalue_out_kernel)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The k-th smallest element along `dim` (k counts from 1), and its index."""
    if out is not None:
        values, indices = out
        return _kthvalue_type(kthvalue_out(input, k, dim, keepdim, values=values, indices=indices))
    return _kthvalue_type(kthvalue_op(input, k, dim, keepdim))


unique2_op = kernel_op(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> "
    "(Tensor, Tensor, Tensor)", K.unique_kernel)
unique_dim_op = kernel_op("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
                          "bool return_counts=False) -> (Tensor, Tensor, Tensor)", K.unique_dim_kernel)
unique_consecutive_op = kernel_op(
    "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
    "int? dim=None) -> (Tensor, Tensor, Tensor)", K.unique_consecutive_kernel)


def _pick(output, inverse, counts, return_inverse, return_counts):
    """torch.unique returns the tensor alone, or a tuple with only the outputs asked for."""
    if not return_inverse and not return_counts:
        return output
    result = (output,)
    if return_inverse:
        result += (inverse,)
    if return_counts:
        result += (counts,)
    return result


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along `dim`), in ascending order."""
    if dim is None:
        output, inverse, counts = unique2_op(input, sorted, return_inverse, return_counts)
    else:
        output, inverse, counts = unique_dim_op(input, dim, sorted, return_inverse, return_counts)
    return _pick(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive elements (or slices along `dim`) into one."""
    output, inverse, counts = unique_consecutive_op(input, return_inverse, return_counts, dim)
    return _pick(output, inverse, counts, return_inverse, return_counts)


for _name, _fn in {"sort": lambda self, dim=-1, descending=False, stable=False: sort(self, dim, descending, stable),
                   "argsort": lambda self, dim=-1, descending=False, stable=False: argsort(self, dim, descending,
                                                                                             stable),
                   "msort": lambda self: msort(self), "topk": topk, "kthvalue": kthvalue, "unique": unique,
                   "unique_consecutive": unique_consecutive}.items():
    bind_method(_name, _fn)


__all__ = ['argsort', 'kthvalue', 'msort', 'sort', 'topk', 'unique', 'unique_consecutive']
