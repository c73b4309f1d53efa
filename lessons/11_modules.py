# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lesson 11: nn.Module, init and optimizers
#
# **You will learn**
# - how a `Module` finds its parameters: `__setattr__` files every `Parameter` and sub-module you assign,
#   and `named_parameters()`, `state_dict()` (keys like `0.weight`) and the repr are walks over that tree;
# - why the *scale* of the initial weights matters: the spread of the activations, layer by layer, in a deep
#   tanh and ReLU network, with bad and good initialisations, and what PyTorch's `Linear` does by default;
# - what SGD with momentum and Adam keep between steps (their **state**) and how each step uses it,
#   exactly as `torch.optim` computes it.
#
# **You will build** a `Linear` module with PyTorch's initialisation, and one step of SGD with momentum and
# one of Adam, each checked step by step against teachtorch's optimizers (same parameters, same gradients,
# the parameters *and* the state compared after every step). Then you train a small network on the spirals,
# with a live monitor, to over 97% test accuracy in a few seconds.
#
# **Time:** about 60 minutes. **You need:** tensor autograd (lesson 8); what a gradient step is.
#
# Everything here is PyTorch's: `nn.Module`, `nn.Parameter`, `named_parameters`, `state_dict`,
# `nn.init`, `optim.SGD` and `optim.Adam` have the same names, the same state keys and the same formulas there.

# %%
import math
import time

import teachtorch as tt
from teachtorch import nn
import teachtorch.nn.functional as F
from teachtorch.exercises import check, hint

# %% [markdown]
# ## 1. A module is a tree of dicts
#
# A `Module` owns three dicts: `_parameters` (what an optimizer trains), `_buffers` (saved, not trained) and
# `_modules` (its children). You never write to them yourself: `self.fc = nn.Linear(...)` goes through
# `Module.__setattr__`, which looks at the **type** of the value: a `Parameter` goes into `_parameters`, a
# `Module` into `_modules`, anything else (a plain tensor included) stays an ordinary attribute.

# %%
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()                         # makes the dicts: before it, assigning a Parameter fails
        self.fc = nn.Linear(2, 3)                  # a Module   -> _modules
        self.scale = nn.Parameter(tt.ones(3))      # a Parameter -> _parameters
        self.offset = tt.zeros(3)                  # a plain tensor: an ordinary attribute

    def forward(self, x):
        return self.fc(x) * self.scale + self.offset


m = Scaled()
print("_parameters:", list(m._parameters), " _modules:", list(m._modules), " offset in __dict__:", "offset" in m.__dict__)
for name, p in m.named_parameters():
    print(f"  {name:10} {tuple(p.shape)}")

# %% [markdown]
# `named_parameters()` walks the tree and joins the names with dots: `fc.weight` is `m.fc`'s `weight`.
# `offset` is not there, so `tt.optim.SGD(m.parameters())` would never train it, and `state_dict()` would
# not save it. (To save a tensor without training it, register it as a **buffer**:
# `self.register_buffer("offset", tt.zeros(3))`, as BatchNorm does with its running mean.)
#
# A `Sequential` names its children `0`, `1`, `2`, ...; that is where checkpoint keys like `0.weight` come
# from. The repr is the same tree:

# %%
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
print(model)
print(list(model.state_dict()))
print([name for name, _ in model.named_modules()])

# %% [markdown]
# In the source: `Module.__setattr__`, `named_parameters` and `state_dict` in
# `teachtorch/nn/modules/module.py` (PyTorch: `torch/nn/modules/module.py`, the same methods);
# `Parameter` in `teachtorch/nn/parameter.py` (PyTorch: `torch/nn/parameter.py`).

# %% [markdown]
# ## 2. Why the initial scale matters
#
# A layer computes $h = \tanh(W x + b)$. If $x$ has $n$ inputs of variance 1 and $W$'s entries have variance
# $\sigma^2$, each output sums $n$ products: its variance is $n \sigma^2$. Through many layers that factor
# multiplies: above 1 the activations grow until tanh **saturates** (outputs near $\pm 1$, gradients near 0),
# below 1 they **shrink** to nothing. The classic fixes choose $\sigma^2 \approx 1 / n$ times a gain for the
# nonlinearity: **Xavier/Glorot** for tanh ($\frac{5}{3}$ is tanh's gain, `nn.init.calculate_gain("tanh")`),
# **Kaiming/He** for ReLU ($\sigma^2 = 2 / n$: ReLU zeroes half its inputs).
#
# Below, eight layers of width 256 on a batch of 512 random inputs; each row is one initialisation, each
# number the standard deviation of one layer's output (about a second here).

# %%
tt.manual_seed(0)
x = tt.randn(512, 256)


def layer_stds(init, act, depth=8):
    h, stds = x, []
    with tt.no_grad():
        for _ in range(depth):
            layer = nn.Linear(256, 256)
            init(layer.weight)
            layer.bias.zero_()
            h = act(layer(h))
            stds.append(h.std().item())
    return stds, h


inits = {"N(0, 1)": lambda w: w.normal_(0, 1),
         "N(0, 0.01)": lambda w: w.normal_(0, 0.01),
         "PyTorch default": lambda w: None,
         "Xavier, gain 5/3": lambda w: nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"))}
last = {}
print("tanh layers:")
for name, init in inits.items():
    stds, last[name] = layer_stds(init, tt.tanh)
    print(f"  {name:17}", " ".join(f"{s:.3f}" for s in stds))
print("ReLU layers:")
for name, init in {"PyTorch default": lambda w: None,
                   "Kaiming normal": lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu")}.items():
    print(f"  {name:17}", " ".join(f"{s:.3f}" for s in layer_stds(init, tt.relu)[0]))

# %% [markdown]
# With N(0, 1) every layer saturates (the histograms below: nearly everything at $\pm 1$); with N(0, 0.01) the
# signal is gone after three layers; Xavier keeps it steady. PyTorch's **default** `Linear` init shrinks it
# too, by about $1/\sqrt{3}$ a layer: it draws from $U(-b, b)$ with $b = 1/\sqrt{\text{fan\_in}}$, whose
# variance is $b^2 / 3 = \frac{1}{3\,\text{fan\_in}}$. It is written as `kaiming_uniform_(weight, a=math.sqrt(5))`,
# which works out to exactly that bound; the source comment in `torch/nn/modules/linear.py` points to
# pytorch/pytorch#57109 for why it stayed. For a shallow net it is fine (section 5 trains with it); for a
# deep one, pick the init for your nonlinearity or add normalisation layers.

# %%
try:
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 4, figsize=(12, 2.2), sharey=True)
    for ax, (name, h) in zip(axes, last.items()):
        ax.hist(h.reshape(-1).numpy(), bins=40, range=(-1, 1))
        ax.set_title(f"{name}: layer 8", fontsize=9)
    plt.tight_layout()
    plt.show()
except ImportError:
    print("(install matplotlib for the histograms: pip install 'teachtorch[lab]')")

# %% [markdown]
# ### Exercise 1: a `Linear` of your own
#
# Write `Linear(in_features, out_features)`: a `Module` subclass with a `weight` of shape
# `(out_features, in_features)` and a `bias` of shape `(out_features,)`, both registered `Parameter`s, both
# drawn from $U(-b, b)$ with $b = 1/\sqrt{\text{in\_features}}$ (PyTorch's default, for the bias too), and
# `forward(x)` returning $x W^\top + b$. The check builds yours under a fixed seed and looks at
# `named_parameters()`, the range and spread of the initial values, and `forward` against `F.linear`.
# (`tt.empty(n).uniform_(lo, hi)` fills a tensor in place.) Stuck? `hint("L11.Linear")`.

# %%
class Linear(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        ### BEGIN SOLUTION
        bound = 1 / math.sqrt(in_features)
        self.weight = nn.Parameter(tt.empty(out_features, in_features).uniform_(-bound, bound))
        self.bias = nn.Parameter(tt.empty(out_features).uniform_(-bound, bound))
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        return x @ self.weight.T + self.bias
        ### END SOLUTION


# %%
check("L11.Linear", Linear)

# %% [markdown]
# teachtorch's own is `Linear` in `teachtorch/nn/modules/linear.py` (its `reset_parameters` calls
# `init.kaiming_uniform_`); PyTorch's is `torch/nn/modules/linear.py`, with the same `reset_parameters`.

# %% [markdown]
# ## 3. SGD with momentum
#
# Plain SGD moves each parameter by $-\gamma g$ ($\gamma$ the learning rate, $g$ the gradient). **Momentum**
# keeps a running sum of past gradients, the buffer $b$, and moves by that instead: in a long narrow valley
# the gradients across the valley cancel out in $b$ and the ones along it add up. PyTorch's
# `optim.SGD(params, lr, momentum=mu, dampening=tau)` computes, at step $t$:
#
# $$b_1 = g_1, \qquad b_t = \mu\, b_{t-1} + (1 - \tau)\, g_t, \qquad \theta_t = \theta_{t-1} - \gamma\, b_t.$$
#
# Two details matter. The first buffer is the gradient itself (not dampened, not $\mu \cdot 0 + g$ scaled).
# And $\gamma$ is *outside* the buffer: Sutskever et al. write $v = \mu v + \gamma g$, $\theta = \theta - v$,
# which takes the same steps while $\gamma$ is fixed, but stores a different $v$, and differs as soon as a
# scheduler changes $\gamma$ (PyTorch's `SGD` docs note this). The buffer is the optimizer's **state**:

# %%
p = nn.Parameter(tt.tensor([1.0, -2.0]))
opt = tt.optim.SGD([p], lr=0.1, momentum=0.9)
for step in range(3):
    p.grad = tt.tensor([1.0, 1.0])
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    print(f"step {step + 1}: momentum_buffer = {[round(v, 4) for v in buf.tolist()]}  p = {[round(v, 4) for v in p.tolist()]}")

# %% [markdown]
# With a constant gradient the buffer grows $1, 1.9, 2.71, \dots$ towards $1/(1 - \mu) = 10$: momentum
# 0.9 takes steps up to ten times as long. On a narrow bowl $L = \frac{1}{2}(x^2 + 50 y^2)$, count the steps
# to get the loss under $10^{-4}$. Plain SGD cannot just take a larger $\gamma$: above $2/50$ the steep
# direction $y$ overshoots further at every step and diverges, while the shallow direction $x$ crawls.

# %%
def steps_to_converge(momentum, lr=0.01, max_steps=1000):
    q = nn.Parameter(tt.tensor([1.0, 1.0]))
    opt = tt.optim.SGD([q], lr=lr, momentum=momentum)
    for step in range(1, max_steps + 1):
        opt.zero_grad()
        loss = 0.5 * (q[0] ** 2 + 50 * q[1] ** 2)
        loss.backward()
        opt.step()
        if loss.item() < 1e-4:
            return step
    return f"more than {max_steps}"


print("plain SGD:    ", steps_to_converge(0.0))
print("momentum 0.9: ", steps_to_converge(0.9))

# %% [markdown]
# ### Exercise 2: one step of SGD with momentum
#
# Write `sgd_momentum_step(params, grads, bufs, lr, momentum, dampening)`. `params` and `grads` are lists of
# tensors; `bufs` is a list with one momentum buffer per parameter, `None` before the first step. Update each
# parameter **in place** (`p -= ...`: an optimizer must move the tensors the model holds) and return the
# list of buffers. The check runs yours and `tt.optim.SGD` side by side for several steps on random
# parameters and gradients, and compares the parameters and the buffers after every step.

# %%
def sgd_momentum_step(params, grads, bufs, lr, momentum, dampening):
    ### BEGIN SOLUTION
    for i, (p, g) in enumerate(zip(params, grads)):
        if bufs[i] is None:
            bufs[i] = g.clone()                    # the first step: the gradient itself
        else:
            bufs[i] = momentum * bufs[i] + (1 - dampening) * g
        p -= lr * bufs[i]
    return bufs
    ### END SOLUTION


# %%
check("L11.sgd_momentum_step", sgd_momentum_step)

# %% [markdown]
# teachtorch's is `SGD.step` in `teachtorch/optim/sgd.py` (and `_multi_tensor_sgd` there, the same with
# `_foreach_*` ops over all the parameters at once); PyTorch's is `_single_tensor_sgd` in
# `torch/optim/sgd.py`.

# %% [markdown]
# ## 4. Adam
#
# Adam keeps two running averages per parameter, of the gradient ($m$, state `exp_avg`) and of its square
# ($v$, state `exp_avg_sq`), and a step count $t$ (state `step`). With $\beta_1, \beta_2$ (default 0.9, 0.999):
#
# $$m_t = \beta_1 m_{t-1} + (1 - \beta_1) g_t, \qquad v_t = \beta_2 v_{t-1} + (1 - \beta_2) g_t^2,$$
#
# $$\hat m_t = \frac{m_t}{1 - \beta_1^t}, \qquad \hat v_t = \frac{v_t}{1 - \beta_2^t}, \qquad
# \theta_t = \theta_{t-1} - \gamma \frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon}.$$
#
# $m$ and $v$ start at 0, so early on they are far too small ($m_1 = 0.1\, g_1$): dividing by $1 - \beta^t$,
# the **bias correction**, undoes that ($\hat m_1 = g_1$). Note where $\epsilon$ goes: *after* the square
# root. Since $\hat m / \sqrt{\hat v}$ is about $\pm 1$ for a steady gradient, every parameter moves by
# about $\gamma$ on the first step, whatever the scale of its gradient:

# %%
for scale in (1e-3, 1.0, 1e3):
    p = nn.Parameter(tt.zeros(2))
    opt = tt.optim.Adam([p], lr=0.01)
    p.grad = tt.tensor([1.0, -2.0]) * scale
    opt.step()
    print(f"gradient x {scale:g}: p moved to {[round(v, 6) for v in p.tolist()]}")
print({k: (v.tolist() if v.dim() else v.item()) for k, v in opt.state[p].items()})

# %% [markdown]
# ### Exercise 3: one step of Adam
#
# Write `adam_step(params, grads, states, lr, betas, eps)`. `states` holds one dict per parameter, empty
# before the first step: fill it with `"step"` (a number; PyTorch keeps a 0-d tensor), `"exp_avg"` and
# `"exp_avg_sq"` (tensors shaped like the parameter), and keep them up to date. Update each parameter in
# place. The check compares your parameters and all three state entries with `tt.optim.Adam`'s after every
# step, with $\epsilon$ up to 0.1 so that its place shows. Stuck? `hint("L11.adam_step")` gives a hint;
# call it again for the next one:

# %%
hint("L11.adam_step")

# %%
def adam_step(params, grads, states, lr, betas, eps):
    ### BEGIN SOLUTION
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
        p -= lr * m_hat / (v_hat.sqrt() + eps)
    ### END SOLUTION


# %%
check("L11.adam_step", adam_step)

# %% [markdown]
# teachtorch's is `Adam.step` in `teachtorch/optim/adam.py`; PyTorch's is `_single_tensor_adam` in
# `torch/optim/adam.py`. Both update the state **in place** (`lerp_`, `mul_`, `addcmul_`, `addcdiv_`),
# which saves memory and is why lesson 6's lost write-back froze Adam; yours makes new tensors, which is
# easier to read and gives the same numbers.

# %% [markdown]
# ## 5. Train on the spirals, and watch it
#
# Three spiral arms of 100 points each (`teachtorch/datasets/toy.py`, `make_spirals`): no straight line
# separates them; a small MLP does. The test set is drawn from the same arms with other noise (`seed=1`).
# The `TrainMonitor` (`teachtorch/explorer/monitor.py`) draws the loss and accuracy curves, each layer's
# parameter and gradient norms with the update/weight ratio, and the histograms of one layer's activations
# and gradients, live while the cell runs. (`with tt.explore(model, monitor=True) as ex:` shows the same
# monitor below the full explorer of the explorer tour, `lessons/explorer_tour.py`; it records every op, so training runs slower.)
#
# The knobs: `max_steps` and `time_budget_s` stop the loop, whichever comes first; it also stops once the
# training accuracy reaches 99%. Here that is about 40 steps and a few seconds (most of it drawing the
# monitor; the training alone takes under a second).

# %%
from teachtorch.datasets.toy import make_spirals
from teachtorch.explorer import TrainMonitor

X, Y = make_spirals(300, classes=3, noise=0.2, seed=0)
X_test, Y_test = make_spirals(300, classes=3, noise=0.2, seed=1)
max_steps, time_budget_s = 1000, 10.0

tt.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
opt = tt.optim.Adam(net.parameters(), lr=0.02)
start = time.perf_counter()
with TrainMonitor(net, layer="2", title="spirals: 2-64-64-3 MLP, Adam") as mon:
    for step in range(max_steps):
        logits = net(X)
        loss = F.cross_entropy(logits, Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc = (logits.argmax(1) == Y).float().mean()
        mon.log(step, loss=loss, acc=acc)
        if step % 20 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}  train accuracy {acc.item():.3f}")
        if acc.item() >= 0.99 or time.perf_counter() - start > time_budget_s:
            break
    with tt.no_grad():
        pred = net(X_test).argmax(1)
    mon.confusion(Y_test, pred, classes=3)
test_acc = (pred == Y_test).float().mean().item()
print(f"stopped at step {step}, {time.perf_counter() - start:.1f} s; test accuracy {test_acc:.3f}")

# %% [markdown]
# Read the monitor: the update/weight ratio of each layer (around $10^{-3}$ to $10^{-2}$ is healthy), and the
# histogram of layer `2`'s output, a ReLU: the spike at 0 is the units that are off for a point.
#
# Your optimizer trains it too. The same network, from the same start, with your `adam_step` instead of
# `tt.optim.Adam`, called under `no_grad` as `opt.step()` runs (an update must not be recorded by autograd):

# %%
tt.manual_seed(0)
net2 = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
params = list(net2.parameters())
states = [{} for _ in params]
try:
    for step in range(40):
        loss = F.cross_entropy(net2(X), Y)
        for q in params:
            q.grad = None
        loss.backward()
        with tt.no_grad():
            adam_step(params, [q.grad for q in params], states, 0.02, (0.9, 0.999), 1e-8)
    with tt.no_grad():
        print(f"your Adam, 40 steps: loss {loss.item():.4f}, "
              f"test accuracy {(net2(X_test).argmax(1) == Y_test).float().mean().item():.3f}")
except NotImplementedError:
    print("(write adam_step in exercise 3 first)")

# %% [markdown]
# ## Recap
#
# - `Module.__setattr__` files a `Parameter` in `_parameters` and a `Module` in `_modules`; a plain tensor
#   stays an attribute, and is neither trained nor saved. `named_parameters()` and `state_dict()` walk the
#   tree, joining names with dots (`0.weight`, `fc.bias`).
# - The spread of the activations is multiplied by about $\sqrt{n}\,\sigma$ (times the nonlinearity's gain)
#   per layer: pick $\sigma$ by the fan-in (Xavier for tanh, Kaiming for ReLU). PyTorch's `Linear` draws
#   from $U(\pm 1/\sqrt{\text{fan\_in}})$.
# - SGD with momentum: $b_1 = g_1$, $b_t = \mu b_{t-1} + (1-\tau) g_t$, $\theta \mathrel{-}= \gamma b_t$;
#   the state is `momentum_buffer`.
# - Adam: running $m$ and $v$, bias-corrected by $1 - \beta^t$, step $\gamma \hat m / (\sqrt{\hat v} + \epsilon)$;
#   the state is `step`, `exp_avg`, `exp_avg_sq`.
#
# **Where this is in PyTorch**
#
# | concept | teachtorch | PyTorch |
# |---|---|---|
# | Module, registration, state_dict | `teachtorch/nn/modules/module.py` | `torch/nn/modules/module.py` |
# | Parameter | `teachtorch/nn/parameter.py` | `torch/nn/parameter.py` |
# | Linear and its init | `teachtorch/nn/modules/linear.py`, `teachtorch/nn/init.py` | `torch/nn/modules/linear.py`, `torch/nn/init.py` |
# | SGD, Adam, the Optimizer base class | `teachtorch/optim/sgd.py`, `teachtorch/optim/adam.py`, `teachtorch/optim/optimizer.py` | `torch/optim/sgd.py`, `torch/optim/adam.py`, `torch/optim/optimizer.py` |
#
# **Next:** lesson 12 trains on real offline data (the digits), with a data loader, an MLP and a CNN.
