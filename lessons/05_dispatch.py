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
# # Lesson 5: how an op is dispatched
#
# **You will learn**
# - what an operator is to the library: a name, an overload and a **schema**;
# - how the **dispatcher** picks the code that runs: the **key set** of a call, the highest key wins, a
#   layer hands the call on to the keys below it, a **fallthrough** key is skipped;
# - how to read an op's **dispatch table** and a **dispatch trace** of a call.
#
# **You will build** `dispatch_path(keys, table)`, the dispatcher's decision in a few lines, and
# `register_axpby(lib)`: a new operator $\alpha x + \beta y$, registered from *outside* the library, with a
# CPU/CUDA kernel, a Meta kernel (its shape function) and autograd, checked here, offline.
#
# **Time:** about 45 minutes. **You need:** lesson 1 (a tensor is a storage and a view of it), Python
# classes and closures, and what a derivative is (lessons 7 and 8 do autograd properly; here it is one line).
#
# Everything here is PyTorch's model, with the same names: `torch.ops.aten.add.Tensor`, dispatch keys such as
# `AutogradCPU`, `torch.library.Library`. teachtorch keeps 9 of PyTorch's many keys, in PyTorch's order.

# %%
import teachtorch as tt
from teachtorch.backends import wrap
from teachtorch.dispatch import DispatchKey, redispatch
from teachtorch.exercises import check, hint
from teachtorch.explorer import TraceView
from teachtorch.library import Library

# %% [markdown]
# ## 1. An op is a name and a schema
#
# `x + y`, `tt.add(x, y)` and `x.add(y)` all end in one **operator**, `aten::add.Tensor`: namespace `aten`,
# name `add`, **overload** `Tensor` (`add` has others: `tt.ops.aten.add.overloads()`). Its **schema** is its
# signature as one line of text.

# %%
add = tt.ops.aten.add.Tensor
print(repr(add))
print(add.schema)
x, y = tt.ones(3), tt.arange(3.)
print(add(x, y, alpha=2), tt.add(x, y, alpha=2))

# %% [markdown]
# Read the schema left to right: two `Tensor` arguments, then `*`: what follows is keyword-only, so `alpha`
# (a `Scalar`, default 1) must be named. It returns one `Tensor`. In PyTorch the same object is
# `torch.ops.aten.add.Tensor`, and `torch.ops.aten.add.Tensor._schema` prints the same line with the namespace
# in front (`aten::add.Tensor(...)`); PyTorch's built-in schemas are written in
# `aten/src/ATen/native/native_functions.yaml`.
#
# A schema also says what an op does to memory. `Tensor(a!)` is an argument the op **writes** to;
# `-> Tensor(a)` means the output **aliases** an input (a view, lesson 2):

# %%
for name in ("add_.Tensor", "transpose.int"):
    print(tt.dispatch.lookup(name).schema)

# %% [markdown]
# ## 2. Dispatch keys: the key set of a call
#
# Every tensor carries a set of **dispatch keys**. A cpu tensor carries `CPU` (its backend), `AutogradCPU`
# (record the graph for backward) and `ADInplaceOrView` (version counters and views), **whether or not it
# requires grad**: the autograd kernel checks that itself. A meta tensor (section 6) carries `Meta` keys.

# %%
a = tt.ones(3, requires_grad=True)
print(tt.dispatch.keys_of(a))
print(tt.dispatch.keys_of(tt.ones(3)))
print(tt.dispatch.keys_of(tt.empty(3, device="meta")))
print([(k.name, k.value) for k in DispatchKey])

# %% [markdown]
# The keys are numbered in priority order: the higher the number, the earlier it runs. A **key set** is a
# number with one bit per key. The key set of a call is
#
# $$\text{keyset} = \big(\text{OR of its tensors' key sets} \;|\; \text{included}\big) \;\&\; \sim\text{excluded}$$
#
# where *included* and *excluded* are the thread's own keys (teachtorch always includes `BackendSelect` and
# `ADInplaceOrView`, as PyTorch does). The **highest set bit wins**: its kernel runs first.

# %%
ks = tt.dispatch.keyset_of(add, (a, x, 1))
print(bin(ks), tt.dispatch.keyset_names(ks))
print("runs first:", DispatchKey(ks.bit_length() - 1).name)

# %% [markdown]
# That is `call` in `teachtorch/dispatch/dispatcher.py`, a few lines long; the keys are in
# `teachtorch/_dispatch_key.py`. PyTorch: `Dispatcher::call` in `aten/src/ATen/core/dispatch/Dispatcher.h`
# (and `Dispatcher.cpp`), the keys in `c10/core/DispatchKey.h`. `torch._C._dispatch_keys(torch.ones(3))`
# shows `DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)`: the same keys, plus autocast.

# %% [markdown]
# ## 3. The dispatch table: layers, kernels, fallthroughs
#
# Each op has a **dispatch table**: for every key, the kernel that runs there. It is filled when kernels are
# registered, not when the op is called:

# %%
print(tt.dispatch.dump_table("add.Tensor"))

# %% [markdown]
# Three kinds of entry:
#
# - a **layer** (`AutogradCPU: autograd_kernel`) does its part (here: record a node for backward) and then
#   **redispatches**: it calls the op again with its own key and every key above it removed, so the next
#   key down runs;
# - a **kernel** (`CPU: PointwiseKernel(...)`) computes the result; the call ends there;
# - a **fallthrough** (`ADInplaceOrView`, `BackendSelect` for `add`) is skipped as if its key were not in
#   the set. The op's `mask` has those bits off, so skipping them costs nothing:

# %%
print(tt.dispatch.keyset_names(ks), "->", tt.dispatch.keyset_names(ks & add.mask))

# %% [markdown]
# An in-place op writes to `self` (`Tensor(a!)` in its schema), so for `add_` the `ADInplaceOrView` layer
# has a kernel of its own: it bumps the tensor's version counter after the write.

# %%
print(tt.dispatch.dump_table("add_.Tensor"))

# %% [markdown]
# PyTorch prints the same table with `torch._C._dispatch_dump_table("aten::add.Tensor")`, nearly a hundred
# lines long (autocast, vmap, functionalization, sparse and quantized backends, ...), and for `add_.Tensor`
# it too shows an `ADInplaceOrView` kernel. How the table is filled, key by key, is the docstring of
# `teachtorch/dispatch/dispatcher.py`, next to `OperatorEntry::computeDispatchTableEntry` in
# `aten/src/ATen/core/dispatch/OperatorEntry.cpp`.

# %% [markdown]
# ## 4. Watch it: the dispatch trace
#
# `tt.dispatch.trace()` records every **hop**: each kernel the dispatcher runs, at which key. Below: an
# `add`, then an in-place `add_` on its result.

# %%
with tt.dispatch.trace() as t:
    c = a + x
    c.add_(x)
print(t.format(hops=True, durations=False))
print([(e.aten_name, e.key) for e in t.events])

# %% [markdown]
# The same trace as a picture: one row per call, with its path through the keys, the shapes and strides of
# its inputs and outputs, the storages it touched and its time (hover a cut-off cell for all of it).

# %%
TraceView(t, title="a + x, then c.add_(x)")

# %% [markdown]
# `docs/life_of_an_op.md` is the written walk-through of these traces, and of `backward()`, with the file
# and line of every kernel. The trace is `teachtorch/dispatch/trace.py`; PyTorch's nearest tools are a
# logging `TorchDispatchMode` and `TORCH_SHOW_DISPATCH_TRACE=1` in a debug build.
#
# ### Exercise 1: which keys does a call run at?
#
# Write `dispatch_path(keys, table)`. `keys` is the key set of a call, as a list of key names in **any
# order**; `table` says, for each of those keys, what the op has there: `"layer"`, `"kernel"` or
# `"fallthrough"`. Return the keys that run, in the order they run. For `a + x` above:
# `dispatch_path(["CPU", "BackendSelect", "AutogradCPU", "ADInplaceOrView"], {"AutogradCPU": "layer",
# "ADInplaceOrView": "fallthrough", "BackendSelect": "fallthrough", "CPU": "kernel"})` is
# `["AutogradCPU", "CPU"]`. `DispatchKey["CPU"]` is a key's number. The check builds each table as a real op
# and reads teachtorch's own trace; some of its key sets are made up (no real tensor carries `AutogradCUDA`
# and `CPU`), the rules are the same.
#
# Stuck? `hint("L05.dispatch_path")` gives a hint; call it again for the next one.

# %%
def dispatch_path(keys, table):
    ### BEGIN SOLUTION
    path = []
    for key in sorted(keys, key=lambda k: DispatchKey[k], reverse=True):   # highest priority first
        if table[key] == "fallthrough":
            continue                  # masked out: never runs
        path.append(key)
        if table[key] == "kernel":
            break                     # a kernel computes: nothing below it runs
    return path
    ### END SOLUTION


# %%
check("L05.dispatch_path", dispatch_path)

# %% [markdown]
# ## 5. A new op, from outside the library
#
# The built-in ops are registered with the same calls you can make. `Library("lesson5", "DEF")` owns the
# namespace `lesson5`; `define` adds an op from its schema; `impl` puts a kernel in one slot of its table.
# The kernel below is written against the tensor's **backend array**: `x._data()` is a NumPy array on the
# cpu (a view of the storage, lesson 1) and a CuPy array on a GPU, so the same function serves `CPU` and
# `CUDA` (lesson 6). `wrap(array, dtype, device)` turns the fresh result into a tensor. (`_data()` is how
# teachtorch's own kernels read a tensor; a PyTorch kernel is C++, or Python made of torch ops.)
#
# Re-running the cell first destroys the library it made before: a namespace can be defined only once.

# %%
try:
    lib._destroy()          # re-running this cell: destroy the library it made before
except NameError:
    pass
lib = Library("lesson5", "DEF")
lib.define("scale(Tensor x, float s) -> Tensor")


def scale_kernel(x, s):
    return wrap(s * x._data(), x.dtype, x.device)


lib.impl("scale", scale_kernel, "CPU")
lib.impl("scale", scale_kernel, "CUDA")
print(tt.ops.lesson5.scale(tt.arange(4.), 10.0))
print(tt.dispatch.dump_table("lesson5::scale"))

# %% [markdown]
# The new op got `autograd_fallback` at the autograd keys and the fallthroughs for free: they are
# **backend fallbacks**, one kernel for every op that has none of its own at that key. In PyTorch the
# registration reads the same with `torch.library.Library` (`torch/library.py`), down to `define`, `impl`
# and `_destroy`.

# %% [markdown]
# ## 6. Meta tensors and the shape function
#
# A **meta** tensor has a shape, strides and a dtype but no memory. Running a program on meta tensors tells
# you every shape it makes without computing anything (PyTorch's `torch.compile` and `torch.export` do that
# with "fake" tensors). Our op has no kernel at `Meta` yet:

# %%
m = tt.empty(1000, 1000, device="meta")
try:
    tt.ops.lesson5.scale(m, 2.0)
except NotImplementedError as e:
    print("NotImplementedError:", e)

# %% [markdown]
# A Meta kernel is the op's **shape function**: it makes an empty result of the right shape, dtype and
# device. PyTorch calls it a fake kernel, registered with `torch.library.register_fake`.

# %%
def scale_meta(x, s):
    return tt.empty_like(x)


lib.impl("scale", scale_meta, "Meta")
print(tt.ops.lesson5.scale(m, 2.0))

# %% [markdown]
# ## 7. Autograd: the layer above the backend
#
# Call `scale` on a tensor that requires grad. The `AutogradCPU` key runs `autograd_fallback`
# (`teachtorch/autograd/variable_type.py`): it runs the op and records a node that **fails** in backward,
# since nobody told it the derivative.

# %%
s = tt.ops.lesson5.scale(a, 2.0)
print(s.grad_fn)
try:
    s.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# An **Autograd kernel** is a layer: it records a node, then redispatches to the keys below autograd. Here
# the node comes from a `tt.autograd.Function`: `apply` makes the node (`ScaleBackward`), runs `forward`
# with grad mode off and links the output to the node. `forward` redispatches with the key set `ks` it was
# given (`with_keyset=True` passes it in) minus the autograd keys; `backward` gets the gradient of the output
# and returns one gradient per input of `forward` (`None` for `ks` and `s`). Since
# $\partial (s x) / \partial x = s$, the gradient of `x` is `grad * s`.

# %%
BELOW_AUTOGRAD = (1 << DispatchKey.AutogradCPU) - 1          # every key below the autograd keys
scale_op = tt.ops.lesson5.scale.default


class Scale(tt.autograd.Function):
    @staticmethod
    def forward(ctx, ks, x, s):
        ctx.s = s                                                  # what backward will need
        return redispatch(scale_op, ks & BELOW_AUTOGRAD, (x, s))   # on to the keys below: CPU

    @staticmethod
    def backward(ctx, grad):
        return None, grad * ctx.s, None


def scale_autograd(ks, x, s):
    return Scale.apply(ks, x, s)


lib.impl("scale", scale_autograd, "Autograd", with_keyset=True)   # "Autograd" fills every Autograd<backend>

with tt.dispatch.trace() as t:
    s = tt.ops.lesson5.scale(a, 2.0)
print(t.format(hops=True, durations=False))
a.grad = None
s.sum().backward()
print(s.grad_fn, a.grad)

# %% [markdown]
# This is what every built-in op's autograd kernel does (`record` in `teachtorch/autograd/variable_type.py`),
# and what PyTorch generates for each op (`VariableType_*.cpp`: `at::redispatch::mul(ks &
# c10::after_autograd_keyset, ...)`). The `Function` and the `impl` line run in PyTorch unchanged, with
# `torch` for `tt`; only the redispatch is spelled `scale_op.redispatch(ks & torch._C._after_autograd_keyset,
# x, s)` there (`tests/test_lesson05.py` runs the `axpby` version in PyTorch).
#
# `tt.library.register_autograd` writes such a kernel for you, as `torch.library.register_autograd` does:
# give it `backward(ctx, grad)` (one gradient per input of the op) and `setup_context(ctx, inputs, output)`,
# which saves what the backward needs. `register_fake` registers a Meta kernel the same way. Both are in
# `teachtorch/library.py`: the kernel it writes is the one above, and its node is named as PyTorch names it.

# %%
def scale_setup(ctx, inputs, output):
    ctx.s = inputs[1]


def scale_backward(ctx, grad):
    return grad * ctx.s, None


tt.library.register_autograd("lesson5::scale", scale_backward, setup_context=scale_setup)
s = tt.ops.lesson5.scale(a, 2.0)
a.grad = None
s.sum().backward()
print(s.grad_fn, a.grad)

# %% [markdown]
# ### Exercise 2: register `axpby`
#
# `axpby(x, y, alpha, beta)` computes $\alpha x + \beta y$ (BLAS's `saxpy` is the $\beta = 1$ case). Write
# `register_axpby(lib)`, which registers it in the library `lib` it is given, as sections 5 to 7 did for
# `scale`:
#
# - `lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")`;
# - one kernel for `CPU` and `CUDA` (x and y have the same shape);
# - a `Meta` kernel;
# - an `Autograd` kernel whose backward returns $\alpha \cdot \text{grad}$ for `x` and
#   $\beta \cdot \text{grad}$ for `y`. The op itself is `tt.dispatch.lookup(f"{lib.ns}::axpby")`.
#
# The check gives your function a fresh library for every case (and destroys it after), calls the op on
# random shapes and numbers, and compares `(keys, value, meta, cuda, x_grad, y_grad)`: the keys the trace
# records for a call whose inputs require grad, the values, the shape and device of a call on meta tensors,
# whether the table's `CUDA` slot holds a kernel (no GPU needed), and the gradients. The first item that
# differs tells you which piece to fix.

# %%
def register_axpby(lib):
    ### BEGIN SOLUTION
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    op = tt.dispatch.lookup(f"{lib.ns}::axpby")

    def axpby_kernel(x, y, alpha, beta):
        return wrap(alpha * x._data() + beta * y._data(), x.dtype, x.device)

    def axpby_meta(x, y, alpha, beta):
        return tt.empty_like(x)

    class Axpby(tt.autograd.Function):
        @staticmethod
        def forward(ctx, ks, x, y, alpha, beta):
            ctx.alpha, ctx.beta = alpha, beta
            return redispatch(op, ks & BELOW_AUTOGRAD, (x, y, alpha, beta))

        @staticmethod
        def backward(ctx, grad):
            return None, grad * ctx.alpha, grad * ctx.beta, None, None

    def axpby_autograd(ks, x, y, alpha, beta):
        return Axpby.apply(ks, x, y, alpha, beta)

    lib.impl("axpby", axpby_kernel, "CPU")
    lib.impl("axpby", axpby_kernel, "CUDA")
    lib.impl("axpby", axpby_meta, "Meta")
    lib.impl("axpby", axpby_autograd, "Autograd", with_keyset=True)
    ### END SOLUTION


# %%
check("L05.register_axpby", register_axpby)

# %% [markdown]
# ## 8. Your op, live
#
# Register it for real, in the namespace `mine`, and trace a forward and a backward through it. In the
# picture, the forward rows show your op's path (`AutogradCPU`, then `CPU`); the backward rows are the ops
# the engine ran: the backward of `sum` (`ones_like`, `expand`), then yours (`grad * alpha`, `grad * beta`,
# folded into one row that ran twice).

# %%
try:
    mylib._destroy()          # re-running this cell: destroy the library it made before
except NameError:
    pass
mylib = Library("mine", "DEF")
try:
    register_axpby(mylib)
    tt.manual_seed(0)
    x, y = tt.randn(2, 3, requires_grad=True), tt.randn(2, 3, requires_grad=True)
    with tt.dispatch.trace() as t:
        z = tt.ops.mine.axpby(x, y, 2.0, -1.0)
        z.sum().backward()
    print(tt.dispatch.dump_table("mine::axpby"))
    print(t)
    view = TraceView(t, title="axpby: forward and backward")
except NotImplementedError:
    view = "(write register_axpby in exercise 2 first)"
view

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | an operator and its schema | `aten/src/ATen/native/native_functions.yaml`, `torch/_ops.py` (`OpOverload`) | `teachtorch/dispatch/dispatcher.py` (`OpOverload`), `teachtorch/dispatch/schema.py` (`FunctionSchema`) |
# | the key set; highest key first, then redispatch | `c10/core/DispatchKeySet.h`, `aten/src/ATen/core/dispatch/Dispatcher.h` (`Dispatcher::call`) | `teachtorch/_dispatch_key.py`, `teachtorch/dispatch/dispatcher.py` (`call`, `redispatch`) |
# | the table: layers, kernels, fallthroughs | `aten/src/ATen/core/dispatch/OperatorEntry.cpp` (`computeDispatchTableEntry`) | `teachtorch/dispatch/dispatcher.py` |
# | the trace | a logging `TorchDispatchMode` (`torch/utils/_python_dispatch.py`) | `teachtorch/dispatch/trace.py` |
# | a new op: `Library`, `define`, `impl`, `register_fake` | `torch/library.py` | `teachtorch/library.py` |
# | the autograd layer, and the fallback of an op with no formula | generated `VariableType_*.cpp`; `torch/csrc/autograd/autograd_not_implemented_fallback.cpp` (`autogradNotImplementedFallback`) | `teachtorch/autograd/variable_type.py` (`record`, `autograd_fallback`) |

# %% [markdown]
# ## Recap
#
# - An operator is `namespace::name.overload` with a **schema**; `Tensor(a!)` marks a write, `Tensor(a)` a view.
# - A call's **key set** is the OR of its tensors' keys, plus the thread's included keys, minus its excluded
#   ones. The **highest key** runs first.
# - The **dispatch table** has one entry per key: a **layer** does its part and redispatches below itself,
#   a **kernel** computes, a **fallthrough** is skipped. Autograd is a layer like any other, above the
#   backends.
# - `Library(ns, "DEF")`, `define`, `impl(name, fn, key)`: a new op gets a kernel per backend, a Meta kernel
#   (its shape function) and an Autograd kernel, and is then dispatched, traced and differentiated like
#   `add`.
#
# **In the source:** `teachtorch/dispatch/dispatcher.py` (`call`, `redispatch`, the table),
# `teachtorch/_dispatch_key.py` (the keys), `teachtorch/dispatch/trace.py` (traces),
# `teachtorch/library.py` (`Library`), `teachtorch/autograd/variable_type.py` (the autograd layer). In
# PyTorch: `aten/src/ATen/core/dispatch/Dispatcher.cpp`, `c10/core/DispatchKey.h` and `torch/library.py`.
#
# **Next:** lesson 6 runs one kernel on two backends, NumPy and CuPy.
