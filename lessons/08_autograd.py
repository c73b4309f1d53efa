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
# # Autograd: the graph, the engine, and what in-place ops do to them
#
# Everything here behaves as in PyTorch, and every piece is a short file in
# `teachtorch/autograd/` that you can open next to this lesson:
#
# | what | file |
# |---|---|
# | the graph's nodes | `node.py` |
# | recording a node per op (the Autograd dispatch key) | `variable_type.py` |
# | the backward formulas | `derivatives/*.py` |
# | running backward | `engine.py` |
# | views and in-place ops | `variable.py`, `views.py` |

# %%
import teachtorch as tt

# %% [markdown]
# ## 1. Ops record a graph
#
# A tensor that `requires_grad` is a **leaf**. Every op on it makes a **node**
# (`grad_fn`) that knows how to compute the gradient of its inputs from the
# gradient of its output. `next_functions` points from a node to the nodes of
# its inputs: the graph points *backwards*.

# %%
x = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = tt.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).exp().sum()
print(y)
print(y.grad_fn, "->", y.grad_fn.next_functions)
mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
print(mul.name(), "->", mul.next_functions)

# %% [markdown]
# A node keeps what its formula needs. `MulBackward0` saved both inputs,
# since d(x*w)/dx = w and d(x*w)/dw = x. `ExpBackward0` saved its *result*,
# since d exp(u)/du = exp(u). The formulas live in
# `teachtorch/autograd/derivatives/pointwise.py`, written with ordinary
# teachtorch ops.

# %%
print(mul._saved_self is x, mul._saved_other is w)
for info in tt.autograd.graph.walk(y).nodes:
    print(f"{info.name:16} saved: {[s['name'] for s in info.saved]}")

# %% [markdown]
# ## 2. The engine walks the graph backwards
#
# `backward()` counts, for every node, how many gradients it waits for, then
# runs the nodes whose gradients have all arrived, newest first. Two gradients
# that reach the same input are summed. Watch it with the event stream:

# %%
def show(event):
    if event.kind == "node_started":
        print("run", event.node_name)
    elif event.kind == "accumulated":
        print("   .grad of a leaf is now", event.grad.tolist())


with tt.autograd.graph.listen(show):
    y.backward()
print("x.grad =", x.grad)
print("check  =", (w * (x * w).exp()).detach())

# %% [markdown]
# The backward pass is made of ordinary ops, so it goes through the same
# dispatcher, and a dispatch trace shows it, each op tagged with the node it
# ran for:

# %%
x.grad = None
z = (x * x).sum()
with tt.dispatch.trace() as t:
    z.backward()
for e in t.ops():
    print(f"{e.backward_node or '(start)':14} {e.aten_name}")

# %% [markdown]
# ## 3. Gradients of gradients
#
# With `create_graph=True` the backward ops are recorded too, so the gradient
# has a graph of its own that we can differentiate again. For s³ the first
# derivative is 3s², the second 6s, the third 6.

# %%
s = tt.tensor(2.0, requires_grad=True)
g1, = tt.autograd.grad(s ** 3, s, create_graph=True)
g2, = tt.autograd.grad(g1, s, create_graph=True)
g3, = tt.autograd.grad(g2, s)
print(g1.item(), g2.item(), g3.item(), "   grad_fn of g1:", g1.grad_fn.name())

# %% [markdown]
# ## 4. In-place ops and saved tensors
#
# `exp` saved its result. If we change that result in place, the saved value
# is wrong, and backward would silently compute a wrong gradient. Every tensor
# has a **version counter** that each in-place op bumps; a saved tensor
# remembers the version it was saved at, and backward checks it.

# %%
a = tt.tensor([1.0, 2.0], requires_grad=True)
e = a.exp()
print("version before:", e._version)
e.add_(1)
print("version after: ", e._version)
try:
    e.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err)[:160], "...")

# %% [markdown]
# ## 5. In-place ops on views
#
# A view shares memory with its base. Writing through the view changes the
# base, so the *base's* history must change: it gets a `CopySlices` node that
# runs the in-place op's backward on the view's part of the gradient.

# %%
leaf = tt.ones(3, 2, requires_grad=True)
base = leaf.clone()
base[0].mul_(2)
print(base.grad_fn.name())
base.sum().backward()
print(leaf.grad)

# %% [markdown]
# Row 0 got gradient 2 (it was doubled), the other rows 1: the same answer
# PyTorch gives. Some writes are refused because they cannot be made right,
# for example writing to one of the views that `unbind` returned:

# %%
try:
    (leaf * 1).unbind()[0].mul_(2)
except RuntimeError as err:
    print("RuntimeError:", str(err)[:120], "...")

# %% [markdown]
# ## 6. Check a formula yourself
#
# `gradcheck` compares the formulas with finite differences (in float64).
# Here is a custom op with a **wrong** backward; gradcheck catches it.

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


u = tt.tensor([1.0, 2.0], dtype=tt.float64, requires_grad=True)
print("gradcheck passes:", tt.autograd.gradcheck(BadSquare.apply, (u,), raise_exception=False))
