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

# %% [markdown] slideshow={"slide_type": "slide"} timing=30 minutes=[28, 32]
# # How an op is dispatched
#
# From `a + b` to the kernel: the table, fallthroughs, a new op, and what it all costs
#
# A 30-minute talk; every output on these slides comes from teachtorch, running

# %% slideshow={"slide_type": "skip"}
import inspect
import math
import textwrap
import time

import matplotlib.pyplot as plt
import numpy as np

import teachtorch as tt
from teachtorch.backends import wrap
from teachtorch.dispatch import DispatchKey, TorchDispatchMode
from teachtorch.explorer import TraceView
from teachtorch.library import Library, register_autograd

tt.manual_seed(0)

# %% [markdown] slideshow={"slide_type": "slide"} timing=120
# ## `a + b`: what runs?

# %% slideshow={"slide_type": "-"}
a = tt.ones(2, 3, requires_grad=True)
b = tt.ones(2, 3)
with tt.dispatch.trace() as t:
    c = a + b
TraceView(t, max_rows=8)

# %% [markdown] slideshow={"slide_type": "notes"}
# Ask first: "how many Python functions does `a + b` run before NumPy adds two numbers?" Take guesses.
#
# The trace records every **hop**: each kernel the dispatcher runs, and at which **key**. One op call,
# `aten.add.Tensor`, and two hops: `AutogradCPU` first, then `CPU`. Point at the path column. The shapes,
# strides and storages columns are lesson 1's; the time column is the whole call, trace overhead included.
#
# The talk answers three questions about this one row: who decided that Autograd goes first, where the
# list of kernels lives, and what this costs.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Every hop is a file and a line

# %% slideshow={"slide_type": "-"}
print(t.format(hops=True, durations=False))

# %% [markdown] slideshow={"slide_type": "fragment"}
# - who chose the order? where is the table? what does it cost?

# %% [markdown] slideshow={"slide_type": "notes"}
# The same trace as text. Each hop names the function that ran and where it is written: open
# `teachtorch/autograd/variable_type.py` at that line and you read the autograd kernel; open
# `teachtorch/kernels/pointwise.py` and you read the CPU kernel. This is the map Edward Yang's
# "PyTorch internals" talk wanted to put in your hands, printed by the library itself.
#
# PyTorch's nearest tool is a logging `TorchDispatchMode` (`torch/utils/_python_dispatch.py`), or
# `TORCH_SHOW_DISPATCH_TRACE=1` in a debug build.
#
# Reveal the three questions: they are the three parts of the talk.

# %% [markdown] slideshow={"slide_type": "slide"} timing=75
# ## Build a dispatcher, attempt 1: a method per class

# %% slideshow={"slide_type": "-"}
class CPUTensor:
    def add(self, other):
        return "CPU add"

class CUDATensor:
    def add(self, other):
        return "CUDA add"

class AutogradCPUTensor(CPUTensor):
    def add(self, other):
        return "record a node, then " + super().add(other)

print(AutogradCPUTensor().add(CUDATensor()))

# %% [markdown] slideshow={"slide_type": "fragment"}
# - only `self` chooses: the CUDA argument was never asked
# - autograd × every backend = a class each; a new op = a method in every class

# %% [markdown] slideshow={"slide_type": "notes"}
# Build the dispatcher from first principles, the way the PyTorch devlog "How does the dispatcher work?"
# tells it. The obvious design is virtual methods: each kind of tensor has its own `add`.
#
# Point at the output: we added a CPU tensor and a CUDA tensor, and got a CPU add, because only the
# class of `self` picked the method. Then the product: autograd on CPU, autograd on CUDA, tracing on
# each, ... one class per combination, and every new op is a method in every one of them. Question to
# the room: where would a user put a new backend without editing these classes?

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## Attempt 2: one table per op

# %% slideshow={"slide_type": "-"}
add_table = {"CPU": lambda x, y: f"CPU add {x} + {y}",
             "CUDA": lambda x, y: f"CUDA add {x} + {y}"}

def call_v2(table, device, *args):
    return table[device](*args)

print(call_v2(add_table, "CPU", 1, 2))

# %% [markdown] slideshow={"slide_type": "fragment"}
# - ops are data: a new backend is one more entry, added from outside
# - but autograd, tracing, vmap must run *before* the backend, for every op

# %% [markdown] slideshow={"slide_type": "notes"}
# Turn it inside out: an op is a table, from a key to a kernel. Now a new backend is one more entry, and
# anybody can add it without touching the op's code. This is half of PyTorch's design.
#
# What is missing: autograd is not a backend. It has to run first, record a node, and then let the
# backend compute. With a flat table we would need an `AutogradCPU+Tracing+CPU` entry per combination
# again. We need layers.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Attempt 3: keys in a fixed order, highest first

# %% slideshow={"slide_type": "-"}
ORDER = ["Autograd", "ADInplaceOrView", "CPU"]     # high to low

def call_v3(table, keys, *args):
    for i, key in enumerate(ORDER):
        if key in keys and table[key] != "skip":
            below = set(ORDER[i + 1:]) & keys    # what is left
            return table[key](below, *args)

# %% [markdown] slideshow={"slide_type": "fragment"}
# - a call carries a **set of keys**; one global order ranks them
# - the highest key runs, and gets the keys **below** it, to hand on

# %% [markdown] slideshow={"slide_type": "notes"}
# The third attempt is the real design. Every call carries a set of keys (from its tensors). There is one
# global priority order. The dispatcher runs the kernel of the highest key present, and passes it the
# keys below its own. A kernel that only does part of the job (autograd) calls the dispatcher again with
# those keys: the next layer runs. A table entry can also say "skip": that key is passed over.
#
# Six lines. The next slide uses it.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## A layer does its part, then hands on

# %% slideshow={"slide_type": "-"}
def autograd_add(keys, x, y):
    print("Autograd: record a node, hand on")
    return call_v3(add_table, keys, x, y)      # redispatch

def cpu_add(keys, x, y):
    print("CPU: compute")
    return x + y

add_table = {"Autograd": autograd_add,
             "ADInplaceOrView": "skip", "CPU": cpu_add}
keys = {"Autograd", "ADInplaceOrView", "CPU"}
print(call_v3(add_table, keys, 1, 2))

# %% [markdown] slideshow={"slide_type": "notes"}
# Read the output with the room: Autograd ran first, did its part, and *redispatched* with the keys below
# it. `ADInplaceOrView` was in the set but its entry says skip: a **fallthrough**. Then CPU computed.
#
# Nothing in `cpu_add` knows autograd exists, and nothing in `autograd_add` knows which backend comes
# next. That separation is the whole point: layers and backends can be added independently.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## The real one, in teachtorch

# %% slideshow={"slide_type": "-"}
src = inspect.getsource(tt.dispatch.call).splitlines()
print("\n".join(line for line in src if '"""' not in line))

# %% [markdown] slideshow={"slide_type": "-"}
# A key set is an `int`, one bit per key; `op.table` is a list indexed by the key's number.

# %% [markdown] slideshow={"slide_type": "notes"}
# This is `call` in `teachtorch/dispatch/dispatcher.py`, printed from the source, docstring removed. The
# same idea with bits: the key set is an integer, the highest set bit (`bit_length() - 1`) is the key
# that runs, and `op.mask` has the skipped keys already turned off. The `_active_trace` line is how the
# trace you saw is recorded: one `if` when nobody is tracing.
#
# PyTorch: `Dispatcher::call` in `aten/src/ATen/core/dispatch/Dispatcher.h`, the same computation in C++.

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Two dispatches (Yang, 2019): device, then dtype
#
# - the **device** picks a kernel from the table; the **dtype** is a switch *inside* it

# %% slideshow={"slide_type": "-"}
for dt in (tt.float32, tt.int64, tt.float64):
    x = tt.ones(3, dtype=dt)
    with tt.dispatch.trace() as t:
        x + x
    hop = t.events[-1]
    print(f"{str(dt):14} {hop.key}: {hop.kernel}")
print(len(np.add.types), "loops in np.add:", np.add.types[:4], "...")

# %% [markdown] slideshow={"slide_type": "notes"}
# Yang's "most important mental picture": `torch.mm` is dispatched twice. First dynamically on device and
# layout, through the table. Then, inside the kernel, a switch on the dtype (`AT_DISPATCH_ALL_TYPES` in
# ATen) picks the loop for float, double, int, ...
#
# Here: three dtypes, one table entry, the same kernel object. The dtype switch in teachtorch is inside
# NumPy: `np.add` is a ufunc with one compiled loop per type signature (the output prints how many),
# and NumPy picks the loop from the dtypes. On a GPU the same kernel calls CuPy instead (lesson 6): the
# device chose `xp`, the dtype chose the loop.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Autograd is a layer in front of the backend

# %% slideshow={"slide_type": "-"}
for x in (tt.ones(3), tt.ones(3, requires_grad=True)):
    with tt.dispatch.trace() as t:
        y = x * 2
    path = " -> ".join(e.key for e in t.events)
    node = y.grad_fn.name() if y.grad_fn else None
    print(f"requires_grad={x.requires_grad!s:5} {path}  {node}")

# %% [markdown] slideshow={"slide_type": "fragment"}
# - the key is on every tensor; its kernel records a node, or just hands on

# %% [markdown] slideshow={"slide_type": "notes"}
# Yang calls this the "Variable dispatch" in front of the backend dispatch. Both calls go through
# `AutogradCPU`: a cpu tensor carries the autograd key whether or not it requires grad, as in PyTorch.
# The autograd kernel (`autograd_kernel`, written out by `_simple_kernel` in
# `teachtorch/autograd/variable_type.py`: 9 lines, read them) asks: grad mode on, and an input that
# requires grad? Then record a `MulBackward0` node and redispatch below autograd; else redispatch at once.
#
# PyTorch generates one such kernel per op (`VariableType_*.cpp`); the redispatch there is
# `at::redispatch::mul(ks & c10::after_autograd_keyset, ...)`. Deck C opens the node up.

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Every tensor carries a set of keys

# %% slideshow={"slide_type": "-"}
print(tt.dispatch.keys_of(tt.ones(3)))
print(tt.dispatch.keys_of(tt.ones(3, device="meta")))
names = [k.name for k in reversed(DispatchKey)]
print("order:", " > ".join(names[:5]))
print("     >", " > ".join(names[5:]))

# %% [markdown] slideshow={"slide_type": "-"}
# PyTorch: `torch._C._dispatch_keys(torch.ones(3))` is
# `DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)`

# %% [markdown] slideshow={"slide_type": "notes"}
# teachtorch keeps 9 of PyTorch's keys, in PyTorch's order (`teachtorch/_dispatch_key.py`). A cpu tensor
# carries three: its backend, `ADInplaceOrView` (version counters and views) and `AutogradCPU`. A meta
# tensor (shapes, no memory) carries the Meta ones. `Python` is where a `TorchDispatchMode` sees ops;
# `BackendSelect` is for factories like `tt.ones` that have no tensor argument to take keys from.
#
# PyTorch's key enum has well over a hundred entries (`c10/core/DispatchKey.h`): autocast, vmap,
# functionalization, sparse and quantized backends. Same idea, more layers.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## The key set of a call
#
# $\text{keyset} = \big(\text{OR of its tensors' keys} \;|\; \text{included}\big) \;\&\; \sim\text{excluded}$

# %% slideshow={"slide_type": "-"}
add = tt.ops.aten.add.Tensor
ks = tt.dispatch.keyset_of(add, (a, b, 1))
print(bin(ks), tt.dispatch.keyset_names(ks))
print("runs first:", DispatchKey(ks.bit_length() - 1).name)

# %% [markdown] slideshow={"slide_type": "notes"}
# `keyset_of` in `teachtorch/dispatch/dispatcher.py`: OR the key sets of every tensor argument, add the
# thread's included keys (teachtorch always includes `BackendSelect` and `ADInplaceOrView`), remove the
# excluded ones (a layer that must not run again excludes itself). The highest set bit wins.
#
# Question: what if one argument is on cpu and the other on meta? The OR holds both backends, `Meta`
# outranks `CPU`, and the Meta kernel is the one that raises "Expected all tensors to be on the same
# device".

# %% [markdown] slideshow={"slide_type": "subslide"} timing=120
# ## The dispatch table of `add`

# %% slideshow={"slide_type": "-"}
print(tt.dispatch.dump_table("add.Tensor"))

# %% [markdown] slideshow={"slide_type": "fragment"}
# - **layer**: does its part, redispatches · **kernel**: computes · **fallthrough**: skipped

# %% [markdown] slideshow={"slide_type": "notes"}
# One line per key: the kernel that runs there. It is filled when kernels are **registered**, not when
# the op is called. Three kinds of entry:
#
# - the Autograd keys hold a layer (`autograd_kernel`), which redispatches;
# - the backend keys hold the kernel that computes; note CPU, CUDA and Meta share one kernel object:
#   it is written against `xp`, NumPy or CuPy, and on meta it computes only the shape;
# - `ADInplaceOrView` and `BackendSelect` are fallthroughs: skipped; `Python` is a fallback (next slides).
#
# PyTorch prints its table with `torch._C._dispatch_dump_table("aten::add.Tensor")`: nearly a hundred
# lines, same three kinds. How the table is filled, rule by rule, is the docstring of
# `teachtorch/dispatch/dispatcher.py` (PyTorch: `OperatorEntry::computeDispatchTableEntry`).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Fallthroughs are skipped for free

# %% slideshow={"slide_type": "-"}
print(tt.dispatch.keyset_names(ks), "the call's keys")
print(tt.dispatch.keyset_names(ks & add.mask), "after & add.mask")
c = a + b
with tt.dispatch.trace() as t:
    c.add_(b)                   # in place: ADInplaceOrView works
print(" -> ".join(e.key for e in t.events), "| version", c._version)

# %% [markdown] slideshow={"slide_type": "notes"}
# A fallthrough costs nothing at call time: when the table is computed, its bit is cleared in the op's
# `mask`, and `call` ANDs the mask in before picking the highest bit. For `add`, two of four keys vanish.
#
# The in-place `add_` is different: its table has a real kernel at `ADInplaceOrView`, which bumps the
# version counter after the write (that is how autograd later notices that a saved tensor was
# modified, deck C). So the path has three hops, and the version went from 0 to 1.
#
# In PyTorch too, `aten::add_.Tensor` has an `ADInplaceOrView` kernel (generated `ADInplaceOrViewType_*.cpp`).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## Fallbacks: one kernel for every op at a key

# %% slideshow={"slide_type": "-"}
class Log(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("  the Python key saw", func)
        return func(*args, **(kwargs or {}))

with Log(), tt.dispatch.trace() as t:
    tt.relu(a * b)
print(" -> ".join(e.key for e in t.events[:3]))
table = tt.dispatch.dump_table("relu").splitlines()
print([line for line in table if line.startswith("Python")][0])

# %% [markdown] slideshow={"slide_type": "notes"}
# A **backend fallback** fills one key for every op that has no kernel of its own there. At the `Python`
# key the fallback is `python_fallback`: it hands the op to the active `TorchDispatchMode`, whatever the
# op, so two ops and zero per-op code. A fallthrough is just the simplest fallback: "skip me".
#
# The autograd keys have one too, `autograd_fallback`, for ops with no derivative: we meet it in a minute.
# PyTorch: `TorchDispatchMode` is in `torch/utils/_python_dispatch.py`; fallbacks are registered with
# `TORCH_LIBRARY_IMPL(_, Key, m) { m.fallback(...) }`.

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## A new op, from outside the library

# %% slideshow={"slide_type": "skip"}
try:
    lib._destroy()          # re-running the deck: a namespace can be defined once
except NameError:
    pass

# %% slideshow={"slide_type": "-"}
lib = Library("deck", "DEF")
lib.define("scale(Tensor x, float s) -> Tensor")

def scale_kernel(x, s):
    return wrap(s * x._data(), x.dtype, x.device)

lib.impl("scale", scale_kernel, "CPU")
lib.impl("scale", scale_kernel, "CUDA")
print(tt.ops.deck.scale(tt.arange(4.), 10.0))

# %% [markdown] slideshow={"slide_type": "notes"}
# The built-in ops are registered with the same calls. `Library("deck", "DEF")` owns the namespace `deck`;
# `define` adds the op from its schema, one line of text (`Tensor x, float s`, returns a Tensor);
# `impl` puts a kernel into one slot of its table. The kernel reads the tensor's backend array
# (`x._data()`: NumPy on cpu, CuPy on a GPU), so the same function serves CPU and CUDA.
#
# PyTorch: `torch.library.Library("deck", "DEF")`, `define`, `impl`, word for word (`torch/library.py`).
# Lesson 16 does it end to end, with tests.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Its table: the fallbacks came for free

# %% slideshow={"slide_type": "-"}
print(tt.dispatch.dump_table("deck::scale"))

# %% slideshow={"slide_type": "fragment"}
with tt.dispatch.trace() as t:
    tt.ops.deck.scale(tt.ones(3, requires_grad=True), 2.0)
print(" -> ".join(f"{e.key}: {e.kernel}" for e in t.events[-2:]))

# %% [markdown] slideshow={"slide_type": "notes"}
# We registered two kernels, and the table has more: `autograd_fallback` at the three autograd keys,
# the fallthroughs, the Python fallback. No `Meta` line: there is no shape function yet (the next slide
# but one makes that an error).
#
# Reveal the call on an input that requires grad: it works, through `autograd_fallback` and then our
# kernel. The fallback records a node that fails in backward ("derivative for deck::scale is not
# implemented"), because nobody told it the derivative. (PyTorch 2.13's fallback for this case, in
# `torch/csrc/autograd/autograd_not_implemented_fallback.cpp`, warns that no autograd kernel was
# registered.) So: give it one.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Give it a derivative, watch it dispatch

# %% slideshow={"slide_type": "-"}
def setup(ctx, inputs, output):
    ctx.s = inputs[1]

def backward(ctx, grad):
    return grad * ctx.s, None

register_autograd("deck::scale", backward, setup_context=setup)
x = tt.ones(3, requires_grad=True)
with tt.dispatch.trace() as t:
    tt.ops.deck.scale(x, 2.0).sum().backward()
TraceView(t, max_rows=8)

# %% [markdown] slideshow={"slide_type": "notes"}
# `register_autograd` writes the Autograd kernel for us (lesson 5 writes it by hand): an
# `autograd.Function` whose forward redispatches below the autograd keys. `setup_context` saves what
# backward needs; `backward` returns one gradient per input (`None` for the float).
#
# In the picture: the forward row of `deck.scale` now goes Autograd, then CPU, through *our* kernel; the
# backward rows are what the engine ran, including `grad * s`, our formula, dispatched like any op.
# PyTorch: `torch.library.register_autograd`, same arguments.

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Check first, then compute

# %% slideshow={"slide_type": "skip"}
def explain(fn):
    """Run fn under a trace; print the deepest hop that raised, and the error."""
    with tt.dispatch.trace() as tr:
        try:
            fn()
        except Exception as e:
            err = f"{type(e).__name__}: {e}"
    hop = [e for e in tr.events if e.error][-1]
    print(f"raised at {hop.key}: {hop.kernel}")
    print(textwrap.fill(err, 64, initial_indent="  ", subsequent_indent="  "))

# %% slideshow={"slide_type": "-"}
explain(lambda: tt.ones(3) + tt.ones(4))
explain(lambda: tt.ones(3, dtype=tt.int64).add_(tt.ones(3)))

# %% slideshow={"slide_type": "fragment"}
explain(lambda: tt.ops.deck.scale(tt.empty(3, device="meta"), 2.0))

# %% [markdown] slideshow={"slide_type": "notes"}
# `explain` (a helper of this deck) runs a call under a trace and prints the hop that raised. Every
# error here is raised before a single number is computed: the kernel's first step works out the result's
# shape and dtype (`pointwise_meta` in `teachtorch/kernels/pointwise.py`), and refuses what makes no sense.
# The messages are PyTorch's, word for word: tests compare them. Yang's kernel anatomy: error checking
# (`TORCH_CHECK`) comes first, then allocating the output, then the dtype switch, then the loop.
#
# The third error is the dispatcher's own: no kernel at `Meta`, so the table's slot is "missing", and the
# message lists where the op does exist. One `register_fake` line would fix it.

# %% [markdown] slideshow={"slide_type": "slide"} timing=120
# ## The price of flexibility: one 8×8 add

# %% slideshow={"slide_type": "skip"}
def best_time(fn, repeat=5, number=2000):
    """Seconds per call: the fastest of `repeat` loops of `number` calls (lesson 13)."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


x8, y8 = tt.ones(8, 8), tt.ones(8, 8)
g8 = tt.ones(8, 8, requires_grad=True)
a8, b8 = np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)
try:
    import torch
    p8, q8 = torch.ones(8, 8), torch.ones(8, 8)
except ImportError:          # PyTorch is optional: the bar is left out
    torch = None


def bar_chart(values, xlabel):
    """A horizontal bar per entry, top to bottom, each labelled with its value."""
    fig, ax = plt.subplots(figsize=(9, 2.7))
    bars = ax.barh(list(values)[::-1], list(values.values())[::-1], color="#4c72b0")
    ax.bar_label(bars, fmt="%.1f", padding=4, fontsize=14)
    ax.set_xlabel(xlabel, fontsize=14)
    ax.tick_params(labelsize=14)
    ax.margins(x=0.12)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    plt.show()

# %% slideshow={"slide_type": "-"}
cpu, ks_cpu = add.table[DispatchKey.CPU], 1 << DispatchKey.CPU
cases = {"NumPy  a8 + b8": lambda: a8 + b8,
         "CPU kernel alone": lambda: cpu(ks_cpu, x8, y8, 1),
         "x8 + y8": lambda: x8 + y8,
         "x8 + y8, g8 requires grad": lambda: g8 + y8}
if torch is not None:
    cases["PyTorch  p8 + q8"] = lambda: p8 + q8
us = {name: best_time(fn) * 1e6 for name, fn in cases.items()}
bar_chart(us, xlabel="µs per call (best of 5 × 2000)")

# %% [markdown] slideshow={"slide_type": "notes"}
# Horace He's overhead regime, measured now on this machine (`bench/overhead.py` is the full benchmark).
# An 8×8 add is 64 FLOPs: nothing. NumPy does it in a fraction of a microsecond. teachtorch's CPU kernel
# alone, called directly with no dispatcher, costs several microseconds: it is Python working out
# broadcast shape, result dtype, strides and wrapping a tensor. The dispatcher and the autograd layer add
# about a microsecond on top; recording a node (an input that requires grad) adds a few more.
#
# PyTorch pays the same kinds of cost in C++: a microsecond or two per op (the bar, if PyTorch is
# installed). Bypassing the dispatcher makes the profiler lose the op and the instruction count drop,
# which is exactly the trade: flexibility (layers, traces, modes, new backends) costs a fixed price per
# call, whatever the size. Ask: at what size does it stop mattering? Lesson 13 measures it.

# %% [markdown] slideshow={"slide_type": "slide"} timing=75
# ## Where PyTorch 2 goes: a trace is a graph

# %% slideshow={"slide_type": "-"}
def gelu(x):
    inner = 0.79788456 * (x + 0.044715 * x ** 3)
    return 0.5 * x * (1 + tt.tanh(inner))

x64 = tt.randn(64)
with tt.dispatch.trace() as t:
    gelu(x64)
print(len(t.ops()), "op calls, each paying the price:")
print("\n".join(str(t).splitlines()[:4]), "\n...")

# %% [markdown] slideshow={"slide_type": "notes"}
# A tanh-approximated GELU, written as most models write it: eight small ops, so eight dispatches, eight
# output tensors, eight passes over memory. Look at the trace text: `$4 = add($0, $3)` is a graph in
# SSA form. That is what `torch.compile` does first, in PyTorch 2: TorchDynamo captures the ops of a
# Python function as a graph (an FX graph, `torch/fx/graph.py`) instead of running them one by one.
# Christian Perone's "PyTorch 2 internals" talk walks that whole pipeline.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Then fuse: one op instead of eight

# %% slideshow={"slide_type": "-"}
def gelu_kernel(x):
    v = x._data()
    inner = 0.79788456 * (v + 0.044715 * v ** 3)
    return wrap(0.5 * v * (1 + np.tanh(inner)), x.dtype, x.device)
lib.define("gelu(Tensor x) -> Tensor")
lib.impl("gelu", gelu_kernel, "CPU")
runs = {"8 ops": gelu, "tt.compile": tt.compile(gelu),
        "fused op": tt.ops.deck.gelu}
us = {name: best_time(lambda: f(x64), 3, 300) * 1e6
      for name, f in runs.items()}
print("\n".join(f"{k:10} {v:6.1f} µs" for k, v in us.items()))
print("same values:", tt.allclose(runs["fused op"](x64), gelu(x64)))

# %% [markdown] slideshow={"slide_type": "notes"}
# Registering the whole GELU as one op (the same `Library` as before) pays the price once instead of
# eight times: several times faster on 64 numbers. PyTorch 2 does this automatically: Inductor reads the
# captured graph and writes one fused loop per chain of elementwise ops (Triton on GPU, C++ on CPU; the
# fusion decisions are in `torch/_inductor/scheduler.py`).
#
# teachtorch has no compiler: `tt.compile` accepts PyTorch's arguments and runs the function eagerly
# (`teachtorch/_compile.py`), which is why its time is the same as the eight ops. Note too: our "fused"
# kernel is a NumPy expression, which still makes a temporary per operation; a truly fused loop reads
# `x` once. Lesson 13 measures that difference.

# %% [markdown] slideshow={"slide_type": "slide"} timing=45
# ## The map
#
# - an op is a **schema** and a **table**: one kernel per key
# - a call's **key set**; the highest key runs; a **layer** redispatches below itself
# - **fallthroughs** are masked out; **fallbacks** serve every op at a key
# - `Library`: `define`, `impl`, `register_autograd`, from outside
# - check first, then compute; each hop costs µs: capture and fuse

# %% [markdown] slideshow={"slide_type": "notes"}
# Recap in one breath, pointing back at the first trace: `aten.add.Tensor` is a schema and a table;
# its key set said Autograd, ADInplaceOrView, BackendSelect, CPU; two were fallthroughs; Autograd
# ran and handed on; CPU checked, then computed. Everything on these slides is one file away:
# `teachtorch/dispatch/dispatcher.py`.

# %% [markdown] slideshow={"slide_type": "slide"} timing=30
# ## Go deeper
#
# - [Lesson 5: how an op is dispatched](../lessons/05_dispatch.py)
# - [Lesson 6: one kernel, two devices](../lessons/06_devices.py)
# - [Lesson 13: performance](../lessons/13_performance.py)
# - [Lesson 16: add an op, end to end](../lessons/16_add_an_op.py)
# - [CONTRIBUTING.md: adding an op](../CONTRIBUTING.md)
# - [The life of an op, file by file](../docs/life_of_an_op.md)

# %% [markdown] slideshow={"slide_type": "notes"}
# Lesson 5 builds `dispatch_path` and registers `axpby` with autograd and a Meta kernel, checked offline.
# Lesson 6 is the device half (NumPy and CuPy, one kernel). Lesson 13 is the overhead, bandwidth and
# compute regimes, measured. Lesson 16 adds an op with tests, the way a contribution does, and
# `CONTRIBUTING.md` says where each piece goes in the package. `docs/life_of_an_op.md` walks these traces
# file by file.
