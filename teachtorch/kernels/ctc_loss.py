"""The CTC loss kernels: the alpha recursion (forward) and the beta recursion with its gradient (backward).

Connectionist Temporal Classification scores a target sequence (say "c a t") against T frames of
per-class log-probabilities without knowing which frame says which letter. An *alignment* gives each frame
a class or the blank; removing repeats and then blanks must give the target ("-cc-aa-t" -> "cat"). The
loss is minus the log of the summed probability of all alignments. Graves et al. (ICML 2006) sum them with
dynamic programming over the *extended target* l': the target with a blank before, between and after its
labels, `- c - a - t -` (length 2S + 1; even positions are blanks).

* alpha[t, s] = log P(frames 0..t end in state s of l'). From t-1, state s is reached from s (stay),
  s - 1 (advance) or s - 2 (skip a blank), the skip only when l'[s] != l'[s-2] (so two equal labels
  must have a blank between them):

      alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2]) + log_probs[t, l'[s]]

  and the likelihood sums the two states an alignment may end in, s = 2S (blank) and s = 2S - 1.
* beta[t, s] is the same recursion run backwards from the last frame; alpha[t, s] + beta[t, s]
  - log_probs[t, l'[s]] is the log probability of all alignments through state s at frame t. The
  gradient of the loss with respect to log_probs[t, c] (Graves' eq. 16) is then

      exp(log_probs[t, c]) - exp(logsumexp_{s: l'[s] = c}(alpha[t, s] + beta[t, s]) + nll - log_probs[t, c])

  times the incoming gradient, and 0 for frames past the item's input length.
  The first term assumes the log_probs are normalized (they come from log_softmax): the true derivative
  is the second term alone, and log_softmax's backward removes exactly the first (it subtracts
  exp(log_probs) times the sum of the gradient over the classes, which the first term adds back). PyTorch
  returns this formula, and so does teachtorch; a gradcheck holds through log_softmax only.

How PyTorch does it (aten/src/ATen/native/LossCTC.cpp, `ctc_loss_cpu_template` and
`ctc_loss_backward_cpu_template`): a loop over the batch (in parallel), inside it a loop over t and over s,
each logsumexp written as `log(exp(a - m) + exp(b - m) + exp(c - m)) + m` with m the largest term (0 if
all are -inf). Here the loop over t stays, and each step works on every batch item and every s at once;
the sums are written the same way, so the numbers are PyTorch's. Invalid positions (s past 2S + 1 of a
short target, frames past an input's length) hold -inf, which adds nothing to any sum.

Targets are not checked against the number of classes, in PyTorch (a bad label reads memory it should
not). Here an index outside [0, C) raises a RuntimeError instead (see `_extended_targets`).
"""

import numpy as np

from .. import _dtype
from ..backends import differences, empty, quietly, wrap, xp_of

NEG_INF = -np.inf   # a Python float: an operand NumPy and CuPy both take, in the array's dtype


def _extended_targets(xp, targets, target_lengths, blank, num_labels):
    """l' for every batch item, as a (B, 2 * max_target_length + 1) index array (blanks past the end).

    `targets` is the (B, S) padded array or the 1-d concatenation of all targets.
    """
    batch = len(target_lengths)
    max_len = max(target_lengths, default=0)
    tl = np.asarray(target_lengths, dtype=np.int64)
    # where item b's label j sits in `targets`: (b, j) when padded, offset[b] + j when concatenated
    j = np.arange(max_len)
    inside = j[None, :] < tl[:, None]                                  # (B, S): labels that exist
    if targets.ndim == 1:
        offsets = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        flat = np.where(inside, offsets[:, None] + j[None, :], 0)
        labels = targets[differences.to_device(xp, flat)] if targets.size else xp.zeros(flat.shape, np.int64)
    else:
        labels = targets[:, :max_len]
    labels = xp.where(differences.to_device(xp, inside), labels.astype(np.int64), blank)
    if labels.size and bool(((labels < 0) | (labels >= num_labels)).any()):
        raise RuntimeError(f"ctc_loss: a target label is outside the class range [0, {num_labels})")
    ext = xp.full((batch, 2 * max_len + 1), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    return ext


def _logsumexp3(xp, a, b, c):
    """log(e^a + e^b + e^c) as PyTorch writes it: subtract the largest (0 when all three are -inf)."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(m == -np.inf, 0, m)
    return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _shift(xp, a, k):
    """a[:, s - k] for every s (a[:, s + k] for negative k), -inf where that is outside the row."""
    out = xp.full(a.shape, -np.inf, dtype=a.dtype)
    if k > 0:
        out[:, k:] = a[:, :-k]
    else:
        out[:, :k] = a[:, -k:]
    return out


def _setup(xp, log_probs, targets, input_lengths, target_lengths, blank):
    """What both passes need: l', the log-probabilities along l', and the masks of valid states and frames."""
    T, B, C = log_probs.shape
    ext = _extended_targets(xp, targets, target_lengths, blank, C)
    L = ext.shape[1]
    # lp_ext[b, t, s] = log_probs[t, b, l'[s]]: the log-probability of state s at frame t
    lp_ext = xp.take_along_axis(log_probs.transpose(1, 0, 2), xp.broadcast_to(ext[:, None, :], (B, T, L)), axis=2)
    il = differences.to_device(xp, np.asarray(input_lengths, dtype=np.int64))
    tl = differences.to_device(xp, np.asarray(target_lengths, dtype=np.int64))
    s = xp.arange(L)
    valid = s[None, :] < (2 * tl + 1)[:, None]                          # (B, L): states that exist
    can_skip = xp.zeros((B, L), dtype=bool)                             # l'[s] != l'[s-2]: the skip is allowed
    can_skip[:, 2:] = ext[:, 2:] != ext[:, :-2]
    return ext, lp_ext, il, tl, valid, can_skip


def ctc_loss_forward(xp, log_probs, targets, input_lengths, target_lengths, blank):
    """(neg_log_likelihood (B,), log_alpha (B, T, 2 * max_target_length + 1)) for a non-empty (T, B, C) array."""
    T, B, C = log_probs.shape
    ext, lp_ext, il, tl, valid, can_skip = _setup(xp, log_probs, targets, input_lengths, target_lengths, blank)
    L = ext.shape[1]
    log_alpha = xp.full((B, T, L), NEG_INF, dtype=log_probs.dtype)
    s = xp.arange(L)
    # frame 0: an alignment starts with the blank (s = 0) or with the first label (s = 1)
    first = (s[None, :] == 0) | ((s[None, :] == 1) & (tl[:, None] > 0))
    log_alpha[:, 0] = xp.where(first & (il[:, None] > 0), lp_ext[:, 0], NEG_INF)
    for t in range(1, T):
        prev = log_alpha[:, t - 1]
        stay, advance = prev, _shift(xp, prev, 1)
        skip = xp.where(can_skip, _shift(xp, prev, 2), NEG_INF)
        new = _logsumexp3(xp, stay, advance, skip) + lp_ext[:, t]
        log_alpha[:, t] = xp.where(valid & (t < il)[:, None], new, NEG_INF)
    # the last frame of each item, and its two final states (s = 2S and 2S - 1)
    rows = xp.arange(B)
    last = log_alpha[rows, xp.maximum(il - 1, 0)]
    l1 = last[rows, 2 * tl]
    l2 = xp.where(tl > 0, last[rows, xp.maximum(2 * tl - 1, 0)], NEG_INF)
    m = xp.maximum(l1, l2)
    m = xp.where(m == -np.inf, 0, m)
    log_likelihood = xp.log(xp.exp(l1 - m) + xp.exp(l2 - m)) + m
    # an empty target has one final state: PyTorch takes it as it is (no sum with a missing state)
    log_likelihood = xp.where(tl == 0, l1, log_likelihood)
    # no frames at all: the empty target is certain (log 1 = 0), any other impossible (-inf)
    log_likelihood = xp.where(il == 0, xp.where(tl == 0, 0.0, -np.inf), log_likelihood)
    return (-log_likelihood).astype(log_probs.dtype), log_alpha


def ctc_loss_backward(xp, grad_out, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                      blank, zero_infinity):
    """The gradient with respect to the (T, B, C) `log_probs`, from the forward's nll and log_alpha."""
    T, B, C = log_probs.shape
    dtype = log_probs.dtype
    ext, lp_ext, il, tl, valid, can_skip = _setup(xp, log_probs, targets, input_lengths, target_lengths, blank)
    L = ext.shape[1]
    s = xp.arange(L)
    # beta, from the last frame of each item back to frame 0. At the last frame an alignment may end in
    # s = 2S or 2S - 1; earlier frames run the mirrored recursion (stay, step back one, skip back two).
    can_skip_back = xp.zeros((B, L), dtype=bool)                        # l'[s+2] != l'[s]
    can_skip_back[:, :-2] = can_skip[:, 2:]
    final = (s[None, :] == 2 * tl[:, None]) | ((s[None, :] == 2 * tl[:, None] - 1) & (tl[:, None] > 0))
    log_beta = xp.full((B, T, L), NEG_INF, dtype=dtype)
    for t in range(T - 1, -1, -1):
        start = xp.where(final, lp_ext[:, t], NEG_INF)
        if t + 1 < T:
            nxt = log_beta[:, t + 1]
            skip = xp.where(can_skip_back, _shift(xp, nxt, -2), NEG_INF)
            step = xp.where(valid, _logsumexp3(xp, nxt, _shift(xp, nxt, -1), skip) + lp_ext[:, t], NEG_INF)
        else:
            step = start
        is_last = (t == il - 1)[:, None]
        log_beta[:, t] = xp.where(is_last, start, xp.where((t < il - 1)[:, None], step, NEG_INF))
    # PyTorch's last frame *assigns* its two terms (blank, then the last label) instead of adding them;
    # they differ only when the last label is the blank itself: then the second assignment wins.
    ab = log_alpha + log_beta                                           # (B, T, L)
    rows = xp.arange(B)
    last_is_blank = (tl > 0) & (ext[rows, xp.maximum(2 * tl - 1, 0)] == blank)
    at_end = (xp.arange(T)[None, :] == (il - 1)[:, None])               # (B, T)
    drop = at_end[:, :, None] & (s[None, None, :] == 2 * tl[:, None, None]) & last_is_blank[:, None, None]
    ab = xp.where(drop, NEG_INF, ab)
    # collect, per class, the log-sum over the states showing that class, in PyTorch's order (s descending)
    collected = xp.full((B, T, C), NEG_INF, dtype=dtype)
    for k in range(L - 1, -1, -1):
        c = ext[:, k]
        cur = collected[rows, :, c]                                     # (B, T)
        x = ab[:, :, k]
        m = xp.maximum(cur, x)
        summed = xp.log(xp.exp(cur - m) + xp.exp(x - m)) + m
        collected[rows, :, c] = xp.where(cur == -np.inf, x, summed)
    lp = log_probs.transpose(1, 0, 2)                                   # (B, T, C)
    nll = neg_log_likelihood[:, None, None]
    grad = (xp.exp(lp) - xp.exp(collected + nll - lp)) * grad_out[:, None, None]
    keep = xp.arange(T)[None, :] < il[:, None]                          # frames past the input length: 0
    if zero_infinity:                                                   # impossible alignments: all 0
        keep = keep & (neg_log_likelihood != np.inf)[:, None]
    grad = xp.where(keep[:, :, None], grad, 0).astype(dtype)
    return xp.ascontiguousarray(grad.transpose(1, 0, 2))


# ---- the registered kernels of _ctc_loss and _ctc_loss_backward, with their argument checks ---------------

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


def int_list(values):
    return [int(v) for v in values]


def ctc_loss_kernel(ks, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    input_lengths, target_lengths = int_list(input_lengths), int_list(target_lengths)
    _check_float(log_probs)
    _check_arguments(log_probs, targets, input_lengths, target_lengths, blank)
    T, B, _ = log_probs.shape
    alpha_shape = (B, T, 2 * max(target_lengths, default=0) + 1)
    if log_probs._storage._data is None:       # meta: shapes only
        return empty((B,), log_probs.dtype, log_probs.device), empty(alpha_shape, log_probs.dtype, log_probs.device)
    # (quietly: log(0) = -inf and inf - inf = nan are the arithmetic of impossible paths, not errors)
    nll, log_alpha = quietly(ctc_loss_forward, xp_of(log_probs), log_probs._data(), targets._data(), input_lengths,
                             target_lengths, blank)
    return wrap(nll, log_probs.dtype, log_probs.device), wrap(log_alpha, log_probs.dtype, log_probs.device)


def ctc_loss_backward_kernel(ks, grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
                             log_alpha, blank, zero_infinity):
    input_lengths, target_lengths = int_list(input_lengths), int_list(target_lengths)
    _check_float(log_probs)
    if log_probs._storage._data is None:
        return empty(log_probs.shape, log_probs.dtype, log_probs.device)
    g = quietly(ctc_loss_backward, xp_of(log_probs), grad._data(), log_probs._data(), targets._data(),
                input_lengths, target_lengths, neg_log_likelihood._data(), log_alpha._data(), blank, zero_infinity)
    return wrap(g, log_probs.dtype, log_probs.device)
