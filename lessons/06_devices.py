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
# # A second backend, and how to catch the bugs backends ship
#
# A GPU backend sounds like a second framework. In PyTorch, and here, it is a second set of **kernels**
# under the same dispatcher: the autograd layer, the views, the optimizers, the layers do not know which
# device they run on. This lesson shows where the device enters, and then a tool that finds the op where a
# backend goes wrong, on the bug that froze Adam on Apple GPUs in 2024.
#
# | what | file |
# |---|---|
# | GPU storages, starting CuPy | `teachtorch/backends/cuda.py` |
# | the wrapper every CUDA kernel gets (device check) | `teachtorch/backends/device_check.py` |
# | every place NumPy and CuPy differ | `teachtorch/backends/differences.py` |
# | registering one kernel under CPU, CUDA and Meta | `teachtorch/ops/_define.py` |
# | `teachtorch.cuda` (is_available, synchronize, memory) | `teachtorch/cuda/__init__.py` |
# | comparing two backends op by op | `teachtorch/testing/_compare_backends.py` |
#
# Everything runs on a laptop: the cells that need a GPU check `tt.cuda.is_available()` first.

# %%
import numpy as np

import teachtorch as tt
import teachtorch.nn as nn
import teachtorch.nn.functional as F
from teachtorch.testing import Backend, compare_backends

print("GPU available:", tt.cuda.is_available())

# %% [markdown]
# ## 1. One kernel, three dispatch keys
#
# A kernel is written once against an *array module* `xp`: NumPy on the cpu, CuPy on the GPU (CuPy copies
# NumPy's API name for name). So `mm`'s kernel is registered three times. Under `CUDA` it is wrapped in a
# `DeviceCheck` (teachtorch/backends/device_check.py) that checks that all tensors are on one device before
# the kernel runs, as PyTorch's generated `RegisterCUDA.cpp` wraps every CUDA kernel (`wrapper_CUDA__mm`).

# %%
print(tt.dispatch.dump_table("mm"))

# %% [markdown]
# Elementwise ops are not wrapped (their CUDA slot holds `PointwiseKernel(...).functional` itself): like
# PyTorch's TensorIterator they check devices themselves, because a 0-dim cpu tensor may join a GPU op as a
# plain number.

# %%
print(tt.dispatch.dump_table("add.Tensor"))

# %% [markdown]
# A cuda tensor carries the `CUDA` and `AutogradCUDA` keys instead of `CPU` and `AutogradCPU`; that is the
# whole difference the dispatcher sees.

# %%
if tt.cuda.is_available():
    x = tt.ones(3, device="cuda", requires_grad=True)
    print(tt.dispatch.keyset_names(x._keys))
    try:
        x + tt.ones(3)          # a cpu tensor with 3 elements
    except RuntimeError as e:
        print("RuntimeError:", e)
    print(tt.cuda.memory_allocated(), "bytes in use on the GPU")
else:
    print(tt.dispatch.keyset_names(tt.ones(3)._keys), "(a cpu tensor; a cuda one has CUDA, AutogradCUDA)")

# %% [markdown]
# ## 2. The bug: a write that never lands
#
# On Apple's MPS backend, `addcmul_` and `addcdiv_` once computed into a *contiguous copy* of a
# non-contiguous output and never copied it back. Adam's `exp_avg_sq` is made with `zeros_like(param)`,
# which keeps the parameter's layout; a transposed parameter (tied weights: `enc.weight = dec.weight.T`)
# made it transposed, and Adam silently stopped moving it.
#
# Here is that kernel, written for our NumPy backend. `np.ascontiguousarray` returns the array itself when
# it is contiguous, and a copy otherwise, so it works on every contiguous tensor: that is why tests that
# only use contiguous tensors never see it.

# %%
def lost_writeback_addcmul_(self, tensor1, tensor2, value=1):
    buf = np.ascontiguousarray(self.detach().numpy())     # a COPY when self is not contiguous
    buf += value * tensor1.detach().numpy() * tensor2.detach().numpy()
    return self                                             # ... and buf is never written back


broken = Backend("cpu", kernels={"addcmul_": lost_writeback_addcmul_})

# %% [markdown]
# The model: an encoder whose weight starts as the transpose of the decoder's.

# %%
def tied_autoencoder():
    tt.manual_seed(0)
    enc, dec = nn.Linear(8, 16), nn.Linear(16, 8)
    enc.weight = nn.Parameter(dec.weight.detach().t().clone())    # clone keeps the transposed strides
    return enc, dec


def train(enc, dec, x, steps=3):
    opt = tt.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((dec(enc(x).tanh()) - x) ** 2).mean()
        loss.backward()
        opt.step()
    return loss.detach()


tt.manual_seed(1)
x = tt.randn(32, 8)
enc, dec = tied_autoencoder()
print("encoder weight strides:", enc.weight.stride(), "contiguous:", enc.weight.is_contiguous())

# %% [markdown]
# ## 3. Comparing two backends op by op
#
# `compare_backends(fn, *inputs, reference=..., candidate=...)` runs `fn` on both sides with identical
# inputs (modules are copied, tensors keep their layout). On the candidate it watches every op that reaches
# a kernel (with a `TorchDispatchMode`, below autograd, so it sees backward and the optimizer too), replays
# each one on the reference with the same inputs, and compares. Replaying on the *same* inputs matters: the
# first op beyond tolerance is the broken one, not merely the first to feel an earlier error.

# %%
report = compare_backends(train, enc, dec, x, reference="cpu", candidate=broken, backward=False)
print(report.first_mismatch)
print()
print(str(report).splitlines()[-1])

# %% [markdown]
# The first op that disagrees is `addcmul_`: the first update of `exp_avg_sq`, with a relative difference
# of 1 (the candidate left it at zero). The end results list what that did downstream:

# %%
for r in report.results:
    if not r.ok:
        print(f"{r.name:40} max abs diff {r.max_abs:.3g}")

# %% [markdown]
# With contiguous parameters the very same broken kernel passes, which is how this bug class survives:

# %%
enc_c, dec_c = nn.Linear(8, 16), nn.Linear(16, 8)
print(compare_backends(train, enc_c, dec_c, x, candidate=broken, backward=False).ok)

# %% [markdown]
# ## 4. The fix belongs in the abstraction
#
# teachtorch's kernels never write into a tensor themselves: `teachtorch.backends.write(dst, value)` is the
# one write path, and it copies into the tensor's strided view of its storage, so a transposed, sliced or
# offset target gets its values. The correct kernel computes, then writes:

# %%
from teachtorch.backends import write


def fixed_addcmul_(self, tensor1, tensor2, value=1):
    result = self.detach().numpy() + value * tensor1.detach().numpy() * tensor2.detach().numpy()
    write(self, result)
    return self


fixed = Backend("cpu", kernels={"addcmul_": fixed_addcmul_})
print(compare_backends(train, enc, dec, x, candidate=fixed, backward=False).ok)

# %% [markdown]
# ## 5. The GPU against the cpu
#
# With a GPU, the same tool checks the real second backend on the class MLP: forward, backward, every op.

# %%
if tt.cuda.is_available():
    tt.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    images = tt.randn(32, 64)
    labels = tt.randint(0, 10, (32,))
    gpu_report = compare_backends(lambda m, a, b: F.cross_entropy(m(a), b), mlp, images, labels,
                                  reference="cpu", candidate="cuda")
    print(str(gpu_report).splitlines()[-1])
else:
    print("no GPU here: run this cell on a machine with one (pip install 'teachtorch[cuda12]')")

# %% [markdown]
# ## Exercise
#
# Break another kernel and find it: a `sum` that forgets `keepdim`, a `relu` that returns `abs`, an
# `index_add_` that ignores repeated indices. Register it with `Backend("cpu", kernels={...})`, train the
# autoencoder, and read the report: does it name your op, and in which section (`fn` or `backward`)?
