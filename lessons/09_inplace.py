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
# # Lesson 9: autograd, views and in-place ops
#
# **You will learn**
# - what a tensor's **version counter** (`t._version`) counts, and that views and `detach()` share it;
# - why a saved tensor remembers its version, and what "one of the variables needed for gradient computation
#   has been modified by an inplace operation" protects you from: a wrong gradient, silently;
# - why an in-place op on a leaf that requires grad is refused, and what `no_grad` changes;
# - what happens when you write in place into a **view** of a tensor that has a history: the base's
#   `grad_fn` becomes `CopySlices`, and the view's is rebuilt as `AsStridedBackward0`.
#
# **You will build** a predictor for eight small programs ("raises", or the gradient), checked by running
# them, and a `SavedTensor` that does PyTorch's version check, with PyTorch's exact message.
#
# **Time:** about 60 minutes. **You need:** views and storage (lessons 1 and 2), and what an op saves for
# backward (lesson 8).
#
# Everything here behaves as in PyTorch: `_version`, `detach()`, `no_grad`, the error messages and the node
# names (`CopySlices`, `AsStridedBackward0`) are PyTorch's.

# %%
import math

import teachtorch as tt
from IPython.display import display
from teachtorch.explorer import GraphView, StorageView
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson09 import PROGRAMS

# %% [markdown]
# ## 1. Every tensor counts its writes
#
# Each tensor has a **version counter**. An in-place op (a name ending in `_`, `x[i] = v`, `copy_`) adds one
# to it; an op that makes a new tensor does not touch it. The counter belongs to the *memory*, not to one
# tensor object: a view of `x` shares `x`'s counter, so a write through the view bumps both.

# %%
x = tt.arange(6.).reshape(2, 3)
row = x[1]                                  # a view: same storage, same counter
print("start:          x", x._version, " row", row._version)
x.add_(1)
print("x.add_(1):      x", x._version, " row", row._version)
row.mul_(10)
print("row.mul_(10):   x", x._version, " row", row._version)
y = x * 2                                   # a new tensor, with its own counter
print("y = x * 2:      x", x._version, " y", y._version)
StorageView(x, row, title="x and its view row: one storage, one version counter")

# %% [markdown]
# In teachtorch the counter is `_vc`, set up in `teachtorch/_tensor.py`; the layer that bumps it once per write
# is `teachtorch/dispatch/inplace_or_view.py` (it also gives every view its base's counter). In PyTorch it is
# `VariableVersion` in `c10/core/TensorImpl.h`, bumped by `increment_version` in the generated
# ADInplaceOrView kernels.
#
# ## 2. Saved tensors remember the version
#
# Lesson 8: `exp` saves its **result**, because $\frac{d}{dx} e^x = e^x$. Now write into that result before
# backward:

# %%
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)

# %% [markdown]
# When `ExpBackward0` saved `y`, it wrote down `y`'s version (0). `add_` made it 1. In backward, unpacking the
# saved tensor compares the two and refuses. Why so strict? Because without the check backward would read the
# *new* `y`, $e^x + 1$, and hand you a wrong gradient with no warning. You can see it: a pair of
# `saved_tensors_hooks` that just return the tensor skips the check (PyTorch does the same), and the gradient
# comes out as $e^x + 1$ instead of $e^x$:

# %%
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
with tt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = x.exp()
y.add_(1)
y.sum().backward()
print("gradient given:", x.grad.tolist())
print("right gradient:", x.detach().exp().tolist())

# %% [markdown]
# The two pictures side by side: the graph (the orange box is the tensor `ExpBackward0` saved, with the version
# it was saved at and the version it is at now: `v0, now v1`) and the storage that tensor lives in. (The
# `saved_version` printed below is teachtorch's field; PyTorch keeps it in C++.)

# %%
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
print("y._version =", y._version, "; saved at version", y.grad_fn.next_functions[0][0]._saved_tensor_infos()[0][1].saved_version)
display(GraphView(y, params={"x": x}, title="y = x.exp(); y.add_(1)"), StorageView(y, title="y, after add_"))

# %% [markdown]
# Not every in-place op after a forward is an error: only one that changes a tensor some node **saved**.
# `x * x` saves its inputs, not its output, so `(x * x).add_(1)` is fine; `a * a` followed by `a.add_(1)` is
# not. The check is `SavedVariable.unpack` in `teachtorch/autograd/saved_variable.py` (PyTorch:
# `SavedVariable::unpack` in `torch/csrc/autograd/saved_variable.cpp`, with the same message).
#
# ## 3. `detach()` and `no_grad`
#
# `detach()` gives a tensor with no history over the **same storage and the same version counter**. So a
# write through a detached alias is still caught; `clone()` makes new memory with a new counter:

# %%
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
d = y.detach()
print("same storage:", d.untyped_storage().data_ptr() == y.untyped_storage().data_ptr(), " versions", y._version, d._version)
d.zero_()
print("after d.zero_():  y._version =", y._version)
try:
    y.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", str(err)[:120], "...")

# %% [markdown]
# `no_grad` is different: it stops *recording* (ops under it make no nodes), but writes under it still bump
# the counter. That is how an optimizer updates a leaf `w` in place (`w -= lr * w.grad` inside `no_grad`).
#
# ## 4. Leaves refuse in-place ops
#
# A leaf that requires grad is where gradients are collected: `x.grad` is the gradient *with respect to x*. If
# `x.mul_(2)` were recorded, `x` would become the output of an op, no longer the leaf you asked about, so
# PyTorch refuses it (`check_inplace` in `teachtorch/autograd/variable.py`):

# %%
w = tt.tensor([1.0, 2.0], requires_grad=True)
try:
    w.mul_(2)
except RuntimeError as err:
    print("RuntimeError:", err)
with tt.no_grad():
    w.mul_(2)                 # allowed: nothing is recorded, the version still moves
print(w, " version", w._version, " is_leaf", w.is_leaf)

# %% [markdown]
# ## 5. Writing into a view of a tensor with a history: CopySlices
#
# `b = x * x` has a history. `b[:2]` is a view of it. `b[:2].mul_(3)` changes part of `b`, so `b`'s gradient
# must now go through that `mul_` for the first two elements, and not for the third. Autograd **rebases** the
# history: `b.grad_fn` becomes `CopySlices`, a node that takes `b`'s gradient, runs the in-place op's
# backward (`MulBackward0`, times 3) on the view's part only, and passes the result on to `b`'s old history.
# The view's own `grad_fn` is rebuilt as `AsStridedBackward0` (take the view's elements out of `b`'s new
# history). PyTorch prints these same names (`torch::autograd::CopySlices` for the C++ node). (`.fn`, the
# in-place op's node inside CopySlices, is teachtorch's field; PyTorch keeps it in C++, out of Python's reach.)

# %%
x = tt.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = x * x
v = b[:2]
print("before:", b.grad_fn.name(), "|", v.grad_fn.name(), "| versions", b._version, v._version)
v.mul_(3)
print("after: ", b.grad_fn.name(), "|", v.grad_fn.name(), "| versions", b._version, v._version)
print("CopySlices runs the mul_'s", b.grad_fn.fn.name(), "(times 3) on the view's part, then passes on to x * x's",
      b.grad_fn.next_functions[0][0].name())
view = GraphView(b, params={"x": x}, title="b = x * x; b[:2].mul_(3)")
view.backward(b.sum(), retain_graph=True)
display(view, StorageView(b, v, title="b and its view v (written in place)"))
print("x.grad =", x.grad.tolist(), " (6x for the first two, 2x for the last)")

# %% [markdown]
# In teachtorch: `rebase_history` in `teachtorch/autograd/variable.py`, and `CopySlices` and `view_grad_fn` in
# `teachtorch/autograd/views.py`. In PyTorch: `rebase_history` in `torch/csrc/autograd/variable.cpp` and
# `CopySlices` in `torch/csrc/autograd/functions/tensor.cpp`.
#
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | version counter | `c10/core/TensorImpl.h` (`VariableVersion`) | `teachtorch/_tensor.py`, `teachtorch/dispatch/inplace_or_view.py` |
# | saved tensor and its check | `torch/csrc/autograd/saved_variable.cpp` | `teachtorch/autograd/saved_variable.py` |
# | rebase, leaf check | `torch/csrc/autograd/variable.cpp` | `teachtorch/autograd/variable.py` |
# | CopySlices | `torch/csrc/autograd/functions/tensor.cpp` | `teachtorch/autograd/views.py` |
#
# ### Exercise 1: predict
#
# Here are eight programs. Each starts from a leaf `x = tt.tensor(values, requires_grad=True)`:

# %%
for name, code in PROGRAMS.items():
    print(f"--- {name}\n{code}")

# %% [markdown]
# Write `predict(name, x)`: for program `name` run on the values `x` (a list of numbers), return `"raises"` if
# it raises a RuntimeError, or else the gradient `x.grad` as a list of numbers (work it out from `x`: do not
# run the program). The check runs each program with teachtorch, on `[1, 2, 3]` and on random values.
# `math` is imported, for `math.exp`. Stuck? `hint("L09.predict")`.

# %%
hint("L09.predict")

# %%
def predict(name, x):
    ### BEGIN SOLUTION
    if name in ("exp_add_", "input_add_", "leaf_mul_", "detach_zero_"):
        return "raises"
    if name == "square_add_":
        return [2 * v for v in x]
    if name == "no_grad_mul_":
        return [4 * v for v in x]               # 2 * (2 x): x was doubled before x * x
    if name == "clone_zero_":
        return [math.exp(v) for v in x]
    return [6 * v if i == 0 else 2 * v for i, v in enumerate(x)]      # view_mul_
    ### END SOLUTION


# %%
check("L09.predict", predict)

# %% [markdown]
# ### Exercise 2: a saved tensor with a version check
#
# Write `SavedTensor`: `SavedTensor(t)` remembers `t` and its version; `.unpack()` returns `t` itself if its
# version has not moved, and otherwise raises a `RuntimeError` with PyTorch's message (for a tensor with no
# history, as here):
#
# `one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2, 3]] is at version 4; expected version 2 instead. ` followed by `HINT`
#
# (`DoubleTensor` for float64). The check plays scenarios (writes before saving, writes after, through
# `add_`, `mul_`, a view or a `detach()`) with your class and with teachtorch's `SavedVariable`, and compares.

# %%
HINT = ""
w = tt.ones(2)
x = tt.tensor([1.0, 2.0], requires_grad=True)
y = x * w                           # saves w (a tensor with no history)
w.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    HINT = str(e).split(" instead. ")[1]
    print(e)


# %%
class SavedTensor:
    def __init__(self, tensor):
        ### BEGIN SOLUTION
        self.tensor, self.version = tensor, tensor._version
        ### END SOLUTION

    def unpack(self):
        ### BEGIN SOLUTION
        t = self.tensor
        if t._version != self.version:
            kind = {tt.float32: "Float", tt.float64: "Double"}[t.dtype]
            shape = ", ".join(str(s) for s in t.shape)
            raise RuntimeError("one of the variables needed for gradient computation has been modified by "
                               f"an inplace operation: [torch.{kind}Tensor [{shape}]] is at version "
                               f"{t._version}; expected version {self.version} instead. {HINT}")
        return t
        ### END SOLUTION


# %%
check("L09.bump_and_check", SavedTensor)

# %% [markdown]
# ## Recap
#
# - Every in-place write bumps the version counter of the memory it writes; views and `detach()` share it,
#   `clone()` does not, `no_grad` stops recording but not counting.
# - A saved tensor remembers its version; unpacking it in backward checks it, so that a changed input or
#   output of an op cannot silently give a wrong gradient.
# - In-place ops on a leaf that requires grad are refused (outside `no_grad`).
# - An in-place write into a view of a tensor with a history rebases the base onto a `CopySlices` node; the
#   view's `grad_fn` is rebuilt as `AsStridedBackward0`.
#
# **Next:** lesson 10, "backprop ninja": the backward of a whole small network written by hand, checked against autograd.
