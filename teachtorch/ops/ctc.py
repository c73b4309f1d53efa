"""The CTC loss ops: `_ctc_loss` (the kernel), `_ctc_loss_backward` (its gradient), and `ctc_loss`.

`torch.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)` is what
`F.ctc_loss` calls (reduction as an int: 0 none, 1 mean, 2 sum). The kernels with their argument checks,
and what CTC is, are in kernels/ctc_loss.py.

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
from ..kernels import ctc_loss as K
from ..kernels.ctc_loss import int_list as _ints
from ._define import composite_op, function, kernel_op

__all__ = ["ctc_loss", "_ctc_loss"]

_ctc_loss_op = kernel_op("_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
                         "int blank=0, bool zero_infinity=False) -> (Tensor, Tensor)", K.ctc_loss_kernel)
_ctc_loss_backward_op = kernel_op(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "Tensor neg_log_likelihood, Tensor log_alpha, int blank, bool zero_infinity=False) -> Tensor",
    K.ctc_loss_backward_kernel)


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
