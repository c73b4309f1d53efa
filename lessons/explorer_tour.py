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
# # Seeing inside: storage, the autograd graph and the dispatcher, live
#
# This lesson is about looking. The explorer draws three pictures of what
# teachtorch does while your code runs:
#
# | picture | what it shows | file |
# |---|---|---|
# | storage | tensors as views over one flat storage: sizes, strides, offset | `explorer/storage_diagram.py` |
# | graph | the autograd graph, and backward walking it | `explorer/graph_diagram.py` |
# | trace | each op's path through the dispatch keys to its kernel | `explorer/trace_table.py` |
#
# Each renderer is plain Python that returns SVG, so every picture here also
# works without JavaScript (on GitHub, in nbconvert output, in the slides).
# The widgets add interaction: hover, stepping, clicking.

# %%
import teachtorch as tt
from teachtorch.explorer import StorageView, GraphView, TraceView

# %% [markdown]
# ## 1. One storage, many views
#
# A tensor is a window onto a flat **storage**: element `(i, j)` lives at
# `storage_offset + i * stride[0] + j * stride[1]`. Hover an element to light
# its storage cell (and the other way round).

# %%
x = tt.arange(12.).reshape(3, 4)
StorageView(x, x.t(), x[1:, ::2], title="x, its transpose, and a strided slice")

# %% [markdown]
# `expand` makes a dimension of stride 0: every element along it is the *same*
# storage cell. Nothing is copied.

# %%
row = tt.tensor([1., 2., 3.])
StorageView(row, row.expand(4, 3), title="expand: stride 0")

# %% [markdown]
# ## 2. The graph, and backward walking it
#
# `GraphView(...).backward(loss)` runs backward while watching it; use the
# arrows to step through the order the engine ran the nodes in (newest first).
# Grey boxes are nodes, blue boxes leaves, orange boxes saved tensors.

# %%
w = tt.randn(3, requires_grad=True)
b = tt.zeros(3, requires_grad=True)
loss = (w * w + b).exp().sum()
view = GraphView(loss, params={"w": w, "b": b}, title="loss = (w*w + b).exp().sum()")
view.backward(loss)
view

# %% [markdown]
# ## 3. The dispatcher, op by op
#
# A trace records every hop: `aten.mul.Tensor` goes through the `AutogradCPU`
# key (which records the node) and then to the `CPU` kernel. A loop's body is
# folded into one row per op, counted.

# %%
with tt.dispatch.trace() as t:
    h = tt.ones(4, requires_grad=True)
    for _ in range(5):
        h = (h * 0.5).relu()
    h.sum().backward()
print(tt.explorer.trace_text(t))
TraceView(t, title="five steps of a loop, then backward")

# %% [markdown]
# ## 4. All three, live
#
# `with tt.explore() as ex:` opens one widget and keeps it up to date while the
# cell runs, a few pictures a second. `ex.show(...)` picks the tensors of the
# storage pane (by default: the tensors of the last op). The graph follows the
# loss of each training step and lights up, node by node, as backward runs;
# after the cell, step through the last backward with the buttons or the arrow
# keys. Click a trace row to light the tensors it touched.
#
# Tensors are named as the code names them: `W`, `W.grad`, `x`. With a model,
# pass it, `tt.explore(model)`, and its parameters are named by their path
# (`0.weight`, `fc1.bias`).

# %%
import time

W = tt.randn(4, 3, requires_grad=True)
with tt.explore() as ex:
    for step in range(10):
        x = tt.randn(2, 4)
        loss = (x @ W).tanh().pow(2).mean()
        W.grad = None
        loss.backward()
        with tt.no_grad():
            W -= 0.1 * W.grad
        time.sleep(0.05)
    ex.show(W, W.grad)

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | tensors as views of one storage | `c10/core/TensorImpl.h`, `c10/core/StorageImpl.h` | `teachtorch/explorer/storage_diagram.py`, `teachtorch/_tensor.py` |
# | the autograd graph | `torch/csrc/autograd/node.h` (`Node`); from Python `torch/autograd/graph.py` | `teachtorch/explorer/graph_diagram.py`, `teachtorch/autograd/node.py` |
# | backward walking it | `torch/csrc/autograd/engine.cpp` | `teachtorch/autograd/engine.py` |
# | each op's path through the dispatch keys | `aten/src/ATen/core/dispatch/Dispatcher.h`; a logging `TorchDispatchMode` (`torch/utils/_python_dispatch.py`) | `teachtorch/dispatch/trace.py`, `teachtorch/explorer/trace_table.py` |
# | all three, live | none built in; the nearest is `torch/utils/tensorboard/` | `teachtorch/explorer/widgets.py` (`explore`) |
