"""The losses (teachtorch/nn/functional/loss.py, nn/modules/loss.py) against PyTorch.

Values and gradients (first and second derivatives, gradcheck) of every loss and option combination, fuzzed
with hypothesis over shapes and memory layouts: cross_entropy and nll_loss with class indices ((N, C),
(N, C, d1, ...), unbatched (C,)), weight, ignore_index, label_smoothing, and class probabilities; mse_loss,
l1_loss, binary_cross_entropy, binary_cross_entropy_with_logits with their weights. Then the error cases
(type and message, as torch), the special points (all targets ignored, p = 0 or 1, huge logits) and the
modules (buffers, state_dict, repr, gradients through `check_module`).
"""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module
from parity import Draws, P, assert_same, check, check_grad, inputs, layouts, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

REDUCTIONS = ("mean", "sum", "none")
FUZZ = settings(max_examples=25, deadline=None)


def F(lib):
    return lib.nn.functional


# ---- cross_entropy / nll_loss with class indices ---------------------------------------------------------


@st.composite
def class_index_case(draw):
    """(input P, target P, weight P or None, C): input (N, C, *extra) or unbatched (C,), targets in [0, C)
    with about a quarter of them set to ignore_index -100."""
    c = draw(st.integers(1, 5))
    if draw(st.booleans()):
        shape, target_shape = (c,), ()
    else:
        n = draw(st.integers(0, 4))
        extra = tuple(draw(st.lists(st.integers(1, 3), max_size=3)))
        shape, target_shape = (n, c) + extra, (n,) + extra
    x = draw(inputs(shape=shape))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    target = rng.integers(0, c, size=target_shape).astype(np.int64)
    target = np.where(rng.random(target_shape) < 0.25, -100, target)
    t = P(target, draw(layouts()), seed=seed)
    w = rand(c, low=0.1, high=2, seed=seed) if draw(st.booleans()) else None
    return x, t, w


def _as(w, x):
    # gradcheck runs in float64 but leaves the (non-differentiable) weight as it is: match the input's dtype
    return None if w is None else w.to(x.dtype)


# check_grad_strides=False in the fuzz tests: on size-1 dims the strides of .grad are arbitrary and torch's
# hand-written backwards lay them out like the input, ours like the core op's backward; the fixed-shape tests
# (no size-1 dims) compare strides.


def _counts_nothing(t, reduction):
    # a mean over no counted target is 0/0 = nan: torch's gradient is then 0, ours nan (both fine)
    return reduction == "mean" and (t.values.size == 0 or (t.values == -100).all())


@FUZZ
@given(case=class_index_case(), reduction=st.sampled_from(REDUCTIONS), smoothing=st.sampled_from([0.0, 0.0, 0.3]))
def test_cross_entropy_class_indices(case, reduction, smoothing):
    x, t, w = case
    fn = lambda lib, x, t, w: F(lib).cross_entropy(x, t, weight=_as(w, x), reduction=reduction,
                                                   label_smoothing=smoothing)
    check(fn, x, t, w)
    if not _counts_nothing(t, reduction):
        check_grad(fn, x, t, w, name=False, nondiff=(2,), gradgradcheck=False, check_grad_strides=False)


@FUZZ
@given(case=class_index_case(), reduction=st.sampled_from(REDUCTIONS))
# (af07762, a random-seed finding) reduction='none' on (N, C, d1, d2) with size-1 dims: PyTorch's kernel writes
# the losses into a fresh contiguous tensor, strides (2, 2, 1); the gather and squeeze gave (2, 4, 1)
@example(case=(rand(2, 1, 1, 2), P(np.array([[[-100, 0]], [[0, 0]]]), "permuted", seed=32), None), reduction="none")
def test_nll_loss(case, reduction):
    x, t, w = case
    def fn(lib, x, t, w):
        if lib is torch and x.dim() > 2:
            x = x.contiguous()   # torch's nll_loss2d backward fails on other layouts ("grad_input must be contiguous")
        return F(lib).nll_loss(x, t, weight=_as(w, x), reduction=reduction)
    check(fn, x, t, w)
    if not _counts_nothing(t, reduction):
        # nll_loss is linear in its input: its second derivative is 0 (ours is not even recorded)
        check_grad(fn, x, t, w, name=False, nondiff=(2,), gradgradcheck=False, double=False, check_grad_strides=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_second_derivatives(reduction, smoothing):
    # the whole check_grad (second derivatives, gradgradcheck) on one 3-d case with every option
    x = rand(3, 4, 2, layout="permuted")
    t = P(np.array([[0, 3], [-100, 2], [1, 1]]), "sliced")
    w = rand(4, low=0.5, high=2, seed=1)
    fn = lambda lib, x, t, w: F(lib).cross_entropy(x, t, weight=_as(w, x), reduction=reduction,
                                                   label_smoothing=smoothing)
    check_grad(fn, x, t, w, name=False, nondiff=(2,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_ignore_index_and_byte_targets(reduction):
    # another ignore_index (a valid class, and one out of range), and uint8 targets
    x = rand(5, 4)
    for ignore in (2, 7):
        t = P(np.array([2, 0, 7, 3, 2]))
        fn = lambda lib, x, t: F(lib).cross_entropy(x, t, ignore_index=ignore, reduction=reduction)
        check(fn, x, t)
        check_grad(fn, x, t, name=False, gradgradcheck=False)
    check(lambda lib, x, t: F(lib).cross_entropy(x, t, reduction=reduction), x, P(np.array([1, 0, 3, 3, 2], np.uint8)))
    # an unbatched input with its target in a 1-d tensor of one
    check(lambda lib, x, t: F(lib).cross_entropy(x, t, reduction=reduction), rand(4), P(np.array([3])))


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_all_ignored_and_empty(smoothing, weighted):
    w = rand(5, low=0.5, high=2) if weighted else None
    for x, t in ((rand(3, 5), P(np.array([-100, -100, -100]))),
                 (rand(5), P(np.array(-100))),
                 (rand(0, 5), P(np.zeros(0, np.int64)))):
        for reduction in REDUCTIONS:
            got = check(lambda lib, x, t, w: F(lib).cross_entropy(x, t, weight=w, reduction=reduction,
                                                                   label_smoothing=smoothing), x, t, w)
            if reduction == "mean":
                assert np.isnan(got.item())    # 0/0, as torch


@FUZZ
@given(data=st.data(), reduction=st.sampled_from(REDUCTIONS), smoothing=st.sampled_from([0.0, 0.25]),
       weighted=st.booleans())
def test_cross_entropy_probabilities(data, reduction, smoothing, weighted):
    c = data.draw(st.integers(1, 4))
    shape = data.draw(st.sampled_from([(c,), (3, c), (2, c, 3), (0, c)]))
    x = data.draw(inputs(shape=shape))
    target = data.draw(inputs(shape=shape, low=0, high=1))
    w = rand(c, low=0.5, high=2) if weighted else None
    fn = lambda lib, x, t, w: F(lib).cross_entropy(x, t, weight=_as(w, x), reduction=reduction,
                                                   label_smoothing=smoothing)
    check(fn, x, target, w)
    if not (reduction == "mean" and x.values.size == 0):
        # the target is differentiable too
        check_grad(fn, x, target, w, name=False, nondiff=(2,), gradgradcheck=False, check_grad_strides=False)


def test_cross_entropy_dtypes():
    x, t = rand(3, 4), P(np.array([1, 0, 3]))
    for dtype in (tt.float64, tt.float16):
        check(lambda lib, x, t, d: F(lib).cross_entropy(x.to(d), t), x, t, dtype, rtol=2e-3, atol=2e-3)
    # a float64 probability target promotes the result
    check(lambda lib, x, t: F(lib).cross_entropy(x, t.double()), x, rand(3, 4, low=0, high=1))


# every case: fn(lib, *args) and its inputs; torch raises, teachtorch must raise the same type and message
X, T = rand(3, 5), P(np.array([1, 2, 3]))
ERRORS = {
    "target out of bounds": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1, 5, 2])), X),
    "negative target": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1, -1, 7])), X),
    "4-d out of bounds": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([[[0, 1], [2, 3]], [[0, 0], [0, 0]]])),
                          rand(2, 3, 2, 2)),
    "no classes": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(3, dtype=lib.long)), rand(3, 0)),
    "nll out of bounds": (lambda lib, x: F(lib).nll_loss(x, lib.tensor([0, 9, 1])), X),
    "float target": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1.0, 2.0, 3.0])), X),
    "int32 target": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1, 2, 3], dtype=lib.int32)), X),
    "3-d float target": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 4)), rand(2, 3, 4)),
    "long probabilities": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(3, 5, dtype=lib.long)), X),
    "0-d input": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor(0)), rand()),
    "bad reduction": (lambda lib, x, t: F(lib).cross_entropy(x, t, reduction="avg"), X, T),
    "nll bad reduction": (lambda lib, x, t: F(lib).nll_loss(x, t, reduction="bad"), X, T),
    "batch mismatch": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([1, 2])), X),
    "0-d target, 2-d input": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor(2)), X),
    "2-d target, 2-d input": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(3, 2, dtype=lib.long)), X),
    "1-d target of 2, 1-d input": (lambda lib, x: F(lib).nll_loss(x, lib.tensor([2, 3])), rand(5)),
    "2-d target, 1-d input": (lambda lib, x: F(lib).cross_entropy(x, lib.tensor([[2]])), rand(5)),
    "3-d target size": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 5, dtype=lib.long)), rand(2, 3, 4)),
    "3-d target dims": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, dtype=lib.long)), rand(2, 3, 4)),
    "4-d target size": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 5, 4, dtype=lib.long)), rand(2, 3, 4, 4)),
    "4-d target dims": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 4, dtype=lib.long)), rand(2, 3, 4, 4)),
    "5-d target size": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 5, 4, 1, dtype=lib.long)),
                        rand(2, 3, 4, 4, 2)),
    "weight size": (lambda lib, x, t: F(lib).cross_entropy(x, t, weight=lib.ones(4)), X, T),
    "weight 2-d": (lambda lib, x, t: F(lib).cross_entropy(x, t, weight=lib.ones(5, 1)), X, T),
    "3-d weight size": (lambda lib, x: F(lib).cross_entropy(x, lib.zeros(2, 4, dtype=lib.long), weight=lib.ones(2)),
                        rand(2, 3, 4)),
    "weight dtype": (lambda lib, x, t: F(lib).cross_entropy(x, t, weight=lib.ones(5, dtype=lib.float64)), X, T),
    "weight integer": (lambda lib, x, t: F(lib).cross_entropy(x, t, weight=lib.ones(5, dtype=lib.long)), X, T),
    "probabilities weight size": (lambda lib, x: F(lib).cross_entropy(x, lib.rand(3, 5), weight=lib.ones(4)), X),
    "probabilities ignore_index": (lambda lib, x: F(lib).cross_entropy(x, lib.rand(3, 5), ignore_index=1), X),
    "label_smoothing > 1": (lambda lib, x, t: F(lib).cross_entropy(x, t, label_smoothing=1.5), X, T),
    "probabilities label_smoothing > 1": (lambda lib, x: F(lib).cross_entropy(x, lib.rand(3, 5), label_smoothing=1.5),
                                          X),
    "mse bad reduction": (lambda lib, x: F(lib).mse_loss(x, x, reduction="x"), X),
    "mse weighted bad reduction": (lambda lib, x: F(lib).mse_loss(x, x, weight=lib.ones(3, 5), reduction="x"), X),
    "mse weight size": (lambda lib, x: F(lib).mse_loss(x, x, weight=lib.ones(5)), X),
    "l1 weight size": (lambda lib, x: F(lib).l1_loss(x, x, weight=lib.ones(5)), X),
    "mse integers": (lambda lib: F(lib).mse_loss(lib.ones(3, dtype=lib.long), lib.ones(3, dtype=lib.long)),),
    "l1 integers": (lambda lib: F(lib).l1_loss(lib.ones(3, dtype=lib.long), lib.ones(3, dtype=lib.long)),),
    "bce size": (lambda lib, p: F(lib).binary_cross_entropy(p, lib.rand(3, 1)), rand(3, low=0, high=1)),
    "bce range": (lambda lib: F(lib).binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])),),
    "bce nan": (lambda lib: F(lib).binary_cross_entropy(lib.tensor([float("nan")]), lib.tensor([1.0])),),
    "bce target dtype": (lambda lib, p: F(lib).binary_cross_entropy(p, p.double()), rand(3, low=0, high=1)),
    "bce integer input": (lambda lib: F(lib).binary_cross_entropy(lib.ones(3, dtype=lib.long),
                                                                  lib.ones(3, dtype=lib.long)),),
    "bce weight broadcast": (lambda lib, p: F(lib).binary_cross_entropy(p, p, weight=lib.rand(3)), rand(3, 2, low=0, high=1)),
    "bce weight grows": (lambda lib, p: F(lib).binary_cross_entropy(p, p, weight=lib.rand(2, 3), reduction="none"),
                         rand(3, low=0, high=1)),
    "bce bad reduction": (lambda lib, p: F(lib).binary_cross_entropy(p, p, reduction="x"), rand(3, low=0, high=1)),
    "bce logits size": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, lib.rand(3, 1)), rand(3)),
    "bce logits long target": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, lib.ones(3, dtype=lib.long)),
                               rand(3)),
    "bce logits pos_weight size": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, x, pos_weight=lib.rand(3)),
                                   rand(3, 2)),
    "bce logits weight size": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, x, weight=lib.rand(3)),
                               rand(3, 2)),
    "bce logits weight grows": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, x, weight=lib.rand(2, 3)),
                                rand(3)),
    "bce logits bad reduction": (lambda lib, x: F(lib).binary_cross_entropy_with_logits(x, x, reduction="x"), rand(3)),
}


TYPE_ONLY = set()


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    fn, *args = ERRORS[name]
    with pytest.raises(Exception):
        fn(torch, *[a.build(torch) for a in args])      # the case must be an error in torch
    check(fn, *args, msg=name not in TYPE_ONLY)


# ---- mse_loss and l1_loss --------------------------------------------------------------------------------


@FUZZ
@given(data=st.data(), reduction=st.sampled_from(REDUCTIONS), name=st.sampled_from(["mse_loss", "l1_loss"]),
       weighted=st.booleans())
# (0525b51, a random-seed finding) mse_loss(reduction='none') of a (2, 1, 2) input and a permuted target has the
# layout of `input - target`, (2, 4, 1) here: `x ** 2` and square laid the size-1 dim out as (2, 2, 1)
@example(data=Draws(rand(2, 1, 2, seed=0), rand(2, 1, 2, layout="permuted", seed=8)), reduction="none",
         name="mse_loss", weighted=False)
def test_mse_and_l1(data, reduction, name, weighted):
    x = data.draw(inputs())
    y = data.draw(inputs(shape=x.values.shape))
    w = data.draw(inputs(shape=x.values.shape, low=0.1, high=2)) if weighted else None
    fn = lambda lib, x, y, w: getattr(F(lib), name)(x, y, reduction=reduction, weight=w)
    check(fn, x, y, w)
    if not (reduction == "mean" and x.values.size == 0):
        check_grad(fn, x, y, w, name=False, nondiff=(2,), gradgradcheck=False, check_grad_strides=False)


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_mse_and_l1_broadcasting_warns(name):
    x, y = rand(3, 1), rand(3, seed=1)
    for lib in (tt, torch):
        with pytest.warns(UserWarning, match="Using a target size") as record:
            getattr(F(lib), name)(x.build(lib), y.build(lib))
        assert len(record) == 1
    check(lambda lib, x, y: getattr(F(lib), name)(x, y, reduction="none"), x, y)
    check_grad(lambda lib, x, y: getattr(F(lib), name)(x, y), x, y, name=False)


def test_mse_and_l1_dtypes():
    x = rand(4)
    check(lambda lib, x: F(lib).mse_loss(x, x.double() * 2), x)
    check(lambda lib, x: F(lib).l1_loss(x, x.double() * 2), x)
    check(lambda lib, x: F(lib).mse_loss(x.long(), x, reduction="none"), x)
    check(lambda lib, x: F(lib).l1_loss(x.long(), x.long() + 1, reduction="sum"), x)


def test_legacy_size_average_and_reduce():
    x, y = rand(3, 4), rand(3, 4, seed=1)
    for size_average, reduce in ((False, None), (None, False), (True, True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            check(lambda lib, x, y: F(lib).mse_loss(x, y, size_average=size_average, reduce=reduce), x, y)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        F(tt).l1_loss(x.build(tt), y.build(tt), size_average=False)


# ---- binary cross entropy --------------------------------------------------------------------------------


@FUZZ
@given(data=st.data(), reduction=st.sampled_from(REDUCTIONS), weight=st.sampled_from([None, "full", "last"]))
# (af85b4e, a random-seed finding) reduction='none' of a permuted (1, 1, 2) input: PyTorch's kernel writes into
# empty_like(input), strides (1, 1, 1); the composite gave (2, 2, 1)
@example(data=Draws(rand(1, 1, 2, layout="permuted", low=0.02, high=0.98), rand(1, 1, 2, low=0, high=1)),
         reduction="none", weight=None)
def test_binary_cross_entropy(data, reduction, weight):
    p = data.draw(inputs(low=0.02, high=0.98))
    shape = p.values.shape
    y = data.draw(inputs(shape=shape, low=0, high=1))
    w = None
    if weight == "full":
        w = data.draw(inputs(shape=shape, low=0.1, high=2))
    elif weight == "last" and shape:
        w = rand(shape[-1], low=0.1, high=2)      # broadcasts over the leading dims
    fn = lambda lib, p, y, w: F(lib).binary_cross_entropy(p, y, weight=w, reduction=reduction)
    check(fn, p, y, w)
    if not (reduction == "mean" and p.values.size == 0):
        check_grad(fn, p, y, w, name=False, nondiff=(2,), gradgradcheck=False, check_grad_strides=False)


@pytest.mark.parametrize("shape,layout", [((1, 1, 2), "permuted"), ((2, 1, 3), "permuted"), ((3, 2), "sliced")])
def test_binary_cross_entropy_none_has_the_layout_of_empty_like_input(shape, layout):
    # PyTorch writes the losses into empty_like(input): its strides, size-1 dims included (a random seed found
    # (1, 1, 2) permuted: strides (1, 1, 1) in PyTorch, where the composite gave (2, 2, 1))
    p = P(rand(*shape, low=0.1, high=0.9).values, layout)
    y = P(rand(*shape, low=0, high=1).values)
    check(lambda lib, p, y: F(lib).binary_cross_entropy(p, y, reduction="none"), p, y)


def test_binary_cross_entropy_clamps_log():
    # log(0) = -inf is clamped to -100: p = 0 with y = 1 costs 100, not inf
    p = P(np.array([0.0, 1.0, 0.0, 1.0, 0.5], np.float32))
    y = P(np.array([1.0, 0.0, 0.0, 1.0, 0.3], np.float32))
    got = check(lambda lib, p, y: F(lib).binary_cross_entropy(p, y, reduction="none"), p, y)
    assert got[0].item() == 100.0
    check(lambda lib, p, y: F(lib).binary_cross_entropy(p, y, weight=lib.tensor(0.5)), p, y)


@FUZZ
@given(data=st.data(), reduction=st.sampled_from(REDUCTIONS), weighted=st.booleans(), pos=st.booleans())
def test_binary_cross_entropy_with_logits(data, reduction, weighted, pos):
    x = data.draw(inputs(shape=data.draw(st.sampled_from([(), (4,), (3, 4), (2, 3, 4), (0, 4)])), low=-8, high=8))
    shape = x.values.shape
    y = data.draw(inputs(shape=shape, low=0, high=1))
    w = data.draw(inputs(shape=shape, low=0.1, high=2)) if weighted else None
    pw = rand(shape[-1], low=0.2, high=3) if pos and shape else None     # one weight per class (last dim)
    fn = lambda lib, x, y, w, pw: F(lib).binary_cross_entropy_with_logits(x, y, weight=w, reduction=reduction,
                                                                          pos_weight=pw)
    check(fn, x, y, w, pw)
    if not (reduction == "mean" and x.values.size == 0):
        check_grad(fn, x, y, w, pw, name=False, nondiff=(2, 3), gradgradcheck=False, check_grad_strides=False)


def test_binary_cross_entropy_with_logits_is_stable():
    # sigmoid(100) rounds to 1 in float32, so log(1 - sigmoid(100)) would be -inf; the logits form is exact
    x = P(np.array([100.0, -100.0, 30.0, -30.0, 0.0], np.float32))
    y = P(np.array([0.0, 1.0, 0.5, 1.0, 1.0], np.float32))
    got = check(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y, reduction="none"), x, y)
    assert np.isfinite(got.detach().cpu().numpy()).all() and abs(got[0].item() - 100.0) < 1e-4
    # first derivatives only: logaddexp's second derivative overflows past |x| ~ 44 (in torch too), and
    # torch's hand-written backward for this loss does not go through it
    check_grad(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y), x, y, name=False, double=False,
               gradgradcheck=False)


def test_binary_cross_entropy_with_logits_dtypes():
    # the result has the target's dtype; weights never promote it (PyTorch's kernel multiplies in place)
    x, y = rand(3), rand(3, low=0, high=1, seed=1)
    fn = F(tt).binary_cross_entropy_with_logits
    check(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y.double()), x, y)
    check(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x.double(), y), x, y)
    check(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y, weight=y.double(), pos_weight=y.double()),
          x, y)
    check(lambda lib, p, y: F(lib).binary_cross_entropy(p, y, weight=y.double(), reduction="none"),
          rand(3, low=0, high=1, seed=2), y)
    assert fn(x.build(tt), y.build(tt).half()).dtype == tt.float16


# ---- the modules -----------------------------------------------------------------------------------------


def test_modules_forward_and_gradients():
    x, t = rand(4, 5, layout="permuted"), P(np.array([1, -100, 4, 0]))
    w = torch.rand(5) + 0.5
    check_module(lambda nn: nn.CrossEntropyLoss(), x, t)
    check_module(lambda nn: nn.CrossEntropyLoss(weight=_like(nn, w), ignore_index=4, reduction="sum",
                                                label_smoothing=0.2), x, P(np.array([1, 4, 4, 0])))
    check_module(lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1), x, rand(4, 5, low=0, high=1, seed=3))
    check_module(lambda nn: nn.NLLLoss(weight=_like(nn, w), reduction="none"), x, t)
    check_module(lambda nn: nn.MSELoss(), x, rand(4, 5, layout="sliced", seed=1))
    check_module(lambda nn: nn.L1Loss(reduction="sum"), x, rand(4, 5, seed=1))
    p, y = rand(4, 5, low=0.05, high=0.95, layout="offset"), rand(4, 5, low=0, high=1, seed=2)
    check_module(lambda nn: nn.BCELoss(weight=_like(nn, w)), p, y)
    check_module(lambda nn: nn.BCEWithLogitsLoss(weight=_like(nn, w), pos_weight=_like(nn, w * 2)), x, y)
    check_module(lambda nn: nn.BCEWithLogitsLoss(reduction="none"), x, y)


def _like(nn, t):
    """The torch tensor `t` in the library of `nn` (copied, so each module owns its own)."""
    return t.clone() if nn is torch.nn else tt.tensor(t.cpu().numpy())


def test_modules_buffers_state_dict_and_repr():
    w = torch.rand(5)
    for make in (lambda nn: nn.CrossEntropyLoss(), lambda nn: nn.CrossEntropyLoss(weight=_like(nn, w)),
                 lambda nn: nn.NLLLoss(weight=_like(nn, w), ignore_index=3), lambda nn: nn.MSELoss(reduction="sum"),
                 lambda nn: nn.L1Loss(), lambda nn: nn.BCELoss(), lambda nn: nn.BCELoss(weight=_like(nn, w)),
                 lambda nn: nn.BCEWithLogitsLoss(), lambda nn: nn.BCEWithLogitsLoss(pos_weight=_like(nn, w))):
        ours, theirs = make(tt.nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [name for name, _ in ours.named_buffers()] == [name for name, _ in theirs.named_buffers()]
        assert list(ours.parameters()) == []
        for name in ("reduction", "ignore_index", "label_smoothing"):
            assert getattr(ours, name, None) == getattr(theirs, name, None)
        for name, buffer in theirs.named_buffers():
            assert_same(getattr(ours, name), buffer)
    loss = tt.nn.CrossEntropyLoss(weight=tt.ones(3))
    assert loss.weight is loss._buffers["weight"] and not loss.weight.requires_grad
    assert tt.nn.BCEWithLogitsLoss().pos_weight is None


def test_module_legacy_reduction():
    with pytest.warns(UserWarning):
        assert tt.nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert tt.nn.CrossEntropyLoss(reduce=False).reduction == "none"
