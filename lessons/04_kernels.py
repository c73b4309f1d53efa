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
# # Lesson 4: kernels over strided memory
#
# **You will learn**
# - what a **kernel** is: one loop over every index of the output, reading each input through its own
#   offset and strides (lesson 1's formula), the same loop for `neg`, `exp` or `add`;
# - why that loop has a **contiguous fast path**, and how the memory order of a tensor changes its speed;
# - how a **reduction** allocates its output (fresh and contiguous, whatever the input's layout);
# - why a kernel **checks everything before it writes**, and the **one write path** that keeps a result from
#   being lost when the output is not contiguous.
#
# **You will build** `strided_map` (an elementwise op), `strided_sum` (a reduction over one dim) and
# `strided_zip` (a binary op with PyTorch's shape check), in plain Python over lists, and check them against
# the library's own ops on transposed, sliced, offset and expanded tensors.
#
# **Time:** about 60 minutes. **You need:** lesson 1 (storage, strides, offset, contiguous); lesson 2's
# `expand` (a stride of 0) helps.
#
# Everything PyTorch-named here is PyTorch's: the errors, the strides of the results, `out=`.

# %%
import math
import time
from itertools import product

import numpy as np

import teachtorch as tt
from teachtorch._strides import contiguous_strides
from teachtorch.explorer import StorageView
from teachtorch.exercises import check, hint
from teachtorch.exercises.lesson04 import Strided

# %% [markdown]
# ## 1. A kernel is a loop over the output
#
# `tt.neg(x)` on a 3 × 4 tensor computes 12 numbers. Whatever the op, the kernel is the same loop: for
# every index $i$ of the output, read the input's element $i$, compute, write the output's element $i$.
# Input and output are each a storage seen through their own view, so each has its own position formula:
#
# $$\text{out.storage}[\text{off}_{out} + \textstyle\sum_d i_d \, s^{out}_d] \leftarrow
#   f\big(\text{a.storage}[\text{off}_{a} + \textstyle\sum_d i_d \, s^{a}_d]\big)$$
#
# This is minitorch's `tensor_map`, and the heart of PyTorch's CPU loops. To see the loop without NumPy doing
# it for us, a tensor in this lesson is a `Strided(storage, shape, strides, offset)`: a plain Python list and
# lesson 1's view of it. `Strided.of(t)` reads a teachtorch tensor's **whole** storage into one; `s.tensor()`
# turns one back into a tensor. Two helpers do the bookkeeping:

# %%
def indices(shape):
    """Every index of a tensor of this shape, in row-major order: (0, 0), (0, 1), ..., (1, 0), ..."""
    return product(*(range(n) for n in shape))


def position(index, strides, offset):
    """Lesson 1: where element `index` lives in the storage."""
    return offset + sum(i * s for i, s in zip(index, strides))


x = tt.arange(12.).reshape(3, 4)
a = Strided.of(x.t())
print(a)
print("read through the view:", [a.storage[position(i, a.strides, a.offset)] for i in indices(a.shape)])
print("x.t() itself:         ", x.t().reshape(-1).tolist())

# %% [markdown]
# ### Exercise 1: an elementwise kernel
#
# Write `strided_map(fn, out, a)`: for every index `i` of `out.shape` (which is `a.shape` too), store
# `fn(a[i])` into `out[i]`, **in `out.storage`**, at the position `out`'s own strides and offset give. Leave
# every other cell of `out.storage` alone: the storage may belong to a bigger tensor. `fn` takes one number.
#
# The check runs it on random layouts: transposed and permuted, sliced with steps, starting at an offset, and
# inputs expanded with stride 0. `out.storage` starts full of NaN, so a cell written by mistake, or forgotten,
# shows. The answers come from `tt.neg(a, out=o)`, `tt.exp(a, out=o)`, ... on the same views.
#
# Stuck? `hint("L04.strided_map")` gives a hint; call it again for the next one.

# %%
def strided_map(fn, out, a):
    ### BEGIN SOLUTION
    for index in indices(out.shape):
        out.storage[position(index, out.strides, out.offset)] = fn(a.storage[position(index, a.strides, a.offset)])
    ### END SOLUTION


# %%
check("L04.strided_map", strided_map)

# %% [markdown]
# Now run it on teachtorch tensors: every second row of `x.t()` (strides (2, 4): a transpose and a step),
# written into a slice of a bigger zero tensor (an offset of 6, and a row stride of 5).

# %%
big = tt.zeros(4, 5)
out, a = Strided.of(big[1:3, 1:4]), Strided.of(x.t()[::2])
try:
    strided_map(lambda v: -v, out, a)
    print(out.tensor())                      # the view, read from the written storage
    print(tt.neg(x.t()[::2]))
    print("cells outside the view untouched:", out.storage[:6])
except NotImplementedError:
    print("(write strided_map in exercise 1 first)")

# %% [markdown]
# ## 2. Where the loop goes in memory
#
# The loop walks the **output's indices** in order, but the input's cells in whatever order its strides say.
# In the picture below each storage cell holds **the step at which the loop reads it**: for `x` the steps
# run along the storage 0, 1, 2, ...; for `x.t()` the storage reads 0, 3, 6, 9, 1, 4, ...: the loop jumps 4
# cells at a time, then comes back; for `x[:, ::2]` the cells the slice skips hold -1: never read. Hover an
# element to light its cell.

# %%
def visit_order(t):
    """A tensor with t's view over a new storage whose every cell holds the step at which a loop over t's
    indices reads it (-1: never read)."""
    s = Strided.of(t)
    cells = [-1] * len(s.storage)
    for step, index in enumerate(indices(s.shape)):
        cells[position(index, s.strides, s.offset)] = step
    return tt.tensor(cells).as_strided(s.shape, s.strides, s.offset)


StorageView(visit_order(x), visit_order(x.t()), visit_order(x[:, ::2]),
            labels=["x: visit order", "x.t(): visit order", "x[:, ::2]: visit order"])

# %% [markdown]
# Does the order matter for speed? Time it, twice: our Python loop, and the compiled loop (NumPy, under
# teachtorch's `copy_`) reading a 2000 × 2000 tensor in storage order and transposed. (Timings vary between
# machines and runs; nothing here depends on them.)

# %%
def best_of(fn, repeat=3):
    """The fastest of `repeat` runs of fn(), in seconds (the least disturbed by everything else running)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bars(times):
    """One text bar per timing, scaled to the slowest."""
    slowest = max(times.values())
    for name, t in times.items():
        print(f"{name:<38} {'█' * max(1, round(30 * t / slowest)):<30} {t * 1e3:8.2f} ms")


small = tt.rand(150, 150)
small_c, small_t = Strided.of(small), Strided.of(small.t())
src = tt.rand(2000, 2000)
dst = tt.empty(2000, 2000)
times = {}
try:
    target = Strided.of(tt.empty(150, 150))
    times["Python loop, contiguous input"] = best_of(lambda: strided_map(abs, target, small_c))
    times["Python loop, transposed input"] = best_of(lambda: strided_map(abs, target, small_t))
except NotImplementedError:
    print("(write strided_map in exercise 1 to time it too)")
times["compiled copy_, contiguous input"] = best_of(lambda: dst.copy_(src))
times["compiled copy_, transposed input"] = best_of(lambda: dst.copy_(src.t()))
bars(times)

# %% [markdown]
# In Python both orders cost the same: the interpreter's work per element hides the memory. In a compiled
# loop the memory is the cost: reading in storage order uses every byte of each cache line the CPU fetches,
# reading transposed uses one number of each and fetches the rest again later. That is why PyTorch's
# TensorIterator (aten/src/ATen/TensorIterator.cpp, `reorder_dimensions`) walks the dims in memory order when
# the op allows it, and why an elementwise result is **laid out like its input**:

# %%
print("x.t() strides:", x.t().stride(), "  tt.neg(x.t()) strides:", tt.neg(x.t()).stride())

# %% [markdown]
# ## 3. The contiguous fast path
#
# When input and output are both **contiguous**, element number $k$ of the loop lives at $\text{offset} + k$
# in both storages: no index, no strides, no sums, one flat loop. Every real kernel checks for this case
# first:

# %%
def is_contiguous(s):
    """Row-major with no gaps (PyTorch's `is_contiguous` also ignores the stride of a size-1 dim)."""
    return tuple(s.strides) == contiguous_strides(s.shape)


def map_with_fast_path(fn, out, a):
    if is_contiguous(out) and is_contiguous(a):
        for k in range(math.prod(out.shape)):               # one flat loop
            out.storage[out.offset + k] = fn(a.storage[a.offset + k])
    else:
        strided_map(fn, out, a)                              # the general loop


times = {}
try:
    times["general loop (strided_map)"] = best_of(lambda: strided_map(abs, target, small_c))
    times["fast path (one flat loop)"] = best_of(lambda: map_with_fast_path(abs, target, small_c))
    bars(times)
except NotImplementedError:
    print("(write strided_map in exercise 1 first)")

# %% [markdown]
# **In teachtorch** the loops themselves are NumPy's (`xp.negative(a)` runs a compiled strided loop), so the
# fast path saves the *set-up*: `fast_setup` in `teachtorch/kernels/pointwise.py` sees that every operand is
# contiguous, of one shape and dtype, and skips broadcasting, the output-stride rule and the casts; then
# `run_contiguous` calls the op on the arrays as they are. Any other call returns `None` there and takes the
# general steps:

# %%
from teachtorch.kernels.pointwise import fast_setup

y = tt.ones(3, 4)
print("x + y:        ", fast_setup([x, y], "default"))
print("x.t() + y.t():", fast_setup([x.t(), y.t()], "default"))

# %% [markdown]
# **In PyTorch** the same two steps: `TensorIteratorBase::fast_set_up` (aten/src/ATen/TensorIterator.cpp,
# `FastSetupType::CONTIGUOUS`) allocates a contiguous output and collapses all dims into one of `numel`
# elements; then the loop in aten/src/ATen/native/cpu/Loops.h (`VectorizedLoop2d`) runs `vectorized_loop`
# (SIMD, no strides) when every operand is contiguous, and `basic_loop` otherwise, which reads each operand at
# `data[k] + i * strides[k]`: our formula, with strides in bytes.

# %% [markdown]
# ## 4. Reductions: a fresh, contiguous output
#
# `x.sum(dim)` is the other kind of kernel: the output has `x`'s shape without `dim` (or with a 1 there, with
# `keepdim=True`), and every input element is **added into** the output cell its index maps to. The kernel
# first **allocates** that output: fresh, zero-filled, contiguous, offset 0, whatever the input's layout was
# (PyTorch's `resize_reduction` in aten/src/ATen/native/ReduceOpsUtils.h; teachtorch: `result` in
# `teachtorch/kernels/reduction.py`). An elementwise op copies its input's layout (section 2); a reduction
# does not:

# %%
p = tt.arange(24.).reshape(2, 3, 4).permute(2, 0, 1)       # strides (1, 12, 4)
print("input strides:", p.stride())
print("sum(1):", p.sum(1).stride(), " sum(1, keepdim=True):", p.sum(1, keepdim=True).stride(),
      " neg:", tt.neg(p).stride())

# %% [markdown]
# ### Exercise 2: a strided reduction
#
# Write `strided_sum(a, dim, keepdim=False)`: allocate the output (shape, `contiguous_strides(shape)`, a
# storage of zeros, offset 0), add every element of `a` into its cell, and return the output as
# `Strided(storage, shape, strides, 0)` (any 4-tuple in that order will do). `dim` may be negative, as in
# PyTorch: -1 is the last dim. The check compares values, shape, strides and offset with
# `Tensor.sum(dim, keepdim)`.

# %%
def strided_sum(a, dim, keepdim=False):
    ### BEGIN SOLUTION
    dim = dim % len(a.shape)
    shape = a.shape[:dim] + ((1,) if keepdim else ()) + a.shape[dim + 1:]
    out = Strided([0.0] * math.prod(shape), shape, contiguous_strides(shape), 0)
    for index in indices(a.shape):
        kept = index[:dim] + ((0,) if keepdim else ()) + index[dim + 1:]
        out.storage[position(kept, out.strides, 0)] += a.storage[position(index, a.strides, a.offset)]
    return out
    ### END SOLUTION


# %%
check("L04.strided_sum", strided_sum)

# %%
try:
    r = strided_sum(Strided.of(p), 1, keepdim=True)
    print(r.shape, r.strides, r.storage == p.sum(1, keepdim=True).reshape(-1).tolist())
except NotImplementedError:
    print("(write strided_sum in exercise 2 first)")

# %% [markdown]
# ## 5. Check everything, then write
#
# An `out=` kernel writes into a tensor the caller owns. If it raises halfway, the caller is left with a
# tensor that is half old values and half new, and nothing says which. Here is a careless `add` with `out=`,
# written the way it is tempting to write one: copy `a` into `out`, then add `b` in place. The second step
# finds that the shapes do not match, **after** the first one wrote:

# %%
def add_out_careless(a, b, out):
    out.copy_(a)        # step 1 writes...
    out.add_(b)         # ...step 2 checks the shapes and raises
    return out


o = tt.zeros(2, 3)
try:
    add_out_careless(tt.ones(2, 3), tt.ones(2, 4), o)
except RuntimeError as e:
    print("RuntimeError:", e)
print("out after the error:", o.tolist(), "  <- half-written")

o = tt.zeros(2, 3)
try:
    tt.add(tt.ones(2, 3), tt.ones(2, 4), out=o)
except RuntimeError as e:
    print("RuntimeError:", e)
print("out after the error:", o.tolist(), "  <- untouched")

# %% [markdown]
# The real kernels check first. PyTorch's `TensorIteratorBase::build` runs every check (memory overlap,
# `compute_shape`, dtypes, devices) before it allocates or loops; teachtorch's `PointwiseKernel.out` in
# `teachtorch/kernels/pointwise.py` runs `check_output_device`, `check_writable`, `check_no_partial_overlap`
# and `check_out` before it computes, and writes last. The shape message is `infer_size_impl`'s
# (aten/src/ATen/ExpandUtils.cpp), which walks the dims **from the last to the first** and reports the first
# mismatch it meets, naming a's size, then b's, then the dim counted from the left:

# %%
for shape_a, shape_b in [((2, 3), (2, 4)), ((2, 3), (4, 2))]:
    try:
        tt.ones(shape_a) + tt.ones(shape_b)
    except RuntimeError as e:
        print(shape_a, "+", shape_b, "->", e)

# %% [markdown]
# ### Exercise 3: check, then zip
#
# Write `strided_zip(fn, out, a, b)`: first compare `a.shape` with `b.shape` (they have the same number of
# dims) and, if they differ, raise `RuntimeError` with PyTorch's exact message, **before writing anything**;
# then store `fn(a[i], b[i])` into `out[i]` for every index. Where the shapes differ in the checks, neither
# size is 1 (a 1 would broadcast: lesson 3). The check compares the error type, its message and the whole of
# `out.storage` afterwards with `tt.add(a, b, out=o)`, `tt.mul`, `tt.sub` and `tt.maximum`.

# %%
def strided_zip(fn, out, a, b):
    ### BEGIN SOLUTION
    for d in reversed(range(len(a.shape))):
        if a.shape[d] != b.shape[d]:
            raise RuntimeError(f"The size of tensor a ({a.shape[d]}) must match the size of tensor b "
                               f"({b.shape[d]}) at non-singleton dimension {d}")
    for index in indices(out.shape):
        x, y = a.storage[position(index, a.strides, a.offset)], b.storage[position(index, b.strides, b.offset)]
        out.storage[position(index, out.strides, out.offset)] = fn(x, y)
    ### END SOLUTION


# %%
check("L04.strided_zip", strided_zip)

# %% [markdown]
# ## 6. One write path, and the lost write-back
#
# The last way a kernel goes wrong is the quietest. Array libraries compute fastest into contiguous memory,
# so it is tempting to compute into a contiguous version of `out`: `np.ascontiguousarray(arr)` returns `arr`
# **itself** when it is contiguous, and a **copy** when it is not. Forget to copy that copy back, and every
# contiguous output works while a transposed one silently keeps its old values:

# %%
def neg_out_buggy(a, out):
    buf = np.ascontiguousarray(out.numpy())    # out's own memory if contiguous, else a temporary copy
    np.negative(a.numpy(), out=buf)            # computes into buf...
    # ...and never copies buf back into out


for out in [tt.zeros(3, 4), tt.zeros(4, 3).t()]:
    neg_out_buggy(x, out)
    print("out contiguous:", out.is_contiguous(), "  written:", out.tolist() == tt.neg(x).tolist())

# %% [markdown]
# This is the bug that froze Adam on Apple GPUs ([pytorch#118115](https://github.com/pytorch/pytorch/issues/118115),
# fixed by PR #124442 in PyTorch 2.4): the MPS kernels of `addcmul_` and `addcdiv_` computed into a contiguous
# temporary of a non-contiguous output and never copied it back, so a transposed weight's `exp_avg_sq` stayed
# zero and the weight itself never moved. The fix is one copy back (here `if not np.shares_memory(buf, arr):
# arr[...] = buf`; on MPS `output.copy_(temp)`), but it has to be in every kernel: the same bug then turned up
# in other MPS ops (random fills, SiLU, bitwise ops), one kernel at a time (lesson 6 finds it with a tool).
#
# teachtorch keeps it out by construction: **no kernel writes into a tensor itself**. Every in-place and
# `out=` result goes through one function, `write` in `teachtorch/backends/__init__.py`, which copies into
# `dst._data()`: a NumPy view of the tensor's own storage, with its strides and offset, never a copy. So the
# write lands in the storage for any layout, and touches nothing outside the view:

# %%
base = tt.zeros(5, 4)
out = base[1:, :3].t()                         # transposed, offset 4: not contiguous
tt.neg(x, out=out)
print("written:", out.tolist() == tt.neg(x).tolist())
print(base)

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | a loop over the output, each operand at its own strides | `aten/src/ATen/native/cpu/Loops.h` (`basic_loop`) | `teachtorch/kernels/pointwise.py` (`PointwiseKernel`) |
# | walk memory in order; results laid out like the input | `aten/src/ATen/TensorIterator.cpp` (`reorder_dimensions`) | `teachtorch/kernels/pointwise.py` (`output_strides`) |
# | the contiguous fast path | `aten/src/ATen/TensorIterator.cpp` (`fast_set_up`), `aten/src/ATen/native/cpu/Loops.h` (`vectorized_loop`) | `teachtorch/kernels/pointwise.py` (`fast_setup`, `run_contiguous`) |
# | a reduction: fresh contiguous output | `aten/src/ATen/native/ReduceOpsUtils.h` (`resize_reduction`), `aten/src/ATen/native/ReduceOps.cpp` | `teachtorch/kernels/reduction.py` (`result`, `sum_like`) |
# | check everything, then write | `aten/src/ATen/TensorIterator.cpp` (`TensorIteratorBase::build`), `aten/src/ATen/ExpandUtils.cpp` (`infer_size_impl`) | `teachtorch/kernels/pointwise.py` (`PointwiseKernel.out`) |
# | one write path; the lost write-back on MPS | `aten/src/ATen/native/mps/operations/PointwiseOps.mm` (the fix) | `teachtorch/backends/__init__.py` (`write`) |

# %% [markdown]
# ## Recap
#
# - A kernel is one loop over the output's indices; each operand is read or written at
#   $\text{offset} + \sum_d i_d \cdot \text{stride}_d$, its own strides and offset (a stride of 0 reads one
#   cell again and again).
# - When every operand is contiguous, one flat loop does it: the **fast path** (teachtorch's `fast_setup`,
#   PyTorch's `fast_set_up` and `vectorized_loop`). In compiled code, reading across the memory costs far
#   more than reading along it; elementwise results are laid out like their inputs so the loop can follow
#   memory.
# - A reduction allocates a **fresh contiguous** output and adds into it.
# - **Check, then write**: all shape, dtype and overlap checks run before the first byte is written, so a
#   failed `out=` call leaves `out` as it was. PyTorch's broadcast message names a's size, b's size, then the
#   dim, found from the last dim.
# - **One write path**: results reach an existing tensor only through `write`, into a view of its storage, so
#   a non-contiguous output can never lose its write-back.
#
# **In the source:** `teachtorch/kernels/pointwise.py` (`PointwiseKernel`, `fast_setup`, `run_contiguous`),
# `teachtorch/kernels/reduction.py` (`sum_like`, `result`), `teachtorch/backends/__init__.py` (`empty`,
# `write`). In PyTorch: aten/src/ATen/TensorIterator.cpp, aten/src/ATen/native/cpu/Loops.h,
# aten/src/ATen/native/ReduceOps.cpp, aten/src/ATen/ExpandUtils.cpp.
#
# **Next:** lesson 5 follows a call from `tt.add` to the kernel: how the dispatcher picks which kernel runs.
