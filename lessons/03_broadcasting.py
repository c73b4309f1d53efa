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
# # Lesson 3: broadcasting and tensor puzzles
#
# **You will learn**
# - the three rules of **broadcasting**: how `a + b` works when `a` and `b` have different shapes;
# - that a stretched operand is never copied: it is read through a **stride of 0** (an expanded view);
# - how to read PyTorch's error for shapes that do not fit;
# - to think in whole tensors: build with `arange`, comparisons, `where`, indexing and `@` what you would
#   otherwise write as loops.
#
# **You will build** `broadcast_shape(a, b)`, the rule itself, and nine **tensor puzzles** (`ones`, `outer`,
# `eye`, `triu`, `cumsum`, `diff`, `roll`, `flip`, `compress`), each a line or three, checked against a loop
# that says what it must do.
#
# **Time:** about 60 minutes. **You need:** lesson 1 (sizes and strides); lesson 2's `expand` helps.
#
# The puzzles are Sasha Rush's Tensor Puzzles (github.com/srush/Tensor-Puzzles), checked here offline.
# Everything here is PyTorch's behaviour: `tt.` code runs the same as `torch.` code.

# %%
import numpy as np

import teachtorch as tt
from teachtorch.explorer import StorageView
from teachtorch.exercises import check, hint

# %% [markdown]
# ## 1. Shapes that do not match
#
# A column of 3 numbers plus a row of 4 gives a 3 × 4 table: every row value meets every column value.
# No loop was written, and neither input was copied. The rule that decides the result's shape:
#
# 1. line the shapes up **on the right**;
# 2. a **missing** dimension counts as size 1;
# 3. in each column the sizes must be **equal**, or one of them **1**: a 1 stretches to the other size.
#
# | shape | dim 0 | dim 1 |
# |---|---|---|
# | `col` | 3 | 1 |
# | `row` |   | 4 |
# | `col + row` | 3 | 4 |

# %%
col = tt.arange(3.).reshape(3, 1)         # shape (3, 1)
row = tt.arange(4.) * 10                  # shape (4,): lined up on the right it is (1, 4)
print(col + row)
print(tt.broadcast_shapes((3, 1), (4,)), tt.broadcast_shapes((2, 1, 4), (3, 1)))

# %% [markdown]
# ## 2. Stretching without copying: stride 0
#
# How does a kernel read `col` as if it had 4 columns? Lesson 1's formula: element $(i, j)$ lives at
# $\text{offset} + i \cdot \text{stride}_0 + j \cdot \text{stride}_1$. Give the stretched dimension a
# **stride of 0**, and every $j$ lands on the same storage cell. That is an `expand` (lesson 2), and
# `tt.broadcast_tensors` makes the views an elementwise op reads its inputs through:

# %%
big_col, big_row = tt.broadcast_tensors(col, row)
for name, t in (("col", col), ("big_col", big_col), ("row", row), ("big_row", big_row)):
    print(f"{name:8} sizes {tuple(t.shape)}  strides {t.stride()}")
print("same storage:", big_col.untyped_storage().data_ptr() == col.untyped_storage().data_ptr())

# %% [markdown]
# **Hover** a cell of the storage below: one number of `col` lights a whole row of `big_col`.

# %%
StorageView(col, big_col)

# %% [markdown]
# So stretching costs nothing: a million-element view of 1000 numbers still holds 4000 bytes.

# %%
wide = tt.arange(1000.).expand(1000, 1000)
print(tuple(wide.shape), wide.stride(), wide.untyped_storage().nbytes(), "bytes")

# %% [markdown]
# In PyTorch the elementwise ops go through `TensorIterator`, which works out the common shape and gives
# each stretched dimension of each input a stride of 0 (`TensorIteratorBase::compute_strides` in
# `aten/src/ATen/TensorIterator.cpp`). teachtorch computes the shape with `broadcast_shapes` in
# `teachtorch/_strides.py` (called from `pointwise_meta` in `teachtorch/kernels/pointwise.py`) and hands
# the arrays to NumPy, which stretches the same way:

# %%
print(np.broadcast_to(np.arange(4.0), (3, 4)).strides, "(NumPy counts strides in bytes)")

# %% [markdown]
# ## 3. When shapes do not broadcast
#
# Two sizes that differ, neither of them 1, stop the op. PyTorch names both sizes and the dimension, counted
# in the **result**, from the left; "tensor a" is the first operand:

# %%
for a, b in (((2, 3), (2, 4)), ((5, 2, 3), (4, 3))):
    try:
        tt.zeros(a) + tt.zeros(b)
    except RuntimeError as e:
        print(a, "+", b, "->", e)

# %% [markdown]
# The message is `infer_size_impl`'s, in PyTorch's `aten/src/ATen/ExpandUtils.cpp`; teachtorch's copy is
# `_broadcast_pair` in `teachtorch/_strides.py`. (`torch.broadcast_shapes`, written in Python in
# `torch/functional.py`, words the same error differently; teachtorch's is `broadcast_shapes` in
# `teachtorch/ops/views.py`.)
#
# The error is the friendly case. The classic bug is the one that does **not** raise: a vector of shape
# `(3,)` plus a column of shape `(3, 1)` is a 3 × 3 table, not 3 sums.
#
# ### Exercise 1: the broadcast shape
#
# Write `broadcast_shape(a, b)`: the shape of `a + b` for tensors of shapes `a` and `b` (tuples), as a
# tuple, or raise PyTorch's error: `RuntimeError("The size of tensor a (3) must match the size of tensor b
# (4) at non-singleton dimension 1")`, with the two sizes and the result's dimension. One corner: a 1 meets
# a 0 and gives 0 (`(1,)` and `(0,)` give `(0,)`).

# %%
def broadcast_shape(a, b):
    ### BEGIN SOLUTION
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (sa, sb) in enumerate(zip(a, b)):
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
                               f"at non-singleton dimension {i}")
        out.append(sb if sa == 1 else sa)
    return tuple(out)
    ### END SOLUTION


check("L03.broadcast_shape", broadcast_shape)

# %% [markdown]
# **Predict, then run.** Write down the shape of each sum (or "error"), then run the cell.
#
# `(3,) + (3, 1)`, `(2, 1, 5) + (4, 1)`, `(5, 4) + (4, 5)`, `(8, 1, 6, 1) + (7, 1, 5)`, `(0,) + (1,)`

# %%
for a, b in (((3,), (3, 1)), ((2, 1, 5), (4, 1)), ((5, 4), (4, 5)), ((8, 1, 6, 1), (7, 1, 5)), ((0,), (1,))):
    try:
        print(f"{str(a):13} + {str(b):10} -> {tuple((tt.zeros(a) + tt.zeros(b)).shape)}")
    except RuntimeError as e:
        print(f"{str(a):13} + {str(b):10} -> error: {e}")

# %% [markdown]
# ## 4. Tensor puzzles
#
# Each puzzle gives a **spec**: a plain-Python loop over lists that says what the answer must be. Write the
# same thing on tensors, with no loops, using only:
#
# - `tt.arange(n)`, `tt.where(cond, x, y)` (`x`, `y` tensors or numbers);
# - comparisons (`==`, `<`, `<=`, ...) and arithmetic (`+ - * // %`), with broadcasting;
# - indexing: `a[:, None]` (a new dim of size 1), slices, and `a[i]` with a tensor `i` of positions;
# - `len(a)`, `a.shape`, `a.sum()`, `a @ b`; and your earlier puzzles.
#
# Aim for one line. The check runs your function on int64 tensors of random sizes and compares it with the
# spec, by value (a bool result with the right values passes). It does not read your code: the rules are
# yours to keep. Stuck? `hint("L03.ones")` gives a hint; call it again for the next.
#
# **The one trick behind most puzzles:** a column of row numbers against a row of column numbers makes a
# table of every pair $(i, j)$, and a comparison turns it into a mask.

# %%
i = tt.arange(4)
print(i[:, None] - i)                  # entry (i, j) is i - j
print(tt.where(i[:, None] > i, 1, 0))  # 1 below the diagonal
print(hint("L03.ones", level=1))

# %% [markdown]
# ### Puzzle 1: `ones`
# ```python
# def ones_spec(n):
#     out = [0] * n
#     for i in range(n):
#         out[i] = 1
#     return out
# ```

# %%
def ones(n):
    ### BEGIN SOLUTION
    return tt.where(tt.arange(n) >= 0, 1, 0)
    ### END SOLUTION


check("L03.ones", ones)

# %% [markdown]
# ### Puzzle 2: `outer` (`torch.outer`)
# ```python
# def outer_spec(a, b):
#     out = [[0] * len(b) for _ in range(len(a))]
#     for i in range(len(a)):
#         for j in range(len(b)):
#             out[i][j] = a[i] * b[j]
#     return out
# ```

# %%
def outer(a, b):
    ### BEGIN SOLUTION
    return a[:, None] * b
    ### END SOLUTION


check("L03.outer", outer)

# %% [markdown]
# ### Puzzle 3: `eye` (`torch.eye`)
# ```python
# def eye_spec(n):
#     out = [[0] * n for _ in range(n)]
#     for i in range(n):
#         out[i][i] = 1
#     return out
# ```

# %%
def eye(n):
    ### BEGIN SOLUTION
    i = tt.arange(n)
    return tt.where(i[:, None] == i, 1, 0)
    ### END SOLUTION


check("L03.eye", eye)

# %% [markdown]
# ### Puzzle 4: `triu` (`torch.triu` of a matrix of ones)
# ```python
# def triu_spec(n):
#     out = [[0] * n for _ in range(n)]
#     for i in range(n):
#         for j in range(n):
#             if i <= j:
#                 out[i][j] = 1
#     return out
# ```

# %%
def triu(n):
    ### BEGIN SOLUTION
    i = tt.arange(n)
    return tt.where(i[:, None] <= i, 1, 0)
    ### END SOLUTION


check("L03.triu", triu)

# %% [markdown]
# ### Puzzle 5: `cumsum` (`torch.cumsum`)
#
# A sum of some of the $a_j$ is a product with a matrix of 0s and 1s: $\text{out}_i = \sum_j a_j M_{ji}$.
# ```python
# def cumsum_spec(a):
#     out, total = [0] * len(a), 0
#     for i in range(len(a)):
#         total += a[i]
#         out[i] = total
#     return out
# ```

# %%
def cumsum(a):
    ### BEGIN SOLUTION
    j = tt.arange(len(a))
    return a @ tt.where(j[:, None] <= j, 1, 0)
    ### END SOLUTION


check("L03.cumsum", cumsum)

# %% [markdown]
# ### Puzzle 6: `diff` (`torch.diff` with a 0 put in front)
# ```python
# def diff_spec(a):
#     out = [0] * len(a)
#     out[0] = a[0]
#     for i in range(1, len(a)):
#         out[i] = a[i] - a[i - 1]
#     return out
# ```

# %%
def diff(a):
    ### BEGIN SOLUTION
    i = tt.arange(len(a))
    return a - tt.where(i > 0, a[i - 1], 0)
    ### END SOLUTION


check("L03.diff", diff)

# %% [markdown]
# ### Puzzle 7: `roll` (`torch.roll(a, k)`)
#
# `k` is any integer, negative or larger than `len(a)` too.
# ```python
# def roll_spec(a, k):
#     n = len(a)
#     out = [0] * n
#     for i in range(n):
#         out[(i + k) % n] = a[i]
#     return out
# ```

# %%
def roll(a, k):
    ### BEGIN SOLUTION
    n = len(a)
    return a[(tt.arange(n) - k) % n]
    ### END SOLUTION


check("L03.roll", roll)

# %% [markdown]
# ### Puzzle 8: `flip` (`torch.fliplr`: each row of a matrix reversed)
# ```python
# def flip_spec(a):
#     rows, cols = len(a), len(a[0])
#     out = [[0] * cols for _ in range(rows)]
#     for i in range(rows):
#         for j in range(cols):
#             out[i][j] = a[i][cols - 1 - j]
#     return out
# ```

# %%
def flip(a):
    ### BEGIN SOLUTION
    m = a.shape[1]
    return a[:, m - 1 - tt.arange(m)]
    ### END SOLUTION


check("L03.flip", flip)

# %% [markdown]
# ### Puzzle 9: `compress` (`v[g]`, padded with zeros)
#
# The hardest one: keep the `v[i]` whose `g[i]` is True, packed to the front. Where does each kept value
# go? Count the Trues before it (an earlier puzzle does the counting), then move values with `@`.
# ```python
# def compress_spec(g, v):
#     out, j = [0] * len(v), 0
#     for i in range(len(v)):
#         if g[i]:
#             out[j] = v[i]
#             j += 1
#     return out
# ```

# %%
def compress(g, v):
    ### BEGIN SOLUTION
    j = tt.arange(len(v))
    slot = tt.where(g, 1, 0) @ tt.where(j[:, None] <= j, 1, 0) - 1   # cumsum(g) - 1: where v[i] goes
    slot = tt.where(g, slot, -1)                                       # dropped values go nowhere
    return v @ tt.where(slot[:, None] == j, 1, 0)
    ### END SOLUTION


check("L03.compress", compress)

# %% [markdown]
# ## 5. A puzzle at work: the causal mask
#
# A language model (lesson 15) lets position $i$ look only at positions $j \le i$. That mask is `triu`
# turned round (`.t()`), and `where` puts $-\infty$ where looking is not allowed:

# %%
scores = tt.arange(16.).reshape(4, 4)
try:
    print(tt.where(triu(4).t() == 1, scores, float("-inf")))
except NotImplementedError:
    print("(write triu in puzzle 4 first)")

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | the broadcast rule and its error | `aten/src/ATen/ExpandUtils.cpp` (`infer_size_impl`) | `teachtorch/_strides.py` (`broadcast_shapes`, `_broadcast_pair`) |
# | `torch.broadcast_shapes` | `torch/functional.py` (`broadcast_shapes`) | `teachtorch/ops/views.py` (`broadcast_shapes`) |
# | an elementwise op: stride 0 for each stretched dim | `aten/src/ATen/TensorIterator.cpp` (`TensorIteratorBase::compute_strides`) | `teachtorch/kernels/pointwise.py` (`pointwise_meta`) |
# | `broadcast_tensors`: the expanded views | `aten/src/ATen/native/TensorShape.cpp` (`broadcast_tensors`) | `teachtorch/ops/views.py` (`broadcast_tensors`) |

# %% [markdown]
# ## Recap
#
# - Broadcasting: line the shapes up on the right, count missing dims as 1; in each column the sizes are
#   equal or one is 1, and the 1 stretches. Otherwise: "The size of tensor a (3) must match the size of
#   tensor b (4) at non-singleton dimension 1", the dimension counted in the result.
# - A stretched operand is a view with stride 0: no copy, the same storage read again.
# - `i[:, None]` against `i` is every pair $(i, j)$; a comparison makes it a mask, `where` fills it, `@`
#   sums along it. With these, loops become one line.
#
# **In the source:** `broadcast_shapes` and `_broadcast_pair` in `teachtorch/_strides.py` (the rule and its
# message), `pointwise_meta` in `teachtorch/kernels/pointwise.py` (where an elementwise op uses it),
# `broadcast_tensors` in `teachtorch/ops/views.py`. In PyTorch: `infer_size_impl` in
# `aten/src/ATen/ExpandUtils.cpp` and `TensorIteratorBase::compute_strides` in
# `aten/src/ATen/TensorIterator.cpp`.
#
# **Next:** lesson 4 writes the kernel that walks such strided views: a strided `map` and `reduce`.
