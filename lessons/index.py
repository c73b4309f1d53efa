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
# # The teachtorch course
#
# You are going to build the inside of a deep-learning framework, piece by piece, in the order the pieces
# depend on each other: memory layout, then kernels, then dispatch, then devices, then autograd. Every
# lesson builds a piece of the real library, checks your code at once, here in the notebook and with no
# network, and draws what happens live in the explorer. Everything keeps PyTorch's names and rules, so
# what you learn here is how PyTorch works too.
#
# **Open a lesson** by clicking its name below (it opens as a notebook). Your copy of the course is in
# `work/`: what you write and save stays there. `make lab-reset LESSON=03` puts one lesson back as it was
# shipped and keeps your version in `work/.backup/`.
#
# ## Part 1: from memory to gradients
#
# | # | lesson | you will build | time |
# |---|---|---|---|
# | 0 | [Your first tensor](00_start.py) | nothing yet: a first look at tensor, storage and dispatcher | 15 min |
# | 1 | [A tensor is a view of a storage](01_storage.py) | `contiguous_strides`, `index_to_offset` | 45 min |
# | 2 | [Views without copies](02_views.py) | `permute`, `expand` and slicing on the bare geometry | 60 min |
# | 3 | [Broadcasting and tensor puzzles](03_broadcasting.py) | `broadcast_shape` and nine puzzles against loop specs | 60 min |
# | 4 | [Kernels over strided memory](04_kernels.py) | a strided map, sum and zip, with PyTorch's shape check | 60 min |
# | 5 | [How an op is dispatched](05_dispatch.py) | a new op, `axpby`, registered from outside | 45 min |
# | 6 | [Devices: one kernel, two array modules](06_devices.py) | a kernel for any array module; a write-back that works | 45 min |
# | 7 | [Derivatives and a scalar autograd](07_micrograd.py) | micrograd's `Value`, backward and all | 60 min |
# | 8 | [Tensor autograd](08_autograd.py) | backward formulas, checked by `gradcheck` | 60 min |
#
# ## Part 2: from gradients to training, speed and new ops
#
# | # | lesson | you will build | time |
# |---|---|---|---|
# | 9 | [Autograd, views and in-place](09_inplace.py) | predictions of eight programs; a saved tensor's version check | 60 min |
# | 10 | [Backprop by hand](10_backprop.py) | the backward of cross-entropy, linear + tanh and LayerNorm | 70 min |
# | 11 | [nn.Module, init and optimizers](11_modules.py) | `Linear`, SGD with momentum and Adam | 60 min |
# | 12 | [Training on the digits](12_digits.py) | a window view, convolution as one matmul, a confusion matrix | 60 min |
# | 13 | [Performance from first principles](13_performance.py) | a cost model, and a fused op | 60 min |
# | 14 | [Language model I: bigram to MLP](14_names.py) | a bigram table, its loss, and a character MLP | 60 min |
# | 15 | [Language model II: attention and a tiny transformer](15_transformer.py) | `causal_mask`, `attention`, and a GPT trained in class | 75 min |
# | 16 | [Add an op end to end](16_add_an_op.py) | the kernel, meta kernel and backward of a new op | 70 min |
#
# The [explorer tour](explorer_tour.py) shows the three live pictures (storage, autograd graph, dispatch
# trace) on their own, and all three at once while a model trains.
#
# ## How an exercise works
#
# An exercise is a function with its body left for you: it raises `NotImplementedError("your turn ...")`
# until you write it. Run the cell below it, `check("L01.contiguous_strides", contiguous_strides)`: it tries
# your function on cases worked out by hand, then on 24 random ones against the library's own code, and
# tells you the first case that failed, what was expected, what came back, and a hint. `hint(name)` gives
# the next hint, up to nearly the answer. Until you start, a check says "not solved yet": the notebook still
# runs from top to bottom.
#
# ## Three ways through
#
# - **On your own:** the lessons in order; each takes about an hour.
# - **A one-day class:** lessons 1, 2, 5, 7 and 8; then 11, 12 and 14, the training lessons, on a second day.
# - **Onboarding onto a framework's code:** lessons 1, 2, 4, 5, 8, 9, 13 and 16, with the source files each
#   lesson names, next to PyTorch's.
#
# Teachers: `lessons/README.md` in the repository says how to build the teacher's notebooks (solutions in)
# with `make course`.
#
# ## Check your set-up
#
# Run the cell below (Shift+Enter). It should print teachtorch's version and say whether you have a GPU
# (lesson 6 uses one when there is one, and runs without).

# %%
import teachtorch as tt

print("teachtorch", tt.__version__, "| GPU:", "yes" if tt.cuda.is_available() else "no (the cpu does it all)")
print(tt.arange(6.).reshape(2, 3))
