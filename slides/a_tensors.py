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

# %% [markdown] slideshow={"slide_type": "slide"} minutes=[25, 30] timing=30
# # Tensors, storage and strides
#
# What a tensor really is, and why every kernel cares
#
# A talk of 25 to 30 minutes, every picture drawn live by teachtorch

# %% slideshow={"slide_type": "skip"}
import time

import teachtorch as tt
from teachtorch.explorer import StorageView
from teachtorch.explorer.frames import step_through


def same_storage(a, b):
    """Do a and b read the same memory?"""
    return (a.untyped_storage().data_ptr()
            == b.untyped_storage().data_ptr())


def best_of(fn, repeat=5):
    """The fastest of `repeat` runs of fn(), in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Why look inside?
#
# - Edward Yang's "PyTorch internals" talk starts with one picture: the tensor
# - Everything else (dispatch, autograd, kernels) reads tensors through it
# - It explains what is fast, what copies, and what two names can share
# - teachtorch is PyTorch's model in readable Python: we can draw it live

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this talk follows the first part of Edward Yang's PyTorch internals talk (PyTorch NYC, 2019):
# before dispatch and autograd, understand the tensor. Three questions it answers: why is `x.t()` free but
# `x.t().contiguous()` not; why can writing to one tensor change another; why can the same sum over the same
# numbers run at different speeds. Ask: who has met "view size is not compatible with input tensor's size
# and stride"? By the end you will know exactly what it means.

# %% [markdown] slideshow={"slide_type": "slide"} timing=105
# ## A tensor = a storage + a way to read it

# %% slideshow={"slide_type": "-"}
x = tt.arange(12.).reshape(3, 4)
print("sizes", tuple(x.shape), " strides", x.stride(),
      " offset", x.storage_offset())
print("dtype", x.dtype, " device", x.device)
print("storage:", x.untyped_storage().nbytes(), "bytes")
StorageView(x)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the storage is one flat block of bytes: 12 float32 numbers, 48 bytes. It has no shape and no
# dtype. The tensor is metadata on top: sizes, strides, storage offset, dtype, device. Point at the strip at
# the bottom (the storage) and the grid above it (the tensor). In the live widget, hover an element to light
# its cell. PyTorch: `x.untyped_storage()`, `x.stride()`, `x.storage_offset()` are the same calls.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=90
# ## Where does an element live?
#
# $$\text{position}(i_0, i_1, \dots) = \text{offset} + \sum_d i_d \cdot \text{stride}_d$$

# %% slideshow={"slide_type": "-"}
pos = x.storage_offset() + 1 * x.stride(0) + 2 * x.stride(1)
print("x[1, 2] =", x[1, 2].item(), " lives at cell", pos)

# %% [markdown] slideshow={"slide_type": "fragment"}
# - the stride of a dim: how many cells one step along it skips
# - a kernel that knows (storage, offset, strides) can read **any** tensor

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this one formula is the whole secret. For x[1, 2]: 0 + 1*4 + 2*1 = 6, and cell 6 holds 6.0.
# PyTorch's TensorImpl stores the strides in elements; the byte address is that position times the item
# size (4 bytes here). Ask: what is the stride of the last dim of a fresh tensor? (1.)

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Row-major and column-major
#
# - fresh tensors are row-major (C order): the last dim moves fastest
# - the same 3 x 4 numbers, stored column by column: strides $(1, 3)$

# %% slideshow={"slide_type": "-"}
c = tt.arange(12.).reshape(4, 3).t()       # column-major 3 x 4
print("row-major:   ", x.stride(), x.is_contiguous())
print("column-major:", c.stride(), c.is_contiguous())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: "contiguous" in PyTorch means row-major with no gaps. Fortran, MATLAB and BLAS think in
# column-major; NumPy has both (order="C" or "F"). Both are just strides: the tensor `c` reads column by
# column, and PyTorch calls it not contiguous. Nothing in the formula prefers either.

# %% [markdown] slideshow={"slide_type": "slide"} timing=120
# ## Views: a new way to read the same storage
#
# `x.t()` swaps sizes and strides; nothing is copied

# %% slideshow={"slide_type": "-"}
step_through(StorageView(x.t(), x))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: step through the elements of `x.t()` in order: row 0 of the transpose reads cells 0, 4, 8,
# then row 1 reads 1, 5, 9. The storage is walked with jumps of 4: strides (1, 4). Both tensors are drawn
# over one strip: they share it. Ask before the last steps: which cell does element (3, 2) read? (3 + 2*4
# = 11.)

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## A slice moves the offset and scales a stride

# %% slideshow={"slide_type": "-"}
s = x[1:, ::2]
print("strides", s.stride(), " offset", s.storage_offset())
StorageView(x, x[1:, ::2])

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `start:stop:step` on dim d: offset grows by start * stride_d, stride_d is multiplied by step.
# Here the offset is 1 * 4 = 4 and the column stride 1 * 2 = 2. The cells the slice skips stay in the
# storage: the view keeps the whole block alive. An integer index (`x[1]`) is the same, with the dim gone.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## `expand`: a stride of 0
#
# - one step along a dim of stride 0 stays on the same cell

# %% slideshow={"slide_type": "-"}
row = tt.tensor([1., 2., 3.])
print("row.expand(4, 3): strides", row.expand(4, 3).stride())
StorageView(row, row.expand(4, 3))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: 12 elements, 3 cells. This is how broadcasting works without copying: `a + b` of shapes (4, 3)
# and (3,) expands b to strides (0, 1). It is also why an in-place op on an expanded tensor is refused (we
# will see the error in a moment).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## Any geometry by hand: `as_strided`
#
# - the diagonal of a 3 x 4 matrix: one step = one row down + one column right

# %% slideshow={"slide_type": "-"}
d = x.as_strided((3,), (4 + 1,), 0)
print("as_strided:", d.tolist())
print("diagonal():", x.diagonal().tolist())
print("diagonal stride:", x.diagonal().stride())
StorageView(x, x.diagonal())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `as_strided(sizes, strides, offset)` is the raw view: any sizes, strides and offset over the
# storage (the offset counts from the start of the storage). The diagonal's stride is the sum of the two
# strides, 4 + 1 = 5. Every view op in PyTorch (`permute`, `narrow`, `unfold`, `diagonal`) is a rule that
# computes such a triple. `as_strided` is powerful and unchecked: it can read outside what you meant.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=105
# ## Quiz: predict the strides and the offset
#
# `x3 = tt.arange(24.).reshape(2, 3, 4)`: strides $(12, 4, 1)$, offset 0

# %% slideshow={"slide_type": "-"}
x3 = tt.arange(24.).reshape(2, 3, 4)
quiz = ["x3.permute(2, 0, 1)", "x3[:, 1:, ::2]", "x3[1, ::2]",
        "x3[..., 1]", "x3.unsqueeze(0).expand(5, 2, 3, 4)"]
for k, q in enumerate(quiz):
    print(f"{k}: {q}")

# %% slideshow={"slide_type": "fragment"}
for k, q in enumerate(quiz):
    v = eval(q)
    print(f"{k}: strides {v.stride()}  offset {v.storage_offset()}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: give the room a minute, hands up for each answer, then reveal. 0: sizes and strides travel
# together, (1, 12, 4), offset 0. 1: offset 1*4 = 4, strides (12, 4, 2). 2: offset 12, the middle dim
# stepped by 2: (8, 1). 3: offset 1, strides (12, 4). 4: a new leading dim of stride 0: (0, 12, 4, 1).
# Lesson 2 has the full quiz of 8 as an auto-checked exercise.

# %% [markdown] slideshow={"slide_type": "slide"} timing=75
# ## When a view must become a copy

# %% slideshow={"slide_type": "-"}
t = tt.arange(6.).reshape(2, 3).t()
try:
    t.view(6)
except RuntimeError as err:
    print("view refuses:", str(err).split(" (")[0])
print("reshape shares the storage:", same_storage(t.reshape(6), t))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: flattening `t` would read cells 0, 3, 1, 4, 2, 5: no single stride does that. `view`
# never copies, so it refuses (PyTorch's exact message, which goes on "at least one dimension spans across
# two contiguous subspaces. Use .reshape(...) instead."). `reshape` is a view when one exists and a copy when
# not; the picture shows the copy's own storage strip, numbers in the new order. `t.contiguous()` is the
# same copy (and returns `t` itself when it is already contiguous). PyTorch's docs say not to depend on
# which one reshape returns: use `view` or `.contiguous()` when it matters.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## The copy gets a storage of its own

# %% slideshow={"slide_type": "-"}
StorageView(t, t.reshape(6))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: two strips now. `t` reads its storage 0, 3, 1, 4, 2, 5; the copy holds the same numbers in
# that order, contiguous, so a kernel can run over it in one flat loop. The copy costs time and memory, once;
# every later op on it is fast. That is the trade `contiguous()` makes.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## A small view keeps a big storage alive

# %% slideshow={"slide_type": "-"}
big = tt.zeros(1_000_000)
head = big[:2]
del big
print(f"head keeps {head.untyped_storage().nbytes():,} bytes")
small = head.clone()
print(f"a clone keeps {small.untyped_storage().nbytes():,} bytes")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a view holds its storage, all of it. Two numbers sliced from a 4 MB tensor keep the 4 MB
# alive after the big tensor is gone. To free the memory, copy what you keep (`clone()`), then drop the view.
# The same happens in NumPy; it is a classic memory leak in data loaders that keep slices of big batches.

# %% [markdown] slideshow={"slide_type": "slide"} timing=120
# ## im2col: sliding windows are a view
#
# - a signal of 6 numbers, windows of 3: 12 elements, 6 cells

# %% slideshow={"slide_type": "-"}
sig = tt.arange(6.)
win = sig.unfold(0, 3, 1)      # (4 windows, 3 taps)
print("windows", tuple(win.shape), "strides", win.stride(),
      " a view:", same_storage(win, sig))
StorageView(sig, win)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a convolution reads overlapping windows. They need no copy: the next window is one cell on
# (stride 1), the next tap too (stride 1). Strides (1, 1): the same cell appears in up to 3 windows. In 2-D,
# `x.unfold(2, k, s).unfold(3, k, s)` gives windows of shape (N, C, OH, OW, k, k) the same way.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Then one matmul does the whole convolution

# %% slideshow={"slide_type": "-"}
w = tt.tensor([1., 0., -1.])       # a difference filter
print("1-D: windows @ w =", (win @ w).tolist())
img = tt.arange(16.).reshape(4, 4)
cols = img.unfold(0, 2, 2).unfold(1, 2, 2)   # (2, 2, 2, 2)
rows = cols.reshape(4, 4)          # one row per window
print("2-D windows: strides", cols.stride(),
      " rows copied:", not same_storage(rows, img))
k = tt.full((2, 2), 0.25)          # a 2 x 2 mean filter
print("2-D: rows @ k =", (rows @ k.reshape(4)).tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: with the windows as a matrix, the convolution is `windows @ filter` (on a ramp the
# difference filter gives -2 everywhere). In 2-D: a 4 x 4 image, 2 x 2 windows with stride 2, still a view;
# flattening each window into a row, (windows, k*k), is a `reshape` of a non-contiguous view: that is where
# the copy happens, k*k times the input for stride 1. Then one matmul with the flattened filter. This is
# im2col, PyTorch's CPU fallback (`slow_conv2d`); Lesson 12 builds a CNN on it with batches and channels.

# %% [markdown] slideshow={"slide_type": "slide"} timing=120
# ## Kernels care: the same copy, two memory orders

# %% slideshow={"slide_type": "-"}
src, dst = tt.rand(2000, 2000), tt.empty(2000, 2000)
times = {
    "dst.copy_(src)   ": best_of(lambda: dst.copy_(src)),
    "dst.copy_(src.t())": best_of(lambda: dst.copy_(src.t())),
}
slowest = max(times.values())
for name, sec in times.items():
    bar = "█" * max(1, round(30 * sec / slowest))
    print(f"{name}  {bar:<30} {sec * 1e3:6.2f} ms")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: measured live on this machine, now (numbers vary). Same 4 million numbers, same compiled loop
# (NumPy under teachtorch's `copy_`). Reading in storage order uses every byte of each cache line; reading
# transposed uses 4 bytes of each 64-byte line and fetches it again later. Ask first: which is faster, and by
# how much? Then run. This is why PyTorch's TensorIterator reorders dims to walk memory in order.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## The contiguous fast path
#
# - all operands contiguous: element $k$ is at offset $+\,k$ everywhere
# - one flat loop, no index arithmetic, SIMD

# %% slideshow={"slide_type": "-"}
from teachtorch.kernels.pointwise import fast_setup

y = tt.ones(3, 4)
print("x + y:        ", fast_setup([x, y], "default"))
print("x.t() + y.t():", fast_setup([x.t(), y.t()], "default"))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: every real kernel checks this case first. teachtorch: `fast_setup` in
# `teachtorch/kernels/pointwise.py` recognises all-contiguous operands and skips broadcasting and the
# output-stride rule (`None` means: take the general path). PyTorch: `TensorIteratorBase::fast_set_up`, and
# the vectorised loop in aten/src/ATen/native/cpu/Loops.h, with `basic_loop` reading `data + i * stride`
# (our formula, in bytes) otherwise.

# %% [markdown] slideshow={"slide_type": "slide"} timing=75
# ## Aliasing: two names, one memory

# %% slideshow={"slide_type": "-"}
x = tt.arange(12.).reshape(3, 4)
first = x[0]                 # a view, not a copy
first += 100
print(x[0].tolist())
nums = [0., 1., 2., 3.]
part = nums[:2]              # a Python list slice copies
part[0] = 100.
print(nums)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the same syntax, opposite meanings. A Python list slice is a copy; a tensor (or NumPy) slice
# is a view, so `first += 100` writes into x. This is by design (no copies), and a classic surprise: a
# function that "modifies its argument's first row" modifies the caller's tensor.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## When views overlap, in-place ops refuse

# %% slideshow={"slide_type": "-"}
e = tt.tensor([1., 2., 3.]).expand(4, 3)
try:
    e.add_(1)
except RuntimeError as err:
    print("e.add_(1):\n ", str(err).split(". ")[0])
a = tt.arange(6.)
try:
    a[1:].add_(a[:-1])
except RuntimeError as err:
    print("a[1:].add_(a[:-1]):\n ", str(err).split(". ")[0])

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: with stride 0, four elements are one cell: adding 1 to each would add 4 to the cell, or 1,
# depending on the loop. With `a[1:] += a[:-1]` the loop would read cells it already wrote. PyTorch refuses
# both with these messages (teachtorch copies them); NumPy instead copies the overlapping input first and
# gives [0, 1, 3, 5, 7, 9]. The fix the message gives: `clone()` first.

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Three libraries, one model
#
# | | storage | view metadata |
# |---|---|---|
# | PyTorch | `StorageImpl` (bytes, device) | `TensorImpl`: sizes, strides, offset (elements) |
# | NumPy | a buffer, kept alive by `base` | `ndarray`: shape, strides **in bytes** |
# | teachtorch | `UntypedStorage` in `teachtorch/_storage.py` | `Tensor` in `teachtorch/_tensor.py` |

# %% slideshow={"slide_type": "-"}
a = x.numpy()                # no copy: the same bytes
print("tt strides (elements):", x.stride(),
      " numpy strides (bytes):", a.strides)
a[0, 0] = -1.
print("after a[0, 0] = -1:  x[0, 0] =", x[0, 0].item())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the same idea everywhere. PyTorch (c10/core/TensorImpl.h, c10/core/StorageImpl.h): an untyped
# storage that owns the bytes and knows its device, and a TensorImpl with sizes, strides, offset in elements,
# dtype, and the dispatch keys. NumPy's ndarray counts strides in bytes, and its `base` keeps the owner
# alive. teachtorch's Tensor holds `_storage`, `_offset`, `_sizes`, `_strides`, `dtype`: open
# `teachtorch/_tensor.py` and read it in five minutes.

# %% [markdown] slideshow={"slide_type": "slide"} timing=45
# ## Go deeper
#
# - [Lesson 1: storage](../lessons/01_storage.py): the address formula, contiguous strides
# - [Lesson 2: views](../lessons/02_views.py): permute, slicing, expand, view vs reshape, the quiz
# - [Lesson 3: broadcasting](../lessons/03_broadcasting.py): expand, used by every op
# - [Lesson 4: kernels](../lessons/04_kernels.py): strided loops, the fast path
# - [Lesson 12: digits](../lessons/12_digits.py): im2col and a CNN

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: each lesson is a notebook with auto-checked exercises that run offline: in Lesson 1 you write
# `contiguous_strides` and the address formula, in Lesson 2 the view rules, in Lesson 4 a strided kernel, in
# Lesson 12 the windows as one `as_strided`. Take questions.
