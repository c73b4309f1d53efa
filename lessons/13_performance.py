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
# # Lesson 13: performance from first principles
#
# **You will learn**
# - the three costs of every op: **overhead** (Python and the dispatcher, per call), **memory bandwidth**
#   (bytes read and written) and **compute** (FLOPs), and how to tell which one a given op pays;
# - to measure each on this library and this machine: the dispatch trace's per-hop times, time per sample
#   against batch size, GB/s of a big elementwise op, GFLOP/s of a big matmul, each next to NumPy;
# - why **fusion** (one kernel instead of several) and **foreach** ops (one call for many tensors) are fast.
#
# **You will build** `regime(op, shapes)`, which names an op's bottleneck from its FLOPs and bytes, and
# `register_fused_gelu(lib)`: the GELU activation as ONE op, checked from the trace's counters (calls and
# allocations, never a clock).
#
# **Time:** about 60 minutes. **You need:** lesson 4 (kernels are NumPy calls), lesson 5 (dispatch, the
# trace, `Library`), and what a matmul costs: $(m, k) @ (k, n)$ is $m k n$ multiply-adds.
#
# The lesson follows Horace He's essay "Making Deep Learning Go Brrrr From First Principles". **Timings are
# printed, never asserted**: they depend on the machine and on what else runs on it, so your numbers will
# differ from the ones quoted here (a shared 2-core cloud machine).

# %%
import math
import time

import numpy as np

import teachtorch as tt
from teachtorch.backends import wrap
from teachtorch.exercises import check, hint
from teachtorch.explorer import TraceView
from teachtorch.library import Library


def best_time(fn, repeat=5, number=1):
    """Seconds per call of fn(): the fastest of `repeat` loops of `number` calls (the least disturbed one)."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best

# %% [markdown]
# ## 1. Three costs
#
# Running an op costs three things, and the slowest one sets the time:
#
# $$t_\text{op} \approx \max\Big(\underbrace{t_\text{overhead}}_\text{per call},\;
#   \underbrace{\frac{\text{bytes moved}}{\text{bandwidth}}}_\text{memory},\;
#   \underbrace{\frac{\text{FLOPs}}{\text{FLOP rate}}}_\text{compute}\Big)$$
#
# - **overhead**: everything that is not the kernel: the Python call, the dispatcher's hops (lesson 5), making
#   the output tensor. Fixed per call, whatever the size.
# - **memory bandwidth**: an elementwise op reads every input byte and writes every output byte once, doing
#   one or two FLOPs per element. Memory is far slower than arithmetic, so it waits for memory.
# - **compute**: a matmul does $2 m k n$ FLOPs on $m k + k n + m n$ numbers: each number is used $k$ or $n$ times
#   once it is close to the arithmetic units. Only here are the FLOPs what you wait for.
#
# Which one you are in decides what helps: fewer calls, fewer passes over memory, or faster arithmetic. A
# GPU makes the last two much bigger and the first one no smaller, so overhead matters even more there.
#
# ## 2. Overhead: what a tiny op costs
#
# An 8 × 8 add does 64 FLOPs and moves 768 bytes: nothing. Its time is all overhead.

# %%
x8, y8 = tt.ones(8, 8), tt.ones(8, 8)
a8, b8 = np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)
t_tt = best_time(lambda: x8 + y8, number=2000)
t_np = best_time(lambda: a8 + b8, number=2000)
print(f"8x8 add   teachtorch {t_tt * 1e6:5.1f} us   NumPy {t_np * 1e6:5.2f} us   ({t_tt / t_np:.0f}x)")

# %% [markdown]
# About 10 µs against NumPy's fraction of a µs (PyTorch's own CPU overhead is a few µs: `bench/overhead.py`
# measures all three side by side). Where does it go? The dispatch trace times every hop (lesson 5). The
# trace costs time itself, so read the split, not the total:

# %%
with tt.dispatch.trace() as t:
    for _ in range(3):
        z8 = x8 + y8
print(t.format(hops=True))
TraceView(t, title="three 8x8 adds: the time of each hop")

# %% [markdown]
# The `AutogradCPU` hop (is grad needed? no: redispatch) and the `CPU` hop (broadcast the shapes, pick the
# result dtype and strides, call NumPy, wrap a tensor) each cost microseconds of Python; the NumPy add inside
# is a small part. The first call is slower: caches warm up, and the trace names the new tensors. That is
# the **overhead regime**: a model made of many small ops runs at the speed of Python, whatever the hardware.
# PyTorch's answers are C++ for the dispatcher, CUDA graphs (replay a whole recorded sequence of kernels
# with one launch) and `torch.compile` (fewer, bigger kernels).
#
# ## 3. The same model at several batch sizes
#
# A model's forward makes the same op calls whatever the batch size; only the work per call grows. So the
# time per **sample** falls while overhead dominates, then flattens when the kernels' real work takes over.
# `time_budget_s` caps the whole sweep (about 3 s here).

# %%
tt.manual_seed(0)
model = tt.nn.Sequential(tt.nn.Linear(64, 256), tt.nn.ReLU(), tt.nn.Linear(256, 256), tt.nn.ReLU(),
                         tt.nn.Linear(256, 10))
flops_per_sample = 2 * (64 * 256 + 256 * 256 + 256 * 10)
with tt.no_grad(), tt.dispatch.trace() as t:
    model(tt.randn(4, 64))
print(f"one forward: {len(t.ops())} op calls, whatever the batch size")

time_budget_s = 3.0
start = time.perf_counter()
with tt.no_grad():
    for batch in (1, 4, 16, 64, 256, 1024, 4096):
        xb = tt.randn(batch, 64)
        sec = best_time(lambda: model(xb), repeat=3, number=max(1, 256 // batch))
        print(f"batch {batch:5d}: {sec * 1e3:7.3f} ms   {sec / batch * 1e6:8.2f} us/sample   "
              f"{flops_per_sample * batch / sec / 1e9:6.2f} GFLOP/s")
        if time.perf_counter() - start > time_budget_s:
            print("(time budget reached)")
            break

# %% [markdown]
# At batch 1 the forward's calls cost tens of µs and the arithmetic is nearly free: µs per sample is pure
# overhead, and the GFLOP/s are tiny. Each step of 4× in batch size divides the time per sample by up to 4
# (on a busy machine the numbers jump about: run the cell again) until the matmuls' work outgrows the fixed
# cost; from then on the time per sample is flat and the FLOP rate stops rising. (Here the largest batches
# may even get slower per sample: the activations no longer fit in the CPU's caches.) This is why one trains
# on batches, and why **inference at batch 1 is an overhead problem**.
#
# ## 4. Memory bandwidth: a big elementwise op
#
# Adding two vectors of $n$ float32 numbers reads $2 \cdot 4n$ bytes and writes $4n$, for $n$ FLOPs: an
# **arithmetic intensity** of $1/12$ FLOP per byte. Its speed is bytes moved per second. Sweep $n$ to watch
# it leave the overhead regime:

# %%
for n in (2**10, 2**14, 2**18, 2**22):
    xa, ya = tt.ones(n), tt.ones(n)
    an, bn = np.ones(n, np.float32), np.ones(n, np.float32)
    number = max(1, 2**16 // n)
    s_tt, s_np = best_time(lambda: xa + ya, number=number), best_time(lambda: an + bn, number=number)
    moved = 3 * 4 * n
    print(f"n = 2^{int(math.log2(n)):2d} ({moved / 2**20:6.2f} MiB moved)   "
          f"teachtorch {moved / s_tt / 1e9:6.2f} GB/s   NumPy {moved / s_np / 1e9:6.2f} GB/s")
BANDWIDTH_HERE = moved / s_np

# %% [markdown]
# Small vectors: a low GB/s for teachtorch, since the time is overhead. In the middle the data fits in the
# CPU's caches, which are faster than main memory: the rate may peak there. At $2^{22}$ elements (48 MiB
# moved, more than the caches hold) teachtorch and NumPy run at about the same rate: the overhead is hidden
# and both wait for memory (about 20 GB/s on this machine; a laptop's memory does 50-100 GB/s, an H100's
# 3,350 GB/s). Nothing about the FLOPs shows: the add could do ten times more arithmetic per element in the
# same time.
#
# ## 5. Compute: a big matmul
#
# A $1024 \times 1024$ matmul does $2 \cdot 1024^3 \approx 2.1$ GFLOP on 12 MiB of data: 170 FLOPs per byte.

# %%
A = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
TA = tt.tensor(A)
flops = 2 * 1024**3
s_tt, s_np = best_time(lambda: TA @ TA, repeat=3), best_time(lambda: A @ A, repeat=3)
print(f"1024^3 matmul   teachtorch {flops / s_tt / 1e9:6.1f} GFLOP/s   NumPy {flops / s_np / 1e9:6.1f} GFLOP/s")
FLOP_RATE_HERE = flops / s_np

B = tt.full((4096, 4096), 0.5)                       # 64 MiB: more than the CPU's caches hold
v = tt.ones(1, 4096)                                  # a (1, 4096) row: a matrix times a vector
s_mv = best_time(lambda: v @ B, repeat=7)
print(f"(1, 4096) @ (4096, 4096)   {2 * 4096**2 / s_mv / 1e9:6.2f} GFLOP/s   "
      f"{4 * (4096**2 + 2 * 4096) / s_mv / 1e9:6.2f} GB/s")
print(f"ridge point here: {FLOP_RATE_HERE / BANDWIDTH_HERE:.1f} FLOPs per byte")

# %% [markdown]
# The matmul runs at tens of GFLOP/s, more than ten times the FLOP rate of the big add (1 FLOP per 12 bytes:
# about 2 GFLOP/s at 24 GB/s), and teachtorch matches NumPy: both call the same BLAS (OpenBLAS or MKL), and
# 0.05 s of work hides 10 µs of overhead. The matrix
# times a **vector** is a matmul too, but it reads the whole matrix to do 2 FLOPs per number (half a FLOP per
# byte): it is bandwidth-bound, its GFLOP/s are low and its GB/s are those of section 4.
#
# The **ridge point** (FLOP rate / bandwidth) separates the two: an op with fewer FLOPs per byte than that
# waits for memory, one with more waits for arithmetic. This is the **roofline model**. An H100 does about
# 990 TFLOP/s (dense bf16 on its tensor cores) against 3.35 TB/s: its ridge is near 300 FLOPs per byte, so
# even more of a network is bandwidth-bound on a GPU than here.
#
# ### Exercise 1: which regime?
#
# Write `regime(op, shapes)` for the model of section 1 with the round numbers below (near what this
# machine measured): return `"overhead"`, `"bandwidth"` or `"compute"`, whichever time is largest. `op` is
# `"relu"` (one input), `"add"` or `"mul"` (two inputs of the same shape), or `"matmul"` (`shapes` is
# `((m, k), (k, n))`). All float32. An elementwise op on $n$ elements does $n$ FLOPs and moves 4 bytes per
# element of each input and of the output; a matmul does $2 m k n$ FLOPs and moves
# $4 (m k + k n + m n)$ bytes. `regime("add", ((8, 8), (8, 8)))` is `"overhead"`;
# `regime("matmul", ((1, 4096), (4096, 4096)))` is `"bandwidth"`.

# %%
OVERHEAD_S = 10e-6        # seconds per call (section 2)
BANDWIDTH = 20e9          # bytes per second (section 4)
FLOP_RATE = 50e9          # FLOPs per second (section 5)
BYTES = 4                 # float32


def regime(op, shapes):
    ### BEGIN SOLUTION
    if op == "matmul":
        (m, k), (_, n) = shapes
        flops, elements = 2 * m * k * n, m * k + k * n + m * n
    else:
        numel = math.prod(shapes[0])
        flops, elements = numel, numel * (len(shapes) + 1)      # every input read, the output written
    times = [OVERHEAD_S, elements * BYTES / BANDWIDTH, flops / FLOP_RATE]
    return ["overhead", "bandwidth", "compute"][times.index(max(times))]
    ### END SOLUTION


# %%
check("L13.regime", regime)

# %% [markdown]
# Stuck? `hint("L13.regime")`. The model is rough (real ops overlap their costs, caches change the
# bandwidth, BLAS is slower on thin shapes) but it gets the order of magnitude right, and that is what tells
# you which optimisation can help.
#
# ## 6. Fusion: fewer passes over memory
#
# A chain of elementwise ops pays bandwidth once per op: each reads its inputs from memory and writes its
# output back, only for the next op to read it again. `x * y + z` makes two calls, allocates an intermediate
# the size of `x`, and moves $6n$ numbers; `tt.addcmul(z, x, y)` (PyTorch's `torch.addcmul`: $z + x \cdot y$)
# is one call, which in PyTorch moves $4n$. `trace_counts` counts calls and allocations from the trace:

# %%
def trace_counts(fn, *args):
    """(result, op calls at any depth, tensors allocated), read from a trace: deterministic, no clock."""
    with tt.dispatch.trace(max_events=None) as t:
        out = fn(*args)
    calls = [e for e in t.events if e.parent is None or t.event(e.parent).op != e.op]
    made = set()
    for e in calls:
        ins = [i for i in e.inputs if hasattr(i, "storage_id")]
        made |= {o.name for o in e.outputs if hasattr(o, "storage_id") and o.name not in {i.name for i in ins}
                 and o.storage_id not in {i.storage_id for i in ins}}    # not an input, not a view of one
    return out, len(calls), len(made)


x, y, z = tt.randn(1000), tt.randn(1000), tt.randn(1000)
for name, fn in [("x * y + z", lambda: x * y + z), ("tt.addcmul(z, x, y)", lambda: tt.addcmul(z, x, y))]:
    _, calls, made = trace_counts(fn)
    print(f"{name:20s} {calls} calls, {made} tensors allocated")

# %% [markdown]
# Half the calls, half the allocations. In the overhead regime the time is about calls × overhead per call;
# in the bandwidth regime it is bytes: a kernel that is one loop (read `x`, `y`, `z` once, write once)
# moves $4n$ numbers instead of $6n$. PyTorch's C++ `addcmul` is such a loop. teachtorch's is not: its
# kernel is the NumPy expression `a + value * t1 * t2` (`addcmul` in `teachtorch/kernels/pointwise_math.py`),
# which makes NumPy temporaries and passes over memory once per operation, and its one call, with three
# tensors to check, costs about as much as two calls of `mul`. Time both here if you like: fusion at the op
# level pays only when the fused op is cheap to call and its kernel really is one pass.
#
# The GELU activation $\tfrac12 x \big(1 + \tanh\big(\sqrt{2/\pi}\,(x + 0.044715\,x^3)\big)\big)$ (GPT-2's)
# makes the point louder: written with tt ops it is nine calls and nine new tensors of the size of `x`
# (`x * x * x`, since NumPy's float32 power `x**3` is very slow on some CPUs).

# %%
GELU_C = math.sqrt(2 / math.pi)


def gelu_unfused(x):
    return 0.5 * x * (1 + tt.tanh(GELU_C * (x + 0.044715 * (x * x * x))))


_, calls, made = trace_counts(gelu_unfused, tt.randn(4))
print(f"unfused GELU: {calls} calls, {made} tensors allocated")
with tt.dispatch.trace() as t:
    gelu_unfused(tt.randn(4))
TraceView(t, title="the unfused GELU: one row per op")

# %% [markdown]
# ### Exercise 2: a fused GELU
#
# Write `register_fused_gelu(lib)`: define `fused_gelu(Tensor x) -> Tensor` in the library `lib` it is
# given, with ONE kernel for `CPU` (and `CUDA`) that computes the whole formula with NumPy on `x._data()`
# and `wrap`s the result, as lesson 5's `scale` did. The check calls your op under a trace and compares
# `(value, calls, new_tensors)` with `(tt.nn.functional.gelu(x, approximate="tanh"), 1, 1)`: every tt op
# your kernel calls is one more dispatched call, and the trace sees it. No autograd needed: the check's
# inputs do not require grad. `hint("L13.fused_gelu")` if stuck.

# %%
def register_fused_gelu(lib):
    ### BEGIN SOLUTION
    lib.define("fused_gelu(Tensor x) -> Tensor")

    def gelu_kernel(x):
        a = x._data()
        return wrap(0.5 * a * (1 + np.tanh(GELU_C * (a + 0.044715 * (a * a * a)))), x.dtype, x.device)

    lib.impl("fused_gelu", gelu_kernel, "CPU")
    lib.impl("fused_gelu", gelu_kernel, "CUDA")
    ### END SOLUTION


# %%
check("L13.fused_gelu", register_fused_gelu)

# %% [markdown]
# Register it for real (in the namespace `lesson13`) and time it against the unfused chain, on 64 numbers and
# on 4M:

# %%
try:
    lib13._destroy()          # re-running this cell: destroy the library it made before
except NameError:
    pass
lib13 = Library("lesson13", "DEF")
try:
    register_fused_gelu(lib13)
    fused = tt.ops.lesson13.fused_gelu
    for size, number in ((64, 1000), (2**22, 1)):
        xg = tt.randn(size)
        print(f"n = {size:8d}   unfused {best_time(lambda: gelu_unfused(xg), number=number) * 1e6:9.1f} us   "
              f"fused {best_time(lambda: fused(xg), number=number) * 1e6:9.1f} us   "
              f"max difference {(fused(xg) - gelu_unfused(xg)).abs().max().item():.1e}")
except NotImplementedError:
    print("(write register_fused_gelu in exercise 2 first)")

# %% [markdown]
# On 64 numbers the fused op is several times faster: one call's overhead instead of nine. On 4M numbers it
# gains less: the NumPy expression inside the kernel still makes a temporary array per operation and passes
# over memory once for each. It removed the dispatch overhead and the tensors, not the passes. A truly fused
# kernel is one loop that reads `x` once, does all the arithmetic in registers and
# writes once: that needs a compiler. `torch.compile`'s Inductor finds such chains in the graph and writes
# one Triton (GPU) or C++ (CPU) loop for each (its fusion decisions are in `torch/_inductor/scheduler.py`);
# by hand, CuPy's `ElementwiseKernel` or a Triton kernel does it. The same reasoning makes
# **FlashAttention** fast: it never writes the $n \times n$ attention matrix to memory.
#
# ## 7. Foreach ops: one call for many tensors
#
# An optimizer updates every parameter with the same few elementwise ops. Called per parameter, a model with
# 100 parameters makes 100 × (ops per update) calls: overhead. teachtorch's `_foreach_*` ops, like
# PyTorch's, take a **list** of tensors and do one op on all of them in one call (on a GPU, in a few kernel
# launches). `tt.optim.Adam(..., foreach=True)` uses them:

# %%
tt.manual_seed(0)
deep = tt.nn.Sequential(*[tt.nn.Linear(32, 32) for _ in range(10)])
for foreach in (False, True):
    opt = tt.optim.Adam(deep.parameters(), lr=1e-3, foreach=foreach)
    deep(tt.randn(8, 32)).sum().backward()
    opt.step()                                     # the first step makes the state
    with tt.dispatch.trace(max_events=None) as t:
        opt.step()
    print(f"foreach={foreach!s:5}: {len(t.ops()):4d} op calls per step for {len(list(deep.parameters()))} "
          f"parameters, {best_time(opt.step, repeat=3) * 1e3:5.2f} ms")

# %% [markdown]
# The per-tensor path makes eight calls per parameter; the foreach path makes eight calls in all. The
# update is `_multi_tensor_adam` in `teachtorch/optim/adam.py`, line for line PyTorch's in
# `torch/optim/adam.py`. (On a CPU, PyTorch and teachtorch still loop over the tensors inside each foreach
# op; on a GPU, PyTorch's foreach kernels pack many tensors into one launch. PyTorch's `fused=True` goes one
# step further: the whole Adam update in one kernel, exercise 2's idea.)
#
# ## 8. Measuring for real: bench/
#
# `best_time` above is the minimum of a few loops. The project's benchmarks do it carefully: interleaved
# repeats, loop lengths chosen like `timeit`'s, teachtorch next to PyTorch and NumPy in the same run. From a
# terminal in the repository: `.venv/bin/python bench/overhead.py --quick` (the 8 × 8 add, a 1024 × 1024
# matmul, the cost of a trace), `bench/autograd.py` (a backward's fixed cost), `bench/nn.py` (a training
# step), `bench/speed.py` (all of them in one table). In PyTorch, `torch.utils.benchmark.Timer`
# (`torch/utils/benchmark/utils/timer.py`) does the same, and `torch.profiler` (`torch/profiler/profiler.py`)
# records every op's time, the counterpart of our trace.

# %% [markdown]
# **Where this is in PyTorch**
#
# - per-op overhead and the trace: `teachtorch/dispatch/trace.py`; in PyTorch `torch/profiler/profiler.py`
#   records every op, and the dispatcher it times is `aten/src/ATen/core/dispatch/Dispatcher.h`;
# - timing: `bench/overhead.py` (`measure`); PyTorch's `torch/utils/benchmark/utils/timer.py`;
# - a custom fused op: `teachtorch/library.py`; PyTorch's `torch/library.py` (`custom_op`), with a C++ or
#   Triton kernel;
# - automatic fusion: none in teachtorch; PyTorch's Inductor, `torch/_inductor/scheduler.py`;
# - foreach ops: `teachtorch/ops/foreach.py`, used by `_multi_tensor_adam` in `teachtorch/optim/adam.py`;
#   PyTorch's `torch/optim/adam.py` and `aten/src/ATen/native/ForeachOpsKernels.cpp`.
#
# ## Recap
#
# - An op costs about $\max(t_\text{overhead}, \text{bytes}/\text{bandwidth}, \text{FLOPs}/\text{FLOP rate})$.
#   Arithmetic intensity (FLOPs per byte) against the machine's ridge point says which of the last two wins.
# - **Overhead**: small ops, batch 1, Python loops. Fix: fewer, bigger calls (batching, foreach ops, CUDA
#   graphs, compilation).
# - **Bandwidth**: elementwise ops, reductions, a matrix times a vector. Fix: fewer passes over memory
#   (fusion), smaller dtypes.
# - **Compute**: big matmuls and convolutions. Fix: faster arithmetic (tensor cores, lower precision).
# - Measure before you optimise: the trace counts calls and allocations exactly; clocks are noisy, so take
#   the best of several runs and compare within one run.
#
# **Next:** lesson 14 trains a language model (bigram, then an MLP): a training loop, where these costs add
# up step after step.
