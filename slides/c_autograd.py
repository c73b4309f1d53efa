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

# %% [markdown] slideshow={"slide_type": "slide"} minutes=[35, 40] timing=30
# # Autograd from the inside
#
# The graph, the engine's order, saved tensors, version counters, and how to test a gradient
#
# A talk of 35–40 minutes; every picture is drawn by teachtorch as it runs

# %% slideshow={"slide_type": "skip"}
import math
import textwrap
import warnings

import teachtorch as tt
from teachtorch.autograd import engine
from teachtorch.exercises.lesson07 import value_view
from teachtorch.explorer import GraphView, StorageView
from teachtorch.explorer.frames import step_through


def say(err, width=68, lines=6):
    """An error message, wrapped to fit a slide."""
    text = f"{type(err).__name__}: {err}"
    print("\n".join(textwrap.wrap(text, width)[:lines]))


class Value:
    """micrograd's Value (lesson 7): a float that knows its history."""

    def __init__(self, data, children=(), op=""):
        self.data, self.grad = data, 0.0
        self._backward = lambda: None
        self._prev, self._op = tuple(children), op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## The code you write
#
# One step of an RNN cell (Edward Yang's example in "PyTorch internals")

# %% slideshow={"slide_type": "-"}
tt.manual_seed(0)
W_h = tt.randn(3, 3, requires_grad=True)
W_x = tt.randn(3, 2, requires_grad=True)
x, prev_h = tt.randn(1, 2), tt.randn(1, 3)

h2h = tt.mm(W_h, prev_h.t())
i2h = tt.mm(W_x, x.t())
next_h = (h2h + i2h).tanh()
loss = next_h.sum()
print(loss, loss.grad_fn.name())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this is all the user writes, forward only. Two weight matrices require grad; the input and
# the previous hidden state do not. Point at `loss.grad_fn`: the result already knows the last op that made
# it. Question: "where is the backward of this code? Nobody wrote it." Next slide: autograd writes it, as it
# runs forward.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=110
# ## The code autograd writes
#
# Every op that `loss.backward()` ran, and the node it ran for

# %% slideshow={"slide_type": "-"}
with tt.dispatch.trace() as trace:
    loss.backward()
for op in trace.ops():
    shape = tuple(op.outputs[0].sizes)
    print(f"{op.backward_node:14} {op.aten_name:27} -> {shape}")

# %% [markdown] slideshow={"slide_type": "fragment"}
# ```python
# g = ones(()).expand(3, 1)         # SumBackward0
# g = tanh_backward(g, next_h)      # TanhBackward0: g * (1 - next_h**2)
# W_h.grad = g @ prev_h             # MmBackward0
# W_x.grad = g @ x                  # MmBackward0
# ```

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: Yang's diagram puts the forward code next to the backward code autograd "generates":
# `grad_next_h`, `tanh_backward`, two `mm`s. Here it is for real: a dispatch trace of the backward pass,
# each op tagged with the backward node that called it. Backward is made of ordinary ops, through the same
# dispatcher as forward. `AddBackward0` does no work at all (it passes the gradient on), and the two leaves'
# `AccumulateGrad` nodes just keep the tensor they are given. Reveal the fragment: the same four lines written
# by hand. The rest of the talk: how that list gets made, in which order, and what it needs to keep.

# %% [markdown] slideshow={"slide_type": "slide"} timing=100
# ## Reverse mode on one number
#
# micrograd (Karpathy): each op returns a value *and* a closure that knows its local derivative

# %% slideshow={"slide_type": "-"}
def mul(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():                  # chain rule: local * upstream
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad
    out._backward = _backward
    return out


Value.__mul__ = mul

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this is lesson 7's `Value`, one float. Each op builds `out` and hangs a closure on it: given
# `out.grad`, add each input's share into the input's `.grad`. Two rules: multiply by `out.grad` (chain rule),
# and `+=`, never `=`: a value used twice gets a gradient from each use. Ask: "what goes wrong with `=` in
# `a * a`?" (half the gradient is lost).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## Backward: closures in reverse topological order

# %% slideshow={"slide_type": "-"}
def backward(self):
    order, seen = [], set()
    def visit(v):                     # put v after all its inputs
        if v not in seen:
            seen.add(v)
            for child in v._prev:
                visit(child)
            order.append(v)
    visit(self)
    self.grad = 1.0
    for v in reversed(order):         # after everything that uses it
        v._backward()
Value.backward = backward

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a closure may run only when its output's `.grad` is complete, that is after every value made
# from it has run its own closure. A depth-first walk gives an order where each value comes after its
# inputs; reversed, it comes after everything that uses it. Seed with 1 and run. That is the whole algorithm
# of reverse mode; PyTorch's engine does the same on tensors, but orders by counting (section 3).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## Watch it run: one `_backward` per key press

# %% slideshow={"slide_type": "-"}
x1, w1, b = Value(2.0), Value(-3.0), Value(6.8813735870195432)
o = (x1 * w1 + b).tanh()                # one neuron
step_through(value_view(o, backward=True))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: press the arrow: each step lights the op whose `_backward` runs, then the edges its gradients
# flow along. `tanh` runs first (it is last in forward), then `+`, then `*`. $b$ was chosen so that
# $o = \tanh(0.8814) = 0.7071$ and $1 - o^2 = 0.5$: the gradient below tanh is 0.5. Then
# $\partial o / \partial w = x \cdot 0.5 = 1$ and $\partial o / \partial x = w \cdot 0.5 = -1.5$: each input's
# gradient is the *other* input times the upstream gradient. Question: "what is $\partial o / \partial b$?" (0.5).

# %% [markdown] slideshow={"slide_type": "slide"} timing=100
# ## Tensors: each op records a node, with what its formula needs

# %% slideshow={"slide_type": "-"}
x = tt.tensor([[1., 2., 3.], [0., -1., .5]], requires_grad=True)
w = tt.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).exp().sum()
mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
print(mul.name(), "saved x, w:", mul._saved_self is x,
      mul._saved_other is w)
GraphView(y, params={"x": x, "w": w})

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: blue boxes are leaves, grey the backward nodes, orange what each node saved (shape, dtype,
# version), green the output. `next_functions` points from a node to its inputs' nodes: the graph points
# backwards, and each leaf has an `AccumulateGrad` node that will write its `.grad`.
# $\partial(xw)/\partial x = w$, so `MulBackward0` saved both inputs; $\frac{d}{du} e^u = e^u$, so
# `ExpBackward0` saved its *output*; `SumBackward0` needs only a shape. In PyTorch the formulas are one table,
# `tools/autograd/derivatives.yaml`, and a generator writes a node class per entry that saves the names the
# formula reads. teachtorch's table is `teachtorch/autograd/derivatives/`, read by
# `teachtorch/autograd/derivative.py`. The names `_saved_self`, `_saved_other`, `_saved_result` are PyTorch's too.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## An op of your own: `Function`, `ctx`, saved tensors

# %% slideshow={"slide_type": "-"}
class Mul(tt.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)     # version-checked, freed later
        return a * b

    @staticmethod
    def backward(ctx, grad):            # one gradient per input
        a, b = ctx.saved_tensors
        return grad * b, grad * a


# %% slideshow={"slide_type": "fragment"}
a = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = tt.tensor([4.0, 5.0, 6.0], requires_grad=True)
out = Mul.apply(a, c)
out.sum().backward()
print(out.grad_fn.name(), " a.grad =", a.grad.tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the same API as `torch.autograd.Function`. `forward` gets a `ctx`; `save_for_backward` stores
# tensors the way built-in nodes do (with their version, freed after backward). `backward` gets the gradient
# of the output and returns one gradient per input of forward. The node it records *is* the ctx, named after
# your class (`MulBackward`). teachtorch: `teachtorch/autograd/function.py`; PyTorch:
# `torch/autograd/function.py`.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## `.grad` adds up
#
# $L = \sum (3p + p^2)$ reaches `p` along two paths: $\partial L / \partial p = 3 + 2p$

# %% slideshow={"slide_type": "-"}
p = tt.tensor([1.0, 2.0], requires_grad=True)
for step in range(2):
    loss_p = (3 * p + p * p).sum()
    loss_p.backward()                 # no zero_grad() before it
    print("step", step, " p.grad =", p.grad.tolist())
p.grad = None                     # what optimizer.zero_grad() does
print("after zero_grad:", p.grad)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: within one backward, two gradients meeting at one place are summed: that is right. But the
# leaf's `AccumulateGrad` node also *adds* across calls: step 1 shows 10 and 14, twice the true gradient.
# That is why a training loop calls `optimizer.zero_grad()` (set to `None` since PyTorch 2.0). Question:
# "when would you *want* accumulation across calls?" (gradient accumulation over micro-batches).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## Broadcasting, backwards: un-broadcast
#
# An input used in many rows gets the **sum** of their gradients, back in its own shape

# %% slideshow={"slide_type": "-"}
m = tt.ones(3, 4, requires_grad=True)
row = tt.zeros(4, requires_grad=True)       # broadcast over rows
col = tt.zeros(3, 1, requires_grad=True)    # broadcast over columns
(m + row + col).backward(gradient=tt.ones(3, 4))
print("row.grad", tuple(row.grad.shape), row.grad.tolist())
print("col.grad", tuple(col.grad.shape), col.grad.tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: sum over the leading dims broadcasting added, and over the size-1 dims it stretched, with
# keepdim. Where does that happen? Not in `add`'s formula (it is just `grad`): the **engine** sums every
# gradient back to its input's shape, `validate_outputs` in `teachtorch/autograd/engine.py` calling `sum_to`
# in `teachtorch/autograd/functions_manual.py` (PyTorch: `validate_outputs` in
# `torch/csrc/autograd/engine.cpp`). A hand-written backward (lesson 10) must do it itself: deck D's first
# bug is this one forgotten.

# %% [markdown] slideshow={"slide_type": "slide"} timing=100
# ## The engine: count first
#
# For every edge A → B: `dependencies[B] += 1`. A node runs when its count is 0.

# %% slideshow={"slide_type": "-"}
s = tt.tensor([1.0, 2.0], requires_grad=True)
out2 = (s.exp() * s.sin()).sum()            # s is used twice
task = engine.GraphTask(keep_graph=True, create_graph=False)
engine.compute_dependencies(task, out2.grad_fn)
for node, count in task.dependencies.items():
    print(f"{node.name():31} waits for {count}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: micrograd sorted the graph; PyTorch's engine counts instead. One walk from the root adds one
# per incoming edge (`compute_dependencies` in `teachtorch/autograd/engine.py`, the same name in
# `torch/csrc/autograd/engine.cpp`). `s`'s `AccumulateGrad` waits for 2: it must not write `.grad` until both
# the exp path and the sin path have delivered, and the two are summed in its input buffer. Ready nodes go in a
# priority queue, highest sequence number first: the node made last in forward runs first in backward.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=120
# ## The engine, node by node

# %% slideshow={"slide_type": "-"}
view = GraphView(out2, params={"s": s})
view.backward(out2, retain_graph=True)
step_through(view)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: step through. `SumBackward0`, then `MulBackward0`, which sends one gradient to each branch.
# Then `SinBackward0` before `ExpBackward0`: both are ready, and sin was created later in forward (higher
# sequence number). `AccumulateGrad` runs last, once both have arrived: its count went 2, 1, 0. The edges
# carry the shape of the gradient that flowed. Orange boxes: the saved tensors, with their version.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=50
# ## Saved tensors are freed as backward goes

# %% slideshow={"slide_type": "-"}
u = tt.tensor([1.0, 2.0], requires_grad=True)
z = (u.exp() * u).sum()
fview = GraphView(z, params={"u": u})
fview.backward(z)                     # no retain_graph=True
fview

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the same kind of graph, run without `retain_graph`. After a node runs, the engine releases what
# it saved (PyTorch: `release_variables`, called from `evaluate_function` in `torch/csrc/autograd/engine.cpp`;
# teachtorch: step 6 in `teachtorch/autograd/engine.py`). The orange boxes now say "freed". That is what keeps
# the memory of a training step from growing: activations go as soon as their gradient is done.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## So backward cannot run twice

# %% slideshow={"slide_type": "-"}
try:
    z.backward()                      # the same graph again
except RuntimeError as err:
    say(err, lines=8)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the second backward finds the saved tensors gone and says so, with PyTorch's exact text (from
# `torch/csrc/autograd/saved_variable.cpp`). Ask: "when do you need `retain_graph=True`?" (two losses
# backpropagated separately through a shared part, or a picture like the engine's, which reads the saved
# tensors after backward). Usually the answer is to sum the losses and call backward once.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=80
# ## `retain_grad`: keep an intermediate's gradient

# %% slideshow={"slide_type": "-"}
v = tt.tensor([1.0, 2.0], requires_grad=True)
hid = v * 3                           # not a leaf
with warnings.catch_warnings():
    warnings.simplefilter("ignore")   # ".grad of a non-leaf"
    (hid * hid).sum().backward()
    print("hid.grad:", hid.grad)
hid = v * 3
hid.retain_grad()
(hid * hid).sum().backward()
print("with retain_grad:", hid.grad.tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: only leaves get `.grad`; an intermediate's gradient lives in an input buffer and is dropped
# once the next node has used it. `retain_grad()` registers a hook that copies it into `.grad` as it passes.
# Lesson 10 uses this to check every hand-written gradient against autograd (Karpathy's "backprop ninja").
# PyTorch warns when you read `.grad` of a non-leaf: we silenced it here.

# %% [markdown] slideshow={"slide_type": "slide"} timing=100
# ## Non-scalar outputs and `grad_output`
#
# Backward computes $v^\top J$; $v$ is the `grad_output`, and 1 only for a scalar

# %% slideshow={"slide_type": "-"}
q = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
yq = q * tt.tensor([4.0, 5.0, 6.0])
try:
    yq.backward()
except RuntimeError as err:
    say(err)
yq.backward(gradient=tt.tensor([1.0, 0.0, 10.0]))
print("q.grad =", q.grad.tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: for $y = f(x)$ the Jacobian is $m \times n$, but backward never builds it. Each formula gets
# $v = \partial L / \partial y$ (the `grad` argument, PyTorch's `grad_output`) and returns $v^\top J$. For
# elementwise `q * c` the Jacobian is diagonal and $v^\top J$ is `v * c`: 4, 0, 60. A non-scalar output
# needs you to say which $v$. Question: "how would you get the whole Jacobian?" (one backward per one-hot $v$:
# `torch.autograd.functional.jacobian`, and what gradcheck does).

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Who records? `requires_grad`, `no_grad`, `detach`

# %% slideshow={"slide_type": "-"}
wr = tt.tensor([1.0, 2.0], requires_grad=True)
cst = tt.tensor([3.0, 4.0])
y1 = wr * cst
print("wr * cst :", y1.requires_grad, y1.grad_fn.name())
print("cst * cst:", (cst * cst).requires_grad)
with tt.no_grad():
    print("no_grad  :", (wr * cst).requires_grad)
d = wr.detach()
print("detach   :", d.requires_grad, d.is_leaf,
      "same memory:", d.data_ptr() == wr.data_ptr())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: an op records a node only if grad mode is on *and* some input requires grad; the result then
# requires grad too (it propagates). `no_grad` turns grad mode off for the block: no nodes, but the same
# kernels (an optimizer's update runs there). `detach()` makes a tensor with no history over the *same*
# memory: it shares the storage and, next section, the version counter. In PyTorch `no_grad` only flips a
# thread-local flag; `inference_mode` goes further and skips the autograd dispatch keys (deck B).

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Every tensor counts its writes
#
# An in-place op bumps the version; a view shares the counter

# %% slideshow={"slide_type": "-"}
xv = tt.arange(6.).reshape(2, 3)
r = xv[1]                                   # a view: same counter
xv.add_(1)
r.mul_(10)
print("xv._version", xv._version, " r._version", r._version)
StorageView(xv, r)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: two writes, one through the base and one through the view: both tensors say 2, because the
# counter belongs to the memory. teachtorch: `teachtorch/dispatch/inplace_or_view.py` bumps it (PyTorch:
# `VariableVersion` in `c10/core/TensorImpl.h`, bumped by the generated ADInplaceOrView kernels). It lives on
# the tensor, not in autograd's data, so even a tensor that does not require grad is checked.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## The famous error, live

# %% slideshow={"slide_type": "-"}
xe = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
ye = xe.exp()              # ExpBackward0 saves ye, at version 0
ye.add_(1)                 # version 1
try:
    ye.sum().backward()
except RuntimeError as err:
    say(err)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `exp` saves its output (its derivative is itself). `add_` changes it. At backward, unpacking the
# saved tensor compares the version it was saved at with the version now, and refuses, with PyTorch's exact
# message: which tensor, output 0 of which op, which versions. The check is `SavedVariable.unpack` in
# `teachtorch/autograd/saved_variable.py` (PyTorch: `torch/csrc/autograd/saved_variable.cpp`). Question:
# "would `(x * x).add_(1)` raise?" (no: `mul` saves its inputs, not its output).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Without the check: a wrong gradient, silently

# %% slideshow={"slide_type": "-"}
xe = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
with tt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    ye = xe.exp()          # hooks that do nothing skip the check
ye.add_(1)
ye.sum().backward()
print("gradient given:", [round(g, 3) for g in xe.grad.tolist()])
print("right gradient:", [round(g, 3) for g in xe.exp().tolist()])

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: saved-tensor hooks are PyTorch's way to move saved tensors (to CPU, to disk); with hooks set,
# PyTorch does no version check, and neither does teachtorch. Backward then reads the *new* `ye`,
# $e^x + 1$, and hands you $e^x + 1$ as the gradient. No error, no warning: the version counter is what stands
# between an in-place op and this. Deck D comes back to it as a bug case.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=80
# ## In place into a view: `CopySlices`

# %% slideshow={"slide_type": "-"}
xc = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
bc = xc * xc
vc = bc[:2]
print("before:", bc.grad_fn.name(), "|", vc.grad_fn.name())
vc.mul_(3)                 # changes part of bc
print("after: ", bc.grad_fn.name(), "|", vc.grad_fn.name())
StorageView(bc, vc)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `bc`'s gradient must now go through the `mul_` for its first two elements only. Autograd
# *rebases* the base's history: `bc.grad_fn` becomes `CopySlices` (PyTorch prints its C++ name,
# `torch::autograd::CopySlices`, and so do we). The view's own `grad_fn` is rebuilt lazily as
# `AsStridedBackward0`, because its version moved: take the view's elements out of the base's new history.
# teachtorch: `rebase_history` in `teachtorch/autograd/variable.py`, `CopySlices` in
# `teachtorch/autograd/views.py`; PyTorch: `rebase_history` in `torch/csrc/autograd/variable.cpp`, `CopySlices`
# in `torch/csrc/autograd/functions/tensor.cpp`.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=80
# ## `CopySlices`, node by node

# %% slideshow={"slide_type": "-"}
cview = GraphView(bc, params={"x": xc})
cview.backward(bc.sum(), retain_graph=True)
print("x.grad =", xc.grad.tolist(), " (6x, 6x, 2x)")
step_through(cview)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: step through. `CopySlices` takes `bc`'s gradient, runs the in-place op's backward (the `mul_`'s
# `MulBackward0`, times the saved 3) on the view's part only, leaves the third element alone, and passes the
# result to the old `MulBackward0` of `x * x`. So `x.grad` is $2x \cdot 3$ for the first two elements and $2x$
# for the last. One more rule: an in-place op on a *leaf* that requires grad is simply refused ("a leaf
# Variable that requires grad is being used in an in-place operation."), outside `no_grad`.

# %% [markdown] slideshow={"slide_type": "slide"} timing=100
# ## Testing a gradient: `gradcheck`
#
# Compare with central differences, $\frac{f(x+\varepsilon) - f(x-\varepsilon)}{2\varepsilon}$, in float64

# %% slideshow={"slide_type": "-"}
class BadSquare(tt.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        t, = ctx.saved_tensors
        return grad * t            # should be grad * 2 * t


# %% slideshow={"slide_type": "fragment"}
a64 = tt.tensor([1.0, 2.0, 3.0], dtype=tt.float64, requires_grad=True)
c64 = tt.tensor([4.0, 5.0, 6.0], dtype=tt.float64, requires_grad=True)
print("Mul:      ", tt.autograd.gradcheck(Mul.apply, (a64, c64)))
print("BadSquare:", tt.autograd.gradcheck(BadSquare.apply, (a64,),
                                          raise_exception=False))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: gradcheck nudges each input element by $\pm\varepsilon$ and builds the Jacobian column by column,
# then compares it with the one backward gives (one backward per one-hot $v$). Float64, because in float32 the
# rounding error divided by $2\varepsilon$ swamps the answer (lesson 7 plots the "V"). It catches the missing
# factor 2. teachtorch: `teachtorch/autograd/gradcheck.py`; PyTorch: `torch/autograd/gradcheck.py`, with
# `gradgradcheck` for second derivatives.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## A backward that assumes contiguous memory

# %% slideshow={"slide_type": "-"}
class Square(tt.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        t, = ctx.saved_tensors
        rows, cols = t.shape            # bug: reads t's memory row by row
        as_if_contiguous = t.as_strided((rows, cols), (cols, 1))
        return 2 * grad * as_if_contiguous


# %% slideshow={"slide_type": "fragment"}
base = tt.tensor([[1., -2., .5], [3., 0., -1.]], dtype=tt.float64)
print("gradcheck:", tt.autograd.gradcheck(Square.apply,
                                          (base.requires_grad_(),)))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a made-up but typical bug: the backward reads its saved input through its memory as if it were
# contiguous (a NumPy kernel handed `t`'s buffer, a C++ kernel using `data_ptr` with computed strides). Ask the
# room first: "does gradcheck pass?" It does: gradcheck's inputs are contiguous, and for a contiguous tensor
# the bug is invisible. A test that passes is not a test that covers.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=100
# ## Property tests: same numbers, every layout
#
# The gradient must not depend on where the numbers sit in memory

# %% slideshow={"slide_type": "-"}
gaps = tt.zeros(4, 6, dtype=tt.float64)[::2, ::2]
layouts = {"contiguous": base.detach().clone(),
           "with gaps": gaps.copy_(base.detach()),
           "transposed": base.detach().t().contiguous().t()}
for name, t in layouts.items():
    t.requires_grad_()
    ok = tt.autograd.gradcheck(Square.apply, (t,),
                               raise_exception=False)
    print(f"{name:10} strides {t.stride()}  gradcheck {ok}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the same six numbers in three layouts: contiguous, with gaps (a strided view), and permuted
# (memory order is not logical order). The property "the gradient does not depend on the layout" catches the
# bug at once. Layouts must include a *permuted* one: a kernel that walks memory in address order passes
# contiguous and gap layouts and fails only the transposed one (a real PyTorch bug class; deck D). The
# project's fuzzer, `tests/test_autograd_fuzz.py`, draws whole random programs with Hypothesis (layouts, views,
# in-place ops) and compares every tensor, version and `grad_fn` with PyTorch's after each step. PyTorch's own
# suite does it per op with OpInfo samples (`torch/testing/_internal/opinfo/core.py`, and
# `test_noncontiguous_samples` in PyTorch's test/test_ops.py).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## The PyTorch Autograd Onboarding Lab, in four steps
#
# 1. **Derive** the gradient of a small function (`attn(q, k, v)`) on paper
# 2. Write it as a custom `torch.autograd.Function`; check it with `gradcheck` and `gradgradcheck`
# 3. Make it a native op (CompositeImplicitAutograd) with an **OpInfo** entry: the suite tests it
# 4. Give it an **explicit formula** in `tools/autograd/derivatives.yaml`; the same tests must pass
#
# teachtorch's version: lesson 16 adds an op end to end, formula and tests included

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this is how PyTorch trains new contributors on autograd; the deliverable is a PR that is never
# merged. Each step is a part of this talk: derive ($v^\top J$), `Function` with `ctx` and saved tensors,
# gradcheck, then the table of formulas that generates the nodes. Step 3 before step 4 on purpose: a
# composite op gets its backward for free from the ops it is made of, so you have a reference to test your
# explicit formula against. In teachtorch: `teachtorch.library` (lesson 16) with `register_autograd`, and
# `teachtorch/autograd/derivatives/` for the built-in formulas.

# %% [markdown] slideshow={"slide_type": "slide"} timing=30
# ## Go deeper
#
# - [Lesson 7: derivatives and a scalar autograd](../lessons/07_micrograd.py): build micrograd's `Value` and its backward
# - [Lesson 8: tensor autograd](../lessons/08_autograd.py): `Function`, $v^\top J$, accumulation, un-broadcasting
# - [Lesson 9: autograd, views and in-place ops](../lessons/09_inplace.py): version counters, `CopySlices`
# - [Lesson 10: backprop by hand](../lessons/10_backprop.py): a whole network's backward, checked tensor by tensor
# - [Lesson 16: add an op, end to end](../lessons/16_add_an_op.py): schema, kernel, formula, tests
# - Source: `teachtorch/autograd/engine.py`, `teachtorch/autograd/saved_variable.py`, `teachtorch/autograd/views.py`

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: every slide of this talk has a lesson behind it with exercises checked in the notebook. Reading
# order of the package: `teachtorch/autograd/__init__.py` lists it (node, derivative, variable_type, engine,
# function, gradcheck). In PyTorch start from `torch/csrc/autograd/engine.cpp` and
# `tools/autograd/derivatives.yaml`.
