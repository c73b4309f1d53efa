"""The CTC loss ops: `_ctc_loss` (the kernel), `_ctc_loss_backward` (its gradient), and `ctc_loss`.

`torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)` is what
`F.ctc_loss` calls (reduction as an int: 0 none, 1 mean, 2 sum). The kernels, and what CTC is, are in
kernels/ctc_loss.py.

How PyTorch does it (aten/src/ATen/native/LossCTC.cpp, native_functions.yaml, derivatives.yaml):

* `ctc_loss.IntList` and `ctc_loss.Tensor` are CompositeImplicitAutograd: the lengths given as tensors
  are read into int lists (any integer dtype; bool and floats are refused), an unbatched (T, C) input gets
  a batch dim of 1, the targets are converted to int64, and `_ctc_loss` gives the per-item losses. Then
  `zero_infinity` replaces inf losses by 0 with a `where`, and the reduction follows: 'mean' divides each
  loss by its target length (clamped to at least 1) and averages over the batch, 'sum' sums.
* `_ctc_loss` returns (neg_log_likelihood, log_alpha); log_alpha is kept for the backward only. Its
  derivatives.yaml entry reads `grad` (not `grads`), so only the first output is differentiable, and its
  node is `CtcLossBackward0`.
* `_ctc_loss_backward` has no derivative: a second derivative through it fails with "derivative for
  aten::_ctc_loss_backward is not implemented", here as there.
"""

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .._tensor import typename as _type_name
from ..backends import empty, quietly, wrap, xp_of
from ..kernels import ctc_loss as K
from ._define import composite_op, function, kernel_op

__all__ = ["ctc_loss", "_ctc_loss"]

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _check_float(log_probs):
    """AT_DISPATCH_FLOATING_TYPES: float32 and float64 only."""
    if log_probs.dtype not in (_dtype.float32, _dtype.float64):
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{log_probs.dtype._ptname}\'')


def _check_arguments(log_probs, targets, input_lengths, target_lengths, blank):
    """`ctc_loss_allocate_outputs`' checks, in its order and with its messages."""
    if log_probs.numel() == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if targets.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'targets' to have scalar type Int; but got "
                           f"{targets.type()} instead" + _WHERE)
    if log_probs.dim() != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           "argument #1 'log_probs'" + _WHERE)
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional tensor for "
                           "argument #2 'targets'" + _WHERE)
    batch, num_labels = log_probs.shape[1], log_probs.shape[2]
    if not 0 <= blank < num_labels:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in target_lengths:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {n}" + _WHERE)
    if targets.dim() == 1:      # concatenated: exactly sum(target_lengths) labels
        expected, got = sum(target_lengths), targets.shape[0]
        if got != expected:
            raise RuntimeError(f"Expected tensor to have size {expected} at dimension 0, but got size {got} "
                               "for argument #2 'targets'" + _WHERE)
    else:                       # padded: one row per item, wide enough for the longest target
        if targets.shape[0] != batch:
            raise RuntimeError(f"Expected tensor to have size {batch} at dimension 0, but got size "
                               f"{targets.shape[0]} for argument #2 'targets'" + _WHERE)
        longest = max(target_lengths, default=0)
        if targets.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets'" + _WHERE)
    for n in input_lengths:
        if n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {n}" + _WHERE)
        if n > log_probs.shape[0]:
            raise RuntimeError(f"Expected input_lengths to have value at most {log_probs.shape[0]}, but got "
                               f"value {n}" + _WHERE)


def _ints(values):
    return [int(v) for v in values]


def _ctc_loss_kernel(ks, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    input_lengths, target_lengths = _ints(input_lengths), _ints(target_lengths)
    _check_float(log_probs)
    _check_arguments(log_probs, targets, input_lengths, target_lengths, blank)
    T, B, _ = log_probs.shape
    alpha_shape = (B, T, 2 * max(target_lengths, default=0) + 1)
    if log_probs._storage._data is None:       # meta: shapes only
        return empty((B,), log_probs.dtype, log_probs.device), empty(alpha_shape, log_probs.dtype, log_probs.device)
    # (quietly: log(0) = -inf and inf - inf = nan are the arithmetic of impossible paths, not errors)
    nll, log_alpha = quietly(K.ctc_loss_forward, xp_of(log_probs), log_probs._data(), targets._data(), input_lengths,
                             target_lengths, blank)
    return wrap(nll, log_probs.dtype, log_probs.device), wrap(log_alpha, log_probs.dtype, log_probs.device)


def _ctc_loss_backward_kernel(ks, grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
                              log_alpha, blank, zero_infinity):
    input_lengths, target_lengths = _ints(input_lengths), _ints(target_lengths)
    _check_float(log_probs)
    if log_probs._storage._data is None:
        return empty(log_probs.shape, log_probs.dtype, log_probs.device)
    g = quietly(K.ctc_loss_backward, xp_of(log_probs), grad._data(), log_probs._data(), targets._data(),
                input_lengths, target_lengths, neg_log_likelihood._data(), log_alpha._data(), blank, zero_infinity)
    return wrap(g, log_probs.dtype, log_probs.device)


_ctc_loss_op = kernel_op("_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
                         "int blank=0, bool zero_infinity=False) -> (Tensor, Tensor)", _ctc_loss_kernel)
_ctc_loss_backward_op = kernel_op(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "Tensor neg_log_likelihood, Tensor log_alpha, int blank, bool zero_infinity=False) -> Tensor",
    _ctc_loss_backward_kernel)


# ---- ctc_loss: the composite over _ctc_loss ----------------------------------------------------------------

def _ctc_loss_intlist(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """PyTorch's `ctc_loss_impl`."""
    from .factories import zeros
    from .pointwise_ternary import where
    from .tensor_new import tensor
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    # the targets may come as any integer (or bool, or float) tensor, on any device: int64 on lp's device
    res = _ctc_loss_op(lp, targets.to(lp.device, _dtype.int64), input_lengths, target_lengths, blank,
                       zero_infinity)[0]
    if zero_infinity:
        res = where(res == math.inf, zeros((), dtype=res.dtype, device=res.device), res)
    if reduction == 1:      # Reduction::Mean: each loss per target label, then the batch mean
        lengths = tensor(_ints(target_lengths), dtype=res.dtype, device=res.device).clamp_min(1)
        return (res / lengths).mean()
    if reduction == 2:      # Reduction::Sum
        return res.sum()
    return res if batched else res.squeeze(0)


def _lengths_list(lengths, name):
    """A lengths tensor as the int list the kernel takes (read on the host, as PyTorch does)."""
    if lengths.dtype.is_floating_point or lengths.dtype.is_complex or lengths.dtype is _dtype.bool_:
        raise RuntimeError(f"{name} must be integral")
    return lengths.to("cpu", _dtype.int64).reshape(-1).tolist()


def _ctc_loss_tensor(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    il = _lengths_list(input_lengths, "input_lengths")
    tl = _lengths_list(target_lengths, "target_lengths")
    # PyTorch's fast path calls the IntList implementation directly, not through the dispatcher
    return _ctc_loss_intlist(log_probs, targets, il, tl, blank, reduction, zero_infinity)


ctc_loss_intlist_op = composite_op(
    "ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, int blank=0, "
    "int reduction=1, bool zero_infinity=False) -> Tensor", _ctc_loss_intlist)
ctc_loss_tensor_op = composite_op(
    "ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank=0, "
    "int reduction=1, bool zero_infinity=False) -> Tensor", _ctc_loss_tensor)

_SIGNATURES = (
    " * (Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, int blank = 0, "
    "int reduction = at::Reduction::Mean, bool zero_infinity = False)\n"
    " * (Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, "
    "int reduction = at::Reduction::Mean, bool zero_infinity = False)\n")


def _is_int_list(v):
    """A `tuple of ints` argument: a list or tuple of Python or NumPy integers."""
    return isinstance(v, (list, tuple)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                                                for x in v)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    """`torch.ctc_loss`: the overload is picked from the lengths, both tuples of ints or both tensors."""
    args = (log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)
    if isinstance(input_lengths, Tensor) and isinstance(target_lengths, Tensor):
        op = ctc_loss_tensor_op
    elif _is_int_list(input_lengths) and _is_int_list(target_lengths):
        op = ctc_loss_intlist_op
        args = (log_probs, targets, _ints(input_lengths), _ints(target_lengths), blank, reduction, zero_infinity)
    else:
        op = None
    if (op is None or not all(isinstance(v, int) and not isinstance(v, bool) for v in (blank, reduction))
            or not isinstance(zero_infinity, bool)):
        got = ", ".join(_type_name(a) for a in args)
        raise TypeError(f"ctc_loss() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n" + _SIGNATURES)
    return op(*args)


_ctc_loss = function(_ctc_loss_op)
