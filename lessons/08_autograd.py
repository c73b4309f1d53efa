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
# # Lesson 8: tensor autograd
#
# **You will learn**
# - what a tensor op records for backward: a node (`grad_fn`), the tensors its formula needs, and where
#   that formula is written, in teachtorch and in PyTorch;
# - how to write an op of your own with `autograd.Function`: `forward(ctx, ...)`, `backward(ctx, grad)`,
#   `ctx.save_for_backward`;
# - that backward computes **vector-Jacobian products** $v^\top J$ and never the Jacobian $J$ itself, which is
#   why a non-scalar output needs a `gradient=` argument;
# - why gradients **accumulate** into `.grad` (and what forgetting `zero_grad()` does), and how the gradient
#   of a broadcast input is **un-broadcast**.
#
# **You will build** the backward formulas of `a * b` with broadcasting (its un-broadcasting is all of
# `a + b`'s backward), of `x.sum(dim, keepdim)` and of `a @ b`, checked here, offline, against teachtorch's
# own autograd and against finite differences (`gradcheck`).
#
# **Time:** about 60 minutes. **You need:** the chain rule and a scalar autograd (lesson 7), broadcasting
# (lesson 3), and the matrix product.
#
# Everything here behaves as in PyTorch: `grad_fn`, `next_functions`, `autograd.Function`, `gradcheck`,
# `.grad` and `backward(gradient=...)` are PyTorch's names and mean the same there.

# %%
import teachtorch as tt
from teachtorch.explorer import GraphView
from teachtorch.exercises import check, hint

# %% [markdown]
# ## 1. Ops record a graph
#
# A tensor made with `requires_grad=True` is a **leaf**. Every op on it records a **node** (the result's
# `grad_fn`) that can turn the gradient of its output into gradients of its inputs. `next_functions` points
# from a node to the nodes of its inputs: the graph points *backwards*, from the loss to the leaves.

# %%
x = tt.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]], requires_grad=True)
w = tt.tensor([0.5, -1.0, 2.0], requires_grad=True)                 # broadcast over x's 2 rows
y = (x * w).exp().sum()
print(y)
print(y.grad_fn, "->", y.grad_fn.next_functions)
mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
print(mul.name(), "->", mul.next_functions)

# %% [markdown]
# A node keeps what its formula needs. For $u = x w$ (element by element) the formulas are
# $\frac{\partial u}{\partial x} = w$ and $\frac{\partial u}{\partial w} = x$, so `MulBackward0` saved both
# inputs. For $e = \exp(u)$, $\frac{\partial e}{\partial u} = \exp(u) = e$, so `ExpBackward0` saved its
# *result*, and `SumBackward0` saved only the input's shape.
#
# The picture draws the graph: leaves (blue) at the top, the backward nodes (grey) with the tensors they
# saved (orange: shape, dtype, version), and the output (green). `GraphView(...).backward(y)` runs backward
# while watching it: the nodes that ran turn green and each edge a gradient flowed along is labelled with
# **that gradient's shape**. (`retain_graph=True` keeps the saved tensors; without it backward frees them,
# and the boxes say "freed".) Note the two edges into `MulBackward0`'s inputs: (2, 3) for `x`, but (3) for
# `w`; section 5 says why.

# %%
print(mul._saved_self is x, mul._saved_other is w)
view = GraphView(y, params={"x": x, "w": w}, title="y = (x * w).exp().sum()")
view.backward(y, retain_graph=True)
view

# %% [markdown]
# **Where the formulas live.** PyTorch lists the backward formula of every op in one table,
# `tools/autograd/derivatives.yaml`; a code generator turns each entry into a node class (`MulBackward0`)
# and saves exactly the names the formula reads:
#
# ```yaml
# - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
#   self: mul_tensor_backward(grad, other, self.scalar_type())
#   other: mul_tensor_backward(grad, self, other.scalar_type())
# ```
#
# teachtorch writes the same table in Python, one file per op family under `teachtorch/autograd/derivatives/`,
# and `teachtorch/autograd/derivative.py` plays the generator: it reads the parameter names of each formula
# to decide what to save. Grep for the line that defines `MulBackward0`:

# %%
import inspect
import teachtorch.autograd.derivatives.pointwise as pointwise

print(*[line for line in inspect.getsource(pointwise).splitlines() if line.startswith('derivative("mul.Tensor"')])
print(type(mul).__module__, type(mul).__name__)

# %% [markdown]
# ## 2. An op of your own: `autograd.Function`
#
# You can add an op with its own backward, exactly as in PyTorch: subclass `tt.autograd.Function` and write
# two static methods. `forward(ctx, ...)` computes the result and stores on `ctx` what backward will need
# (`ctx.save_for_backward(...)` for tensors: they are version-checked and freed after backward);
# `backward(ctx, grad)` receives the gradient of the output and returns one gradient per input. Call it
# with `Mul.apply(a, b)`; the node it records *is* the `ctx`.

# %%
class Mul(tt.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a        # one gradient per input of forward


a = tt.tensor([1.0, 2.0, 3.0], dtype=tt.float64, requires_grad=True)
b = tt.tensor([4.0, 5.0, 6.0], dtype=tt.float64, requires_grad=True)
out = Mul.apply(a, b)
print(out.grad_fn.name(), "saved:", [t.tolist() for t in out.grad_fn.saved_tensors])   # named after your class
out.sum().backward()
print("a.grad =", a.grad.tolist(), " b.grad =", b.grad.tolist())

# %% [markdown]
# How do you know a backward is right? `tt.autograd.gradcheck` compares it with **finite differences**: it
# nudges each input element by $\pm\varepsilon$ and watches the output move,
# $\frac{\partial f}{\partial x_n} \approx \frac{f(x + \varepsilon e_n) - f(x - \varepsilon e_n)}{2\varepsilon}$,
# in float64 (in float32 the rounding error, divided by $2\varepsilon$, swamps the answer). Here it passes
# `Mul`, and catches a square whose backward forgot the factor 2:

# %%
class BadSquare(tt.autograd.Function):
    @staticmethod
    def forward(ctx, u):
        ctx.save_for_backward(u)
        return u * u

    @staticmethod
    def backward(ctx, grad):
        u, = ctx.saved_tensors
        return grad * u          # should be grad * 2 * u


print("Mul passes:      ", tt.autograd.gradcheck(Mul.apply, (a, b)))
print("BadSquare passes:", tt.autograd.gradcheck(BadSquare.apply, (a,), raise_exception=False))

# %% [markdown]
# The machinery is `teachtorch/autograd/function.py` (PyTorch: `torch/autograd/function.py`, and
# `torch/csrc/autograd/python_function.cpp` for `apply`); gradcheck is `teachtorch/autograd/gradcheck.py`
# (PyTorch: `torch/autograd/gradcheck.py`).

# %% [markdown]
# ## 3. Backward computes $v^\top J$, never $J$
#
# Take $y = f(x)$ with $x$ of $n$ numbers and $y$ of $m$. Its derivative is the $m \times n$ **Jacobian**
# $J_{ij} = \frac{\partial y_i}{\partial x_j}$. If the loss $L$ has gradient $v = \frac{\partial L}{\partial y}$
# with respect to $y$, the chain rule gives
#
# $$\frac{\partial L}{\partial x_j} = \sum_i v_i \, J_{ij}, \qquad \text{that is} \qquad
# \frac{\partial L}{\partial x} = v^\top J.$$
#
# That product is all a backward formula computes: the `grad` it receives is $v$. It never builds $J$, which
# would be huge (for a $1000 \times 1000$ input and output, $10^{12}$ numbers) and mostly zeros. For
# $y = a \odot b$ the Jacobian with respect to $a$ is diagonal, $J = \operatorname{diag}(b)$, and
# $v^\top J$ is just `grad * b`. Below, $J$ built row by row (one backward per one-hot $v$, as gradcheck
# does), and $v^\top J$ next to `v * b`:

# %%
y = a * b
rows = [tt.autograd.grad(y, a, tt.eye(3, dtype=tt.float64)[i], retain_graph=True)[0] for i in range(3)]
J = tt.stack(rows)
print("J =\n", J)
v = tt.tensor([1.0, 0.0, 10.0], dtype=tt.float64)
print("v^T J =", (v @ J).tolist(), "  v * b =", (v * b).detach().tolist())

# %% [markdown]
# `loss.backward()` starts from $v = 1$: that only makes sense for a **scalar** output. For any other output
# you must say which $v$ you mean, with `gradient=`. Without it, PyTorch (and teachtorch) refuse with
# exactly this error:

# %%
a.grad = None
try:
    y.backward()
except RuntimeError as err:
    print("RuntimeError:", err)
y.backward(gradient=v)
print("a.grad =", a.grad.tolist())

# %% [markdown]
# ## 4. The engine, and gradients that accumulate
#
# `backward()` hands the graph to the **engine**: it counts, for every node, how many gradients it waits
# for, then runs the nodes whose gradients have all arrived, newest first; two gradients that reach the
# same place are summed. A leaf's node, `AccumulateGrad`, **adds** what reaches it into the leaf's `.grad`.
# Watch the event stream (`tt.autograd.graph.listen`):

# %%
def show(event):
    if event.kind == "node_started":
        print("run", event.node_name)
    elif event.kind == "accumulated":
        print("   .grad of a leaf is now", event.grad.tolist())


x.grad = w.grad = None
y = (x * w).exp().sum()
with tt.autograd.graph.listen(show):
    y.backward()

# %% [markdown]
# Adding is right when a leaf is used twice in one graph: $L = \sum (3p + p^2)$ reaches $p$ along two paths,
# $\frac{\partial L}{\partial p} = 3 + 2p$. But it also adds across **calls**: a second `backward()` adds its
# gradient to the first one's. That is why a training loop calls `optimizer.zero_grad()` (it sets `.grad`
# to `None`) before each backward; forget it and the second step's gradient is doubled:

# %%
p = tt.tensor([1.0, 2.0], requires_grad=True)
opt = tt.optim.SGD([p], lr=0.1)
for step in range(2):
    loss = (3 * p + p * p).sum()
    loss.backward()                    # (no opt.zero_grad() before it!)
    print("step", step, "p.grad =", p.grad.tolist())
opt.zero_grad()
print("after zero_grad:", p.grad)

# %% [markdown]
# The backward pass is made of ordinary ops (the formulas are teachtorch ops), so it goes through the same
# dispatcher as forward, and a dispatch trace shows it, each op tagged with the node it ran for. `q * q`
# uses `q` twice, so `MulBackward0` makes two gradients for it, and the `add` sums them:

# %%
q = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = (q * q).sum()
with tt.dispatch.trace() as t:
    z.backward()
for e in t.ops():
    print(f"{e.backward_node or '(start)':14} {e.aten_name}")

# %% [markdown]
# In the source: the engine is `teachtorch/autograd/engine.py` (`execute`, `compute_dependencies`,
# `evaluate_function`), the leaf's node is `AccumulateGrad` in `teachtorch/autograd/node.py`. In PyTorch:
# `torch/csrc/autograd/engine.cpp` (`Engine::execute`, `evaluate_function`) and
# `torch/csrc/autograd/functions/accumulate_grad.cpp`.

# %% [markdown]
# ## 5. Broadcasting, backwards
#
# In `a + b` with `a` of shape (3, 4) and `b` of shape (4,), broadcasting uses each element of `b` in all 3
# rows. So each of those 3 uses sends it a gradient, and they add up:
# $\frac{\partial L}{\partial b_j} = \sum_i \frac{\partial L}{\partial \text{out}_{ij}}$. The gradient of a
# broadcast input is the incoming gradient **summed back to the input's shape** ("un-broadcasting"):
#
# - sum over the **leading** dims that broadcasting added in front (`b` had 1 dim, the output 2);
# - sum over the dims where the input had **size 1** and the output more, with `keepdim=True`, so that a
#   (3, 1) input gets a (3, 1) gradient, not a (3,) one.

# %%
a2 = tt.ones(3, 4, requires_grad=True)
b2 = tt.zeros(4, requires_grad=True)
c2 = tt.zeros(3, 1, requires_grad=True)
(a2 + b2 + c2).backward(gradient=tt.ones(3, 4))
print("b2.grad", tuple(b2.grad.shape), b2.grad.tolist())
print("c2.grad", tuple(c2.grad.shape), c2.grad.tolist())

# %% [markdown]
# Where does that happen? Not in `add`'s formula (it is just `grad`), nor in `mul`'s: `grad * self` has the
# output's shape (in section 1's picture `MulBackward0` made a (2, 3) gradient for `w`, yet the edge into `w`
# says (3)). The **engine** sums every gradient back to its input's shape before passing it on:
# `validate_outputs` in `teachtorch/autograd/engine.py` calls `sum_to` in
# `teachtorch/autograd/functions_manual.py`; in PyTorch, `validate_outputs` in
# `torch/csrc/autograd/engine.cpp` calls `InputMetadata::reduce_grad`, which is `at::sum_to`. It does it for
# your `Function`s too. Write it yourself anyway: a hand-written backward (lesson 10, or NumPy code with no
# engine) must, and the check below looks at the shapes your formula returns, before any engine sees them.
#
# ### Exercise 1: the backward of a broadcast `a * b`
#
# Write `unbroadcast(grad, shape)`, the sum back to `shape` described above; it is the whole backward of
# `a + b`: `(unbroadcast(grad, a.shape), unbroadcast(grad, b.shape))`. Then write
# `mul_backward(grad, a, b)`, which returns `(grad_a, grad_b)` for `a * b`: each input's gradient is `grad`
# times the *other* input, un-broadcast to the input's shape. The check runs it on broadcast shapes (a 0-d
# `a` too), compares each gradient with teachtorch's autograd (shape, dtype, values), and runs `gradcheck`
# on a `Function` whose backward is yours. Careful: `g.sum(dim=())` sums *everything*, as in PyTorch.
#
# Stuck? `hint("L08.mul_backward")` gives a hint; call it again for the next one:

# %%
hint("L08.mul_backward")

# %%
def unbroadcast(grad, shape):
    ### BEGIN SOLUTION
    lead = grad.dim() - len(shape)                      # dims broadcasting added in front
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    stretched = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    if stretched:
        grad = grad.sum(dim=stretched, keepdim=True)    # keep them, as size 1
    return grad
    ### END SOLUTION


def mul_backward(grad, a, b):
    ### BEGIN SOLUTION
    return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)
    ### END SOLUTION


# %%
check("L08.mul_backward", mul_backward)

# %% [markdown]
# With `unbroadcast` you have `add`'s backward too; compare it with what autograd gave `b2` and `c2` above:

# %%
try:
    g = tt.ones(3, 4)
    print(unbroadcast(g, (4,)).tolist(), unbroadcast(g, (3, 1)).tolist())
except NotImplementedError:
    print("(write unbroadcast in exercise 1 first)")

# %% [markdown]
# ## 6. Reductions: the backward of `sum(dim)`
#
# For `y = x.sum(1)` with `x` of shape (3, 4), $y_i = \sum_j x_{ij}$, so
# $\frac{\partial L}{\partial x_{ij}} = \frac{\partial L}{\partial y_i}$: each row of the input gets its output
# element's gradient, copied along the summed dim. So the backward of a sum is an **expand**, just as the
# backward of broadcasting (an expand) was a sum. The trap is the shape: with `keepdim=False` the summed dim
# is gone from `grad`, and broadcasting happily lines a (3,) gradient up with the **last** dim instead:

# %%
grad = tt.tensor([1.0, 2.0, 3.0])
x3 = tt.ones(3, 3)
print("x3.sum(1) has shape", tuple(x3.sum(1).shape), "; with keepdim:", tuple(x3.sum(1, keepdim=True).shape))
print("grad.expand(3, 3):             ", grad.expand(3, 3).tolist(), " (wrong: rows should be constant)")
print("grad.unsqueeze(1).expand(3, 3):", grad.unsqueeze(1).expand(3, 3).tolist())

# %% [markdown]
# ### Exercise 2: the backward of `x.sum(dim, keepdim)`
#
# Write `sum_backward(grad, shape, dim, keepdim)`: the gradient of `x` (of this `shape`) given the gradient of
# `x.sum(dim, keepdim=keepdim)`. `dim` is one int and may be negative. PyTorch's formula is `sum_backward` in
# `torch/csrc/autograd/FunctionsManual.cpp`; teachtorch's is `_sum_backward` in
# `teachtorch/autograd/derivatives/reductions.py`.

# %%
def sum_backward(grad, shape, dim, keepdim):
    ### BEGIN SOLUTION
    if not keepdim:
        grad = grad.unsqueeze(dim)        # put the summed dim back, as size 1
    return grad.expand(shape)
    ### END SOLUTION


# %%
check("L08.sum_backward", sum_backward)

# %% [markdown]
# ## 7. The matrix product
#
# For $C = AB$ with $A$ of shape $(n, m)$ and $B$ of shape $(m, p)$, $C_{ij} = \sum_k A_{ik} B_{kj}$. With
# $G = \frac{\partial L}{\partial C}$ (shape $(n, p)$), the chain rule gives
#
# $$\frac{\partial L}{\partial A_{ik}} = \sum_j G_{ij} B_{kj} \;\Rightarrow\; \frac{\partial L}{\partial A} = G B^\top,
# \qquad \frac{\partial L}{\partial B} = A^\top G.$$
#
# The shapes check it: $G B^\top$ is $(n, p)(p, m) = (n, m)$, the shape of $A$. If you are unsure of a
# transpose, write the shapes down: only one arrangement fits (except when they are all equal, which is why
# the check starts with square matrices). A batched product (`a` of shape (B, n, m)) does the same per batch:
# transpose only the last two dims (`x.mT`).
#
# ### Exercise 3: the backward of `a @ b`
#
# Write `matmul_backward(grad, a, b)` returning `(grad_a, grad_b)`, for 2-D `a`, `b` and for 3-D ones with
# the same batch size. teachtorch's formulas are `mm_mat1_backward` and `mm_mat2_backward` in
# `teachtorch/autograd/derivatives/linalg.py` (PyTorch: the same names in
# `torch/csrc/autograd/FunctionsManual.cpp`, and `mm` / `bmm` in `tools/autograd/derivatives.yaml`).

# %%
def matmul_backward(grad, a, b):
    ### BEGIN SOLUTION
    return grad @ b.mT, a.mT @ grad
    ### END SOLUTION


# %%
check("L08.matmul_backward", matmul_backward)

# %% [markdown]
# ## 8. All of it in one layer
#
# A linear layer `xb @ W + bias`, summed over each row, uses all three: `MmBackward0` for the product,
# `AddBackward0` with a broadcast `bias`, `SumBackward1` for `sum(dim=1)`. Its output has one number per row,
# so backward needs a `gradient=` (ones: the sum of the rows' losses). Run it in the picture and read the
# gradients' shapes on the edges: `AddBackward0` sends a (4, 2) gradient towards `bias`, and the edge into
# `bias`'s `AccumulateGrad` says (2): the engine summed it back to `bias`'s shape on the way.

# %%
xb = tt.randn(4, 3, dtype=tt.float64)
W = tt.randn(3, 2, dtype=tt.float64, requires_grad=True)
bias = tt.zeros(2, dtype=tt.float64, requires_grad=True)
h = xb @ W
out = (h + bias).sum(dim=1)                      # shape (4,): not a scalar
layer = GraphView(out, params={"W": W, "bias": bias}, title="out = (xb @ W + bias).sum(dim=1)")
layer.backward(out, gradient=tt.ones(4, dtype=tt.float64))
layer

# %% [markdown]
# The same gradients from your three formulas, run backwards by hand, in the order the engine ran them:

# %%
try:
    g = sum_backward(tt.ones(4, dtype=tt.float64), (4, 2), 1, False)       # SumBackward1
    g_h, g_bias = unbroadcast(g, h.shape), unbroadcast(g, bias.shape)     # AddBackward0
    _, g_W = matmul_backward(g_h, xb, W.detach())                          # MmBackward0
    print("W.grad matches:", tt.allclose(g_W, W.grad), "  bias.grad matches:", tt.allclose(g_bias, bias.grad))
except NotImplementedError:
    print("(solve the three exercises first)")

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | an op records a node that saves what its formula needs | `torch/csrc/autograd/node.h` (`Node`), `torch/csrc/autograd/saved_variable.h` | `teachtorch/autograd/node.py` (`Node`), `teachtorch/autograd/variable_type.py` (`record`) |
# | the table of formulas | `tools/autograd/derivatives.yaml`, `torch/csrc/autograd/FunctionsManual.cpp` | `teachtorch/autograd/derivatives/`, `teachtorch/autograd/derivative.py` |
# | `autograd.Function` and `gradcheck` | `torch/autograd/function.py`, `torch/csrc/autograd/python_function.cpp`, `torch/autograd/gradcheck.py` | `teachtorch/autograd/function.py`, `teachtorch/autograd/gradcheck.py` |
# | the engine; `.grad` accumulates | `torch/csrc/autograd/engine.cpp` (`evaluate_function`), `torch/csrc/autograd/functions/accumulate_grad.cpp` | `teachtorch/autograd/engine.py` (`execute`, `evaluate_function`), `teachtorch/autograd/node.py` (`AccumulateGrad`) |
# | a broadcast undone in backward | `torch/csrc/autograd/engine.cpp` (`validate_outputs`), `aten/src/ATen/ExpandUtils.h` (`sum_to`) | `teachtorch/autograd/engine.py` (`validate_outputs`), `teachtorch/autograd/functions_manual.py` (`sum_to`) |
# | the backward of `sum(dim)` and of `mm` | `torch/csrc/autograd/FunctionsManual.cpp` (`sum_backward`, `mm_mat1_backward`) | `teachtorch/autograd/derivatives/reductions.py` (`_sum_backward`), `teachtorch/autograd/derivatives/linalg.py` (`mm_mat1_backward`) |

# %% [markdown]
# ## Recap
#
# - Every op records a node (`grad_fn`) that saves what its formula needs; the formulas are a table
#   (`teachtorch/autograd/derivatives/`, PyTorch's `tools/autograd/derivatives.yaml`).
# - `autograd.Function`: `forward(ctx, ...)` with `ctx.save_for_backward`, `backward(ctx, grad)` returning one
#   gradient per input; `gradcheck` tests it against finite differences in float64.
# - Backward computes $v^\top J$ with $v$ the incoming `grad`; a non-scalar output needs `gradient=` ("grad can
#   be implicitly created only for scalar outputs").
# - `.grad` accumulates: call `optimizer.zero_grad()` before each backward.
# - The backward of a broadcast is a sum back to the input's shape (leading dims away, size-1 dims with
#   `keepdim`); the backward of a sum is an expand (re-insert the summed dim first); the backward of
#   $C = AB$ is $G B^\top$ and $A^\top G$.
#
# **In the source:** `teachtorch/autograd/__init__.py` gives the reading order of the whole package:
# `node.py`, `derivative.py`, `variable_type.py` (records a node per op call, the Autograd dispatch key),
# `engine.py`, `function.py`, `gradcheck.py`. In PyTorch: `torch/csrc/autograd/node.h` (`Node`),
# `torch/csrc/autograd/engine.cpp`, `tools/autograd/derivatives.yaml`.
#
# **Next:** lesson 9 puts autograd together with views and in-place ops: version counters, and why
# "modified by an inplace operation" errors exist.
