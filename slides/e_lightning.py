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

# %% [markdown] slideshow={"slide_type": "slide"} minutes=[4, 6] timing=20
# # Lightning talk: teachtorch in 5 minutes
#
# PyTorch's internals, in Python you can read
#
# A talk of 4 to 6 minutes, every picture drawn live

# %% slideshow={"slide_type": "skip"}
import teachtorch as tt
from teachtorch import nn
from teachtorch.explorer import (GraphView, StorageView, TraceView,
                                 TrainMonitor)
from teachtorch.explorer.frames import step_through

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## What teachtorch is
#
# - PyTorch's names and semantics, in readable Python
# - backends: NumPy on the CPU, CuPy on a GPU
# - an explorer: storage, autograd graph, dispatch, training, live
# - a course: 17 notebook lessons with checked exercises, and talks

# %% slideshow={"slide_type": "fragment"}
tt.install_as_torch()      # now `import torch` gives teachtorch
import torch

x = torch.arange(6.).reshape(2, 3)
print(torch.__name__, x.t().stride(), x.sum(dim=1))
print(torch.nn.functional.relu(x - 2).mean())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: teachtorch is a teaching framework. Same function names, same arguments, same results and
# error messages as PyTorch, checked against PyTorch in its tests, but every layer (storage, dispatcher,
# autograd engine, kernels, nn, optim) is short Python you can step through. Kernels run on NumPy (CPU) or
# CuPy (GPU). The fragment: after `install_as_torch()`, `import torch` gives teachtorch, so PyTorch code
# runs unchanged (`python -m teachtorch.run train.py` does the same for a whole script). What makes it more
# than a toy: it draws its own insides, four kinds of picture, next slides.

# %% [markdown] slideshow={"slide_type": "slide"} timing=45
# ## 1. Storage: a tensor is a view of flat memory

# %% slideshow={"slide_type": "-"}
x = tt.arange(6.).reshape(2, 3)
StorageView(x, x.t(), x[:, 1:])

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: three tensors, one storage strip. `x.t()` and `x[:, 1:]` copy nothing: they read the same
# cells with other strides and offsets. In a notebook you hover an element to light its cell. Lessons 1 and
# 2 are built on this picture.

# %% [markdown] slideshow={"slide_type": "slide"} timing=50
# ## 2. Autograd: watch backward walk the graph

# %% slideshow={"slide_type": "-"}
w = tt.tensor([1., -2., 3.], requires_grad=True)
loss = (w * w).tanh().sum()
view = GraphView(loss, params={"w": w})
view.backward(loss)
step_through(view)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: press through it: the engine starts at the loss and runs each node's backward in
# topological order, passing gradients down the edges, until they land in `w.grad`. The orange boxes are the
# tensors saved for backward, freed once their node has run (as PyTorch does without retain_graph). Lessons 7 to 10 build this engine, from micrograd up.

# %% [markdown] slideshow={"slide_type": "slide"} timing=45
# ## 3. Dispatch: the path of each op

# %% slideshow={"slide_type": "-"}
a = tt.ones(3, requires_grad=True)
with tt.dispatch.trace() as trace:
    loss = (a * 2).sum()
    loss.backward()
TraceView(trace, max_rows=8)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: one row per op that ran. `a * 2` is `aten.mul.Tensor`: the dispatcher first hits the
# AutogradCPU key (which records the backward node, because `a` requires grad), then the CPU key, where the
# NumPy kernel runs. The backward rows are ops too: the engine calls `ones_like`, `expand` and `mul` through
# the same dispatcher (`expand`, a view, also passes the ADInplaceOrView key, as in PyTorch). The same keys and order as PyTorch's. Lesson 5 builds a dispatcher; Lesson 16 adds a
# new op to it.

# %% [markdown] slideshow={"slide_type": "slide"} timing=55
# ## 4. Training: a monitor of the run

# %% slideshow={"slide_type": "-"}
tt.manual_seed(0)
X = tt.randn(64, 2); Y = (X[:, 0] * X[:, 1] > 0).long()   # XOR-like
model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
opt = tt.optim.Adam(model.parameters(), lr=0.05)
with TrainMonitor(model, title="a tiny MLP") as mon:
    for step in range(40):
        loss = nn.functional.cross_entropy(model(X), Y)
        opt.zero_grad(); loss.backward(); opt.step()
        mon.log(step, loss=loss)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a real training loop, PyTorch's code line for line, on teachtorch. The monitor draws the
# loss curve and each layer's weight and gradient norms and its update/weight ratio while it trains (in a
# notebook it updates live). Lesson 12 trains an MLP and a CNN to 98% on the digits with it.

# %% [markdown] slideshow={"slide_type": "slide"} timing=30
# ## Where to start
#
# - install from the repository: `pip install -e '.[lab]'`
# - [Lesson 0: your first tensor](../lessons/00_start.py), then
#   [Lesson 1: storage](../lessons/01_storage.py) and on, in order
# - [The explorer tour](../lessons/explorer_tour.py): the pictures, live
# - your own PyTorch script: `python -m teachtorch.run train.py`
# - contributing: `CONTRIBUTING.md`

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: install it with the lab extra (JupyterLab and the widgets), open Lesson 0 in JupyterLab,
# and follow the lessons in order: memory, kernels, dispatch, devices, autograd, then nn, training and
# language models; each one ends with where the same thing lives in PyTorch's source. To see how far
# teachtorch goes, run one of your own PyTorch scripts on it with `python -m teachtorch.run`. Contributors: read CONTRIBUTING.md; Lesson 16 walks
# through adding an op end to end. Thank you.
