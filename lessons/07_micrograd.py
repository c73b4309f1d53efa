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
# # Lesson 7: derivatives and a scalar autograd
#
# **You will learn**
# - what a derivative is as a number you can compute: a slope, measured by a **finite difference**, and
#   why the central difference in float64 is the one to trust;
# - the **chain rule** as the whole of backpropagation: each op multiplies the gradient from above by its
#   own local derivative;
# - the **computation graph** an expression leaves behind, and why backward must visit it in
#   **topological order**, adding (never overwriting) the gradients that meet at a node.
#
# **You will build** `central_difference(f, x, h)`, then Karpathy's micrograd `Value`: the `_backward`
# rule of `+`, `*`, `**`, `tanh` and `exp`, and `backward()` itself. About 60 lines in all, and the same
# algorithm as PyTorch's autograd, one number at a time.
#
# **Time:** about 60 minutes. **You need:** Python classes and closures, and the derivatives of $x^k$,
# $e^x$ and $\tanh x$ (reminded below). No tensors: every value here is one Python float.

# %%
import math
import warnings

import numpy as np

import teachtorch as tt
from teachtorch.explorer import GraphView
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson07 import value_view

# %% [markdown]
# ## 1. A derivative is a slope
#
# The derivative $f'(x)$ says how much $f$ moves when $x$ moves a little:
# $f(x + h) \approx f(x) + h\, f'(x)$ for small $h$. So we can measure it: nudge $x$ by $h$, see how far
# $f$ moved, divide by $h$. For $f(x) = 3x^2 - 4x + 5$ the rules of calculus say $f'(x) = 6x - 4$, which
# is 14 at $x = 3$. Watch the measured slope approach it as $h$ shrinks:

# %%
def f(x):
    return 3 * x ** 2 - 4 * x + 5


for h in [0.1, 0.01, 0.001, 0.0001]:
    print(f"h = {h:<7} slope = {(f(3 + h) - f(3)) / h:.6f}")

# %% [markdown]
# ## 2. How small should h be?
#
# That was the **forward difference** $\frac{f(x+h) - f(x)}{h}$. Its error shrinks like $h$ (Taylor:
# the next term is $\frac{h}{2} f''(x)$). The **central difference** looks both ways,
#
# $$f'(x) \approx \frac{f(x+h) - f(x-h)}{2h},$$
#
# and the $h^2$ terms cancel: its error shrinks like $h^2$. But $h$ cannot go to 0 on a computer: $f$ is
# only known to about $\varepsilon |f|$ ($\varepsilon \approx 10^{-16}$ in float64, $6 \cdot 10^{-8}$ in
# float32), and dividing by $h$ blows that rounding error up by $1/h$. The total error is a "V": too big a
# step is inaccurate, too small a step is noise. Here is $\sin$ at $x = 1$, whose derivative is $\cos 1$:

# %%
x0, exact = 1.0, math.cos(1.0)
print(f"{'h':>7} {'forward, f64':>13} {'central, f64':>13} {'central, f32':>13}")
for k in range(1, 13):
    h = 10.0 ** -k
    fwd = (math.sin(x0 + h) - math.sin(x0)) / h
    cen = (math.sin(x0 + h) - math.sin(x0 - h)) / (2 * h)
    x32, h32 = np.float32(x0), np.float32(h)
    cen32 = (np.sin(x32 + h32) - np.sin(x32 - h32)) / (np.float32(2) * h32)
    print(f"{h:7.0e} {abs(fwd - exact):13.1e} {abs(cen - exact):13.1e} {abs(float(cen32) - exact):13.1e}")

# %% [markdown]
# The forward difference is best near $h = 10^{-8}$ (error $\sim 10^{-8}$); the central one near
# $h = 10^{-5}$ (error $\sim 10^{-11}$); in float32 nothing gets better than $\sim 10^{-5}$. That is why
# PyTorch checks gradients with **central differences in float64**: `torch.autograd.gradcheck`
# (`torch/autograd/gradcheck.py`, step `eps=1e-6`) warns when an input is not float64, and in float32 it
# usually fails a correct formula. teachtorch's copy, `teachtorch/autograd/gradcheck.py`, does the same:

# %%
for dtype in (tt.float32, tt.float64):
    x = tt.tensor([1.0], dtype=dtype, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the float32 warning: we know
        print(dtype, "gradcheck(sin):", tt.autograd.gradcheck(tt.sin, (x,), raise_exception=False))

# %% [markdown]
# ### Exercise 1: the central difference
#
# Write `central_difference(f, x, h)`: the slope of `f` at `x` from `f(x + h)` and `f(x - h)`. The check
# calls it on random smooth functions (sums of sin, cos, exp, tanh and powers) with $h$ between
# $10^{-5}$ and $10^{-4}$, and compares with their exact derivatives: a forward difference is not close
# enough. Stuck? `hint("L07.central_difference")`.

# %%
def central_difference(f, x, h):
    ### BEGIN SOLUTION
    return (f(x + h) - f(x - h)) / (2 * h)
    ### END SOLUTION


# %%
check("L07.central_difference", central_difference)

# %% [markdown]
# ## 3. The chain rule
#
# A neuron computes $y = \tanh(n)$ with $n = w x + b$. How does $y$ depend on $w$? Through $n$: if $w$
# moves by a little, $n$ moves $x$ times as much, and $y$ moves $\tanh'(n) = 1 - \tanh^2 n$ times as much
# as $n$. The **chain rule** multiplies the two:
#
# $$\frac{\partial y}{\partial w} = \frac{\partial y}{\partial n} \cdot \frac{\partial n}{\partial w}
#   = (1 - \tanh^2 n) \cdot x$$
#
# That is all backpropagation is: start at the output with $\frac{\partial y}{\partial y} = 1$, and
# walk back through the ops, each one multiplying the gradient that reached it by its own **local
# derivative**. No op needs to know anything about the rest of the expression.

# %%
x, w, b = 0.5, -1.2, 0.3
n = w * x + b
by_chain_rule = (1 - math.tanh(n) ** 2) * x
print("chain rule:       ", by_chain_rule)
try:
    print("central difference:", central_difference(lambda w: math.tanh(w * x + b), w, 1e-5))
except NotImplementedError:
    print("(write central_difference in exercise 1 first)")

# %% [markdown]
# ## 4. A Value remembers how it was made
#
# To run the chain rule backwards, every number must remember where it came from. micrograd's `Value`
# wraps one float and keeps:
#
# | field | what |
# |---|---|
# | `data` | the number |
# | `grad` | $\frac{\partial \text{out}}{\partial \text{this}}$, filled in by backward; 0 until then |
# | `_prev` | the Values it was made from (its inputs; empty for a leaf) |
# | `_op` | the op that made it, for the picture |
# | `_backward` | a closure: given `out.grad`, add each input's share into the input's `.grad` |
#
# Each op makes `out` and gives it a `_backward` that knows the op's local derivatives:
#
# | op | $\partial\,\text{out} / \partial\,\text{self}$ | $\partial\,\text{out} / \partial\,\text{other}$ |
# |---|---|---|
# | `self + other` | $1$ | $1$ |
# | `self * other` | $\text{other}$ | $\text{self}$ |
# | `self ** k` ($k$ a constant) | $k \cdot \text{self}^{k-1}$ | |
# | `self.tanh()` | $1 - \tanh^2(\text{self}) = 1 - \text{out}^2$ | |
# | `self.exp()` | $e^{\text{self}} = \text{out}$ | |
#
# Two rules for the closures. **Multiply** by `out.grad` (the chain rule). **Add** with `+=`, never
# assign: a Value used twice (in `a + a`, or by two later ops) gets a gradient from each use, and its
# `.grad` must be their sum. `relu` is written for you as the model; `-`, `/` and the reversed ops are
# made of the others, so they need no closure of their own.
#
# ### Exercise 2: the backward closures
#
# Fill in the five `_backward` closures. The check builds one op at a time with your class, puts a
# gradient in `out.grad` (and sometimes one already in the inputs' `.grad`), runs `out._backward()`,
# and compares the inputs' `.grad` with teachtorch's autograd (float64) on the same op.

# %%
class Value:
    """A number that remembers how it was made (micrograd's Value)."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None        # a leaf passes nothing on
        self._prev = tuple(_children)        # micrograd keeps a set; a tuple keeps the picture in order
        self._op = _op

    def __repr__(self):
        return f"Value(data={self.data:.4f}, grad={self.grad:.4f})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            ### BEGIN SOLUTION
            self.grad += out.grad
            other.grad += out.grad
            ### END SOLUTION
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            ### BEGIN SOLUTION
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
            ### END SOLUTION
        out._backward = _backward
        return out

    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only a constant exponent"
        out = Value(self.data ** k, (self,), f"**{k}")

        def _backward():
            ### BEGIN SOLUTION
            self.grad += k * self.data ** (k - 1) * out.grad
            ### END SOLUTION
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            ### BEGIN SOLUTION
            self.grad += (1 - t ** 2) * out.grad
            ### END SOLUTION
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            ### BEGIN SOLUTION
            self.grad += out.data * out.grad
            ### END SOLUTION
        out._backward = _backward
        return out

    def relu(self):                          # written for you: the model for the others
        out = Value(0 if self.data < 0 else self.data, (self,), "relu")

        def _backward():
            self.grad += (out.data > 0) * out.grad
        out._backward = _backward
        return out

    # made of the ops above: no _backward of their own
    def __neg__(self): return self * -1
    def __sub__(self, other): return self + (-other)
    def __truediv__(self, other): return self * other ** -1
    def __radd__(self, other): return self + other
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __rtruediv__(self, other): return other * self ** -1


# %%
check("L07.value_ops", Value)

# %% [markdown]
# ## 5. The graph
#
# Computing with Values builds a graph as a side effect: each Value points to its inputs. Here is
# Karpathy's first example. `value_view` (in `teachtorch/exercises/lesson07.py`) draws it with the
# explorer's Graphviz helpers (`teachtorch/explorer/graph_diagram.py`): blue boxes are the leaves you
# made, grey boxes the ops, where each `_backward` lives, and the green box is the output. Nothing has
# run backward yet, so every `grad` is 0.

# %%
a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
e = a * b
d = e + c
L = d * f
value_view(L)

# %% [markdown]
# teachtorch's tensors record the same graph, one node per op, when they require grad (lesson 8 opens it
# up). The same expression, in the explorer's own GraphView: grey `MulBackward0` / `AddBackward0` nodes
# instead of the ops, and an `AccumulateGrad` under each leaf, the node that adds into its `.grad`.

# %%
at, bt, ct, ft = (tt.tensor(v, dtype=tt.float64, requires_grad=True) for v in (2.0, -3.0, 10.0, -2.0))
Lt = (at * bt + ct) * ft
GraphView(Lt, params={"a": at, "b": bt, "c": ct, "f": ft})

# %% [markdown]
# ## 6. Backward, in the right order
#
# By hand: seed $\frac{\partial L}{\partial L} = 1$, then run the closures from the output down.
# `L._backward()` fills `d.grad` and `f.grad`; only then is `d.grad` complete, so `d._backward()` may run,
# and so on:

# %%
try:
    L.grad = 1.0
    for v in (L, d, e):                      # each after every Value that uses it
        v._backward()
    print("a.grad", a.grad, " b.grad", b.grad, " c.grad", c.grad, " f.grad", f.grad)
except NotImplementedError:
    print("(write the closures in exercise 2 first)")

# %% [markdown]
# Check by the chain rule: $L = (ab + c) f$, so $\frac{\partial L}{\partial a} = b f = 6$ and
# $\frac{\partial L}{\partial f} = ab + c = 4$.
#
# In general the order must be **topological**: a Value's `_backward` runs only after every Value made
# from it has run its own, because until then its `.grad` is missing some gradients. One way to get
# that order: a depth-first walk from the output that appends a Value *after* all its inputs (each Value
# once). In that list every Value comes after its inputs; reversed, after everything that uses it.
#
# PyTorch does it differently, with the same result: its engine (`torch/csrc/autograd/engine.cpp`) first
# **counts**, for each node, how many gradients will reach it (`compute_dependencies`), then runs a node
# when its count drops to 0. teachtorch's engine follows it step by step: `teachtorch/autograd/engine.py`
# (`compute_dependencies`, `evaluate_function`).
#
# ### Exercise 3: backward()
#
# Write `backward(self)`: build the topological order of the graph behind `self`, seed `self.grad = 1.0`,
# then call every Value's `_backward` in reverse order. The line after the function attaches it to the
# class (writing it inside the class is the same; if you change the class above, run this cell again so
# that the new class gets it too). The check runs `out.backward()` on micrograd's own
# tests and on random expressions whose Values are used more than once, against teachtorch's autograd.

# %%
def backward(self):
    ### BEGIN SOLUTION
    topo, visited = [], set()

    def build(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build(child)
            topo.append(v)
    build(self)
    self.grad = 1.0
    for v in reversed(topo):
        v._backward()
    ### END SOLUTION


Value.backward = backward

# %%
check("L07.topo_backward", Value)

# %% [markdown]
# ## 7. Watch it, and check it
#
# micrograd's own test (`test_more_ops` in test/test_engine.py of karpathy/micrograd) builds this
# expression and checks it against PyTorch: $g = 24.7041$, $\frac{\partial g}{\partial a} = 138.8338$,
# $\frac{\partial g}{\partial b} = 645.5773$. `c += ...` makes a new Value each time, so `c` is used many
# times over:

# %%
try:
    a, b = Value(-4.0), Value(2.0)
    c = a + b
    d = a * b + b ** 3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e ** 2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    print(f"g = {g.data:.4f}   a.grad = {a.grad:.4f}   b.grad = {b.grad:.4f}")
except NotImplementedError:
    print("(finish exercises 2 and 3 first)")

# %% [markdown]
# Now a neuron, $o = \tanh(x_1 w_1 + x_2 w_2 + b)$, backward watched: `value_view(o, backward=True)` runs
# your `o.backward()` and notes each `_backward` as it runs. Press ◀ / ▶ (or the arrow keys) to step
# through: the grey op box whose `_backward` runs lights up, then the edges its gradients flow along, up
# to its inputs. An op box runs only once every op below it that uses its output has run.

# %%
x1, x2, w1, w2, b = Value(2.0), Value(0.0), Value(-3.0), Value(1.0), Value(6.8813735870195432)
n = x1 * w1 + x2 * w2 + b
o = n.tanh()
try:
    view = value_view(o, backward=True)
except NotImplementedError:
    print("(finish exercises 2 and 3 first: here is the graph without backward)")
    view = value_view(o)
view

# %% [markdown]
# The same neuron in teachtorch, with `GraphView.backward`, which watches teachtorch's engine through its
# events: the order it runs the nodes in is a topological order too.

# %%
x1t, x2t, w1t, w2t, bt = (tt.tensor(v, dtype=tt.float64, requires_grad=True)
                          for v in (2.0, 0.0, -3.0, 1.0, 6.8813735870195432))
ot = (x1t * w1t + x2t * w2t + bt).tanh()
engine_view = GraphView(params={"x1": x1t, "x2": x2t, "w1": w1t, "w2": w2t, "b": bt})
engine_view.backward(ot)
print("teachtorch:", [round(t.grad.item(), 4) for t in (x1t, x2t, w1t, w2t, bt)])
print("your Value:", [round(v.grad, 4) for v in (x1, x2, w1, w2, b)])
engine_view

# %% [markdown]
# Last, the gradient check that `gradcheck` automates: nudge one input, rebuild the whole expression, and
# compare the central difference with the gradient backward found.

# %%
def neuron(x1, x2, w1, w2, b):
    return (Value(x1) * w1 + Value(x2) * w2 + b).tanh().data


try:
    numeric = central_difference(lambda w: neuron(2.0, 0.0, w, 1.0, 6.8813735870195432), -3.0, 1e-5)
    print(f"d o / d w1: backward {w1.grad:.8f}, central difference {numeric:.8f}")
except NotImplementedError:
    print("(write central_difference in exercise 1 first)")

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | gradient check by central differences | `torch/autograd/gradcheck.py` (`gradcheck`) | `teachtorch/autograd/gradcheck.py` (`gradcheck`) |
# | a value that remembers how it was made: a node | `torch/csrc/autograd/node.h` (`Node`) | `teachtorch/autograd/node.py` (`Node`) |
# | each op's local derivative | `tools/autograd/derivatives.yaml`, `torch/csrc/autograd/FunctionsManual.cpp` | `teachtorch/autograd/derivatives/pointwise.py` |
# | backward in order, by counting dependencies | `torch/csrc/autograd/engine.cpp` (`compute_dependencies`) | `teachtorch/autograd/engine.py` (`compute_dependencies`) |
# | `.grad` adds up | `torch/csrc/autograd/functions/accumulate_grad.h` (`AccumulateGrad`) | `teachtorch/autograd/node.py` (`AccumulateGrad`) |

# %% [markdown]
# ## Recap
#
# - A derivative is a slope. The central difference $\frac{f(x+h) - f(x-h)}{2h}$ is accurate to $h^2$;
#   in float64 with $h \approx 10^{-5}$ to $10^{-6}$ it checks a gradient to many digits. PyTorch's
#   `gradcheck` does exactly that.
# - The chain rule: a gradient reaching an op's output times the op's local derivative is the gradient
#   of its input. An op only needs its own rule.
# - Forward records a graph (`_prev`); backward seeds the output with 1 and runs each node's rule in
#   **reverse topological order**, **adding** into `.grad`: a value used twice gets both gradients.
#
# **In the source:** your `Value` is the whole of micrograd's engine (micrograd/engine.py in
# karpathy/micrograd). teachtorch's autograd does the same on tensors: a node per op
# (`teachtorch/autograd/node.py`), a formula per op (`teachtorch/autograd/derivatives/pointwise.py`),
# and an engine that orders backward by counting dependencies (`teachtorch/autograd/engine.py`; in
# PyTorch `torch/csrc/autograd/engine.cpp`). Gradient checking: `teachtorch/autograd/gradcheck.py`, in
# PyTorch `torch/autograd/gradcheck.py`.
#
# **Next:** lesson 8 does this for tensors: a gradient per element, broadcasting undone in backward, and
# the formulas of `mul`, `sum(dim)` and `matmul`.
