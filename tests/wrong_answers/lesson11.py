"""Plausible wrong answers to lesson 11's exercises: each check must reject every one (tests/test_exercises.py)."""

import math

import teachtorch as tt
from teachtorch import nn


# ---- SGD with momentum -----------------------------------------------------------------------------------

def sgd_zero_buffer(params, grads, bufs, lr, momentum, dampening):     # buffer starts at 0, not at grad
    for i, (p, g) in enumerate(zip(params, grads)):
        buf = tt.zeros_like(g) if bufs[i] is None else bufs[i]
        bufs[i] = momentum * buf + (1 - dampening) * g
        p -= lr * bufs[i]
    return bufs


def sgd_lr_in_buffer(params, grads, bufs, lr, momentum, dampening):    # Sutskever's form: lr inside the buffer
    for i, (p, g) in enumerate(zip(params, grads)):
        bufs[i] = lr * g.clone() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * lr * g
        p -= bufs[i]                                                   # same steps, another state
    return bufs


def sgd_not_in_place(params, grads, bufs, lr, momentum, dampening):    # rebinds p: the caller's tensor never moves
    for i, (p, g) in enumerate(zip(params, grads)):
        bufs[i] = g.clone() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
        p = p - lr * bufs[i]
    return bufs


def sgd_ema(params, grads, bufs, lr, momentum, dampening):             # an average, like Adam's m
    for i, (p, g) in enumerate(zip(params, grads)):
        buf = tt.zeros_like(g) if bufs[i] is None else bufs[i]
        bufs[i] = momentum * buf + (1 - momentum) * g
        p -= lr * bufs[i]
    return bufs


def sgd_step_before_buffer(params, grads, bufs, lr, momentum, dampening):   # moves p with the old buffer
    for i, (p, g) in enumerate(zip(params, grads)):
        p -= lr * (g if bufs[i] is None else bufs[i])
        bufs[i] = g.clone() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * g
    return bufs


# ---- Adam -------------------------------------------------------------------------------------------------

def _adam(params, grads, states, lr, betas, eps, correct=True, eps_inside=False, count_after=False):
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if not state:
            state.update(step=0, exp_avg=tt.zeros_like(p), exp_avg_sq=tt.zeros_like(p))
        t = state["step"] + (0 if count_after else 1)                 # count_after: bias correction with t - 1
        state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * g * g
        m, v = state["exp_avg"], state["exp_avg_sq"]
        if correct:
            m, v = m / (1 - beta1 ** max(t, 1)), v / (1 - beta2 ** max(t, 1))
        p -= lr * m / ((v + eps).sqrt() if eps_inside else v.sqrt() + eps)
        state["step"] += 1


def adam_no_bias_correction(params, grads, states, lr, betas, eps):
    _adam(params, grads, states, lr, betas, eps, correct=False)


def adam_eps_inside_sqrt(params, grads, states, lr, betas, eps):
    _adam(params, grads, states, lr, betas, eps, eps_inside=True)


def adam_corrects_with_old_step(params, grads, states, lr, betas, eps):   # 1 - beta**(t-1): step counted late
    _adam(params, grads, states, lr, betas, eps, count_after=True)


def adam_abs_not_square(params, grads, states, lr, betas, eps):          # v from |g| instead of g^2
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if not state:
            state.update(step=0, exp_avg=tt.zeros_like(p), exp_avg_sq=tt.zeros_like(p))
        state["step"] += 1
        t = state["step"]
        state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * g.abs()
        p -= lr * (state["exp_avg"] / (1 - beta1 ** t)) / ((state["exp_avg_sq"] / (1 - beta2 ** t)) + eps)


# ---- Linear -----------------------------------------------------------------------------------------------

class LinearPlainTensors(nn.Module):                 # plain tensors: not registered, no parameters()
    def __init__(self, n_in, n_out):
        super().__init__()
        b = 1 / math.sqrt(n_in)
        self.weight = tt.empty(n_out, n_in).uniform_(-b, b).requires_grad_()
        self.bias = tt.empty(n_out).uniform_(-b, b).requires_grad_()

    def forward(self, x):
        return x @ self.weight.T + self.bias


class LinearRandn(nn.Module):                        # N(0, 1): far too large for a wide layer
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(tt.randn(n_out, n_in))
        self.bias = nn.Parameter(tt.zeros(n_out))

    def forward(self, x):
        return x @ self.weight.T + self.bias


class LinearOneOverFanIn(nn.Module):                 # bound 1/in instead of 1/sqrt(in)
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(tt.empty(n_out, n_in).uniform_(-1 / n_in, 1 / n_in))
        self.bias = nn.Parameter(tt.empty(n_out).uniform_(-1 / n_in, 1 / n_in))

    def forward(self, x):
        return x @ self.weight.T + self.bias


class LinearTransposed(nn.Module):                   # weight stored (in, out)
    def __init__(self, n_in, n_out):
        super().__init__()
        b = 1 / math.sqrt(n_in)
        self.weight = nn.Parameter(tt.empty(n_in, n_out).uniform_(-b, b))
        self.bias = nn.Parameter(tt.empty(n_out).uniform_(-b, b))

    def forward(self, x):
        return x @ self.weight + self.bias


class LinearNoBias(nn.Module):                       # forgets the bias in forward
    def __init__(self, n_in, n_out):
        super().__init__()
        b = 1 / math.sqrt(n_in)
        self.weight = nn.Parameter(tt.empty(n_out, n_in).uniform_(-b, b))
        self.bias = nn.Parameter(tt.empty(n_out).uniform_(-b, b))

    def forward(self, x):
        return x @ self.weight.T


WRONG = {
    "L11.sgd_momentum_step": [sgd_zero_buffer, sgd_lr_in_buffer, sgd_not_in_place, sgd_ema, sgd_step_before_buffer],
    "L11.adam_step": [adam_no_bias_correction, adam_eps_inside_sqrt, adam_corrects_with_old_step, adam_abs_not_square],
    "L11.Linear": [LinearPlainTensors, LinearRandn, LinearOneOverFanIn, LinearTransposed, LinearNoBias],
}
