"""Plausible wrong answers to lesson 10's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch.nn.functional as F


def _probs(logits):
    e = (logits - logits.amax(1, keepdim=True)).exp()
    return e / e.sum(1, keepdim=True)


def _onehot(logits, targets):
    return F.one_hot(targets, logits.shape[1]).to(logits.dtype)


def ce_no_mean(logits, targets):                      # forgets the 1/N of the mean
    return _probs(logits) - _onehot(logits, targets)


def ce_softmax_only(logits, targets):                 # the softmax, without subtracting the one-hot
    return _probs(logits) / logits.shape[0]


def ce_sign_flipped(logits, targets):                 # one-hot minus softmax: the direction of descent
    return (_onehot(logits, targets) - _probs(logits)) / logits.shape[0]


def ce_naive_softmax(logits, targets):                # exp without subtracting the max: inf / inf = nan
    e = logits.exp()
    return (e / e.sum(1, keepdim=True) - _onehot(logits, targets)) / logits.shape[0]


def ce_divides_by_classes(logits, targets):           # the mean taken over the classes instead of the rows
    return (_probs(logits) - _onehot(logits, targets)) / logits.shape[1]


def lt_tanh_of_input(dh, x, W, b):                    # tanh' as 1 - pre**2 (the input, not the output t)
    pre = x @ W + b
    dpre = dh * (1 - pre**2)
    return dpre @ W.T, x.T @ dpre, dpre.sum(0)


def lt_dW_transposed(dh, x, W, b):                    # dpre.T @ x: W's gradient, transposed
    dpre = dh * (1 - (x @ W + b).tanh() ** 2)
    return dpre @ W.T, dpre.T @ x, dpre.sum(0)


def lt_db_not_summed(dh, x, W, b):                    # b's gradient left with one row per example
    dpre = dh * (1 - (x @ W + b).tanh() ** 2)
    return dpre @ W.T, x.T @ dpre, dpre


def lt_skips_tanh(dh, x, W, b):                       # backward through the linear part only
    return dh @ W.T, x.T @ dh, dh.sum(0)


def lt_dx_uses_dh(dh, x, W, b):                       # dW and db through tanh, but dx from dh itself
    dpre = dh * (1 - (x @ W + b).tanh() ** 2)
    return dh @ W.T, x.T @ dpre, dpre.sum(0)


def _xhat(x, eps, correction=0):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).sum(-1, keepdim=True) / (x.shape[-1] - correction)
    rstd = (var + eps) ** -0.5
    return (x - mu) * rstd, rstd


def ln_constant_stats(dout, x, gamma, eps):           # mean and variance treated as constants
    xhat, rstd = _xhat(x, eps)
    return dout * gamma * rstd, (dout * xhat).sum(0), dout.sum(0)


def ln_no_variance_term(dout, x, gamma, eps):         # keeps the mean's term, forgets the variance's
    xhat, rstd = _xhat(x, eps)
    g = dout * gamma
    return rstd * (g - g.mean(-1, keepdim=True)), (dout * xhat).sum(0), dout.sum(0)


def ln_dgamma_without_xhat(dout, x, gamma, eps):      # dgamma summed like dbeta
    xhat, rstd = _xhat(x, eps)
    g = dout * gamma
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx, dout.sum(0), dout.sum(0)


def ln_unbiased_variance(dout, x, gamma, eps):        # var with D - 1 (torch.var's default): not layer_norm's
    xhat, rstd = _xhat(x, eps, correction=1)
    g = dout * gamma
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx, (dout * xhat).sum(0), dout.sum(0)


WRONG = {
    "L10.cross_entropy_backward": [ce_no_mean, ce_softmax_only, ce_sign_flipped, ce_naive_softmax,
                                   ce_divides_by_classes],
    "L10.linear_tanh_backward": [lt_tanh_of_input, lt_dW_transposed, lt_db_not_summed, lt_skips_tanh,
                                 lt_dx_uses_dh],
    "L10.layernorm_backward": [ln_constant_stats, ln_no_variance_term, ln_dgamma_without_xhat,
                               ln_unbiased_variance],
}
