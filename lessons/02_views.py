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
# # Lesson 2: views without copies
#
# **You will learn**
# - that a **view** is a new (sizes, strides, offset) over the *same* storage: nothing is copied, and writing
#   through a view changes the tensor it came from;
# - the stride arithmetic of the view ops you use every day: `permute` and `transpose`, slicing with
#   `start:stop:step`, and `expand`, which uses **stride 0**;
# - why `view` sometimes refuses, and when `reshape` has to copy.
#
# **You will build** `permute`, `getitem` (slicing) and `expand` on bare geometry: functions that take a
# tensor's (sizes, strides, offset) and return the view's. The checks build your view over the same storage
# and compare it with teachtorch's own ops. Then you predict the strides of eight views by hand.
#
# **Time:** about 60 minutes. **You need:** lesson 1 (storage, strides, offset, contiguous).
#
# Every op here is PyTorch's, with the same results and the same error messages.

# %%
import teachtorch as tt
from teachtorch.explorer import StorageView
from teachtorch.exercises import check, hint


def same_storage(a, b):
    """Do a and b read the same memory? (PyTorch: compare `untyped_storage().data_ptr()`.)"""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# %% [markdown]
# ## 1. Two tensors, one storage
#
# `x.t()` is a view: a second tensor over `x`'s storage, with the strides swapped. Nothing is copied, so
# writing into the view writes into `x`'s storage, and `x` sees the change. This is **aliasing**: two names,
# one memory.

# %%
x = tt.arange(12.).reshape(3, 4)
v = x.t()
print("x:     sizes", tuple(x.shape), "strides", x.stride(), "offset", x.storage_offset())
print("x.t(): sizes", tuple(v.shape), "strides", v.stride(), "offset", v.storage_offset())
print("same storage:", same_storage(x, v))
v[0, 2] = 100.                 # element (0, 2) of the view lives in cell 0*1 + 2*4 = 8 ...
print(x)                       # ... which is x[2, 0]

# %% [markdown]
# The picture draws both tensors over **one** storage strip: hover an element of either to see the cell it
# reads. A copy would get a strip of its own (section 5 shows one).

# %%
StorageView(x, x.t())

# %% [markdown]
# ## 2. `permute`: strides travel with their dims
#
# `x.permute(dims)` reorders the dims: dim $k$ of the result is dim `dims[k]` of the input, and it takes
# **both** that dim's size and its stride along. The storage and the offset stay. `transpose(i, j)` is the
# permute that swaps two dims, and `t()` is `transpose(0, 1)` for a matrix.

# %%
x3 = tt.arange(24.).reshape(2, 3, 4)
p = x3.permute(2, 0, 1)
print("x3:                 ", tuple(x3.shape), x3.stride())
print("x3.permute(2, 0, 1):", tuple(p.shape), p.stride(), " contiguous:", p.is_contiguous())
print("x3.transpose(0, 1): ", tuple(x3.transpose(0, 1).shape), x3.transpose(0, 1).stride())

# %% [markdown]
# Any geometry can be put on a storage by hand with `as_strided(sizes, strides, offset)`, PyTorch's raw view
# (its offset counts from the start of the storage). That is how the checks below turn your numbers into a
# real tensor:

# %%
print(x3.as_strided((4, 2, 3), (1, 12, 4), 0).equal(p))

# %% [markdown]
# ### Exercise 1: `permute` on bare geometry
#
# Write `permute(sizes, strides, offset, dims)`: the (sizes, strides, offset) of `x.permute(dims)` for a
# tensor `x` with this geometry. `dims` is a permutation of `range(len(sizes))`.
#
# **How the checks of this lesson work.** They give your function the geometry of a tensor that is often
# already a view (permuted, sliced with steps, at an offset), on a storage whose cell $k$ holds the number
# $k$. They build your answer with `as_strided` over that same storage, and compare it with teachtorch's own
# op: the sizes, the strides, the offset, the values (each one says which cell your view reads), and that the
# result still shares the input's storage. `hint("L02.permute")` helps when you are stuck.

# %%
def permute(sizes, strides, offset, dims):
    ### BEGIN SOLUTION
    return tuple(sizes[d] for d in dims), tuple(strides[d] for d in dims), offset
    ### END SOLUTION


# %%
check("L02.permute", permute)

# %% [markdown]
# The library's kernel is `permute_kernel` in `teachtorch/kernels/views.py`; PyTorch's is `permute` in
# aten/src/ATen/native/TensorShape.cpp. Both end the way yours does: a new geometry over the old storage.

# %% [markdown]
# ## 3. Slicing: start, stop, step
#
# A slice `start:stop:step` of dim $d$ changes only that dim:
#
# | what | becomes | why |
# |---|---|---|
# | offset | $\text{offset} + \text{start} \cdot \text{stride}_d$ | the view's first element is element `start` |
# | $\text{stride}_d$ | $\text{stride}_d \cdot \text{step}$ | one step of the view skips `step` elements |
# | $\text{size}_d$ | $\lceil (\text{stop} - \text{start}) / \text{step} \rceil$ (0 if negative) | how many indices `range(start, stop, step)` has |
#
# `start` and `stop` are first resolved the way Python's lists resolve them: `None` means an end, a negative
# number counts from the end, and a number past an end is clamped to it. `slice.indices(size)` does exactly
# that. PyTorch allows no negative steps (`x[::-1]` is `ValueError: step must be greater than zero`).
#
# An integer index, `x[1]`, is a `select`: the offset moves by $1 \cdot \text{stride}_0$ and the dim is gone.

# %%
print(slice(None, -1, 2).indices(4), " ->", list(range(*slice(None, -1, 2).indices(4))))
s = x3[:, 1:, ::2]
print("x3[:, 1:, ::2]:", tuple(s.shape), s.stride(), "offset", s.storage_offset())
print("x3[:, 1]:      ", tuple(x3[:, 1].shape), x3[:, 1].stride(), "offset", x3[:, 1].storage_offset())
StorageView(x3, x3[:, 1:, ::2], x3[:, 1])

# %% [markdown]
# ### Exercise 2: slicing
#
# Write `getitem(sizes, strides, offset, index)`: the geometry of `x[index]`, where `index` is a tuple of
# Python `slice` objects, one for each of the first `len(index)` dims (the dims after them stay as they
# are). `x[1:, ::2]` is `index = (slice(1, None), slice(None, None, 2))`. Steps are positive.

# %%
def getitem(sizes, strides, offset, index):
    ### BEGIN SOLUTION
    sizes, strides = list(sizes), list(strides)
    for d, s in enumerate(index):
        start, stop, step = s.indices(sizes[d])   # None, negative and too-big bounds resolved
        offset += start * strides[d]
        sizes[d] = len(range(start, stop, step))
        strides[d] *= step
    return tuple(sizes), tuple(strides), offset
    ### END SOLUTION


# %%
check("L02.getitem", getitem)

# %% [markdown]
# Slices of slices compose: slicing `x3[:, 1:, ::2]` again starts from *its* offset and strides. Your
# function can do it twice in a row:

# %%
try:
    once = getitem((2, 3, 4), (12, 4, 1), 0, (slice(None), slice(1, None), slice(None, None, 2)))
    twice = getitem(*once, (slice(1, None), slice(None), slice(1, None)))
    print("yours:  ", twice)
except NotImplementedError:
    print("(write getitem in exercise 2 first)")
s2 = x3[:, 1:, ::2][1:, :, 1:]
print("x3[...]:", (tuple(s2.shape), s2.stride(), s2.storage_offset()))

# %% [markdown]
# The library's `x[...]` is `getitem` in `teachtorch/ops/indexing.py`, which applies `slice_kernel` and
# `select_kernel` (`teachtorch/kernels/views.py`) one dim at a time; PyTorch's `slice` and `select` are in
# aten/src/ATen/native/TensorShape.cpp.

# %% [markdown]
# ## 4. `expand`: stride 0
#
# A stride of 0 means "one step along this dim does not move": every index of the dim reads the **same**
# cell. `expand` uses it to repeat a tensor without copying it. The rules (PyTorch's):
#
# - line the dims up **from the right**; `new_sizes` may have more dims, which are new dims at the front;
# - a new leading dim gets stride 0;
# - a dim of size 1 may stretch to any size: stride 0;
# - `-1`, or the dim's own size, keeps the dim as it is (size and stride);
# - any other size change is an error: it would need new data.
#
# `y` below has 3 numbers; its expansions show 12 and 24 elements, and still use 3 cells.

# %%
y = tt.tensor([[10.], [20.], [30.]])
e = y.expand(3, 4)
print("y.expand(3, 4):   ", tuple(e.shape), e.stride())
print("y.expand(2, 3, 4):", tuple(y.expand(2, 3, 4).shape), y.expand(2, 3, 4).stride())
print("y.expand(-1, 4):  ", tuple(y.expand(-1, 4).shape))
try:
    y.expand(2, 4)
except RuntimeError as err:
    print("y.expand(2, 4):    RuntimeError:", err)
StorageView(y, y.expand(3, 4))

# %% [markdown]
# Aliasing is now extreme: the 4 elements of a row are one cell. Writing one element writes the whole row,
# and `y`. An in-place *op* on an expanded tensor is refused, with PyTorch's message: several of its elements
# are one cell, so each cell would be written several times, and the result would depend on the order:

# %%
e[0, 1] = 5.
print(e)
print(y.flatten())
try:
    e.add_(1)
except RuntimeError as err:
    print("RuntimeError:", err)

# %% [markdown]
# ### Exercise 3: `expand`
#
# Write `expand(sizes, strides, offset, new_sizes)`: the geometry of `x.expand(new_sizes)` by the rules
# above. Where PyTorch's `expand` refuses (a size other than 1 that would change, or a `-1` in a new leading
# dim), **raise a `RuntimeError`**; the message is yours to choose. The check does not look at the stride of
# a result dim of size 1 (you never step along it; it shows as `None` in a report). PyTorch gives a new
# leading dim of size 1 the stride $\text{size} \cdot \text{stride}$ of the dim to its right, and 0 is just
# as right.

# %%
def expand(sizes, strides, offset, new_sizes):
    ### BEGIN SOLUTION
    lead = len(new_sizes) - len(sizes)
    out_sizes, out_strides = [], []
    for i, n in enumerate(new_sizes):
        d = i - lead                       # the input's dim lined up with this one (< 0: a new dim)
        if d < 0:
            if n < 0:
                raise RuntimeError("-1 is not allowed in a new leading dim")
            out_sizes.append(n)
            out_strides.append(0)
        elif n == -1 or n == sizes[d]:
            out_sizes.append(sizes[d])
            out_strides.append(strides[d])
        elif sizes[d] == 1:
            out_sizes.append(n)
            out_strides.append(0)
        else:
            raise RuntimeError(f"cannot expand size {sizes[d]} to {n}")
    return tuple(out_sizes), tuple(out_strides), offset
    ### END SOLUTION


# %%
check("L02.expand", expand)

# %% [markdown]
# The library's kernel is `expand_kernel` in `teachtorch/kernels/views.py`; PyTorch's `expand` is in
# aten/src/ATen/native/TensorShape.cpp, and its stride rule in `inferExpandGeometry`
# (aten/src/ATen/ExpandUtils.cpp). Broadcasting, `a + b` of different shapes, expands both sides this way
# (lesson 3).

# %% [markdown]
# ## 5. `view`, `reshape`, `contiguous`: when a copy is unavoidable
#
# `view(shape)` never copies: it looks for strides that show the same cells, in the same row-major order, in
# the new shape, and raises when there are none. Flattening `x.t()` would have to read cells 0, 4, 8, 1, 5,
# 9, ...: no single stride does that. `reshape` is `view` when a view exists, and a **copy** into a fresh
# contiguous storage when not (the same as `.contiguous().view(...)`).

# %%
t = tt.arange(12.).reshape(3, 4).t()
try:
    t.view(12)
except RuntimeError as err:
    print("RuntimeError:", err)
r = t.reshape(12)
print("t.reshape(12) shares t's storage:", same_storage(r, t), "| contiguous:", r.is_contiguous())
print("t.contiguous() shares it:        ", same_storage(t.contiguous(), t))

# %% [markdown]
# The picture shows the copy: `t.reshape(12)` has a storage strip of its own, with the numbers in the new
# order.

# %%
StorageView(t, t.reshape(12))

# %% [markdown]
# Not contiguous does not always mean a copy. `x3.transpose(0, 1)` has sizes (3, 2, 4) and strides
# (4, 12, 1): its last dim is still a contiguous run of 4 cells, so it can be split, but it cannot be merged
# with the dim before it (that jumps 12 cells, not 4).

# %%
xt = x3.transpose(0, 1)
for shape in [(3, 2, 2, 2), (3, 8)]:
    out = xt.reshape(shape)
    print(f"reshape{shape}: strides {out.stride()}, a view: {same_storage(out, x3)}")

# %% [markdown]
# The rule that finds the strides, or says there are none, is `compute_view_strides` in
# `teachtorch/_strides.py`, a port of PyTorch's `computeStride` (aten/src/ATen/TensorUtils.cpp); `reshape`
# is `reshape_kernel` in `teachtorch/ops/views.py` (PyTorch: `reshape` in
# aten/src/ATen/native/TensorShape.cpp). The docs of `torch.reshape` say "you should not depend on the
# copying vs. viewing behavior": when it matters, use `view` (never a copy, or an error) or `.contiguous()`.

# %% [markdown]
# ## 6. Predict the strides
#
# No code this time: work each answer out by hand, then write them down. For each view below, what are its
# strides and its offset? (`x` is fresh: strides (12, 4, 1), offset 0; `y` has strides (1, 1).)

# %%
from teachtorch.exercises.lesson02 import QUIZ

print("x = tt.arange(24.).reshape(2, 3, 4);  y = tt.arange(3.).reshape(3, 1)")
for k, question in enumerate(QUIZ):
    print(f"{k}: {question}")

# %% [markdown]
# ### Exercise 4: the quiz
#
# Return your answers as a list of `(strides, offset)` pairs, in the order of the questions. The check tells
# you the first wrong one.

# %%
def predict_strides():
    ### BEGIN SOLUTION
    return [((1, 12, 4), 0), ((4, 12, 1), 0), ((12, 4, 2), 4), ((8, 1), 12), ((12, 4), 1),
            ((0, 1, 0), 0), ((1, 12, 4), 1), ((4, 1), 0)]
    ### END SOLUTION


# %%
check("L02.predict_strides", predict_strides)

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | `permute` | `aten/src/ATen/native/TensorShape.cpp` (`permute`) | `teachtorch/kernels/views.py` (`permute_kernel`) |
# | slicing and an int index | `aten/src/ATen/native/TensorShape.cpp` (`slice`, `select`) | `teachtorch/ops/indexing.py` (`getitem`), `teachtorch/kernels/views.py` (`slice_kernel`, `select_kernel`) |
# | `expand`: stride 0 | `aten/src/ATen/ExpandUtils.cpp` (`inferExpandGeometry`) | `teachtorch/kernels/views.py` (`expand_kernel`) |
# | `view`: new strides without a copy, or refuse | `aten/src/ATen/TensorUtils.cpp` (`computeStride`) | `teachtorch/_strides.py` (`compute_view_strides`), `teachtorch/kernels/views.py` (`view_kernel`) |
# | `reshape`: a view, else a copy | `aten/src/ATen/native/TensorShape.cpp` (`reshape`) | `teachtorch/ops/views.py` (`reshape_kernel`) |
# | `as_strided`: any geometry by hand | `aten/src/ATen/native/TensorShape.cpp` (`as_strided_tensorimpl`) | `teachtorch/kernels/views.py` (`as_strided_kernel`) |

# %% [markdown]
# ## Recap
#
# - A view is a new (sizes, strides, offset) over the same storage. No element moves, and a write through
#   any view is seen by all of them.
# - `permute`: sizes and strides move together. Slicing `start:stop:step`: offset $+\,\text{start} \cdot
#   \text{stride}$, stride $\times\,\text{step}$, size $\lceil(\text{stop}-\text{start})/\text{step}\rceil$.
#   An integer index: offset $+\,i \cdot \text{stride}$, dim gone. `expand`: stride 0 for every new or
#   stretched dim.
# - `view` never copies and may refuse; `reshape` copies when no view exists; `.contiguous()` copies when the
#   strides are not row-major.
#
# **In the source:** `teachtorch/kernels/views.py` (every view kernel: `permute_kernel`, `slice_kernel`,
# `select_kernel`, `expand_kernel`, `view_kernel`, `as_strided_kernel`), `teachtorch/_strides.py`
# (`compute_view_strides`), `teachtorch/ops/views.py` (`reshape_kernel`). In PyTorch:
# aten/src/ATen/native/TensorShape.cpp, aten/src/ATen/ExpandUtils.cpp and aten/src/ATen/TensorUtils.cpp.
#
# **Next:** lesson 3 uses `expand` everywhere: broadcasting, and tensor puzzles.
