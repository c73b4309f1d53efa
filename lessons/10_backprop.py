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
# # Lesson 10: backprop by hand
#
# **You will learn**
# - to write the backward pass of a whole small network yourself, one tensor at a time, and to check each
#   tensor against autograd with a `cmp()` report (exact, approximate, largest difference), as in Karpathy's
#   "backprop ninja" (makemore part 4);
# - the gradients that every classifier uses: cross-entropy with respect to the logits
#   ($\mathrm{softmax} - \mathrm{onehot}$, divided by $N$), a linear layer ($dW$, $db$, $dx$), tanh, and
#   LayerNorm (and BatchNorm, the same formula over the other dim);
# - why softmax and log-sum-exp subtract the maximum first, and what happens in float32 when they do not.
#
# **You will build** `cross_entropy_backward`, `linear_tanh_backward` and `layernorm_backward`, checked
# against teachtorch's autograd on seeded random shapes in float64; then you train a digits classifier with
# **your** gradients only, no `loss.backward()`.
#
# **Time:** about 70 minutes. **You need:** lesson 8 (backward of `@`, of a broadcast, of a sum) and the
# chain rule.

# %%
import time

import teachtorch as tt
import teachtorch.nn.functional as F
from teachtorch.datasets import digits_split, load_digits
from teachtorch.explorer import GraphView, TrainMonitor
from teachtorch.exercises import check, hint
from teachtorch.exercises.compare import compare

# %% [markdown]
# ## 1. A small network, and a `cmp()` for every tensor
#
# The network classifies 8x8 digits: a linear layer with tanh, a LayerNorm, and a linear layer to 10 logits.
# The weights are plain tensors (no `nn.Module`, as in makemore) and `W` has shape (in, out), so a layer is
# `x @ W + b`. Everything is float64 here so that a right hand-written gradient agrees with autograd to
# about $10^{-16}$. `retain_grad()` asks autograd to keep the gradient of an intermediate tensor too.

# %%
tt.manual_seed(0)
images, labels = load_digits()
X, Y = images[:32].reshape(32, 64).double(), labels[:32]            # a batch of 32 digits
f64 = dict(dtype=tt.float64)
W1 = (tt.randn(64, 32, **f64) / 8).requires_grad_()
b1 = (tt.randn(32, **f64) * 0.1).requires_grad_()
gamma = (1 + 0.1 * tt.randn(32, **f64)).requires_grad_()
beta = (0.1 * tt.randn(32, **f64)).requires_grad_()
W2 = (tt.randn(32, 10, **f64) / 6).requires_grad_()
b2 = (tt.randn(10, **f64) * 0.1).requires_grad_()
params = {"W1": W1, "b1": b1, "gamma": gamma, "beta": beta, "W2": W2, "b2": b2}

h = (X @ W1 + b1).tanh()                                  # (32, 32)
ln = F.layer_norm(h, (32,), gamma, beta, eps=1e-5)        # (32, 32), each row normalised
logits = ln @ W2 + b2                                     # (32, 10)
loss = F.cross_entropy(logits, Y)                         # the mean over the 32 rows
for t in (h, ln, logits):
    t.retain_grad()
print("loss", loss.item(), " (a guess among 10 classes gives ln 10 =", tt.tensor(10.0).log().item(), ")")

# %% [markdown]
# The picture is the graph autograd recorded; `backward` runs it. Each grey node is one gradient you will
# write by hand: `NllLossBackward0` and `LogSoftmaxBackward0` together are exercise 1, `AddBackward0` and
# `MmBackward0` are a linear layer (section 4), `NativeLayerNormBackward0` is exercise 3, and
# `TanhBackward0` with the first linear layer is exercise 2. The edges give each gradient's shape.

# %%
view = GraphView(loss, params=params, title="loss of a 64-32-10 MLP with LayerNorm")
view.backward(loss)
view

# %% [markdown]
# Karpathy's `cmp(name, mine, t)` compares a gradient you computed with the one autograd left in `t.grad`:
# **exact** (to the last bit), **approximate** (within a tolerance) and **maxdiff**. Ours is the same, built
# on `teachtorch.exercises.compare` (the function every check of this course uses):

# %%
def cmp(name, mine, t):
    c = compare(t.grad, mine, rtol=1e-7, atol=1e-10)
    print(f"{name:7} | exact: {str(c.exact):5} | approximate: {str(c.close):5} | maxdiff: {c.maxdiff:.2g}")


cmp("b2", logits.grad.sum(0), b2)           # a first hand gradient; section 4 says why it is right
cmp("b2?", logits.grad.mean(0), b2)         # and a wrong one

# %% [markdown]
# ## 2. Cross-entropy, backwards
#
# For one row with logits $z$ and target class $y$, $p = \mathrm{softmax}(z)$ and the loss is
# $\ell = -\log p_y = -z_y + \log \sum_j e^{z_j}$. Differentiate:
#
# $$\frac{\partial \ell}{\partial z_j} = -[j = y] + \frac{e^{z_j}}{\sum_k e^{z_k}} = p_j - [j = y].$$
#
# So the gradient of one row is its probabilities with 1 taken off the right class: it pushes the right
# logit up and every other down, each in proportion to how much probability it wrongly holds. The loss is
# the **mean** over $N$ rows, so each row's gradient is also divided by $N$:
#
# $$\frac{\partial L}{\partial z} = \frac{1}{N}\left(\mathrm{softmax}(z) - \mathrm{onehot}(y)\right).$$
#
# Autograd gets there in two nodes, `NllLossBackward0` (a $-1/N$ at each target) then
# `LogSoftmaxBackward0`; by hand it is one line, and no $p$ ever needs a logarithm taken.
#
# ### Exercise 1: `cross_entropy_backward(logits, targets)`
#
# Return `dlogits`, the gradient of `F.cross_entropy(logits, targets)` (the mean) with respect to `logits`
# of shape (N, C); `targets` holds N class indices. `F.one_hot(targets, C)` makes the one-hot rows. One of
# the fixed cases has a logit of 1000: section 3 says why that matters.

# %%
hint("L10.cross_entropy_backward")

# %%
def cross_entropy_backward(logits, targets):
    ### BEGIN SOLUTION
    n, classes = logits.shape
    e = (logits - logits.amax(1, keepdim=True)).exp()
    probs = e / e.sum(1, keepdim=True)
    return (probs - F.one_hot(targets, classes).to(logits.dtype)) / n
    ### END SOLUTION


# %%
check("L10.cross_entropy_backward", cross_entropy_backward)

# %%
try:
    cmp("logits", cross_entropy_backward(logits.detach(), Y), logits)
except NotImplementedError:
    print("(write cross_entropy_backward in exercise 1 first)")

# %% [markdown]
# ## 3. Softmax without overflow
#
# float32 holds numbers up to about $3.4 \times 10^{38} = e^{88.7}$. A logit of 100 is not unusual (an
# untrained network with large weights, or a temperature of 0.01), and $e^{100}$ is `inf`. Then the softmax
# is $\infty / \infty$ = `nan`, and the NaN spreads through every later step:

# %%
z = tt.tensor([[100.0, 99.0, 90.0]])                     # float32
e = z.exp()
print("exp(z)          ", e)
print("naive softmax   ", e / e.sum(1, keepdim=True))
print("naive logsumexp ", e.sum(1).log())

# %% [markdown]
# The fix costs nothing: for any constant $c$, $\mathrm{softmax}(z - c) = \mathrm{softmax}(z)$ (the $e^{-c}$
# cancels above and below) and $\log \sum_j e^{z_j} = c + \log \sum_j e^{z_j - c}$. With $c = \max_j z_j$
# the largest exponent is $e^0 = 1$: nothing overflows, and the sum is at least 1, so its logarithm is
# finite. The gradient formula of section 2 does not change, since the softmax is the same function.

# %%
m = z.amax(1, keepdim=True)
e = (z - m).exp()
print("stable softmax  ", e / e.sum(1, keepdim=True))
print("stable logsumexp", (m + e.sum(1, keepdim=True).log()).flatten(), " tt.logsumexp:", tt.logsumexp(z, 1))

# %% [markdown]
# The other end fails too: $e^{-200}$ is 0 in float32 (it underflows), so `log(softmax(z))` gives
# $-\infty$ for a class the network thinks unlikely, and a loss of `inf` if that class is the target.
# `F.log_softmax` computes $z - \mathrm{logsumexp}(z)$ instead, with no `exp` of a large number and no `log`
# of a tiny one. That is why `F.cross_entropy` is `nll_loss(log_softmax(logits))` and takes logits, never
# probabilities. PyTorch prints exactly these values for `torch.logsumexp` and `F.log_softmax`.

# %%
z2 = tt.tensor([[0.0, -200.0]])
print("log(softmax(z))    ", F.softmax(z2, 1).log())
print("F.log_softmax(z)   ", F.log_softmax(z2, 1))
print("z - logsumexp(z)   ", z2 - tt.logsumexp(z2, 1, keepdim=True))
print("F.log_softmax(100s)", F.log_softmax(z, 1))

# %% [markdown]
# In the source: `softmax` and `logsumexp` in `teachtorch/kernels/reduction.py` both subtract the max
# (PyTorch: `host_softmax` in aten/src/ATen/native/SoftMax.cpp, vectorised in
# aten/src/ATen/native/cpu/SoftMaxKernel.cpp, and `logsumexp_out_impl` in aten/src/ATen/native/ReduceOps.cpp).

# %% [markdown]
# ## 4. A linear layer and tanh
#
# For $Z = AW + b$ with $A$ of shape $(N, \text{in})$, $W$ of shape $(\text{in}, \text{out})$ and $b$ of
# shape $(\text{out})$ broadcast over the $N$ rows, lesson 8 gave all three gradients, for $G = \partial L /
# \partial Z$:
#
# $$\frac{\partial L}{\partial A} = G W^\top, \qquad \frac{\partial L}{\partial W} = A^\top G, \qquad
# \frac{\partial L}{\partial b} = \sum_{n} G_{n,:}.$$
#
# The shapes decide every transpose ($A^\top G$ is $(\text{in}, N)(N, \text{out})$, the shape of $W$), and
# $b$, used by all $N$ rows, collects all $N$ rows' gradients: that is why `mean(0)` was wrong in section 1.
# The second layer by hand, starting from autograd's `logits.grad`:

# %%
dlogits = logits.grad
dW2 = ln.detach().T @ dlogits
db2 = dlogits.sum(0)
dln = dlogits @ W2.detach().T
cmp("W2", dW2, W2)
cmp("b2", db2, b2)
cmp("ln", dln, ln)

# %% [markdown]
# **tanh.** $t = \tanh(u)$ has $\frac{dt}{du} = 1 - \tanh^2(u) = 1 - t^2$: written with the **output**, so
# backward needs only $t$ (PyTorch's `tanh_backward(grad, result)` saves the result, not the input).
# Computing $1 - u^2$ with the input instead is the classic slip.
#
# ### Exercise 2: `linear_tanh_backward(dh, x, W, b)`
#
# For $h = \tanh(xW + b)$ and $dh = \partial L / \partial h$, return `(dx, dW, db)`: backwards through tanh
# first, then through the linear layer. Recompute $t$ from `x`, `W`, `b` (a real layer would have saved it).

# %%
def linear_tanh_backward(dh, x, W, b):
    ### BEGIN SOLUTION
    t = (x @ W + b).tanh()
    dpre = dh * (1 - t**2)
    return dpre @ W.T, x.T @ dpre, dpre.sum(0)
    ### END SOLUTION


# %%
check("L10.linear_tanh_backward", linear_tanh_backward)

# %% [markdown]
# ## 5. LayerNorm
#
# LayerNorm normalises each row $x$ of $D$ numbers, then scales and shifts it:
#
# $$\mu = \frac{1}{D}\sum_j x_j, \quad \sigma^2 = \frac{1}{D}\sum_j (x_j - \mu)^2, \quad
# \hat x_j = (x_j - \mu)\, r, \quad r = (\sigma^2 + \epsilon)^{-1/2}, \quad y_j = \gamma_j \hat x_j + \beta_j.$$
#
# $\gamma$ and $\beta$ are easy: $\partial L / \partial \beta = \sum_n \partial L / \partial y$ (summed over
# the rows, like a bias) and $\partial L / \partial \gamma = \sum_n (\partial L / \partial y)\, \hat x$.
# The trap is $x$: $\mu$ and $\sigma^2$ are made of every $x_j$ of the row, so moving $x_i$ moves all of
# $\hat x$. With $\partial \sigma^2 / \partial x_i = \frac{2}{D}(x_i - \mu)$ and $\partial r / \partial
# \sigma^2 = -\frac{1}{2} r^3$,
#
# $$\frac{\partial \hat x_j}{\partial x_i} = r\left(\delta_{ij} - \frac{1}{D} - \frac{1}{D}\hat x_i \hat x_j\right),$$
#
# and summing over $j$ with $g_j = \gamma_j\, \partial L / \partial y_j$:
#
# $$\frac{\partial L}{\partial x_i} = r\left(g_i - \overline{g} - \hat x_i\, \overline{g \hat x}\right),
# \qquad \overline{v} = \frac{1}{D}\sum_j v_j .$$
#
# The two subtracted means are the mean's and the variance's share; drop them and you have treated $\mu$ and
# $\sigma^2$ as constants. Note the **biased** variance (divide by $D$): `F.layer_norm` uses it, while
# `x.var()` divides by $D - 1$ unless told `correction=0`.
#
# ### Exercise 3: `layernorm_backward(dout, x, gamma, eps)`
#
# For `F.layer_norm(x, (D,), gamma, beta, eps)` on a 2-D `x` of shape (N, D), return `(dx, dgamma, dbeta)`.
# ($\beta$ is not needed: the gradients do not depend on it.) teachtorch's formula is
# `_norm_backward_with_ops` in `teachtorch/autograd/derivatives/nn.py`; PyTorch's is
# `layer_norm_backward_cpu` in aten/src/ATen/native/layer_norm.cpp.

# %%
def layernorm_backward(dout, x, gamma, eps):
    ### BEGIN SOLUTION
    mu = x.mean(-1, keepdim=True)
    rstd = (((x - mu) ** 2).mean(-1, keepdim=True) + eps) ** -0.5
    xhat = (x - mu) * rstd
    g = dout * gamma
    dx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return dx, (dout * xhat).sum(0), dout.sum(0)
    ### END SOLUTION


# %%
check("L10.layernorm_backward", layernorm_backward)

# %% [markdown]
# **BatchNorm** is the same formula turned on its side: each *feature* is normalised over the *batch*
# (dim 0), and $\gamma$, $\beta$ are per feature. So the means in $\partial L / \partial x$ are over dim 0.
# In training PyTorch normalises with the biased variance too (it keeps the unbiased one only for
# `running_var`). Four lines, checked against `F.batch_norm`:

# %%
xb = tt.randn(8, 5, **f64, requires_grad=True)
gb = (1 + tt.randn(5, **f64)).requires_grad_()
dout = tt.randn(8, 5, **f64)
F.batch_norm(xb, None, None, gb, None, training=True, eps=1e-5).backward(dout)
x_ = xb.detach()
rstd = (x_.var(0, correction=0, keepdim=True) + 1e-5) ** -0.5
xhat = (x_ - x_.mean(0, keepdim=True)) * rstd
g = dout * gb.detach()
cmp("x (BN)", rstd * (g - g.mean(0, keepdim=True) - xhat * (g * xhat).mean(0, keepdim=True)), xb)
cmp("gamma", (dout * xhat).sum(0), gb)

# %% [markdown]
# ## 6. The whole backward pass, by hand
#
# Now chain your three functions backwards through the network of section 1, in the order the engine ran
# the nodes, and `cmp` every tensor against what `view.backward(loss)` left in `.grad`:

# %%
def hand_backward(X, Y, W1, b1, gamma, beta, W2, b2):
    """Every parameter's gradient of the loss, by hand: no autograd."""
    h = (X @ W1 + b1).tanh()
    ln = F.layer_norm(h, (h.shape[1],), gamma, beta, eps=1e-5)
    logits = ln @ W2 + b2
    dlogits = cross_entropy_backward(logits, Y)                       # exercise 1
    dW2, db2, dln = ln.T @ dlogits, dlogits.sum(0), dlogits @ W2.T    # section 4
    dh, dgamma, dbeta = layernorm_backward(dln, h, gamma, 1e-5)       # exercise 3
    _, dW1, db1 = linear_tanh_backward(dh, X, W1, b1)                 # exercise 2
    return {"W1": dW1, "b1": db1, "gamma": dgamma, "beta": dbeta, "W2": dW2, "b2": db2}


try:
    with tt.no_grad():
        grads = hand_backward(X, Y, *params.values())
    for name, p in params.items():
        cmp(name, grads[name], p)
except NotImplementedError:
    print("(solve the three exercises first)")

# %% [markdown]
# **Training on your own gradients.** The same network in float32, on the 1437 training digits, with plain
# SGD: `p -= lr * grad`, where `grad` comes from `hand_backward`, and never from `loss.backward()`. The
# monitor draws the loss and, per parameter, the norm of your gradient (set as `p.grad` so it can read it).
# `max_steps` and `time_budget_s` bound the run; here 300 steps take about 1 s (and the final
# picture a few more) and reach a test accuracy of about 99% (98.9% on this split). (Until the exercises
# are solved, it trains on autograd's gradients instead.)

# %%
max_steps, time_budget_s, batch, lr = 300, 15.0, 64, 0.5
train, test = digits_split(seed=0)
Xtr, Ytr = train.tensors[0].reshape(-1, 64), train.tensors[1]
Xte, Yte = test.tensors[0].reshape(-1, 64), test.tensors[1]
tt.manual_seed(0)
net = tt.nn.Module()
for name, p in params.items():
    setattr(net, name, tt.nn.Parameter(p.detach().float().clone()))
P = dict(net.named_parameters())


def autograd_backward(X, Y, *ps):
    for p in ps:
        p.grad = None
    with tt.enable_grad():
        h = (X @ ps[0] + ps[1]).tanh()
        logits = F.layer_norm(h, (h.shape[1],), ps[2], ps[3], eps=1e-5) @ ps[4] + ps[5]
        F.cross_entropy(logits, Y).backward()
    return {name: p.grad for name, p in zip(P, ps)}


def forward(X):
    h = (X @ P["W1"] + P["b1"]).tanh()
    return F.layer_norm(h, (h.shape[1],), P["gamma"], P["beta"], eps=1e-5) @ P["W2"] + P["b2"]


backward, start = hand_backward, time.perf_counter()
monitor = TrainMonitor(net, title="digits MLP, trained on hand-written gradients")
for step in range(max_steps):
    idx = tt.randint(0, len(Ytr), (batch,))
    with tt.no_grad():
        try:
            grads = backward(Xtr[idx], Ytr[idx], *P.values())
        except NotImplementedError:
            backward = autograd_backward
            grads = backward(Xtr[idx], Ytr[idx], *P.values())
        for name, p in P.items():
            p.grad = grads[name]
            p -= lr * grads[name]
        if step % 20 == 0 or step == max_steps - 1:
            loss = F.cross_entropy(forward(Xtr[idx]), Ytr[idx])
            monitor.log(step, loss=loss)
        if step % 100 == 0:
            print(f"step {step:4d}  loss {loss.item():.3f}  {time.perf_counter() - start:.1f} s")
    if time.perf_counter() - start > time_budget_s:
        break
took = time.perf_counter() - start
with tt.no_grad():
    accuracy = (forward(Xte).argmax(1) == Yte).float().mean().item()
print(f"{step + 1} steps in {took:.1f} s with {backward.__name__}: "
      f"final batch loss {loss.item():.3f}, test accuracy {accuracy:.1%}")
monitor.log(step, test_acc=accuracy)
monitor.close()                      # the monitor showed itself above; close() draws its final picture

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | cross-entropy = `nll_loss(log_softmax(input))` | `torch/nn/functional.py`, `aten/src/ATen/native/LossNLL.cpp` (`cross_entropy_loss`) | `teachtorch/nn/functional/loss.py` |
# | its backward formulas | `tools/autograd/derivatives.yaml` (`_log_softmax`, `nll_loss_forward`), `aten/src/ATen/native/SoftMax.cpp` | `teachtorch/autograd/derivatives/loss.py`, `teachtorch/autograd/derivatives/reductions.py` |
# | tanh backward | `aten/src/ATen/native/BinaryOps.cpp` (`tanh_backward`) | `teachtorch/kernels/activation.py` (`tanh_backward`) |
# | LayerNorm and BatchNorm backward | `aten/src/ATen/native/layer_norm.cpp`, `aten/src/ATen/native/Normalization.cpp`, `aten/src/ATen/native/cpu/layer_norm_kernel.cpp` | `teachtorch/autograd/derivatives/nn.py` (`_norm_backward_with_ops`, one formula for both) |
#
# ## Recap
#
# - $\partial L / \partial z = (\mathrm{softmax}(z) - \mathrm{onehot}(y)) / N$ for the mean cross-entropy.
# - Linear: $dA = G W^\top$, $dW = A^\top G$, $db = \sum_n G_n$ (the shapes decide the transposes; a
#   broadcast bias sums over the batch).
# - tanh: $du = dt \cdot (1 - t^2)$, with the output $t$.
# - LayerNorm: $dx = r\,(g - \overline{g} - \hat x\, \overline{g \hat x})$, $g = \gamma\, dy$, means over
#   the normalised dim (over the batch for BatchNorm); the mean and variance are not constants.
# - Softmax and log-sum-exp subtract the max first; `F.log_softmax` never takes the log of a softmax.
# - Check every hand gradient against autograd, tensor by tensor: exact, approximate, maxdiff.
#
# **Next:** lesson 11 wraps these layers in `nn.Module`s and lets an optimizer take the steps.
