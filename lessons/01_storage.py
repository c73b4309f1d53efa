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
# # Lesson 1: a tensor is a view of a storage
#
# **You will learn**
# - what a tensor is made of: a flat **storage** of numbers, and a view of it (sizes, **strides**, offset);
# - where element `(i, j, ...)` of a tensor lives in its storage, and why that one formula is all a
#   kernel needs to read any tensor;
# - what **contiguous** means, and which operations copy and which do not.
#
# **You will build** `contiguous_strides(shape)` and `index_to_offset(index, strides, offset)`, the two
# functions every tensor library has at its core, and check them here, offline.
#
# **Time:** about 45 minutes. **You need:** Python, and lists and loops; no NumPy or PyTorch.
#
# Everything here is PyTorch's model: the names (`stride()`, `storage_offset()`, `untyped_storage()`,
# `is_contiguous()`) are PyTorch's and mean the same thing there.

# %%
import teachtorch as tt
from teachtorch.explorer import StorageView
from teachtorch.exercises import check, hint

# %% [markdown]
# ## 1. One flat block of numbers
#
# `tt.arange(12.)` makes the numbers 0 to 11 in a fresh **storage**: one flat block of memory, 12 float32
# numbers of 4 bytes each. `reshape(3, 4)` does not move them; it makes a tensor that *looks at* the same
# block as 3 rows of 4.

# %%
x = tt.arange(12.).reshape(3, 4)
print(x)
print("sizes:", tuple(x.shape), " strides:", x.stride(), " offset:", x.storage_offset())
print("storage:", x.untyped_storage().nbytes(), "bytes")

# %% [markdown]
# The picture below draws the tensor above its storage. **Hover an element** to light the storage cell it
# lives in (and a cell to light the elements that read it).

# %%
StorageView(x)

# %% [markdown]
# ## 2. Where an element lives
#
# The **stride** of a dimension is how many storage cells one step along that dimension skips. `x` has
# strides `(4, 1)`: one row down skips 4 cells, one column right skips 1. So element $(i_0, i_1, \dots)$
# of a tensor lives at
#
# $$\text{position}(i_0, i_1, \dots) = \text{offset} + \sum_d i_d \cdot \text{stride}_d$$
#
# For `x[1, 2]`: $0 + 1 \cdot 4 + 2 \cdot 1 = 6$, and the number there is 6.0. This formula is the whole
# secret: a kernel that knows a tensor's storage, offset and strides can read any element of it, whatever
# operation made the tensor.

# %%
print(x[1, 2].item(), "lives at", x.storage_offset() + 1 * x.stride(0) + 2 * x.stride(1))

# %% [markdown]
# ### Exercise 1: the strides of a fresh tensor
#
# A fresh tensor of a given shape is laid out row after row ("row-major", C order): the **last** dimension
# moves fastest. Write `contiguous_strides(shape)`, which returns those strides as a tuple:
# `contiguous_strides((2, 3, 4)) == (12, 4, 1)`. One rule from PyTorch: a dimension of size 0 counts as size
# 1 for the dimensions to its left (`torch.empty(2, 0, 3).stride() == (3, 3, 1)`).
#
# Stuck? `hint("L01.contiguous_strides")` gives a hint; call it again for the next one.

# %%
def contiguous_strides(shape):
    ### BEGIN SOLUTION
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = running              # one step along d skips everything to its right
        running *= max(shape[d], 1)
    return tuple(strides)
    ### END SOLUTION


check("L01.contiguous_strides", contiguous_strides)

# %% [markdown]
# The library's own version is `contiguous_strides` in `teachtorch/_strides.py`; PyTorch computes the same
# in C++ when it allocates a tensor (`c10/core/TensorImpl.h`, `TensorImpl::set_sizes_contiguous`).

# %% [markdown]
# ## 3. Views: new strides, same storage
#
# Many operations make a **view**: a new tensor over the same storage, with other sizes, strides or offset,
# and no copy. Three of them:
#
# | view | sizes | strides | offset | why |
# |---|---|---|---|---|
# | `x.t()` | (4, 3) | (1, 4) | 0 | the strides swap places |
# | `x[1:, ::2]` | (2, 2) | (4, 2) | 4 | start one row in; a step of 2 doubles the column stride |
# | `x[1, 2]` | () | () | 6 | a single element: just an offset |
#
# Check the table against the tensors, then hover the picture: the transpose reads the same cells in
# another order, the slice skips some.

# %%
views = [x.t(), x[1:, ::2], x[1, 2]]
for v in views:
    print(tuple(v.shape), v.stride(), v.storage_offset(),
          "same storage:", v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
StorageView(x, x.t(), x[1:, ::2], x[1, 2])

# %% [markdown]
# ### Exercise 2: from an index to a storage position
#
# Write `index_to_offset(index, strides, offset)`, the formula of section 2: the storage position of the
# element at `index` of a tensor with these strides and offset. The check tries it on views of every kind,
# including strides of 0 (lesson 2: `expand`).

# %%
def index_to_offset(index, strides, offset):
    ### BEGIN SOLUTION
    return offset + sum(i * s for i, s in zip(index, strides))
    ### END SOLUTION


check("L01.index_to_offset", index_to_offset)

# %% [markdown]
# Now use it to read a view straight from the storage, as a kernel does. `flat` is the storage's numbers in
# order (`x` is contiguous with offset 0, so `x.reshape(-1)` is exactly its storage):

# %%
flat = x.reshape(-1).tolist()
s = x[1:, ::2]
try:
    print([[flat[index_to_offset((i, j), s.stride(), s.storage_offset())] for j in range(2)] for i in range(2)])
except NotImplementedError:
    print("(write index_to_offset in exercise 2 first)")
print(s.tolist())

# %% [markdown]
# ## 4. Contiguous, or not
#
# A tensor is **contiguous** when its strides are exactly `contiguous_strides(shape)`: its elements sit in the
# storage in row-major order with no gaps. `x` is; `x.t()` is not. Many kernels have a fast path for
# contiguous tensors (lesson 4), and `view` needs one (lesson 2). `.contiguous()` returns the tensor itself
# when it already is, and otherwise **copies** into a fresh storage:

# %%
t = x.t()
c = t.contiguous()
print("x.t() contiguous:", t.is_contiguous(), " strides:", t.stride())
print("copy contiguous: ", c.is_contiguous(), " strides:", c.stride(),
      " same storage as x:", c.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
print("x.contiguous() is x:", x.contiguous() is x)

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | storage: the flat buffer | `c10/core/StorageImpl.h`; from Python `torch/storage.py` (`UntypedStorage`) | `teachtorch/_storage.py` (`UntypedStorage`) |
# | tensor = storage + sizes, strides, offset | `c10/core/TensorImpl.h` | `teachtorch/_tensor.py` (`Tensor`) |
# | row-major strides, is it contiguous | `c10/core/TensorImpl.h` (`set_sizes_contiguous`), `c10/core/Contiguity.h` | `teachtorch/_strides.py` (`contiguous_strides`, `is_contiguous`) |
# | views: `t()`, slicing, an int index | `aten/src/ATen/native/TensorShape.cpp` | `teachtorch/kernels/views.py` |
# | `.contiguous()`: a copy only when needed | `aten/src/ATen/native/TensorProperties.cpp` (`contiguous`) | `teachtorch/ops/copy.py` (`contiguous`) |

# %% [markdown]
# ## Recap
#
# - A tensor = a storage + (sizes, strides, offset, dtype). Element $(i_0, i_1, \dots)$ lives at
#   $\text{offset} + \sum_d i_d \cdot \text{stride}_d$.
# - A fresh tensor is row-major: its strides are `contiguous_strides(shape)`.
# - Views (`t()`, slicing, indexing with an int) change sizes, strides and offset, never the storage.
# - `.contiguous()` copies only when the strides are not row-major.
#
# **In the source:** `teachtorch/_strides.py` (stride arithmetic), `teachtorch/_tensor.py` (the `Tensor`
# class: `_storage`, `_sizes`, `_strides`, `_offset`), `teachtorch/_storage.py` (the flat buffer). In
# PyTorch: `c10/core/TensorImpl.h` and `c10/core/StorageImpl.h`.
#
# **Next:** lesson 2 builds views yourself: `permute`, `expand` and slicing on (storage, offset, sizes,
# strides).
