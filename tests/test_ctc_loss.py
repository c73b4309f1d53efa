"""F.ctc_loss / nn.CTCLoss / torch.ctc_loss against PyTorch: values, gradients (PyTorch's own backward
kernel, CtcLossBackward0), errors, and a short training run.

The fuzz draws T, N, C, input and target lengths (empty targets, repeated labels that need a blank between
them, lengths too short for their target: inf, or 0 with zero_infinity), every reduction, padded and
concatenated targets, lengths as tuples or int32/int64 tensors, float32 and float64, and log_probs in every
memory layout (and permuted from (N, T, C), the usual batch-first layout).
"""

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, check, check_grad

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

FUZZ = settings(max_examples=30, deadline=None)
REDUCTIONS = ("mean", "sum", "none")


def F(lib):
    return lib.nn.functional


def _log_probs(T, N, C, seed=0, dtype="float32", batch_first=False):
    x = np.random.default_rng(seed).standard_normal((N, T, C) if batch_first else (T, N, C))
    x = x - np.log(np.exp(x).sum(-1, keepdims=True))          # log_softmax over the classes
    return x.astype(dtype)


def _case(T, N, C, blank, input_lengths, target_lengths, seed=0, repeat=True):
    """Targets (N, S) padded with -1 past each length (so reading past a length shows), labels != blank."""
    rng = np.random.default_rng(seed + 7)
    S = max(target_lengths, default=0)
    labels = [c for c in range(C) if c != blank]
    tg = np.full((N, S), -1, dtype=np.int64)
    for b, n in enumerate(target_lengths):
        row = rng.choice(labels, size=n)
        if repeat and n >= 2:
            row[1] = row[0]                                   # a repeated label: a blank must sit between
        tg[b, :n] = row
    return tg


def _concat(tg, target_lengths):
    return np.concatenate([tg[b, :n] for b, n in enumerate(target_lengths)] + [np.zeros(0, np.int64)])


@st.composite
def ctc_cases(draw):
    T = draw(st.integers(1, 7))
    N = draw(st.integers(1, 4))
    C = draw(st.integers(2, 5))
    blank = draw(st.sampled_from([0, C - 1]))
    input_lengths = tuple(draw(st.lists(st.integers(0, T), min_size=N, max_size=N)))
    target_lengths = tuple(draw(st.lists(st.integers(0, 4), min_size=N, max_size=N)))
    return T, N, C, blank, input_lengths, target_lengths


def _lengths(values, kind):
    if kind == "tuple":
        return tuple(values)
    return P(np.asarray(values, dtype=kind))


@FUZZ
@given(case=ctc_cases(), reduction=st.sampled_from(REDUCTIONS), zero_infinity=st.booleans(),
       concatenated=st.booleans(), lengths=st.sampled_from(["tuple", "int64", "int32"]),
       dtype=st.sampled_from(["float32", "float64"]), layout=st.sampled_from(LAYOUTS + ("batch_first",)),
       seed=st.integers(0, 3))
@example(case=(5, 2, 4, 0, (5, 2), (2, 2)), reduction="none", zero_infinity=False, concatenated=False,
         lengths="tuple", dtype="float64", layout="contiguous", seed=0)      # item 1: 2 frames, 2 labels: inf
@example(case=(5, 2, 4, 0, (5, 2), (2, 2)), reduction="sum", zero_infinity=True, concatenated=True,
         lengths="int64", dtype="float32", layout="permuted", seed=0)        # ... and zeroed
@example(case=(4, 3, 3, 2, (4, 0, 3), (0, 0, 1)), reduction="mean", zero_infinity=False, concatenated=True,
         lengths="int32", dtype="float64", layout="sliced", seed=1)          # empty targets, zero-length input
def test_ctc_loss_fuzz(case, reduction, zero_infinity, concatenated, lengths, dtype, layout, seed):
    T, N, C, blank, il, tl = case
    tg = _case(T, N, C, blank, il, tl, seed)
    targets = P(_concat(tg, tl) if concatenated else tg)
    batch_first = layout == "batch_first"
    lp = P(_log_probs(T, N, C, seed, dtype, batch_first), "permuted" if batch_first else layout, seed=seed)

    def fn(lib, log_probs, targets, il, tl):
        if batch_first:                       # (N, T, C) -> (T, N, C): a permuted view, as models give it
            log_probs = log_probs.transpose(0, 1)
        return F(lib).ctc_loss(log_probs, targets, il, tl, blank=blank, reduction=reduction,
                               zero_infinity=zero_infinity)

    check_grad(fn, lp, targets, _lengths(il, lengths), _lengths(tl, lengths), double=False, gradcheck=False,
               gradgradcheck=False, rtol=1e-5 if dtype == "float32" else 1e-10,
               atol=1e-5 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("lengths", ["tuple", "int64"])
def test_ctc_loss_unbatched(reduction, lengths):
    """(T, C) log_probs with (S,) targets: one sequence; lengths as 1-tuples or 0-d tensors."""
    lp = P(_log_probs(6, 1, 4, seed=3)[:, 0], "sliced")
    tg = P(np.array([1, 1, 3]))
    il = (6,) if lengths == "tuple" else P(np.array(6))
    tl = (3,) if lengths == "tuple" else P(np.array(3))
    check_grad(lambda lib, x, t, i, n: F(lib).ctc_loss(x, t, i, n, reduction=reduction), lp, tg, il, tl,
               double=False, gradcheck=False, gradgradcheck=False)


def test_ctc_loss_blank_in_targets_and_other_target_dtypes():
    """PyTorch checks neither that targets avoid the blank nor their dtype (they are converted to int64)."""
    lp = P(_log_probs(6, 2, 4, seed=5, dtype="float64"))
    for tg in (np.array([[0, 2, 0], [1, 0, 3]]), np.array([[1, 2, 2], [3, 1, 1]], dtype=np.int32),
               np.array([[1., 2., 2.], [3., 1., 1.]]), np.array([[True, False, True], [True, True, False]])):
        check_grad(lambda lib, x, t: F(lib).ctc_loss(x, t, (6, 5), (3, 2), reduction="none"), lp, P(tg),
                   nondiff=(1,), double=False, gradcheck=False, gradgradcheck=False)


def test_ctc_loss_zero_length_input_gives_minus_zero_or_inf():
    lp = P(_log_probs(4, 3, 3, seed=2))
    tg = P(np.array([[1, 2], [1, 1], [2, 2]]))
    got = check(lambda lib, x, t: F(lib).ctc_loss(x, t, (0, 0, 4), (0, 2, 2), reduction="none"), lp, tg)
    assert np.signbit(got[0].item()) and got[1].item() == float("inf")


def test_ctc_loss_gradcheck():
    """teachtorch's gradcheck: the backward kernel against finite differences, in float64.

    PyTorch's gradient includes exp(log_probs) * grad, a term log_softmax's backward cancels: it is the true
    derivative only for normalized log_probs, i.e. through log_softmax (so is teachtorch's, the same formula).
    """
    raw = tt.tensor(np.random.default_rng(1).standard_normal((5, 2, 4)), requires_grad=True)
    tg = tt.tensor([[1, 1], [2, 3]])
    for reduction in REDUCTIONS:
        for zero_infinity in (False, True):
            assert tt.autograd.gradcheck(lambda x: F(tt).ctc_loss(x.log_softmax(2), tg, (5, 4), (2, 1),
                                                                  reduction=reduction, zero_infinity=zero_infinity),
                                         (raw,))
    # a batch-first view, concatenated targets, an impossible item zeroed
    raw = tt.tensor(np.random.default_rng(2).standard_normal((3, 5, 4)), requires_grad=True)
    assert tt.autograd.gradcheck(
        lambda x: F(tt).ctc_loss(x.log_softmax(2).transpose(0, 1), tt.tensor([1, 1, 2, 3, 3]), (5, 3, 1), (2, 1, 2),
                                 zero_infinity=True), (raw,))


def test_ctc_loss_graph_and_double_backward():
    """Node names as PyTorch's; log_alpha is not differentiable; the backward has no derivative."""
    for lib in (torch, tt):
        lp = lib.tensor(_log_probs(5, 2, 4, dtype="float64"), requires_grad=True)
        tg = lib.tensor([[1, 2], [3, 3]])
        nll, log_alpha = lib._ctc_loss(lp, tg, [5, 5], [2, 2])
        assert nll.grad_fn.name() == "CtcLossBackward0" and not log_alpha.requires_grad
        assert tuple(log_alpha.shape) == (2, 5, 5)
        loss = F(lib).ctc_loss(lp, tg, (5, 5), (2, 2))
        assert loss.grad_fn.name() == "MeanBackward0"
        assert loss.grad_fn.next_functions[0][0].name() == "DivBackward0"
        g, = lib.autograd.grad(loss, lp, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
            g.sum().backward()
    # (neg_log_likelihood, log_alpha); PyTorch leaves log_alpha uninitialized past each item's lengths, so
    # log_alpha is compared where every state and frame is used, the losses everywhere
    check(lambda lib, x, t: lib._ctc_loss(x, t, [5, 5], [2, 2]), P(_log_probs(5, 2, 4, dtype="float64")),
          P(np.array([[1, 2], [3, 3]])))
    check(lambda lib, x, t: lib._ctc_loss(x, t, [5, 4], [2, 1])[0], P(_log_probs(5, 2, 4, dtype="float64")),
          P(np.array([[1, 2], [3, 3]])))


def test_ctc_loss_torch_function_reduction_ints():
    lp = P(_log_probs(5, 2, 4))
    tg = P(np.array([[1, 2], [3, 3]]))
    for reduction in (0, 1, 2, 5):
        check(lambda lib, x, t: lib.ctc_loss(x, t, (5, 4), (2, 1), 0, reduction, False), lp, tg)


# ---- errors ----------------------------------------------------------------------------------------------

LP, TG = _log_probs(6, 3, 5), np.array([[1, 2, 3], [2, 2, 4], [4, 3, 1]])
ERRORS = {
    "target_lengths size": (LP, TG, (6, 5, 4), (3, 2)),
    "input_lengths size": (LP, TG, (6, 5), (3, 2, 1)),
    "input length > T": (LP, TG, (7, 5, 4), (3, 2, 1)),
    "negative input length": (LP, TG, (-1, 5, 4), (3, 2, 1)),
    "negative target length": (LP, TG, (6, 5, 4), (3, -1, 1)),
    "negative target length, concatenated": (LP, TG.ravel(), (6, 5, 4), (3, -1, 1)),
    "target length > S": (LP, TG, (6, 5, 4), (4, 2, 1)),
    "concatenated size": (LP, TG.ravel()[:5], (6, 5, 4), (3, 2, 1)),
    "targets batch": (LP, TG[:2], (6, 5, 4), (3, 2, 1)),
    "targets 3-d": (LP, TG[:, :, None], (6, 5, 4), (3, 2, 1)),
    "targets 0-d": (LP, TG[0, 0], (6, 5, 4), (3, 2, 1)),
    "log_probs 4-d": (LP[None], TG, (6, 5, 4), (3, 2, 1)),
    "log_probs 1-d": (LP[0, 0], TG, (6, 5, 4), (3, 2, 1)),
    "empty log_probs": (LP[:0], TG, (0, 0, 0), (0, 0, 0)),
    "integer log_probs": (LP.astype(np.int64), TG, (6, 5, 4), (3, 2, 1)),
    "float16 log_probs": (LP.astype(np.float16), TG, (6, 5, 4), (3, 2, 1)),
    "unbatched, two lengths": (LP[:, 0], TG[0], (6, 6), (3, 3)),
    "float input_lengths": (LP, TG, P(np.array([6., 5., 4.])), P(np.array([3, 2, 1]))),
    "float target_lengths": (LP, TG, P(np.array([6, 5, 4])), P(np.array([3., 2., 1.]))),
    "bool input_lengths": (LP, TG, P(np.array([True, True, True])), P(np.array([3, 2, 1]))),
    "input_lengths tensor size": (LP, TG, P(np.array([6, 5])), P(np.array([3, 2, 1]))),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_ctc_loss_errors(name):
    lp, tg, il, tl = ERRORS[name]
    check(lambda lib, x, t, i, n: F(lib).ctc_loss(x, t, i, n), P(lp), P(tg), il, tl)


@pytest.mark.parametrize("blank", [5, -1])
def test_ctc_loss_blank_out_of_range(blank):
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, (6, 5, 4), (3, 2, 1), blank=blank), P(LP), P(TG))


def test_ctc_loss_argument_errors():
    check(lambda lib, x, t: F(lib).ctc_loss(x, t, (6, 5, 4), (3, 2, 1), reduction="foo"), P(LP), P(TG))
    check(lambda lib, x, t: lib.nn.CTCLoss(reduction="foo")(x, t, (6, 5, 4), (3, 2, 1)), P(LP), P(TG))
    # lengths of two kinds, or not ints: no overload fits (PyTorch's parser lists both; we check the start)
    for il, tl in (((6, 5, 4), P(np.array([3, 2, 1]))), ((6., 5., 4.), (3, 2, 1))):
        check(lambda lib, x, t, i, n: F(lib).ctc_loss(x, t, i, n), P(LP), P(TG), il, tl,
              msg="ctc_loss() received an invalid combination of arguments - got (Tensor, Tensor, ")


# ---- the module, and training with it ----------------------------------------------------------------------


def test_ctc_loss_module():
    for kwargs in ({}, {"blank": 4, "reduction": "sum", "zero_infinity": True}):
        a, b = torch.nn.CTCLoss(**kwargs), tt.nn.CTCLoss(**kwargs)
        assert repr(a) == repr(b) and list(a.state_dict()) == list(b.state_dict()) == []
        assert (b.blank, b.reduction, b.zero_infinity) == (a.blank, a.reduction, a.zero_infinity)
        tg = np.array([[1, 2, 3], [2, 2, 3], [3, 3, 1]])
        check_grad(lambda lib, x, t: lib.nn.CTCLoss(**kwargs)(x, t, (6, 2, 4), (3, 2, 1)), P(LP, "permuted"), P(tg),
                   double=False, gradcheck=False, gradgradcheck=False)


def test_ctc_loss_training_matches_torch():
    """A small recognizer (GRU + Linear + log_softmax) trained with CTCLoss and SGD from torch's weights gives
    torch's losses step after step."""
    torch.manual_seed(0)
    T, N, C, H = 12, 3, 5, 8
    x = np.random.default_rng(0).standard_normal((N, T, 4)).astype(np.float32)
    tg = np.array([[1, 2, 2, 3], [4, 4, 1, 0], [2, 3, 0, 0]])
    il, tl = (12, 10, 7), (4, 3, 2)
    losses = {}
    ref = None
    for lib in (torch, tt):
        rnn, head = lib.nn.GRU(4, H, batch_first=True), lib.nn.Linear(H, C)
        if ref is None:
            ref = [p.detach().numpy().copy() for p in list(rnn.parameters()) + list(head.parameters())]
        with lib.no_grad():
            for p, v in zip(list(rnn.parameters()) + list(head.parameters()), ref):
                p.copy_(lib.tensor(v))
        opt = lib.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.5)
        crit = lib.nn.CTCLoss(zero_infinity=True)
        xs, ts = lib.tensor(x), lib.tensor(tg)
        out = []
        for _ in range(5):
            opt.zero_grad()
            h, _ = rnn(xs)
            lp = head(h).log_softmax(2).transpose(0, 1)          # (T, N, C)
            loss = crit(lp, ts, lib.tensor(il), lib.tensor(tl))
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses[lib.__name__] = out
    np.testing.assert_allclose(losses["teachtorch"], losses["torch"], rtol=1e-4, atol=1e-5)
    assert losses["torch"][-1] < losses["torch"][0]                   # it learns, so the check sees steps
