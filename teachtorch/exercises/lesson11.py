"""Lesson 11, nn.Module, init and optimizers: the exercises.

    L11.sgd_momentum_step  sgd_momentum_step(params, grads, bufs, lr, momentum, dampening) -> bufs
                           one step of SGD with momentum: updates each parameter in place, returns the
                           momentum buffers (`bufs` holds None for each parameter before the first step)
    L11.adam_step          adam_step(params, grads, states, lr, betas, eps) -> None
                           one step of Adam: updates each parameter in place and its state dict
                           ("step", "exp_avg", "exp_avg_sq"; `states` holds an empty dict before the first step)
    L11.Linear             Linear(in_features, out_features): a Module with a registered `weight` (out, in) and
                           `bias` (out), PyTorch's initialisation, and forward x W^T + b

The optimizer checks are step by step: each case makes a few float64 parameters of random shapes and a
gradient per parameter per step (seeded), then runs the answer and teachtorch's own optimizer
(`teachtorch/optim/sgd.py` `SGD(momentum=..., dampening=...)`, `teachtorch/optim/adam.py` `Adam`) side by
side, for 3 to 5 steps; after every step it compares the parameters and the optimizer's state
(`optimizer.state[p]["momentum_buffer"]`, or "step", "exp_avg", "exp_avg_sq"). What is compared is one line per
step ("step 2: exp_avg of param 0: at [1] Adam has 0.031, you have 0.028"), so the report says which step
and which tensor first went wrong. Same parameters and the wrong state is wrong too: the state is what the
next step (and a checkpoint) reads.

The Linear check builds the answer under a fixed seed and reads `named_parameters()` (names, shapes, that
each is a Parameter), the range and spread of the initial values (all inside
±1/sqrt(in), and spread over it as a uniform draw is), and `forward` against
`F.linear(x, weight, bias)`.

PyTorch's counterparts: `_single_tensor_sgd` in torch/optim/sgd.py, `_single_tensor_adam` in
torch/optim/adam.py, `Linear.reset_parameters` in torch/nn/modules/linear.py.
"""

import math

import numpy as np

from .. import optim
from .._dtype import float64
from .._tensor import Tensor
from ..kernels.generator import manual_seed
from ..nn.functional.linear import linear
from ..nn.parameter import Parameter
from ..ops.tensor_new import tensor as _tensor
from .core import Exercise


class Run:
    """One optimizer case: parameter shapes, hyperparameters and the gradients of every step (seeded)."""

    def __init__(self, rng, shapes, steps, **hyper):
        self.hyper = hyper
        self.start = [rng.standard_normal(s) for s in shapes]
        self.grads = [[rng.standard_normal(s) * rng.choice([0.01, 1.0, 10.0]) for s in shapes] for _ in range(steps)]

    def __repr__(self):
        shapes = [tuple(p.shape) for p in self.start]
        return f"params of shapes {shapes}, {len(self.grads)} steps, " + ", ".join(
            f"{k}={v}" for k, v in self.hyper.items())


def _t(a):
    return _tensor(a, dtype=float64)


def _diff(what, want, got, name):
    """'' if `got` matches the tensor `want`, else one line saying where they differ."""
    if not isinstance(got, Tensor):
        return f"{what}: expected a tensor, got {type(got).__name__}"
    if tuple(got.shape) != tuple(want.shape):
        return f"{what}: shape {tuple(got.shape)}, {name} has {tuple(want.shape)}"
    e, g = want.detach().double().numpy(), got.detach().double().numpy()
    bad = ~np.isclose(g, e, rtol=1e-7, atol=1e-10)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return f"{what}: at {list(i)} {name} has {e[i]:.6g}, you have {g[i]:.6g}"
    return ""


def _steps(run, optimizer, answer_step, states_of):
    """Run the answer and the optimizer side by side; one line per step."""
    ours = [Parameter(_t(a)) for a in run.start]
    theirs = [_t(a) for a in run.start]
    opt = optimizer(ours)
    carried = [None] * len(ours)
    lines = []
    for k, grads in enumerate(run.grads, 1):
        for p, g in zip(ours, grads):
            p.grad = _t(g)
        opt.step()
        carried = answer_step(theirs, [_t(g) for g in grads], carried)
        problems = [_diff(f"param {i}", p, q, type(opt).__name__) for i, (p, q) in enumerate(zip(ours, theirs))]
        for i, p in enumerate(ours):
            for item in states_of(opt.state[p], carried, i):
                problems.append(item if isinstance(item, str) else
                                _diff(f"{item[0]} of param {i}", item[1], item[2], type(opt).__name__))
        problems = [line for line in problems if line]
        lines.append(f"step {k}: " + (problems[0] if problems else "parameters and state match"))
        if problems:
            break
    return tuple(lines)


def _ok(run):
    return tuple(f"step {k}: parameters and state match" for k in range(1, len(run.grads) + 1))


def _shapes(rng):
    return [tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 3)))) for _ in range(int(rng.integers(1, 4)))]


# ---- SGD with momentum ------------------------------------------------------------------------------------

def _random_sgd(rng):
    return (Run(rng, _shapes(rng), int(rng.integers(3, 6)), lr=float(rng.choice([0.1, 0.01, 0.5])),
                momentum=float(rng.choice([0.9, 0.5, 0.99])), dampening=float(rng.choice([0.0, 0.0, 0.1, 0.5]))),)


def _sgd_call(answer, args):
    run, = args
    h = run.hyper

    def step(params, grads, bufs):
        bufs = answer(params, grads, list(bufs), h["lr"], h["momentum"], h["dampening"])
        if not isinstance(bufs, (list, tuple)) or len(bufs) != len(params):
            raise TypeError(f"return the list of momentum buffers, one per parameter; got {type(bufs).__name__}")
        return list(bufs)

    def states(state, bufs, i):
        return [("momentum_buffer", state["momentum_buffer"], bufs[i])]

    return _steps(run, lambda ps: optim.SGD(ps, lr=h["lr"], momentum=h["momentum"], dampening=h["dampening"]),
                  step, states)


# ---- Adam ---------------------------------------------------------------------------------------------------

def _random_adam(rng):
    return (Run(rng, _shapes(rng), int(rng.integers(3, 6)), lr=float(rng.choice([0.1, 0.01, 0.001])),
                betas=(float(rng.choice([0.9, 0.8])), float(rng.choice([0.999, 0.99]))),
                eps=float(rng.choice([1e-8, 1e-3, 0.1]))),)


def _adam_call(answer, args):
    run, = args
    h = run.hyper

    def step(params, grads, states):
        states = [{} for _ in params] if states[0] is None else states
        answer(params, grads, states, h["lr"], h["betas"], h["eps"])
        return states

    def states(state, mine, i):
        if not all(k in mine[i] for k in ("step", "exp_avg", "exp_avg_sq")):
            return [f"the state of param {i} has keys {sorted(mine[i])}; want 'step', 'exp_avg', 'exp_avg_sq'"]
        return [("step", state["step"].double(), _t(float(mine[i]["step"]))),
                ("exp_avg", state["exp_avg"], mine[i]["exp_avg"]), ("exp_avg_sq", state["exp_avg_sq"], mine[i]["exp_avg_sq"])]

    return _steps(run, lambda ps: optim.Adam(ps, lr=h["lr"], betas=h["betas"], eps=h["eps"]), step, states)


# ---- Linear ---------------------------------------------------------------------------------------------------

LINEAR_OK = ("parameters: weight (out, in), bias (out,), both Parameters", "init: inside ±1/sqrt(in), spread as uniform",
             "forward: matches F.linear")


def _linear_call(answer, args):
    n_in, n_out, seed = args
    manual_seed(seed)
    layer = answer(n_in, n_out)
    named = dict(layer.named_parameters()) if hasattr(layer, "named_parameters") else {}
    if sorted(named) != ["bias", "weight"]:
        return (f"parameters: named_parameters() gives {sorted(named)}, want ['bias', 'weight']",)
    w, b = named["weight"], named["bias"]
    if tuple(w.shape) != (n_out, n_in) or tuple(b.shape) != (n_out,):
        return (f"parameters: weight {tuple(w.shape)}, bias {tuple(b.shape)}; want ({n_out}, {n_in}) and ({n_out},)",)
    if not (isinstance(w, Parameter) and isinstance(b, Parameter) and w.requires_grad and b.requires_grad):
        return ("parameters: weight and bias must be Parameters (requires_grad=True)",)
    bound = 1 / math.sqrt(n_in)
    wa, ba = w.detach().double().numpy(), b.detach().double().numpy()
    init = LINEAR_OK[1]
    if np.abs(wa).max() > bound or np.abs(ba).max() > bound:
        init = f"init: values up to {max(np.abs(wa).max(), np.abs(ba).max()):.3g}, outside ±1/sqrt(in) = ±{bound:.3g}"
    elif not 0.4 * bound < wa.std() < 0.75 * bound or ba.std() < 0.2 * bound:
        init = (f"init: weight std {wa.std():.3g}, bias std {ba.std():.3g}; U(-b, b) with b = 1/sqrt(in) = {bound:.3g} "
                f"has std b/sqrt(3) = {bound / math.sqrt(3):.3g}")
    x = _t(np.random.default_rng(seed).standard_normal((5, n_in))).float()
    try:
        y = layer(x.to(w.dtype))
        want = linear(x.to(w.dtype), w, b)
        problem = _diff("forward", want, y, "F.linear")
    except NotImplementedError:
        raise
    except Exception as e:
        problem = f"forward: raised {type(e).__name__}: {str(e)[:80]}"
    return LINEAR_OK[0], init, problem or LINEAR_OK[2]


def _random_linear(rng):
    return int(rng.integers(4, 20)), int(rng.integers(16, 40)), int(rng.integers(0, 10_000))


EXERCISES = [
    Exercise(
        name="L11.sgd_momentum_step",
        title="sgd_momentum_step(params, grads, bufs, lr, momentum, dampening) -> bufs: one SGD step with momentum",
        reference=_ok,
        known=[((Run(np.random.default_rng(0), [(3,)], 3, lr=0.1, momentum=0.9, dampening=0.0),), None),
               ((Run(np.random.default_rng(1), [(2, 2), (3,)], 4, lr=0.5, momentum=0.5, dampening=0.5),), None)],
        random_args=_random_sgd,
        call=_sgd_call,
        hints=["PyTorch's rule: the first step, the buffer is a copy of the gradient (buf = grad.clone()); after "
               "that buf = momentum * buf + (1 - dampening) * grad. Then p -= lr * buf.",
               "Update the parameter in place (p -= ..., or p.sub_(...)): `p = p - lr * buf` only rebinds a "
               "local name, and the caller's tensor never moves.",
               "The buffer holds no learning rate: lr multiplies only the step of the parameter. And on the "
               "first step dampening does not apply."],
        solution='''import teachtorch as tt


def sgd_momentum_step(params, grads, bufs, lr, momentum, dampening):
    for i, (p, g) in enumerate(zip(params, grads)):
        if bufs[i] is None:
            bufs[i] = g.clone()
        else:
            bufs[i] = momentum * bufs[i] + (1 - dampening) * g
        p -= lr * bufs[i]
    return bufs''',
    ),
    Exercise(
        name="L11.adam_step",
        title="adam_step(params, grads, states, lr, betas, eps): one Adam step, state 'step', 'exp_avg', 'exp_avg_sq'",
        reference=_ok,
        known=[((Run(np.random.default_rng(2), [(3,)], 3, lr=0.1, betas=(0.9, 0.999), eps=1e-8),), None),
               ((Run(np.random.default_rng(3), [(2, 3)], 4, lr=0.01, betas=(0.8, 0.99), eps=0.1),), None)],
        random_args=_random_adam,
        call=_adam_call,
        hints=["On the first step make the state: step = 0, exp_avg and exp_avg_sq zeros like the parameter. "
               "Then step += 1, m = beta1 m + (1 - beta1) g, v = beta2 v + (1 - beta2) g^2.",
               "Bias correction: m_hat = m / (1 - beta1**step), v_hat = v / (1 - beta2**step), with the step "
               "number *after* counting this step (1 on the first step).",
               "p -= lr * m_hat / (sqrt(v_hat) + eps): eps is added after the square root."],
        solution='''import teachtorch as tt


def adam_step(params, grads, states, lr, betas, eps):
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if not state:
            state.update(step=0, exp_avg=tt.zeros_like(p), exp_avg_sq=tt.zeros_like(p))
        state["step"] += 1
        t = state["step"]
        state["exp_avg"] = beta1 * state["exp_avg"] + (1 - beta1) * g
        state["exp_avg_sq"] = beta2 * state["exp_avg_sq"] + (1 - beta2) * g * g
        m_hat = state["exp_avg"] / (1 - beta1 ** t)
        v_hat = state["exp_avg_sq"] / (1 - beta2 ** t)
        p -= lr * m_hat / (v_hat.sqrt() + eps)''',
    ),
    Exercise(
        name="L11.Linear",
        title="Linear(in_features, out_features): registered weight and bias, PyTorch's init, forward x W^T + b",
        reference=lambda n_in, n_out, seed: LINEAR_OK,
        known=[((4, 16, 0), LINEAR_OK), ((9, 30, 1), LINEAR_OK)],
        random_args=_random_linear,
        call=_linear_call,
        hints=["Subclass nn.Module, call super().__init__() first, then assign self.weight = nn.Parameter(...): "
               "Module.__setattr__ files a Parameter in _parameters. A plain tensor is not registered.",
               "The weight is (out_features, in_features). Both weight and bias start as U(-b, b) with "
               "b = 1 / sqrt(in_features): tt.empty(...).uniform_(-b, b).",
               "forward(x) returns x @ self.weight.T + self.bias."],
        solution='''import math
import teachtorch as tt
from teachtorch import nn


class Linear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(tt.empty(out_features, in_features).uniform_(-bound, bound))
        self.bias = nn.Parameter(tt.empty(out_features).uniform_(-bound, bound))

    def forward(self, x):
        return x @ self.weight.T + self.bias''',
    ),
]
for _e in EXERCISES[:2]:                # the fixed cases' expected lines (every step matches)
    _e.known = [(args, _ok(args[0])) for args, _ in _e.known]
