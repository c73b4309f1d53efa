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
# # Lesson 6: devices: one kernel, two array modules
#
# **You will learn**
# - what a device is (a place for a storage's bytes), and how a kernel finds the **array module** of its
#   tensors: NumPy on the cpu, CuPy on a GPU, written once against `xp`;
# - what `.to(device)` copies and what it keeps (PyTorch's rules), and the error you get for mixing devices;
# - how to test a second backend op by op with `teachtorch.testing.compare_backends`, on the bug that broke
#   Adam on Apple GPUs before PyTorch 2.4: a write into a non-contiguous tensor that never landed.
#
# **You will build** `softplus(xp, x)`, a kernel that runs unchanged on any array module, and `addcmul_`,
# an in-place kernel that writes back into a transposed tensor (the fix of that bug), both checked here,
# offline.
#
# **Time:** about 45 minutes. **You need:** lesson 1 (strides, contiguous); lesson 5's dispatch keys help.
# No GPU: the cells that need one check `tt.cuda.is_available()` and say so; the exercises also run on a
# stand-in second array module that behaves like CuPy.

# %%
import numpy as np

import teachtorch as tt
import teachtorch.nn as nn
import teachtorch.nn.functional as F
from teachtorch.backends import ARRAY_MODULES, xp_of
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson06 import contiguous_addcmul, standin
from teachtorch.explorer import StorageView, TraceView, trace_rows
from teachtorch.testing import Backend, compare_backends

GPU = tt.cuda.is_available()
print("GPU available:", GPU)

# %% [markdown]
# ## 1. A device is where the bytes live
#
# A tensor's device is its storage's device: `cpu` (host memory), `cuda:0` (the first GPU's memory), or
# `meta` (no bytes at all, only sizes, strides and dtype). A `tt.device` is a (type, index) pair, as PyTorch's
# `c10::Device` is (`c10/core/Device.h`); teachtorch's is in `teachtorch/_device.py`.

# %%
x = tt.arange(12.).reshape(3, 4)
print(x.device, x.untyped_storage().device, tt.device("cuda:1").type, tt.device("cuda:1").index)
print("array modules started:", {name: xp.__name__ for name, xp in ARRAY_MODULES.items()})

# %% [markdown]
# The storage of a cpu tensor is a NumPy array; of a cuda tensor, a CuPy array (`teachtorch/backends/cuda.py`,
# `CudaStorage`). CuPy implements most of NumPy's API under the same names: `cupy.exp`, `cupy.where`,
# `cupy.ascontiguousarray`. That is what lets one kernel serve both.
#
# ## 2. One kernel, two array modules
#
# A teachtorch kernel never says `np.`: it asks for the array module of its tensors,
# `xp = xp_of(tensor)` (`teachtorch/backends/__init__.py`; `xp_for` in `teachtorch/kernels/indexing.py` is
# the same), and calls `xp.exp`, `xp.where`. Elementwise ops go further: `PointwiseKernel` looks up `xp` once
# and passes it in, so their arithmetic is a plain function `f(xp, *arrays)`. Here is hardsigmoid's, from
# `teachtorch/kernels/activation.py`, run on NumPy arrays and on the stand-in's:

# %%
from teachtorch.kernels.activation import hardsigmoid   # def hardsigmoid(xp, x): min(max(x + 3, 0), 6) / 6

a = np.array([-4.0, -1.0, 0.0, 2.0, 5.0], np.float32)
print(hardsigmoid(np, a))
print(hardsigmoid(standin, standin.asarray(a)))
print("xp of x:", xp_of(x).__name__)

# %% [markdown]
# `standin` (in `teachtorch/exercises/lesson06.py`) is the course's second array module for machines
# without a GPU: NumPy underneath, CuPy's manners on top. Its arrays refuse NumPy's own functions, refuse to
# mix with NumPy arrays, and refuse to turn into NumPy arrays behind your back, with CuPy's own message.
# (teachtorch's test suite has a fuller one, `tests/fake_cupy.py`, that runs the whole cuda backend.)

# %%
d = standin.asarray(a)
for attempt in (lambda: np.exp(d), lambda: np.asarray(d), lambda: d + a):
    try:
        attempt()
    except TypeError as e:
        print("TypeError:", e)

# %% [markdown]
# With real CuPy some `np.` calls happen to work (NumPy hands `np.exp(cupy_array)` to CuPy through its
# `__array_ufunc__` protocol) and others fail (`np.asarray`), so a kernel with `np.` in it works by luck.
# The rule is simpler: **only `xp`**.
#
# The dispatcher does the rest. The same `mm_kernel` is registered under `CPU` and under `CUDA`
# (`teachtorch/ops/_define.py`); under `CUDA` it is wrapped in a `DeviceCheck`
# (`teachtorch/backends/device_check.py`) that checks every tensor is on one device, as the wrapper PyTorch
# generates for each CUDA kernel does (`wrapper_CUDA_mm` in the generated `RegisterCUDA.cpp`). A cuda tensor
# carries the keys `AutogradCUDA` and `CUDA` instead of `AutogradCPU` and `CPU`: that is the whole difference
# the dispatcher sees. The picture below is the trace of one `mm`, with its path through the keys.

# %%
print("\n".join(line for line in tt.dispatch.dump_table("mm").splitlines()
                if line.split(":")[0] in ("CPU", "CUDA", "Meta")))


def trace_mm(device):
    with tt.dispatch.trace() as t:
        w = tt.ones(3, 2, device=device, requires_grad=True)
        tt.mm(tt.ones(4, 3, device=device), w)
    for row in trace_rows(t, fold=True):
        if row["op"] == "aten.mm.default":
            print(device, " -> ".join(f"{p['key']}: {p['kernel']}" for p in row["path"]))
    return t


TraceView(trace_mm("cuda" if GPU else "cpu"), title="mm: its path through the dispatch keys")

# %% [markdown]
# PyTorch does it differently: its CPU and CUDA kernels are different code, one in C++
# (`aten/src/ATen/native/cpu/Activation.cpp`, `softplus_kernel`) and one in CUDA C++
# (`aten/src/ATen/native/cuda/ActivationSoftplusKernel.cu`), each registered for its device type in one
# `softplus_stub` (`aten/src/ATen/native/DispatchStub.h`). What they share is the op's schema and the
# checks around the kernel. teachtorch keeps one Python kernel and swaps the array module, as CuPy's own
# `cupy.get_array_module(x)` idiom does.
#
# ### Exercise 1: a kernel for any array module
#
# Write `softplus(xp, x, beta, threshold)`, PyTorch's `F.softplus` on an array:
#
# $$\text{softplus}(x) = \begin{cases} x & \text{if } \beta x > \text{threshold} \\
#   \frac{1}{\beta} \log\left(1 + e^{\beta x}\right) & \text{otherwise} \end{cases}$$
#
# using only `xp`. Keep `x`'s dtype (float32 in, float32 out), and mind that $e^{\beta x}$ overflows float32
# above $\beta x \approx 88$. The check runs it on NumPy arrays and on the stand-in's (and on CuPy's, with a
# GPU), against teachtorch's `F.softplus`. teachtorch's own kernel is in `teachtorch/kernels/activation.py`:
# try it without looking. Stuck? `hint("L06.softplus")`.

# %%
def softplus(xp, x, beta=1.0, threshold=20.0):
    ### BEGIN SOLUTION
    scaled = x * beta
    safe = xp.minimum(scaled, threshold)          # no exp of a large number: no inf, no warning
    return xp.where(scaled > threshold, x, xp.log1p(xp.exp(safe)) / beta)
    ### END SOLUTION


# %%
check("L06.softplus", softplus)

# %% [markdown]
# Your kernel on a tensor's own array, whatever the device: the kernel asks the tensor for `xp`, as the
# library's do (`_data()` is the tensor's strided view of its storage: a NumPy or CuPy array).

# %%
t = tt.tensor([-2.0, 0.0, 30.0], device="cuda" if GPU else "cpu")
try:
    print(t.device, softplus(xp_of(t), t._data()), " library:", F.softplus(t).tolist())
except NotImplementedError:
    print("(write softplus in exercise 1 first)")

# %% [markdown]
# ## 3. `.to(device)`: a copy, and what stays the same
#
# `x.to(device)` copies the tensor into a fresh storage on the other device. What stays the same, in
# PyTorch and here: the values, the shape, the dtype, and the **layout** (`preserve_format`: a transposed
# tensor arrives transposed, a gappy one arrives dense in the same order). What changes: the storage and the
# device. Three more rules:
#
# - if nothing would change, `.to` returns the tensor **itself**, no copy (`copy=True` forces one);
# - it is differentiable: the result has `grad_fn` `ToCopyBackward0`, and backward copies the gradient back
#   to the source device;
# - `.cpu()` and `.cuda()` are `.to("cpu")` and `.to("cuda")`.
#
# The `meta` device has no bytes, so `.to("meta")` works on every machine: watch what it keeps.

# %%
w = tt.arange(12.).reshape(3, 4).t().requires_grad_()
m = w.to("meta")
print("same device, no copy:", w.to("cpu") is w)
print("meta copy:", m.device, tuple(m.shape), m.stride(), m.dtype, m.grad_fn.name())
print("gappy view:", w.detach()[:, ::2].stride(), "->", w.detach()[:, ::2].to("meta").stride())
try:
    m.tolist()
except NotImplementedError as e:
    print("NotImplementedError:", e)
StorageView(w.detach(), w.detach().to("cpu", copy=True))     # two storages, the same strides

# %% [markdown]
# On a GPU the same happens with bytes: `cuda` tensors, their storage on the GPU, and a gradient that comes
# back to the cpu leaf.

# %%
if GPU:
    g = w.to("cuda")
    print(g.device, g.stride(), g.grad_fn.name(), tt.dispatch.keyset_names(g._keys))
    (g * 2).sum().backward()
    print("grad of the cpu leaf:", w.grad.device, w.grad.tolist()[0])
    print(tt.cuda.memory_allocated(), "bytes in use on the GPU")
else:
    print("no GPU here: on one, this cell moves w to cuda:0 and back (pip install 'teachtorch[cuda12]')")

# %% [markdown]
# ## 4. Mixing devices
#
# An op's tensors must all be on one device: PyTorch never copies behind your back.
# `cuda_tensor + cpu_tensor` raises, in PyTorch 2.13 and here (elementwise ops check in `check_same_device`,
# `teachtorch/kernels/pointwise.py`, as PyTorch's `TensorIterator` does):
#
#     RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
#
# One exception, also PyTorch's: a **0-dim** cpu tensor may join a cuda op, as a plain number.

# %%
if GPU:
    c = tt.ones(3, device="cuda")
    try:
        c + tt.ones(3)
    except RuntimeError as e:
        print("RuntimeError:", e)
    print("a 0-dim cpu tensor joins:", (c + tt.tensor(2.0)).device)
else:
    print("no GPU here: on one, this cell raises the error above, then adds a 0-dim cpu tensor to a cuda one")

# %% [markdown]
# ## 5. The bug: a write that never lands
#
# Before PyTorch 2.4, Apple's MPS backend ran `addcmul_` and `addcdiv_` on a *contiguous copy* of a
# non-contiguous output and never copied the result back: MPS's `Placeholder` made the copy silently
# (pytorch#118115, fixed by PR #124442 in June 2024; Elana Simon's 2025 blog post tells how she tracked it
# down from a loss that plateaued). Adam's state is made with `zeros_like(param)`, which keeps the
# parameter's layout, so a transposed parameter (tied weights: `enc.weight = dec.weight.T.clone()`) has a
# transposed `exp_avg_sq`:

# %%
p = tt.arange(6.).reshape(2, 3).t().clone()       # clone keeps the transposed strides
print("param strides:", p.stride(), " zeros_like strides:", tt.zeros_like(p).stride())
StorageView(p, tt.zeros_like(p))

# %% [markdown]
# Adam's step for each parameter $\theta$ with gradient $g$ (`teachtorch/optim/adam.py`, as
# `torch/optim/adam.py`) is a few in-place ops, with $t$ the step number:
#
# | op | writes | does |
# |---|---|---|
# | `exp_avg.lerp_(grad, 1 - beta1)` | $m$ | $m \leftarrow \beta_1 m + (1-\beta_1) g$ |
# | `exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)` | $v$ | $v \leftarrow \beta_2 v + (1-\beta_2) g^2$ |
# | `param.addcdiv_(exp_avg, denom, value=-step_size)` | $\theta$ | $\theta \leftarrow \theta - \frac{\gamma}{1-\beta_1^t} \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} + \epsilon}$ |
#
# On MPS the `addcmul_` and the `addcdiv_` writes were both lost for the encoder: $v$ stayed 0 and $\theta$
# never moved. Here is that kind of kernel for our backends, written once with `xp`:
# `xp.ascontiguousarray` returns the array itself when it is contiguous and a copy otherwise, so it is right
# on every contiguous tensor, which is why tests with contiguous tensors never see it.

# %%
def lost_addcmul_(self, tensor1, tensor2, value=1):
    buf = xp_of(self).ascontiguousarray(self._data())    # a COPY when self is not contiguous
    buf += value * tensor1._data() * tensor2._data()
    return self                                          # ... and buf is never written back


def lost_addcdiv_(self, tensor1, tensor2, value=1):
    buf = xp_of(self).ascontiguousarray(self._data())
    buf += value * tensor1._data() / tensor2._data()
    return self


def tied_autoencoder():
    tt.manual_seed(0)
    enc, dec = nn.Linear(8, 16), nn.Linear(16, 8)
    enc.weight = nn.Parameter(dec.weight.detach().t().clone())    # transposed strides
    return enc, dec


runs = []     # each run of train: (losses, encoder, its Adam state); compare_backends runs reference, candidate


def train(enc, dec, x, steps=3):
    opt = tt.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((dec(enc(x).tanh()) - x) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    runs.append((losses, enc, opt.state[enc.weight]))
    return loss.detach()


tt.manual_seed(1)
x = tt.randn(32, 8)
enc, dec = tied_autoencoder()

# %% [markdown]
# ## 6. Comparing two backends op by op
#
# `compare_backends(fn, *inputs, reference=..., candidate=...)` (`teachtorch/testing/_compare_backends.py`)
# runs `fn` on both sides with identical inputs (modules copied, tensors with their layout). On the candidate
# it watches every op that reaches a kernel (a `TorchDispatchMode`, below autograd, so it sees backward and
# the optimizer too), replays each one on the reference with the same inputs, and compares. Because each op
# is replayed on the candidate's own inputs, the first op beyond tolerance is the broken one, not merely the
# first to feel an earlier error. A `Backend("cpu", kernels={...})` is the cpu with some kernels of your own.
#
# First, only `addcmul_` broken:

# %%
broken = Backend("cpu", kernels={"addcmul_": lost_addcmul_})
report = compare_backends(train, enc, dec, x, reference="cpu", candidate=broken, backward=False)
print(str(report).splitlines()[-1])
for r in report.results:
    if not r.ok:
        print(f"  {r.name:42} max abs diff {r.max_abs:.3g}")

# %% [markdown]
# The first op that disagrees is `addcmul_`, the first update of the encoder's `exp_avg_sq`. But the weight
# did not freeze: it differs by tens of thousands. Look at what the candidate's Adam did:

# %%
(ref_losses, ref_enc, ref_state), (bad_losses, bad_enc, bad_state) = runs[-2:]
for name, losses, e, state in (("right", ref_losses, ref_enc, ref_state),
                               ("broken", bad_losses, bad_enc, bad_state)):
    print(f"{name:7} exp_avg_sq max {state['exp_avg_sq'].abs().max().item():.3g}   "
          f"exp_avg max {state['exp_avg'].abs().max().item():.3g}   "
          f"weight moved by up to {(e.weight - enc.weight).detach().abs().max().item():.3g}   "
          f"last grad max {e.weight.grad.abs().max().item():.3g}   losses {losses}")

# %% [markdown]
# What really happens when only `addcmul_` loses its write:
#
# 1. $v$ stays exactly 0, so the denominator is $\epsilon = 10^{-8}$. At step 1, $m/(1-\beta_1) = g$, and the
#    step is $\gamma g / \epsilon = 10^6 g$ instead of about $\gamma\,\text{sign}(g) = \pm 0.01$: a gradient
#    of 0.036 moves its weight by 36,000.
# 2. The encoder's outputs are now in the thousands; `tanh` of them is exactly $\pm 1$ in float32 and its
#    derivative $1 - \tanh^2$ exactly 0, so from step 2 on the encoder's gradient is exactly 0.
# 3. $m$ is not 0 (it decays by $\beta_1$ each step), and it is still divided by $\epsilon$: the weights keep
#    running away, step after step.
# 4. The loss goes *down*: the decoder learns from the $\pm 1$ codes. Nothing in the loss curve says a
#    kernel is broken.
#
# On MPS, `addcdiv_` lost its write too, so the runaway update never landed either: two bugs hiding each
# other, and a weight that froze. Break both and you get exactly what was seen on the Mac: $m \neq 0$,
# $v = 0$, and a weight that never moves.

# %%
frozen = Backend("cpu", kernels={"addcmul_": lost_addcmul_, "addcdiv_": lost_addcdiv_})
print(str(compare_backends(train, enc, dec, x, candidate=frozen, backward=False)).splitlines()[-1])
losses, e, state = runs[-1]
print(f"exp_avg_sq max {state['exp_avg_sq'].abs().max().item():.3g}   exp_avg max "
      f"{state['exp_avg'].abs().max().item():.3g}   weight moved by up to "
      f"{(e.weight - enc.weight).detach().abs().max().item():.3g}")

# %% [markdown]
# With contiguous parameters the same broken kernels agree with the cpu, which is how this bug class
# survives a test suite:

# %%
enc_c, dec_c = nn.Linear(8, 16), nn.Linear(16, 8)
print("contiguous parameters agree:", compare_backends(train, enc_c, dec_c, x, candidate=frozen, backward=False).ok)

# %% [markdown]
# ### Exercise 2: write it back
#
# A device kernel often cannot follow strides: it gets a pointer and a length. `contiguous_addcmul(xp, buf,
# tensor1, tensor2, value)` is such a kernel: it does `buf += value * tensor1 * tensor2` and refuses a `buf`
# that is not contiguous. Write `addcmul_(xp, out, tensor1, tensor2, value)` with it, for an `out` of any
# layout: compute in a contiguous buffer, and if that buffer is a copy, write it back into `out`. Return
# `out`. The check runs it on views of a storage (transposed, strided, offset, permuted) on NumPy and on the
# stand-in, against teachtorch's `Tensor.addcmul_`, and looks at the whole storage afterwards.
# `hint("L06.addcmul_")` if stuck.

# %%
def addcmul_(xp, out, tensor1, tensor2, value=1):
    ### BEGIN SOLUTION
    buf = xp.ascontiguousarray(out)          # out's own memory, or a contiguous copy of it
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    if not xp.shares_memory(buf, out):       # a copy: write it back through out's strides
        xp.copyto(out, buf)
    return out
    ### END SOLUTION


# %%
check("L06.addcmul_", addcmul_)

# %% [markdown]
# Now make it a teachtorch kernel (the tensor gives its array module and its strided array) and let
# `compare_backends` judge it on the tied autoencoder:

# %%
def my_addcmul_(self, tensor1, tensor2, value=1):
    addcmul_(xp_of(self), self._data(), tensor1._data(), tensor2._data(), value)
    return self


try:
    mine = Backend("cpu", kernels={"addcmul_": my_addcmul_})
    print("your addcmul_ agrees:", compare_backends(train, enc, dec, x, candidate=mine, backward=False).ok)
except NotImplementedError:
    print("(write addcmul_ in exercise 2 first)")

# %% [markdown]
# ## 7. The fix belongs in the abstraction
#
# Fixing `addcmul_` and `addcdiv_` one by one left the bug class alive on MPS: the random in-place ops had
# it too (pytorch#165257, reported in 2025). teachtorch's kernels never write into a tensor themselves:
# `teachtorch.backends.write(dst, value)` is the one write path, and it copies into `dst._data()`, the
# tensor's strided view of its storage, so a transposed, sliced or offset target always gets its values.
#
# With a GPU, the same tool checks the real second backend against the cpu on a small MLP: forward, backward,
# every op.

# %%
if GPU:
    tt.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    images, labels = tt.randn(32, 64), tt.randint(0, 10, (32,))
    gpu_report = compare_backends(lambda m, a, b: F.cross_entropy(m(a), b), mlp, images, labels,
                                  reference="cpu", candidate="cuda")
    print(str(gpu_report).splitlines()[-1])
else:
    print("no GPU here: on one, this cell compares cuda with the cpu op by op on an MLP")

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | a device: where the bytes live | `c10/core/Device.h` | `teachtorch/_device.py` (`device`) |
# | a kernel per device, or one kernel over `xp` | `aten/src/ATen/native/DispatchStub.h`, `aten/src/ATen/native/cpu/Activation.cpp`, `aten/src/ATen/native/cuda/ActivationSoftplusKernel.cu` | `teachtorch/backends/__init__.py` (`xp_of`), `teachtorch/kernels/activation.py` (`softplus`) |
# | `.to(device)`: a copy that keeps the layout | `aten/src/ATen/native/TensorConversions.cpp` (`_to_copy`) | `teachtorch/ops/conversions.py` (`to`) |
# | all tensors of an op on one device | `aten/src/ATen/core/op_registration/adaption.h` (`check_and_update_common_device`, called by the generated wrappers), `aten/src/ATen/TensorIterator.cpp` | `teachtorch/backends/device_check.py` (`DeviceCheck`), `teachtorch/kernels/pointwise.py` (`check_same_device`) |
# | Adam's in-place step, and the lost write-back | `torch/optim/adam.py`; the MPS fix in `aten/src/ATen/native/mps/operations/PointwiseOps.mm` | `teachtorch/optim/adam.py`; `teachtorch/backends/__init__.py` (`write`) |
# | comparing two backends op by op | none built in; its tests run per device with `torch/testing/_internal/common_device_type.py` | `teachtorch/testing/_compare_backends.py` (`compare_backends`) |

# %% [markdown]
# ## Recap
#
# - A device is where a storage's bytes live; a kernel gets its array module from its tensors
#   (`xp_of(t)`: NumPy or CuPy) and is written once, with **only** `xp.` calls.
# - `.to(device)` copies into a fresh storage and keeps values, shape, dtype and layout; it returns the tensor
#   itself when nothing changes, and it is differentiable.
# - Tensors of one op must share a device (except a 0-dim cpu tensor): "Expected all tensors to be on the same
#   device, but found at least two devices, cuda:0 and cpu!".
# - A kernel that computes into a contiguous copy must write it back. `compare_backends` finds the op that
#   forgets, by replaying every op on a backend you trust; test with non-contiguous tensors.
#
# **In the source:** `teachtorch/_device.py`, `teachtorch/backends/__init__.py` (`xp_of`, `write`),
# `teachtorch/backends/cuda.py`, `teachtorch/backends/device_check.py`,
# `teachtorch/testing/_compare_backends.py`.
# In PyTorch: `c10/core/Device.h`, `aten/src/ATen/native/cuda/`, and the MPS fix in
# `aten/src/ATen/native/mps/operations/PointwiseOps.mm` (PR #124442).
#
# **Next:** lesson 7 starts autograd, with derivatives of plain numbers.
