"""Lesson 10, backprop by hand ("backprop ninja"): the exercises. Each is a backward pass written by hand.

    L10.cross_entropy_backward  cross_entropy_backward(logits, targets) -> dlogits
                                for F.cross_entropy(logits, targets), the mean over the batch
    L10.linear_tanh_backward    linear_tanh_backward(dh, x, W, b) -> (dx, dW, db)
                                for h = tanh(x @ W + b), W of shape (in, out) as in Karpathy's makemore
    L10.layernorm_backward      layernorm_backward(dout, x, gamma, eps) -> (dx, dgamma, dbeta)
                                for F.layer_norm(x, (D,), gamma, beta, eps) over the last dim of a 2-D x

Each case (fixed ones that can be worked out by hand, one with logits of 1000 that a naive softmax turns into
NaN, then 24 seeded random shapes, all float64) runs the same forward pass in teachtorch with
`requires_grad` on every input, calls `backward`, and compares each of the answer's tensors with the gradient
autograd left in `.grad`, the way Karpathy's `cmp()` does: one line per tensor, "dW: matches autograd", or
its shape, or its largest difference and the first element that differs. That tuple of lines is what is
compared, so the report names the tensor that is wrong.

PyTorch's counterparts: `nll_loss` and `_log_softmax` in tools/autograd/derivatives.yaml (the kernels in
aten/src/ATen/native/LossNLL.cpp and SoftMax.cpp), `tanh_backward` (grad * (1 - y^2)), `mm` (lesson 8), and
`native_layer_norm` (`layer_norm_backward_cpu` in aten/src/ATen/native/layer_norm.cpp). teachtorch's are in
teachtorch/autograd/derivatives/reductions.py, `loss.py`, `pointwise.py` and `nn.py`
(`_norm_backward_with_ops`, written with ops, the formula of exercise 3).
"""

import numpy as np

from .._tensor import Tensor
from ..nn import functional as F
from .core import Case, Exercise

OK = "matches autograd"
EPS = 1e-5



def cmp_line(name, got, want):
    """One line on one tensor, as Karpathy's cmp(): does `got` match autograd's gradient `want`?"""
    if not isinstance(got, Tensor):
        return f"{name}: expected a tensor, got {type(got).__name__}"
    if tuple(got.shape) != tuple(want.shape):
        return f"{name}: shape {tuple(got.shape)}, but autograd's {name} has shape {tuple(want.shape)}"
    if got.dtype != want.dtype:
        return f"{name}: dtype {got.dtype}, but autograd's is {want.dtype}"
    e, g = want.detach().numpy(), got.detach().numpy()
    diff = np.abs(g - e)
    diff[np.isnan(diff)] = np.inf
    bad = ~np.isclose(g, e, rtol=1e-7, atol=1e-10)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return (f"{name}: maxdiff {diff.max():.3g}; at {list(i)} autograd gives {e[i]:.4g}, you gave {g[i]:.4g} "
                f"({int(bad.sum())} of {bad.size} differ)")
    return f"{name}: {OK}"


def _leaves(*tensors):
    return [t.detach().clone().requires_grad_() for t in tensors]


def _lines(names, got, want):
    if isinstance(got, Tensor) or not isinstance(got, (tuple, list)) or len(got) != len(names):
        raise TypeError(f"return {len(names)} tensors, ({', '.join(names)}); got {type(got).__name__}")
    return tuple(cmp_line(n, g, w) for n, g, w in zip(names, got, want))


# ---- each exercise: autograd's gradients, then the answer's --------------------------------------------------


def _ce_call(answer, args):
    c, = args
    logits, = _leaves(c.logits)
    F.cross_entropy(logits, c.targets).backward()
    got = answer(c.logits.clone(), c.targets.clone())
    return (cmp_line("dlogits", got, logits.grad),)


def _linear_tanh_call(answer, args):
    c, = args
    x, W, b = _leaves(c.x, c.W, c.b)
    (x @ W + b).tanh().backward(c.dh)
    got = answer(c.dh.clone(), c.x.clone(), c.W.clone(), c.b.clone())
    return _lines(("dx", "dW", "db"), got, (x.grad, W.grad, b.grad))


def _layernorm_call(answer, args):
    c, = args
    x, gamma, beta = _leaves(c.x, c.gamma, c.beta)
    F.layer_norm(x, (x.shape[-1],), gamma, beta, EPS).backward(c.dout)
    got = answer(c.dout.clone(), c.x.clone(), c.gamma.clone(), EPS)
    return _lines(("dx", "dgamma", "dbeta"), got, (x.grad, gamma.grad, beta.grad))


# ---- random cases --------------------------------------------------------------------------------------------


def _sizes(rng, *ranges):
    return [int(rng.integers(lo, hi + 1)) for lo, hi in ranges]


def _random_ce(rng):
    n, classes = _sizes(rng, (1, 6), (2, 7))
    return (Case(logits=3 * rng.standard_normal((n, classes)), targets=rng.integers(0, classes, size=n)),)


def _random_linear_tanh(rng):
    n, d_in, d_out = _sizes(rng, (1, 5), (1, 5), (1, 5))
    return (Case(dh=rng.standard_normal((n, d_out)), x=rng.standard_normal((n, d_in)),
                 W=rng.standard_normal((d_in, d_out)), b=rng.standard_normal(d_out)),)


def _random_layernorm(rng):
    n, d = _sizes(rng, (1, 5), (2, 6))
    return (Case(dout=rng.standard_normal((n, d)), x=2 * rng.standard_normal((n, d)) + rng.standard_normal(),
                 gamma=1 + rng.standard_normal(d), beta=rng.standard_normal(d)),)


CE_OK = (f"dlogits: {OK}",)
LT_OK = (f"dx: {OK}", f"dW: {OK}", f"db: {OK}")
LN_OK = (f"dx: {OK}", f"dgamma: {OK}", f"dbeta: {OK}")

EXERCISES = [
    Exercise(
        name="L10.cross_entropy_backward",
        title="cross_entropy_backward(logits, targets) -> dlogits: the gradient of F.cross_entropy (a mean)",
        reference=lambda case: CE_OK,
        known=[((Case(logits=[[0., 0.]], targets=[0]),), CE_OK),
               ((Case(logits=[[0., 0.], [0., 0.]], targets=[0, 1]),), CE_OK),
               ((Case(logits=[[1000., 0., -1000.]], targets=[1]),), CE_OK)],
        random_args=_random_ce,
        call=_ce_call,
        hints=["loss = -(1/N) * sum_i log softmax(logits)[i, targets[i]]. Differentiate one row first: "
               "d(-log p_y)/d z_j = p_j - [j == y].",
               "So dlogits = (softmax(logits) - one_hot(targets)) / N, N = logits.shape[0] (the mean). "
               "F.one_hot(targets, C) gives the one-hot rows (int64: convert with .to(logits.dtype)).",
               "Compute the softmax stably: subtract each row's max before exp (logits - logits.amax(1, "
               "keepdim=True)), or a logit of 1000 gives inf / inf = nan."],
        solution='''import teachtorch.nn.functional as F


def cross_entropy_backward(logits, targets):
    n, classes = logits.shape
    e = (logits - logits.amax(1, keepdim=True)).exp()
    probs = e / e.sum(1, keepdim=True)
    return (probs - F.one_hot(targets, classes).to(logits.dtype)) / n''',
    ),
    Exercise(
        name="L10.linear_tanh_backward",
        title="linear_tanh_backward(dh, x, W, b) -> (dx, dW, db): the backward of h = tanh(x @ W + b)",
        reference=lambda case: LT_OK,
        known=[((Case(dh=[[1., 1.]], x=[[1., 2.]], W=[[0., 0.], [0., 0.]], b=[0., 0.]),), LT_OK),
               ((Case(dh=[[1.], [2.]], x=[[1., 0., 0.], [0., 1., 0.]], W=[[0.], [0.], [0.]], b=[0.]),), LT_OK)],
        random_args=_random_linear_tanh,
        call=_linear_tanh_call,
        hints=["Two steps, backwards: first through tanh (dpre = dh * tanh'(pre)), then through pre = x @ W + b "
               "(lesson 8's matmul backward, and b was broadcast over the rows).",
               "tanh'(u) = 1 - tanh(u)^2: use the *output* t = tanh(x @ W + b), not the input, so "
               "dpre = dh * (1 - t**2).",
               "dx = dpre @ W.T, dW = x.T @ dpre (the shape of W: (in, out)), db = dpre.sum(0) (the shape of b)."],
        solution='''def linear_tanh_backward(dh, x, W, b):
    t = (x @ W + b).tanh()
    dpre = dh * (1 - t**2)
    return dpre @ W.T, x.T @ dpre, dpre.sum(0)''',
    ),
    Exercise(
        name="L10.layernorm_backward",
        title="layernorm_backward(dout, x, gamma, eps) -> (dx, dgamma, dbeta): the backward of F.layer_norm "
              "over the last dim",
        reference=lambda case: LN_OK,
        known=[((Case(dout=[[1., 0., 0.]], x=[[1., 2., 3.]], gamma=[1., 1., 1.], beta=[0., 0., 0.]),), LN_OK),
               ((Case(dout=[[1., 1.], [0., 2.]], x=[[0., 2.], [1., 5.]], gamma=[2., -1.], beta=[0., 1.]),), LN_OK)],
        random_args=_random_layernorm,
        call=_layernorm_call,
        hints=["dbeta and dgamma first: out = gamma * xhat + beta with xhat = (x - mean) / sqrt(var + eps), so "
               "dbeta = dout.sum(0) and dgamma = (dout * xhat).sum(0). Use the biased variance (divide by D).",
               "The mean and the variance depend on every x of the row: they are not constants. With "
               "g = dout * gamma, dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), means over the last dim.",
               "rstd = (var + eps)**-0.5 with var = ((x - mu)**2).mean(-1, keepdim=True); keep every mean "
               "with keepdim=True so that it broadcasts back over the row."],
        solution='''def layernorm_backward(dout, x, gamma, eps):
    mu = x.mean(-1, keepdim=True)
    rstd = (((x - mu) ** 2).mean(-1, keepdim=True) + eps) ** -0.5
    xhat = (x - mu) * rstd
    g = dout * gamma
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx, (dout * xhat).sum(0), dout.sum(0)''',
    ),
]
