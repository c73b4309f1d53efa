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
# # Your first teachtorch tensor
#
# teachtorch uses PyTorch's names and rules, so everything here works the same
# way in PyTorch. The difference is that every part of teachtorch is short
# Python you can open and read.

# %%
import teachtorch as tt

# %% [markdown]
# ## A tensor is a view onto a storage
#
# A **storage** is one flat block of memory: just bytes, one number after
# another. A **tensor** is a way of looking at that block: a shape, a dtype, an
# offset where it starts, and **strides**. The stride of a dimension says how
# many elements to skip in the storage to move one step along that dimension.
#
# Here we make the numbers 0 to 11 and look at them as 3 rows of 4.

# %%
x = tt.arange(12.).reshape(3, 4)
print(x)

# %% [markdown]
# To move one row down we skip 4 elements; to move one column right we skip 1.
# The tensor starts at the very beginning of its storage (offset 0), and the
# storage holds 12 float32 numbers of 4 bytes each.

# %%
print("stride:        ", x.stride())
print("storage offset:", x.storage_offset())
print("storage bytes: ", x.untyped_storage().nbytes())

# %% [markdown]
# ## A view shares the storage
#
# Transposing does not copy anything. `x.t()` is a new tensor over the **same**
# storage with the strides swapped. Walking its rows now jumps through memory,
# so it is no longer *contiguous* (laid out row after row with no gaps).

# %%
y = x.t()
print("stride:       ", y.stride())
print("contiguous:   ", y.is_contiguous())
print("same storage: ", y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())

# %% [markdown]
# ## The dispatcher picks the code that runs
#
# When you write `x + y.t()`, teachtorch does not add right away. The call goes
# to the **dispatcher**, which looks at the operator (`add.Tensor`) and at the
# tensors' device and flags, and picks the kernel to run: for example autograd
# bookkeeping first, then the CPU kernel built on NumPy. A trace records every
# step of that decision.

# %%
with tt.dispatch.trace() as t:
    z = x + y.t()
print(t)

# %% [markdown]
# Each line of the trace is a structured event you can inspect in code.

# %%
t.events[0]

# %% [markdown]
# The dispatch table shows, for one operator, which kernel is registered for
# each dispatch key. This is the table the dispatcher consulted above.

# %%
print(tt.dispatch.dump_table("add.Tensor"))

# %% [markdown]
# **Where this is in PyTorch**
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | storage: one flat block of bytes | `c10/core/StorageImpl.h` | `teachtorch/_storage.py` |
# | tensor: shape, dtype, offset, strides over a storage | `c10/core/TensorImpl.h` | `teachtorch/_tensor.py`, `teachtorch/_strides.py` |
# | a view such as `x.t()`: new strides, same storage | `aten/src/ATen/native/TensorShape.cpp` | `teachtorch/kernels/views.py` |
# | the dispatcher and its keys | `aten/src/ATen/core/dispatch/Dispatcher.h`, `c10/core/DispatchKey.h` | `teachtorch/dispatch/dispatcher.py`, `teachtorch/_dispatch_key.py` |
# | the dispatch table | `aten/src/ATen/core/dispatch/OperatorEntry.cpp` (`dumpComputedTable`) | `teachtorch/dispatch/__init__.py` (`dump_table`) |
# | the trace | none built in: a logging `TorchDispatchMode` (`torch/utils/_python_dispatch.py`) | `teachtorch/dispatch/trace.py` |
