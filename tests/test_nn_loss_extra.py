"""The losses added for issue 14, and every loss at its boundaries, against PyTorch.

smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss, gaussian_nll_loss, margin_ranking_loss,
cosine_embedding_loss, triplet_margin_loss: values, first and second derivatives (and gradcheck) on every
memory layout and reduction, the error types and messages, the modules (repr, state_dict, check_module).

Then the boundaries of every loss (issue 14, section 2: gradients that became nan where PyTorch's are
finite): probabilities exactly 0 and 1 and a sigmoid that rounds to 1 in front of binary_cross_entropy,
+-inf and huge logits, all targets ignored, weights summing to 0, label smoothing with ignore_index, empty
batches, the kinks of the robust and margin losses, zero vectors, zero and tiny variances.
"""

import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt
from nn_parity import check_module
from parity import LAYOUTS, P, check, check_grad, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

REDUCTIONS = ("mean", "sum", "none")


def F(lib):
    return lib.nn.functional


def _signs(shape, seed=0, values=(1.0, -1.0)):
    return np.random.default_rng(seed).choice(values, size=shape).astype(np.float32)


# ---- the new losses: values and gradients on every layout and reduction ----------------------------------

CASES = {
    "smooth_l1": (lambda lib, x, y, r: F(lib).smooth_l1_loss(x, y, reduction=r), lambda l: (rand(3, 4, layout=l),
                  rand(3, 4, seed=1, layout=l))),
    "smooth_l1_beta": (lambda lib, x, y, r: F(lib).smooth_l1_loss(x, y, reduction=r, beta=0.5),
                       lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1))),
    "smooth_l1_beta0": (lambda lib, x, y, r: F(lib).smooth_l1_loss(x, y, reduction=r, beta=0.0),
                        lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1))),
    "huber": (lambda lib, x, y, r: F(lib).huber_loss(x, y, reduction=r), lambda l: (rand(3, 4, layout=l),
              rand(3, 4, seed=1, layout=l))),
    "huber_delta": (lambda lib, x, y, r: F(lib).huber_loss(x, y, reduction=r, delta=2.0),
                    lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1))),
    "huber_weight": (lambda lib, x, y, r: F(lib).huber_loss(x, y, reduction=r, weight=y.detach().abs()),
                     lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1))),
    "kl_div": (lambda lib, x, y, r: F(lib).kl_div(x.log_softmax(-1), y.softmax(-1), reduction=r),
               lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "kl_div_log_target": (lambda lib, x, y, r: F(lib).kl_div(x.log_softmax(-1), y.log_softmax(-1), reduction=r,
                                                             log_target=True),
                          lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "poisson": (lambda lib, x, y, r: F(lib).poisson_nll_loss(x, y.detach().abs() * 2, reduction=r),
                lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "poisson_rate_full": (lambda lib, x, y, r: F(lib).poisson_nll_loss(x.abs() + 0.1, y.detach().abs() * 2,
                                                                       log_input=False, full=True, reduction=r),
                          lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "gaussian": (lambda lib, x, y, r: F(lib).gaussian_nll_loss(x, y, y.abs() + 0.1, reduction=r),
                 lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "gaussian_full_row_var": (lambda lib, x, y, r: F(lib).gaussian_nll_loss(x, y, y[:, 0].abs() + 0.1, full=True,
                                                                            reduction=r),
                              lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "gaussian_size1_var": (lambda lib, x, y, r: F(lib).gaussian_nll_loss(x, y, y[:1].abs() + 0.1, reduction=r),
                           lambda l: (rand(3, 4, layout=l), rand(3, 4, seed=1, layout=l))),
    "margin_ranking": (lambda lib, x, y, r: F(lib).margin_ranking_loss(x, y, lib.sign(y.detach() - 0.3),
                                                                       margin=0.5, reduction=r),
                       lambda l: (rand(6, layout=l), rand(6, seed=1, layout=l))),
    "cosine_embedding": (lambda lib, x, y, r: F(lib).cosine_embedding_loss(
                             x, y, lib.tensor([1.0, -1.0, 1.0, -1.0, 0.0]), margin=-0.2, reduction=r),
                         lambda l: (rand(5, 3, layout=l), rand(5, 3, seed=1, layout=l))),
    "cosine_embedding_unbatched": (lambda lib, x, y, r: F(lib).cosine_embedding_loss(x, y, lib.tensor(-1.0),
                                                                                     reduction=r),
                                   lambda l: (rand(4, layout=l), rand(4, seed=1, layout=l))),
    "triplet": (lambda lib, x, y, r: F(lib).triplet_margin_loss(x, y, lib.full_like(x, 0.3), margin=2.0, reduction=r),
                lambda l: (rand(4, 3, layout=l), rand(4, 3, seed=1, layout=l))),
    "triplet_p1_swap": (lambda lib, x, y, r: F(lib).triplet_margin_loss(x, y, lib.full_like(x, -0.2), p=1, swap=True,
                                                                        margin=3.0, reduction=r),
                        lambda l: (rand(4, 3, layout=l), rand(4, 3, seed=1, layout=l))),
    "triplet_unbatched": (lambda lib, x, y, r: F(lib).triplet_margin_loss(x, y, lib.ones_like(x), reduction=r),
                          lambda l: (rand(3, layout=l), rand(3, seed=1, layout=l))),
}
# these use the second input as a constant (a weight, a target count): it gets no gradient
CONSTANT_SECOND = {"huber_weight", "poisson", "poisson_rate_full"}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_losses(name, reduction, layout):
    fn, make = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                        # kl_div's warning for 'mean', tested below
        check_grad(lambda lib, x, y: fn(lib, x, y, reduction), *make(layout), name=False, rtol=1e-4, atol=1e-5,
                   check_grad_strides=False, nondiff=(1,) if name in CONSTANT_SECOND else ())


def test_kl_div_batchmean_and_warning():
    x, y = rand(3, 4, layout="permuted"), rand(3, 4, seed=1, low=0, high=1)
    check_grad(lambda lib, x, y: F(lib).kl_div(x, y, reduction="batchmean"), x, y, name=False)
    check_grad(lambda lib, x: F(lib).kl_div(x, lib.tensor(0.5), reduction="batchmean"), P(np.float32(0.3)), name=False)
    with pytest.warns(UserWarning, match="'mean' divides the total loss by both the batch size"):
        F(tt).kl_div(tt.zeros(2), tt.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F(tt).kl_div(tt.zeros(2), tt.ones(2), reduction="batchmean")


def test_smooth_l1_and_huber_broadcast_with_a_warning():
    for name in ("smooth_l1_loss", "huber_loss"):
        with pytest.warns(UserWarning, match="Using a target size"):
            got = getattr(F(tt), name)(tt.ones(3, 1), tt.zeros(3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(F(torch), name)(torch.ones(3, 1), torch.zeros(3))
        assert got.item() == pytest.approx(want.item())


ERRORS = {
    "smooth_l1 beta": lambda lib: F(lib).smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.0),
    "smooth_l1 size": lambda lib: F(lib).smooth_l1_loss(lib.ones(2), lib.ones(3)),
    "smooth_l1 reduction": lambda lib: F(lib).smooth_l1_loss(lib.ones(2), lib.ones(2), reduction="x"),
    "huber delta": lambda lib: F(lib).huber_loss(lib.ones(2), lib.ones(2), delta=0.0),
    "huber weight": lambda lib: F(lib).huber_loss(lib.ones(2), lib.ones(2), weight=lib.ones(3)),
    "kl_div size": lambda lib: F(lib).kl_div(lib.ones(2), lib.ones(3), reduction="batchmean"),
    "kl_div reduction": lambda lib: F(lib).kl_div(lib.ones(2), lib.ones(2), reduction="bad"),
    "kl_div integer": lambda lib: F(lib).kl_div(lib.ones(2, dtype=lib.long), lib.ones(2), reduction="sum"),
    "poisson reduction": lambda lib: F(lib).poisson_nll_loss(lib.ones(2), lib.ones(2), reduction="x"),
    "gaussian var size": lambda lib: F(lib).gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3)),
    "gaussian var two dims": lambda lib: F(lib).gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(1, 1)),
    "gaussian var negative": lambda lib: F(lib).gaussian_nll_loss(lib.ones(2), lib.ones(2), -lib.ones(2)),
    "gaussian float negative": lambda lib: F(lib).gaussian_nll_loss(lib.ones(2), lib.ones(2), -1.0),
    "gaussian reduction": lambda lib: F(lib).gaussian_nll_loss(lib.ones(2), lib.ones(2), lib.ones(2), reduction="x"),
    "cosine target dims": lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 1)),
    "cosine 1d target": lambda lib: F(lib).cosine_embedding_loss(lib.ones(3), lib.ones(2, 3), lib.ones(2)),
    "cosine 0d target": lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(3), lib.ones(())),
    "cosine sizes": lambda lib: F(lib).cosine_embedding_loss(lib.ones(2, 3), lib.ones(2, 4), lib.ones(2)),
    "ranking dims": lambda lib: F(lib).margin_ranking_loss(lib.ones(2), lib.ones(2, 1), lib.ones(2)),
    "ranking sizes": lambda lib: F(lib).margin_ranking_loss(lib.ones(2), lib.ones(3), lib.ones(2)),
    "triplet dims": lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3)),
    "triplet margin": lambda lib: F(lib).triplet_margin_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=0),
    "bce target range": lambda lib: F(lib).binary_cross_entropy(lib.full((2,), 0.5), lib.full((2,), 2.0)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(ERRORS[name])


MODULES = {
    "SmoothL1Loss": (lambda nn: nn.SmoothL1Loss(beta=0.5), 2),
    "HuberLoss": (lambda nn: nn.HuberLoss(reduction="sum", delta=0.5), 2),
    "KLDivLoss": (lambda nn: nn.KLDivLoss(reduction="batchmean", log_target=True), 2),
    "PoissonNLLLoss": (lambda nn: nn.PoissonNLLLoss(full=True), 2),
    "GaussianNLLLoss": (lambda nn: nn.GaussianNLLLoss(full=True, eps=1e-3), 3),
    "MarginRankingLoss": (lambda nn: nn.MarginRankingLoss(margin=0.1), 3),
    "CosineEmbeddingLoss": (lambda nn: nn.CosineEmbeddingLoss(margin=0.2, reduction="none"), 3),
    "TripletMarginLoss": (lambda nn: nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True), 3),
}


@pytest.mark.parametrize("name", MODULES)
def test_modules(name):
    make, n_inputs = MODULES[name]
    x, y = rand(4, 3, layout="permuted"), rand(4, 3, seed=1, layout="sliced")
    if name == "GaussianNLLLoss":
        args = (x, y, rand(4, 3, seed=2, low=0.01, high=2))
    elif name == "MarginRankingLoss":
        args = (rand(4), rand(4, seed=1, layout="sliced"), P(_signs(4)))
    elif name == "CosineEmbeddingLoss":
        args = (x, y, P(_signs(4)))
    elif name == "TripletMarginLoss":
        args = (x, y, rand(4, 3, seed=2, layout="offset"))
    elif name == "PoissonNLLLoss":
        args = (x, P(np.array([[0, 1, 2], [3, 0, 5], [1, 1, 7], [2, 0, 0]], np.float32)))
    else:
        args = (x, y)
    assert len(args) == n_inputs
    check_module(make, *args)
    assert repr(make(tt.nn)) == repr(make(torch.nn))
    assert list(make(tt.nn).state_dict()) == []
    assert make(tt.nn).reduction == make(torch.nn).reduction


# ---- boundaries: every loss, values and gradients ----------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_after_a_sigmoid_that_rounds_to_one(reduction):
    # issue 14: sigmoid(20) is 1.0 in float32, log(1 - p) = log(0); PyTorch's gradient stays finite
    x = P(np.array([20.0, -20.0, 0.5, 100.0, -100.0], np.float32))
    y = P(np.array([0.0, 1.0, 1.0, 1.0, 0.0], np.float32))
    check_grad(lambda lib, x, y: lib.nn.BCELoss(reduction=reduction)(x.sigmoid(), y), x, y, nondiff=(1,),
               name=False, double=False, gradcheck=False, gradgradcheck=False)
    x_ = tt.tensor([20.0, -20.0, 0.5], requires_grad=True)
    tt.nn.BCELoss()(x_.sigmoid(), tt.tensor([0.0, 1.0, 1.0])).backward()
    assert x_.grad[0].item() == 0.0 and not x_.grad.isnan().any()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_bce_at_zero_and_one(reduction, layout):
    # every (p, y) with p in {0, 1, 1e-13, 1 - 2^-24} against y in {0, 1, 0.3}: PyTorch's clamped values and its
    # gradient (p - y) / max(p (1 - p), 1e-12)
    p = np.array([0.0, 1.0, 1e-13, 1 - 2.0 ** -24], np.float32)
    y = np.array([0.0, 1.0, 0.3], np.float32)
    pp, yy = (a.astype(np.float32) for a in np.meshgrid(p, y))
    w = rand(4, low=0.5, high=2, seed=3)
    check_grad(lambda lib, p, y, w: F(lib).binary_cross_entropy(p, y, weight=w, reduction=reduction),
               P(pp, layout), P(yy), w, nondiff=(1, 2), name=False, double=False, gradcheck=False,
               gradgradcheck=False, rtol=1e-4)


def test_bce_empty_batch():
    for reduction in REDUCTIONS:
        check_grad(lambda lib, p, y: F(lib).binary_cross_entropy(p, y, reduction=reduction),
                   rand(0, 3, low=0, high=1), rand(0, 3, low=0, high=1), name=False, gradcheck=False,
                   gradgradcheck=False, double=False)
        check_grad(lambda lib, x, y: F(lib).binary_cross_entropy_with_logits(x, y, reduction=reduction),
                   rand(0, 3), rand(0, 3, low=0, high=1), name=False, gradcheck=False, gradgradcheck=False,
                   double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_at_infinite_and_huge_logits(reduction):
    x = P(np.array([np.inf, -np.inf, 1e4, -1e4, 88.0, -104.0], np.float32))
    y = P(np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.3], np.float32))
    pw = P(np.array([2.0, 0.5, 1.0, 3.0, 1.0, 2.0], np.float32))
    check_grad(lambda lib, x, y, pw: F(lib).binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction=reduction),
               x, y, pw, nondiff=(1, 2), name=False, double=False, gradcheck=False, gradgradcheck=False)


def _ce(reduction, smoothing=0.0, ignore_index=-100, weighted=False):
    def fn(lib, x, t, w=None):
        return F(lib).cross_entropy(x, t, weight=w if weighted else None, reduction=reduction,
                                    label_smoothing=smoothing, ignore_index=ignore_index)
    return fn


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_cross_entropy_all_ignored_has_zero_gradients(reduction, smoothing, weighted, layout):
    # issue 14: every target ignored: the mean is 0/0 = nan, PyTorch's gradients are zeros (ours were nan)
    w = rand(4, low=0.5, high=2, seed=5)
    for x, t in ((rand(3, 4, layout=layout), P(np.array([-100, -100, -100]))),
                 (rand(2, 4, 3, layout=layout), P(np.full((2, 3), 2))),
                 (rand(4, layout=layout), P(np.array(-100)))):
        ignore = 2 if t.values.ndim == 2 else -100
        check_grad(_ce(reduction, smoothing, ignore, weighted), x, t, w, nondiff=(2,), name=False,
                   gradcheck=False, gradgradcheck=False, double=False)
        check_grad(lambda lib, x, t, w: F(lib).nll_loss(x, t, weight=w if weighted else None, reduction=reduction,
                                                        ignore_index=ignore), x, t, w, nondiff=(2,), name=False,
                   gradcheck=False, gradgradcheck=False, double=False)
    x_ = tt.randn(3, 4, requires_grad=True)
    F(tt).cross_entropy(x_, tt.tensor([-100, -100, -100])).backward()
    assert not x_.grad.isnan().any() and not x_.grad.any()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_some_ignored_and_weights_summing_to_zero(reduction, smoothing):
    x = rand(4, 3, layout="permuted")
    # some ignored, the others of weight 0: PyTorch's mean is nan, its gradients nan except the ignored rows'
    w = P(np.array([0.0, 0.0, 1.0], np.float32))
    for t in (np.array([0, 1, -100, 0]), np.array([0, 1, 1, 0]), np.array([2, -100, 2, 0])):
        check_grad(_ce(reduction, smoothing, weighted=True), x, P(t), w, nondiff=(2,), name=False,
                   gradcheck=False, gradgradcheck=False, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_infinite_and_huge_logits(reduction, smoothing):
    x = P(np.array([[np.inf, 0.0, 1.0], [-np.inf, 0.0, 1.0], [1e30, 0.0, 0.0], [-1e30, 0.0, 5.0],
                    [1e4, -1e4, 0.0]], np.float32))
    t = P(np.array([0, 1, 2, 2, 0]))
    check_grad(_ce(reduction, smoothing), x, t, name=False, gradcheck=False, gradgradcheck=False, double=False)
    check_grad(lambda lib, x: F(lib).cross_entropy(x, x.detach().softmax(1), reduction=reduction,
                                                   label_smoothing=smoothing),
               P(x.values[2:]), name=False, gradcheck=False, gradgradcheck=False, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_every_loss_on_an_empty_batch(reduction):
    cases = [
        (lambda lib, x, y: F(lib).cross_entropy(x, y.long()), rand(0, 3), P(np.zeros(0, np.float32))),
        (lambda lib, x, y: F(lib).mse_loss(x, y, reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).l1_loss(x, y, reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).huber_loss(x, y, reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).kl_div(x, y, reduction="batchmean" if reduction == "mean" else reduction),
         rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).poisson_nll_loss(x, y, reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).gaussian_nll_loss(x, y, y.abs(), reduction=reduction), rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).margin_ranking_loss(x, y, y.sign(), reduction=reduction), rand(0), rand(0)),
        (lambda lib, x, y: F(lib).cosine_embedding_loss(x, y, lib.ones(0), reduction=reduction),
         rand(0, 3), rand(0, 3)),
        (lambda lib, x, y: F(lib).triplet_margin_loss(x, y, y, reduction=reduction), rand(0, 3), rand(0, 3)),
    ]
    for fn, x, y in cases:
        check_grad(fn, x, y, name=False, gradcheck=False, gradgradcheck=False, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_regression_losses_at_their_kinks(reduction, layout):
    # differences exactly 0, +-beta / +-delta, and beyond: PyTorch's gradient conventions at each
    x = P(np.array([[0.0, 0.5, -0.5, 1.0], [-1.0, 2.0, -2.0, 3.0]], np.float32), layout)
    y = P(np.zeros((2, 4), np.float32))
    for fn in (lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction=reduction),
               lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction=reduction, beta=0.5),
               lambda lib, x, y: F(lib).smooth_l1_loss(x, y, reduction=reduction, beta=0.0),
               lambda lib, x, y: F(lib).huber_loss(x, y, reduction=reduction),
               lambda lib, x, y: F(lib).huber_loss(x, y, reduction=reduction, delta=2.0),
               lambda lib, x, y: F(lib).l1_loss(x, y, reduction=reduction),
               lambda lib, x, y: F(lib).mse_loss(x, y, reduction=reduction)):
        check_grad(fn, x, y, name=False, gradcheck=False, gradgradcheck=False, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_losses_at_their_hinges(reduction):
    # the hinge exactly at 0: clamp_min passes the gradient there, as PyTorch's does
    x1 = P(np.array([1.0, 0.0, 2.0, -1.0], np.float32), "sliced")
    x2 = P(np.array([0.5, 0.5, 2.0, 0.0], np.float32))
    t = P(np.array([1.0, -1.0, 1.0, -1.0], np.float32))
    check_grad(lambda lib, a, b, t: F(lib).margin_ranking_loss(a, b, t, margin=0.5, reduction=reduction),
               x1, x2, t, nondiff=(2,), name=False, gradcheck=False, gradgradcheck=False, double=False)
    # zero vectors (the eps in the norms), identical vectors, and targets other than +-1 (they count 0)
    a = P(np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0]], np.float32), "permuted")
    b = P(np.array([[1.0, 0.0, 0.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.0]], np.float32))
    for target in ([1.0, 1.0, -1.0, 0.0], [-1.0, -1.0, 1.0, 2.0]):
        check_grad(lambda lib, a, b, t: F(lib).cosine_embedding_loss(a, b, t, margin=0.1, reduction=reduction),
                   a, b, P(np.array(target, np.float32)), nondiff=(2,), name=False, gradcheck=False,
                   gradgradcheck=False, double=False)
    # anchor == positive == negative: the distances are eps-norms, finite gradients
    for swap in (False, True):
        for p in (1, 2, 3):
            check_grad(lambda lib, a, b, c: F(lib).triplet_margin_loss(a, b, c, p=p, swap=swap, reduction=reduction),
                       a, a, b, name=False, gradcheck=False, gradgradcheck=False, double=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_distribution_losses_at_their_boundaries(reduction):
    # kl_div: target 0 (0 log 0 = 0), input -inf (log 0) with target 0 and > 0, a target that requires grad
    x = P(np.array([-1.0, -np.inf, -np.inf, 0.0, -0.5], np.float32))
    y = P(np.array([0.0, 0.0, 0.5, 1.0, 0.3], np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_grad(lambda lib, x, y: F(lib).kl_div(x, y, reduction=reduction), x, y, nondiff=(1,), name=False,
                   gradcheck=False, gradgradcheck=False, double=False)
        check_grad(lambda lib, x, y: F(lib).kl_div(x, y, reduction=reduction, log_target=True), x,
                   P(np.array([-np.inf, 0.0, -1.0, -np.inf, 1.0], np.float32)), name=False, gradcheck=False,
                   gradgradcheck=False, double=False)
    # poisson: huge log-rates, rate 0 (log(0 + eps)), targets 0, 1 (no Stirling term) and above
    x = P(np.array([100.0, -100.0, 0.0, 0.0, 2.0, 3.0], np.float32))
    t = P(np.array([0.0, 1.0, 0.0, 2.0, 1.5, 5.0], np.float32))
    for log_input in (True, False):
        for full in (False, True):
            check_grad(lambda lib, x, t: F(lib).poisson_nll_loss(x.abs() if not log_input else x, t,
                                                                 log_input=log_input, full=full, reduction=reduction),
                       x, t, nondiff=(1,), name=False, gradcheck=False, gradgradcheck=False, double=False)
    # gaussian: variances 0 and below eps (clamped, the gradient still reaches var), a float variance
    x, y = rand(2, 3, layout="permuted"), rand(2, 3, seed=1)
    v = P(np.array([[0.0, 1e-8, 1e-6], [0.5, 2.0, 1e-7]], np.float32), "sliced")
    check_grad(lambda lib, x, y, v: F(lib).gaussian_nll_loss(x, y, v, reduction=reduction), x, y, v, name=False,
               gradcheck=False, gradgradcheck=False, double=False)
    check_grad(lambda lib, x, y: F(lib).gaussian_nll_loss(x, y, 0.5, full=True, reduction=reduction), x, y,
               name=False)
