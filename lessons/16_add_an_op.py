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
# # Lesson 16: add an op, end to end
#
# **You will learn**
# - what one op *is*, in teachtorch and in PyTorch: a **schema**, a **kernel** per backend, a **meta**
#   kernel, a **derivative** formula, and **tests**, each in its own file;
# - how to add all five from a notebook with `teachtorch.library` (PyTorch's `torch.library`): `define`,
#   `impl` for CPU and CUDA with one kernel over `xp`, `register_fake`, `register_autograd`;
# - how the project tests an op: every memory layout, values against a reference, `gradcheck` in float64,
#   meta shapes, the dispatch trace; and where each piece goes for a real contribution.
#
# **You will build** `mylib::softclip(Tensor x, float limit) -> Tensor`, a cubic soft clipper: its kernel, its
# meta kernel and its backward formula, checked here, offline, by running them as an operator.
#
# **Time:** about 70 minutes. **You need:** the dispatcher and `Library` (lesson 5), kernels over `xp`
# (lesson 6), backward formulas and `gradcheck` (lesson 8).
#
# Everything named after PyTorch here means the same there: `torch.library.Library`, `define`, `impl`,
# `register_fake`, `register_autograd`, `native_functions.yaml`, `derivatives.yaml`, `gradcheck`.

# %%
import numpy as np

import teachtorch as tt
from teachtorch.backends import wrap, xp_of
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson06 import standin
from teachtorch.explorer import GraphView, TraceView
from teachtorch.library import Library, register_autograd, register_fake

# %% [markdown]
# ## 1. One op in the package, end to end: `hardtanh`
#
# `hardtanh(x, min_val, max_val)` clamps `x` to $[min, max]$. It is spread over three files, the same three
# PyTorch uses:
#
# | piece | teachtorch | PyTorch |
# |---|---|---|
# | schema, public function | `teachtorch/ops/activation.py` | `aten/src/ATen/native/native_functions.yaml` |
# | kernel over `xp` (CPU, CUDA) | `teachtorch/kernels/activation.py` | `aten/src/ATen/native/Activation.cpp` (`hardtanh` is `at::clamp`) |
# | derivative | `teachtorch/autograd/derivatives/nn.py` | `tools/autograd/derivatives.yaml` |
# | tests | `tests/test_nn_activation.py` | `test/test_nn.py`, OpInfo in `torch/testing/_internal/` |
#
# The schema line is PyTorch's, word for word; the kernel is three lines of array code; the derivative says
# the backward of `hardtanh` is another op, `hardtanh_backward`. Print them:

# %%
import inspect

from teachtorch.kernels import activation as K

print(tt.ops.aten.hardtanh.default.schema)        # PyTorch: torch.ops.aten.hardtanh.default._schema
print(inspect.getsource(K.hardtanh))
print(tt.dispatch.dump_table("hardtanh"))

# %% [markdown]
# The table is the op's **dispatch table** (lesson 5): one kernel, `PointwiseKernel(activation.hardtanh)`,
# serves CPU, CUDA and Meta (the `pointwise` declaration made all three), and the Autograd keys hold the
# kernel that records a node. A trace of one call shows the path: Autograd first, then the CPU kernel.

# %%
x = tt.randn(3, 4, requires_grad=True)
with tt.dispatch.trace() as t:
    tt.nn.functional.hardtanh(x)
print(t.format(hops=True))
TraceView(t, title="hardtanh(x): AutogradCPU, then CPU")

# %% [markdown]
# ## 2. Step 1, Schema: one line says what the op is
#
# Our op is the **cubic soft clipper** of audio processing: the identity near 0, bending smoothly into a flat
# ceiling. With $L$ the limit,
#
# $$\mathrm{softclip}(x) = \begin{cases} x - \dfrac{x^3}{3L^2} & |x| \le L \\[4pt] \pm\dfrac{2L}{3} & |x| > L
# \end{cases}$$
#
# At $|x| = L$ both halves give $\pm 2L/3$ and both have slope 0, so the curve has no corner. PyTorch does
# not have it, so we add it, in a namespace of our own: `mylib`. The schema says its arguments (a tensor,
# a Python `float`) and its result; it has no `(a!)`, so it writes into nothing (CONTRIBUTING.md, rule 1).
# Re-running the cell first destroys the library it made before: a namespace can be defined only once.

# %%
try:
    lib._destroy()          # re-running this cell: destroy the library it made before
except NameError:
    pass
lib = Library("mylib", "DEF")
lib.define("softclip(Tensor x, float limit) -> Tensor")
print(tt.dispatch.dump_table("mylib::softclip"))

# %% [markdown]
# No kernels yet: only the backend fallbacks every op gets. Calling it now would fail. The next three steps
# fill the table.

# %% [markdown]
# ## 3. Step 2, Kernel: one function over `xp`, for CPU and CUDA
#
# A teachtorch kernel is written once against the array module `xp` (lesson 6): NumPy on the cpu, CuPy on a
# GPU. The rules it follows (CONTRIBUTING.md, rules 2-4): use only `xp`, never `np.` (CuPy refuses NumPy
# functions); return a **fresh** array (rule 3, *Results*); never write into the input (rule 4, *Writes*:
# `x` here is the input tensor's own memory, a view of its storage, lesson 1).
#
# ### Exercise 1: the kernel
#
# Write `softclip_kernel(xp, x, limit)`: `x` is an array, the result a new array of the same shape and dtype.
# `xp.where(condition, a, b)` picks elementwise; `xp.abs`, `xp.sign` exist in both NumPy and CuPy.
#
# The check runs your kernel **as the op** (registered for CPU) on inputs in the five layouts of the
# project's tests (contiguous, permuted, sliced with steps, offset, expanded), in float32 and float64, and
# compares with the formula; then checks that the input is unchanged, and runs your kernel on `standin`,
# lesson 6's CuPy stand-in, which refuses `np.` functions as CuPy does.

# %%
def softclip_kernel(xp, x, limit):
    ### BEGIN SOLUTION
    inside = x - x ** 3 / (3 * limit ** 2)
    return xp.where(xp.abs(x) <= limit, inside, xp.sign(x) * (2 * limit / 3))
    ### END SOLUTION


# %%
check("L16.softclip_kernel", softclip_kernel)

# %% [markdown]
# Stuck? `hint("L16.softclip_kernel")` gives a hint; call it again for the next one:

# %%
hint("L16.softclip_kernel")

# %% [markdown]
# Now register it. The wrapper reads the tensor's array (`x._data()`, a strided view of its storage), picks
# `xp` from the tensor's device (`xp_of`), and wraps the fresh result as a tensor (`wrap`). The same wrapper
# goes under `CPU` and `CUDA`: that is the "CUDA for free" of writing against `xp`.

# %%
def softclip_cpu_cuda(x, limit):
    return wrap(softclip_kernel(xp_of(x), x._data(), limit), x.dtype, x.device)


lib.impl("softclip", softclip_cpu_cuda, "CPU")
lib.impl("softclip", softclip_cpu_cuda, "CUDA")
try:
    xs = tt.linspace(-3, 3, 7)
    print("x:          ", xs.tolist())
    print("softclip(x):", [round(v, 4) for v in tt.ops.mylib.softclip(xs, 2.0).tolist()])
    print("on standin: ", softclip_kernel(standin, standin.asarray(xs.numpy()), 2.0))
except NotImplementedError:
    print("(write softclip_kernel in exercise 1 first)")

# %% [markdown]
# ## 4. Step 3, Meta: shapes without numbers
#
# On the `meta` device a tensor has sizes, strides and a dtype, but no memory (CONTRIBUTING.md, rule 5).
# A meta kernel computes only the output's metadata; it is how PyTorch's `torch.compile` and FakeTensor work
# out every shape of a model without running it. `register_fake(op, fn)` puts `fn` in the op's `Meta` slot,
# as PyTorch's `torch.library.register_fake` does.
#
# ### Exercise 2: the meta kernel
#
# Write `softclip_fake(x, limit)`: given a meta tensor `x`, return a **new** empty tensor with the output's
# shape, dtype and device. The check calls the op on meta tensors of random shapes (0-d and empty ones too),
# float32 and float64, some permuted, and compares the result's shape, dtype and device.

# %%
def softclip_fake(x, limit):
    ### BEGIN SOLUTION
    return x.new_empty(x.shape)          # shape, dtype and device of x; no numbers computed
    ### END SOLUTION


# %%
check("L16.softclip_fake", softclip_fake)

# %%
register_fake("mylib::softclip", softclip_fake)
try:
    m = tt.ops.mylib.softclip(tt.empty(1000, 1000, dtype=tt.float64, device="meta"), 1.0)
    print(m.shape, m.dtype, m.device)        # a million float64 results, none computed, no memory used
except NotImplementedError:
    print("(write softclip_fake in exercise 2 first)")

# %% [markdown]
# ## 5. Step 4, Derivative: the backward formula
#
# Inside $[-L, L]$, $\frac{d}{dx}\left(x - \frac{x^3}{3L^2}\right) = 1 - \left(\frac{x}{L}\right)^2$; beyond,
# the output is constant, so the derivative is 0. Backward receives `grad`, the gradient of the loss with
# respect to the output, and returns `grad` times the derivative: the chain rule (lesson 8), never the
# derivative alone. Write it with **teachtorch ops**, not `xp`, so that autograd can record it too
# (gradients of gradients), as every formula in `teachtorch/autograd/derivatives/` is written.
#
# `register_autograd(op, backward, setup_context=...)` fills the Autograd slot (lesson 5 wrote that kernel
# by hand): `setup_context(ctx, inputs, output)` saves what backward needs, and `backward(ctx, grad)`
# returns one gradient per input (`None` for `limit`, a float).
#
# ### Exercise 3: the backward formula
#
# Write `softclip_backward(grad, x, limit)`, returning the gradient for `x`. The check registers it as the
# op's backward and compares `x.grad` with autograd through the same formula built from `where`, `abs`,
# `**`, on every layout; runs `gradcheck` in float64; and traces the forward: Autograd, then CPU.

# %%
def softclip_backward(grad, x, limit):
    ### BEGIN SOLUTION
    slope = 1 - (x / limit) ** 2                         # the derivative inside [-limit, limit]
    return (grad * slope).where(x.abs() <= limit, 0.0)   # and 0 beyond, where the output is constant
    ### END SOLUTION


# %%
check("L16.softclip_backward", softclip_backward)

# %%
def setup_context(ctx, inputs, output):
    x, limit = inputs
    ctx.save_for_backward(x)
    ctx.limit = limit


def backward(ctx, grad):
    x, = ctx.saved_tensors
    return softclip_backward(grad, x, ctx.limit), None      # no gradient for the float `limit`


register_autograd("mylib::softclip", backward, setup_context=setup_context)
print(tt.dispatch.dump_table("mylib::softclip"))

# %% [markdown]
# Every slot is filled now: CPU and CUDA (your kernel), Meta (your fake), Autograd (your formula). Watch a
# backward through the op. The node is named as PyTorch names it:
# `GeneratedBackwardFor_mylib_softclip_defaultBackward`.

# %%
xg = tt.tensor([-3.0, -1.0, 0.0, 0.5, 1.5, 3.0], requires_grad=True)
try:
    yg = tt.ops.mylib.softclip(xg, 2.0)
    print(yg.grad_fn.name())
    graph = GraphView(yg.sum(), params={"x": xg}, title="softclip(x, 2).sum()")
    graph.backward(yg.sum())
    print("x.grad:", xg.grad.tolist())
except NotImplementedError:
    graph = "(write softclip_kernel and softclip_backward first)"
graph

# %% [markdown]
# ## 6. Step 5, Tests: the project's way
#
# The package's op tests (`tests/parity.py`) run each case on teachtorch and on PyTorch and compare values,
# dtype, shape, strides and errors: `check(fn, *inputs)`; `check_grad` compares first and second derivatives
# and runs `gradcheck` in float64; every input comes in every layout (`LAYOUTS`: contiguous, permuted,
# sliced, offset, expanded), and hypothesis draws more. PyTorch has no softclip to compare with, so here the
# reference is the formula, built from ops that already have tests. The same test, small: every layout,
# values, gradcheck, meta, the trace.

# %%
def layouts(values):
    """The same values in the five layouts of tests/parity.py."""
    v = np.asarray(values, dtype=np.float64)
    big = np.zeros((2 * v.shape[0] + 1, 2 * v.shape[1] + 1))
    big[1::2, 1::2] = v
    return {"contiguous": tt.tensor(v),
            "permuted": tt.tensor(v.T.copy()).permute(1, 0),
            "sliced": tt.tensor(big)[1::2, 1::2],
            "offset": tt.tensor(np.concatenate([np.zeros(3), v.ravel()]))[3:].view(*v.shape),
            "expanded": tt.tensor(v[:1]).expand(*v.shape)}


def reference(x, limit):
    return (x - x ** 3 / (3 * limit ** 2)).where(x.abs() <= limit, x.sign() * (2 * limit / 3))


rng = np.random.default_rng(0)
try:
    for name, xl in layouts(rng.uniform(-4, 4, size=(3, 4))).items():
        same = tt.allclose(tt.ops.mylib.softclip(xl, 2.0), reference(xl, 2.0))
        leaf = xl.clone().requires_grad_()                     # gradcheck wants memory without overlap
        ok = tt.autograd.gradcheck(lambda x: tt.ops.mylib.softclip(x, 2.0), (leaf,))
        print(f"{name:>10}: strides {xl.stride()}, values match: {same}, gradcheck: {ok}")
    print("meta:", tt.ops.mylib.softclip(tt.empty(5, 2, device="meta"), 1.0).shape)
    xt = tt.randn(2, 3, requires_grad=True)
    with tt.dispatch.trace() as t2:
        tt.ops.mylib.softclip(xt, 1.0)
    print(t2.format(hops=True))
    view = TraceView(t2, title="mylib.softclip: AutogradCPU, then CPU")
except NotImplementedError:
    view = "(solve the three exercises first)"
view

# %% [markdown]
# ## 7. In the package, file by file
#
# For a real contribution the same five steps go into the package, as CONTRIBUTING.md's "Adding an op"
# walks through for `logit` (run exactly as written by `tests/test_contributing.py`):
#
# 1. **Schema**: one `pointwise(...)` line in its family's file, `teachtorch/ops/activation.py` (a softclip
#    is an activation), named in that file's `__all__`. `pointwise` (`teachtorch/ops/pointwise.py`) makes
#    `softclip`, `softclip_` and `softclip.out`, the public function and the Tensor method.
# 2. **Kernel**: `def softclip(xp, x, limit)` in `teachtorch/kernels/activation.py`, next to `hardtanh`:
#    your exercise 1, unchanged. `PointwiseKernel` registers it under CPU and CUDA and does broadcasting,
#    type promotion, output strides and the write path for the in-place and out= forms.
# 3. **Meta**: nothing to write for an elementwise op: `PointwiseKernel` computes shapes on meta tensors. An
#    op of its own shape checks `is_meta(...)` in its kernel and returns `backends.empty(...)`, as
#    `bucketize` does in CONTRIBUTING.md.
# 4. **Derivative**: one `derivative("softclip", self=...)` line in `teachtorch/autograd/derivatives/nn.py`:
#    your exercise 3, with the formula's parameter names saying what the forward saves
#    (`teachtorch/autograd/derivative.py`). The node is then `SoftclipBackward0`, PyTorch's naming.
# 5. **Tests**: in `tests/test_nn_activation.py`, `check(...)` and `check_grad(...)` from `tests/parity.py`
#    over `LAYOUTS`, on the cpu and on cuda (`pytest.mark.device_generic`; `TEACHTORCH_TEST_CUDA=fake` runs
#    the cuda half on a fake CuPy).
#
# In code, the package version of this lesson's op is (not run here: it would add `aten::softclip` to
# your session):
#
# ```python
# # teachtorch/kernels/activation.py
# def softclip(xp, x, limit):
#     inside = x - x ** 3 / (3 * limit ** 2)
#     return xp.where(xp.abs(x) <= limit, inside, xp.sign(x) * (2 * limit / 3))
#
# # teachtorch/ops/activation.py
# softclip = pointwise("softclip(Tensor self, float limit) -> Tensor", K.softclip, variants=_FWD)
#
# # teachtorch/autograd/derivatives/nn.py
# derivative("softclip", self=lambda grad, self, limit: (grad * (1 - (self / limit) ** 2))
#            .where(self.abs() <= limit, 0.0))
# ```
#
# Compare the two dispatch tables: the built-in op's and yours fill the same slots.

# %%
print(tt.dispatch.dump_table("hardtanh"))
print(tt.dispatch.dump_table("mylib::softclip"))

# %% [markdown]
# **Where this is in PyTorch**
#
# - `torch/library.py`: `Library`, `define`, `impl`, `register_fake`, `register_autograd` (teachtorch:
#   `teachtorch/library.py`).
# - `aten/src/ATen/native/native_functions.yaml`: every op's schema (teachtorch: `teachtorch/ops/`).
# - `aten/src/ATen/native/` and `native/cpu/`, `native/cuda/`: the kernels, one per backend (teachtorch: one
#   over `xp` in `teachtorch/kernels/`).
# - `tools/autograd/derivatives.yaml` and `torch/csrc/autograd/FunctionsManual.cpp`: the formulas
#   (teachtorch: `teachtorch/autograd/derivatives/`).
# - `torch/_meta_registrations.py`: meta kernels written in Python (teachtorch: `PointwiseKernel` and
#   `is_meta` in the kernels).
# - `torch/testing/_internal/common_methods_invocations.py` (OpInfo) and `torch.autograd.gradcheck`: the
#   tests every op gets (teachtorch: `tests/parity.py`, `teachtorch/autograd/gradcheck.py`).

# %% [markdown]
# ## Recap
#
# - An op is five pieces: a **schema** (one line), a **kernel** (over `xp`: CPU and CUDA at once), a **meta**
#   kernel (shapes only), a **derivative** (written with ops, times `grad`), and **tests** (every layout,
#   values, gradcheck in float64, meta, the trace).
# - From outside the package: `Library(ns, "DEF").define(schema)`, `lib.impl(name, fn, "CPU")` and `"CUDA"`,
#   `register_fake`, `register_autograd`; PyTorch's `torch.library` has the same calls.
# - A kernel never writes into its input and never calls `np.` on tensor data; a fake kernel returns a new
#   tensor of the output's shape, dtype and device; a backward multiplies by `grad`.
# - Inside the package the same pieces go in `ops/<family>.py`, `kernels/<family>.py`,
#   `autograd/derivatives/<family>.py` and `tests/test_<family>.py`: CONTRIBUTING.md, "Adding an op".
#
# **Next:** pick an op PyTorch has and teachtorch leaves out, and contribute it.
