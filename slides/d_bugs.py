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

# %% [markdown] slideshow={"slide_type": "slide"} timing=30 minutes=[25, 30]
# # Anatomy of a correctness bug
#
# Six wrong answers, reproduced live in teachtorch, and the tools that catch them
#
# A talk of 25–30 minutes

# %% slideshow={"slide_type": "skip"}
import textwrap
import warnings

import numpy as np
from hypothesis import given, settings, strategies as st

import teachtorch as tt
import teachtorch.nn as nn
import teachtorch.nn.functional as F
from teachtorch.autograd import gradcheck
from teachtorch.backends import xp_of
from teachtorch.explorer import GraphView, StorageView
from teachtorch.explorer.frames import step_through
from teachtorch.testing import Backend, compare_backends


# Case 1, as in lesson 6 (lessons/06_devices.py): a kernel that computes into a contiguous copy and
# never writes it back, and a tied-weights autoencoder trained with Adam.
def lost_addcmul_(self, tensor1, tensor2, value=1):
    buf = xp_of(self).ascontiguousarray(self._data())    # a COPY when self is not contiguous
    buf += value * tensor1._data() * tensor2._data()
    return self                                          # ... and buf is never written back


def lost_addcdiv_(self, tensor1, tensor2, value=1):
    buf = xp_of(self).ascontiguousarray(self._data())
    buf += value * tensor1._data() / tensor2._data()
    return self


def tied_autoencoder():
    tt.manual_seed(0)
    enc, dec = nn.Linear(8, 16), nn.Linear(16, 8)
    enc.weight = nn.Parameter(dec.weight.detach().t().clone())    # transposed strides
    return enc, dec


runs = []    # each run of train: (losses, encoder, its Adam state)


def train(enc, dec, x, steps=3):
    opt = tt.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.01)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((dec(enc(x).tanh()) - x) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 3))
    runs.append((losses, enc, opt.state[enc.weight]))
    return loss.detach()


LAYOUTS = ("contiguous", "permuted", "sliced", "offset")   # tests/parity.py's, less "expanded"


def layout(values, kind):
    """A 2-D float32 tensor showing `values`, stored in one of tests/parity.py's layouts."""
    v = np.asarray(values, np.float32)
    if kind == "permuted":                       # stored transposed, viewed back
        return tt.tensor(v.T.copy()).t()
    if kind == "sliced":                         # every dim stepped by 2 in a bigger buffer
        big = np.zeros((2 * v.shape[0] + 1, 2 * v.shape[1] + 1), np.float32)
        big[1::2, 1::2] = v
        return tt.tensor(big)[1::2, 1::2]
    if kind == "offset":                         # starts 3 elements into its storage
        return tt.tensor(np.concatenate([np.zeros(3, np.float32), v.ravel()]))[3:].view(*v.shape)
    return tt.tensor(v)


tt.manual_seed(1)
x = tt.randn(32, 8)

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## The method
#
# 1. **Symptom**: what is wrong, exactly, and when
# 2. **Minimal repro**: the fewest lines that still show it
# 3. **Locate the layer**: storage · kernel · dispatch · autograd · nn · your test
# 4. **Root cause**: the one assumption that is false
# 5. **Fix**: where the invariant belongs, not only where it broke
# 6. **Regression test**: one that fails before the fix

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: every case in this talk is a wrong answer produced live, here, by teachtorch, and each goes
# through the same six steps. The step people skip is 3: decide which layer is lying before you read code.
# The stack is the one from the course: a storage, kernels over it, the dispatcher choosing a kernel,
# autograd recording and replaying, nn and the optimizer on top, and your own test at the very top, which
# can be the thing that is wrong (case 6).
# Ask: "what is the cheapest thing you can change to halve the search space?" (one variable at a time).

# %% [markdown] slideshow={"slide_type": "slide"} timing=90
# ## Case 1: Adam does nothing to one weight
#
# A tied autoencoder (`enc.weight = dec.weight.T.clone()`) trained on a new backend

# %% slideshow={"slide_type": "-"}
buggy = Backend("cpu", kernels={"addcmul_": lost_addcmul_,
                                "addcdiv_": lost_addcdiv_})
enc, dec = tied_autoencoder()
report = compare_backends(train, enc, dec, x, candidate=buggy,
                          backward=False)
for name, (losses, e, state) in zip(("cpu", "new"), runs[-2:]):
    moved = (e.weight - enc.weight).detach().abs().max().item()
    v = state["exp_avg_sq"].abs().max().item()
    print(f"{name:4} losses {losses}  max v {v:.2g}  "
          f"encoder moved {moved:.2g}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this is Elana Simon's bug on Apple's MPS backend (blog post, October 2025; pytorch#118115,
# fixed by PR #124442 in PyTorch 2.4). Our "new backend" is the cpu with two kernels swapped for broken
# ones, as lesson 6 does. Point at the last column: the loss still goes down (the decoder learns), but the
# encoder's weight moved by exactly 0, and Adam's second moment v is exactly 0. Nothing crashed.
# Ask: "what would you change first?" She switched to float64 and it worked: a red herring, because MPS has
# no float64 so the run moved to the cpu. Two variables changed at once.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Minimal repro: one op, one layout
#
# The encoder differs from the decoder only in **strides**; Adam's state copies them (`zeros_like` keeps the layout)

# %% slideshow={"slide_type": "-"}
ones = tt.ones(3, 2)
for kind in ("contiguous", "permuted"):
    out = layout(np.zeros((3, 2)), kind)
    lost_addcmul_(out, ones, ones)           # out += 1 * 1
    print(f"{kind:10} strides {out.stride()}  sum {out.sum().item()}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: from a whole training run down to one in-place op on a 3x2 tensor. The contiguous output gets
# its 6 ones, the transposed one gets nothing. Simon got here by testing each in-place op of Adam's step on
# a non-contiguous output: `lerp_` and `mul_` were fine, `addcmul_` and `addcdiv_` were not. Input
# contiguity did not matter; output contiguity did.
# Ask: "which layer is this?" It is not autograd and not the optimizer: it is one kernel.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## Locate the layer: `compare_backends`
#
# Every op on the new backend, replayed on the cpu with the same inputs: the first one to disagree is the broken one

# %% slideshow={"slide_type": "-"}
first = report.first_mismatch
k = report.ops.index(first)
print(len(report.ops), "ops compared; around the first disagreement:")
for o in report.ops[k - 3:k + 3]:
    name = o.op.replace("aten.", "").replace(".default", "")
    mark = "  <-- first" if o is first else ""
    print(f"  #{o.index:<3} {name:14} max rel diff {o.max_rel:<4.2g}{mark}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `compare_backends` (`teachtorch/testing/_compare_backends.py`) runs the function on both
# sides; on the candidate it watches every op below autograd with a dispatch mode, copies its inputs to the
# reference first, and compares. Each op runs on the candidate's own inputs, so errors do not pile up: the
# first op flagged is the culprit, not a victim. Here: `addcmul_`, the first update of `exp_avg_sq`; the
# `sqrt` right after it reads the wrong v too, yet agrees, because it is replayed on the same inputs.
# PyTorch's nearest tools: CrossRefMode in its tests, and `test_compare_cpu` in
# `torch/testing/_internal/common_device_type.py`.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## Root cause: a copy that looks like the original
#
# `ascontiguousarray` returns the array **itself** if it is contiguous, a **copy** if not

# %% slideshow={"slide_type": "-"}
a = np.zeros((2, 3))
for arr in (a, a.T):
    buf = np.ascontiguousarray(arr)
    print(f"strides {arr.strides}  same memory: "
          f"{np.shares_memory(buf, arr)}")

# %% [markdown] slideshow={"slide_type": "fragment"}
# - inputs: a copy is harmless · outputs: the write lands in the copy
# - MPS's `Placeholder` made that copy silently, for inputs and outputs alike
# - tests with contiguous tensors can never see it

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the kernel's assumption is "my buffer is the output's memory". It is true for every
# contiguous tensor, which is why the test suite passed. On MPS, the `Placeholder` wrapper in
# `aten/src/ATen/native/mps/operations/PointwiseOps.mm` gathered a non-contiguous tensor into a contiguous
# temporary, fine for inputs, fatal for outputs; working kernels such as `mul_` copied back by hand, this one
# forgot. It is a leaky abstraction: the wrapper cannot tell an input from an output.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=45
# ## Where the write went: another storage

# %% slideshow={"slide_type": "-"}
out = layout(np.zeros((2, 3)), "permuted")    # strides (1, 2)
buf = out.contiguous()                         # the kernel's copy
buf += 1                                       # the "update"
step_through(StorageView(out, buf))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: step through `out`'s elements: in memory they go down the columns, because it is a transposed
# view. The kernel's buffer is a second storage laid out row by row; the update lands there, shows correct
# values, and is dropped when the kernel returns. `out`'s storage still holds zeros.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=75
# ## Fix, and a regression test over layouts

# %% slideshow={"slide_type": "-"}
def fixed_addcmul_(self, tensor1, tensor2, value=1):
    xp, out = xp_of(self), self._data()
    buf = xp.ascontiguousarray(out)
    buf += value * tensor1._data() * tensor2._data()
    if not xp.shares_memory(buf, out):
        xp.copyto(out, buf)                  # write it back
    return self


# %% slideshow={"slide_type": "fragment"}
def writes_everywhere(kernel):
    outs = [layout(np.zeros((3, 2)), k) for k in LAYOUTS]
    for out in outs:
        kernel(out, ones, ones)
    return [k for k, o in zip(LAYOUTS, outs) if o.sum().item() != 6]


print("lost  fails on:", writes_everywhere(lost_addcmul_))
print("fixed fails on:", writes_everywhere(fixed_addcmul_))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the fix is four lines: compute in a contiguous buffer, and if it is a copy, write it back
# through the output's strides. PR #124442 did this for `addcmul_`/`addcdiv_`; its first version only
# handled "all tensors transposed", and the reviewer asked for mixed layouts. The test runs the op on the
# layouts of `tests/parity.py` (contiguous, permuted, sliced with steps, offset; expanded targets must
# raise). The lost kernel fails on exactly the non-contiguous ones: "offset" starts 3 elements in but is
# still contiguous, so `ascontiguousarray` returns it itself.
# Then say: fixing op by op left the class alive: the random in-place ops (`normal_`, `uniform_`...) had the
# same bug in 2025 (pytorch#165257, PR #165267). teachtorch puts the invariant in the abstraction: every
# kernel writes through `teachtorch.backends.write`.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=55
# ## The same test, with random layouts and shapes (hypothesis)

# %% slideshow={"slide_type": "-"}
def property_test(kernel):
    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(st.sampled_from(LAYOUTS), st.integers(1, 4), st.integers(1, 4))
    def test(kind, rows, cols):
        out, one = layout(np.zeros((rows, cols)), kind), tt.ones(rows, cols)
        kernel(out, one, one)
        assert out.tolist() == one.tolist(), (kind, rows, cols, out.stride())
    try:
        test()
        return "passed"
    except AssertionError as e:
        return f"smallest failure: {e}"


print("lost :", property_test(lost_addcmul_))
print("fixed:", property_test(fixed_addcmul_))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: hypothesis draws a layout and a shape, finds a failure, and shrinks it to the smallest one it
# can. The project's own strategies are `layouts()`, `shapes()` and `inputs()` in `tests/parity.py`, which
# build the same layouts in teachtorch and in PyTorch and compare the whole storage, sentinels included.
# Point at the shrunk case: a 2-D shape where a permuted or sliced layout really is non-contiguous.
# The cheapest defence against this bug class: run every op on several layouts, not only several values.

# %% [markdown] slideshow={"slide_type": "slide"} timing=70
# ## Case 2: the bias that grew a batch dimension
#
# A linear layer trained with a hand-written backward, batches of 8 and a last batch of 5

# %% slideshow={"slide_type": "-"}
tt.manual_seed(0)
W, b = tt.randn(4, 3) * 0.1, tt.zeros(3)
xs, ts = tt.randn(21, 4), tt.randn(21, 3)
try:
    for i in range(0, 21, 8):
        xb, tb = xs[i:i + 8], ts[i:i + 8]
        dy = 2 * (xb @ W + b - tb) / tb.numel()
        dW, db = xb.t() @ dy, dy
        W, b = W - 0.1 * dW, b - 0.1 * db
        print(f"batch {i // 8}: b.shape {tuple(b.shape)}")
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the first batch ran, and the second, and nothing looked wrong: the loss even goes down,
# because each of the 8 rows now has its own bias. b is supposed to have shape (3,) and has (8, 3). It only
# crashes when a batch of another size comes: the last partial batch, or evaluation with batch size 1.
# Ask: "which line is wrong?" Give them ten seconds.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Cause: a broadcast input's gradient is a sum
#
# `b` of shape (3,) is used by all 8 rows, so $\frac{\partial L}{\partial b_j} = \sum_i \frac{\partial L}{\partial y_{ij}}$: `db = dy.sum(0)`

# %% slideshow={"slide_type": "-"}
class AddBias(tt.autograd.Function):
    @staticmethod
    def forward(ctx, y, b):
        return y + b

    @staticmethod
    def backward(ctx, g):
        return g, g                           # g not reduced for b


b = tt.zeros(3, requires_grad=True)
AddBias.apply(tt.ones(8, 3), b).sum().backward()
print("autograd's b.grad:", tuple(b.grad.shape), b.grad.tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the layer is the backward formula. The same mistake inside autograd does no harm: the engine
# sums every gradient back to its input's shape before passing it on (`validate_outputs` calling `sum_to` in
# `teachtorch/autograd/engine.py`; in PyTorch `validate_outputs` in `torch/csrc/autograd/engine.cpp`, which
# calls `InputMetadata::reduce_grad`). Hand-written backprop (lesson 10) and NumPy code have no such net.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## The engine's net has a hole: square shapes
#
# Sum over the **wrong** dim: right shape, wrong values. Only `gradcheck` sees it

# %% slideshow={"slide_type": "-"}
class AddBiasWrongDim(AddBias):
    @staticmethod
    def backward(ctx, g):
        return g, g.sum(1)                    # should be g.sum(0)


y = tt.randn(3, 3, dtype=tt.float64, requires_grad=True)
b = tt.randn(3, dtype=tt.float64, requires_grad=True)
try:
    gradcheck(lambda y, b: AddBiasWrongDim.apply(y, b) * y, (y, b))
except Exception as e:
    print(type(e).__name__ + ":", str(e).splitlines()[0])

# %% [markdown] slideshow={"slide_type": "fragment"}
# - fix: `db = dy.sum(0)` (or lesson 8's `unbroadcast(dy, b.shape)`)
# - test: `gradcheck` in float64, on **non-square** shapes ((3, 3) hides dim mix-ups)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: with a (3, 3) input, `g.sum(1)` has shape (3,), exactly b's shape, so no shape check can
# complain. `gradcheck` (`teachtorch/autograd/gradcheck.py`, as `torch.autograd.gradcheck`) compares the
# backward with finite differences, element by element, and names the input. The `* y` makes the output
# gradient differ from row to row, otherwise both sums agree by accident: pick test inputs that can tell
# the bug apart. Regression test: gradcheck on the function with a (5, 3) input and a (3,) bias.

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Case 3: an in-place write to a saved tensor

# %% slideshow={"slide_type": "-"}
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.sigmoid()          # backward needs y: sigmoid' = y (1 - y)
y.mul_(2)                # ... which is then changed in place
try:
    y.sum().backward()
except RuntimeError as e:
    msg = str(e).split(" Hint:")[0]
    print(textwrap.fill(f"RuntimeError: {msg}", 66))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: this is the good outcome: a loud error, with the same text as PyTorch 2.13. Read it aloud:
# it names the tensor (a float tensor of 3), the node that saved it, and two numbers: version 1, expected 0.
# Ask: "what is a version?"

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## The layer: autograd's version counter
#
# Every in-place write bumps `t._version`; a saved tensor remembers the version it was saved at

# %% slideshow={"slide_type": "-"}
x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.sigmoid()              # SigmoidBackward0 saves y at version 0
y.mul_(2)                    # y._version is now 1
GraphView(y.sum())           # orange: what backward saved

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: point at the orange box: the tensor `SigmoidBackward0` saved, "v0, now v1". It recorded
# version 0 when it saved `y`; at backward it unpacks `y`, sees 1, and refuses. The counter is shared by
# views and `detach()` (lesson 9): `y[1:].add_(1)` would bump `y`'s version too. In PyTorch: `VariableVersion` in `c10/core/TensorImpl.h`, checked by `SavedVariable::unpack`
# in `torch/csrc/autograd/saved_variable.cpp`.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## What happens without it: `.data` skips the counter

# %% slideshow={"slide_type": "-"}
def grad_of_sigmoid(write):
    x = tt.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    write(y)
    y.sum().backward()
    return [round(g, 3) for g in x.grad.tolist()]


print("no write      :", grad_of_sigmoid(lambda y: None))
print("y.data.mul_(2):", grad_of_sigmoid(lambda y: y.data.mul_(2)))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `.data` gives a tensor on the same storage that does **not** share the version counter
# (pytorch#5396, why `.data` is discouraged in favour of `detach()`). So nothing is checked: backward reads the
# changed y, computes 2y(1-2y), and the gradient is negative where it must be positive. No error, no
# warning. `detach().mul_(2)` instead raises the error of the previous slide, because `detach()` shares the
# counter. The fix for the user: `y = y * 2` out of place, or `clone()` before writing.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=45
# ## Fix and regression test
#
# - fix: write out of place (`y = y * 2`), or write into a `clone()`
# - test: `gradcheck` the fixed code; and a test that the check still **raises**

# %% slideshow={"slide_type": "-"}
x = tt.tensor([0.0, 1.0, 2.0], dtype=tt.float64, requires_grad=True)
print("out of place, gradcheck:", gradcheck(lambda x: x.sigmoid() * 2, (x,)))
try:
    grad_of_sigmoid(lambda y: y.detach().mul_(2))
except RuntimeError as e:
    print("detach().mul_(2) is caught:", "modified by an inplace" in str(e))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a library regression test for this class lives in lesson 9's tests and in `tests/parity.py`'s
# `check_inplace`, which asserts every in-place op bumps the version exactly once (and returns its target,
# keeps its storage and strides). If an op forgot to bump it, the saved-tensor check would go quiet, and we
# would be back on the previous slide.

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Case 4: softmax gives NaN at large logits

# %% slideshow={"slide_type": "-"}
def naive_softmax(z):
    e = z.exp()
    return e / e.sum(-1, keepdim=True)


z = tt.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 90.0]])
print(naive_softmax(z))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the first row is fine. The second row has one logit of 90, which a real model reaches easily
# (an unnormalised attention score, a large learning rate). The output is NaN, and a NaN in the loss poisons
# every weight at the next step.
# Ask: "why NaN and not inf?"

# %% [markdown] slideshow={"slide_type": "subslide"} timing=70
# ## Cause: `exp` overflows float32 above 88.7

# %% slideshow={"slide_type": "-"}
big = tt.tensor([88.0, 89.0, 710.0])
print("float32:", big.exp().tolist())
print("float64:", big.double().exp().tolist())
print("inf / inf =", (tt.tensor(float("inf")) / float("inf")).item())

# %% [markdown] slideshow={"slide_type": "fragment"}
# - layer: the kernel's **numerics**, not its logic: `e / e.sum()` is right on paper
# - float64 only moves the cliff (to 709.8)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the largest float32 is about 3.4e38 = e^88.7. exp(90) is inf, the row sum is inf, and inf/inf
# is NaN. Switching to float64 "fixes" this example and hides the bug until the logits reach 710: do not
# change two things at once (case 1's red herring again).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Fix: subtract the row's max (the same maths)
#
# $\text{softmax}(z) = \text{softmax}(z - m)$, $m = \max_j z_j$: every exponent is $\le 0$

# %% slideshow={"slide_type": "-"}
def stable_softmax(z):
    e = (z - z.max(-1, keepdim=True).values).exp()
    return e / e.sum(-1, keepdim=True)


print(stable_softmax(z))
w = tt.tensor([0.0, 200.0])
print("naive_softmax(w).log() ", naive_softmax(w).log().tolist())
print("stable_softmax(w).log()", stable_softmax(w).log().tolist())
print("F.log_softmax(w, -1)   ", F.log_softmax(w, -1).tolist())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: multiplying top and bottom by $e^{-m}$ changes nothing mathematically, and the largest exponent
# is now 0. teachtorch's kernel does exactly this (`softmax` in `teachtorch/kernels/reduction.py`), as
# PyTorch's does. Second trap on the same slide: `softmax(z).log()` takes the log of a probability that
# rounded to 0, giving -inf (or NaN); `log_softmax` computes $(z - m) - \log\sum e^{z - m}$ (log-sum-exp) and
# never rounds to 0 first. That is why `F.cross_entropy` takes logits, not probabilities.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=45
# ## Regression test: the logits nobody tried

# %% slideshow={"slide_type": "-"}
def softmax_ok(fn, scale):
    zz = tt.randn(4, 5) * scale
    p = fn(zz)
    ref = F.softmax(zz.double(), -1)
    return bool(p.isfinite().all()) and bool(
        ((p.double() - ref).abs() < 1e-6).all())


for scale in (1, 100, 1e4):
    print(f"scale {scale:>7}: naive {softmax_ok(naive_softmax, scale)}"
          f"  stable {softmax_ok(stable_softmax, scale)}")

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the property: finite, and equal to a float64 reference, for logits of every scale. Tests with
# `randn` inputs (scale 1) pass for both versions: the bug lives at the edges, so the test must go there. In
# training, `tt.autograd.set_detect_anomaly(True)` (as `torch.autograd.set_detect_anomaly`) names the backward
# node that first returned NaN.

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Case 5: the loss goes down, then up
#
# Fitting $t = 3x + 1$ with SGD, with and without `zero_grad()`

# %% slideshow={"slide_type": "-"}
def fit(zero_grad, steps=8):
    tt.manual_seed(0)
    model, xx = nn.Linear(1, 1), tt.randn(16, 1)
    opt, losses = tt.optim.SGD(model.parameters(), lr=0.1), []
    for _ in range(steps):
        if zero_grad:
            opt.zero_grad()
        loss = F.mse_loss(model(xx), 3 * xx + 1)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 2))
    return losses


for zero_grad in (True, False):
    print(f"zero_grad {zero_grad!s:5}:", fit(zero_grad))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: same data, same seed, same learning rate. With `zero_grad()` the loss falls steadily; without
# it, it falls, overshoots and climbs: the optimizer is not getting this step's gradient but the sum of all
# of them, which acts like momentum with no friction. Often it just looks like "the learning rate is too
# high", and people lower it.
# Ask: "where does the old gradient come from?"

# %% [markdown] slideshow={"slide_type": "subslide"} timing=50
# ## Cause: `.grad` accumulates, by design

# %% slideshow={"slide_type": "-"}
w = tt.tensor(2.0, requires_grad=True)
for i in range(3):
    (w * w).backward()                    # d/dw w^2 = 4
    print(f"after backward {i + 1}: w.grad = {w.grad.item()}")

# %% [markdown] slideshow={"slide_type": "fragment"}
# - layer: autograd's `AccumulateGrad` node **adds** into a leaf's `.grad`
# - it is a feature: several losses, or micro-batches, sum their gradients

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a leaf's node in the backward graph is `AccumulateGrad` (`teachtorch/autograd/node.py`; in
# PyTorch `torch/csrc/autograd/functions/accumulate_grad.cpp`). It adds what reaches it, so two backwards
# give twice the gradient. That is how gradient accumulation over micro-batches works: call backward k times,
# step once. Nothing is broken in the library; the bug is a missing line in the loop (layer: your code).

# %% [markdown] slideshow={"slide_type": "subslide"} timing=50
# ## Watch the backward end in `AccumulateGrad`

# %% slideshow={"slide_type": "-"}
v = tt.tensor([1.0, 2.0], requires_grad=True)
v.grad = tt.tensor([10.0, 10.0])        # left over from the last step
view = GraphView()
view.backward((v * v).sum())            # adds 2v = [2, 4]
print("v.grad:", v.grad.tolist())
step_through(view)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: step through the backward: `SumBackward0`, then `MulBackward0`, then `AccumulateGrad`, the
# last node, which does `v.grad += incoming` when a `.grad` is already there. The 10s from "the last step"
# are still in the result: [12, 14], not [2, 4].

# %% [markdown] slideshow={"slide_type": "subslide"} timing=45
# ## Fix and regression test
#
# - fix: `opt.zero_grad()` at the top of each step (it sets `.grad` to `None`)
# - test: after a step, `.grad` equals this loss's gradient alone

# %% slideshow={"slide_type": "-"}
w.grad = None
(w * w).backward()
(alone,) = tt.autograd.grad(w * w, w)
print("grad after one backward:", w.grad.item(), " alone:", alone.item())

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: `zero_grad(set_to_none=True)` is the default in PyTorch 2.x and here: `.grad` becomes None
# rather than a tensor of zeros, which saves the memory and turns a forgotten gradient into a loud error
# instead of a silent zero. `tt.autograd.grad` (as `torch.autograd.grad`) returns gradients without touching
# `.grad`: a clean reference for a test of a training step.

# %% [markdown] slideshow={"slide_type": "slide"} timing=60
# ## Case 6: dtype surprises
#
# `tt.tensor([1, 2, 3])` is **int64**: what that does downstream

# %% slideshow={"slide_type": "-"}
n = tt.tensor([1, 2, 3])
n[0] = 0.7                           # silently truncated
print(n.dtype, n.tolist(), (n / 2).dtype, (n // 2).tolist())
for attempt in (lambda: n.requires_grad_(), lambda: n.mean(),
                lambda: n.mul_(0.5)):
    try:
        attempt()
    except RuntimeError as e:
        print(textwrap.fill(f"RuntimeError: {e}", 66))

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: the dtype is inferred from the Python values: ints give int64. Most surprises are loud (an int
# tensor cannot require grad, has no mean, and an in-place op cannot store a float in it), and the messages
# are PyTorch 2.13's word for word. The silent one is the assignment: 0.7 becomes 0. `/` is true division
# (float), `//` floors. Fix: write `1.0` or pass `dtype=tt.float32` where the data starts.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## `gradcheck` in float32: a false alarm
#
# The same correct function, checked twice

# %% slideshow={"slide_type": "-"}
a = tt.randn(3, requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")          # "not double precision"
    for t in (a, a.detach().double().requires_grad_()):
        ok = gradcheck(lambda t: (t * t).sum(), (t,),
                       raise_exception=False)
        print(t.dtype, "gradcheck passes:", ok)

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: $\frac{d}{dt} \sum t^2 = 2t$ is right; the float32 check still fails. The numerical side is
# $\frac{f(t+\epsilon) - f(t-\epsilon)}{2\epsilon}$ with $\epsilon = 10^{-6}$, and float32 rounds f to about
# $10^{-7}$ relative, so the difference quotient is off by about 10%. Here the layer is **the test**.
# PyTorch warns ("Input #0 requires gradient and is not a double precision floating point...") and so does
# teachtorch (hidden here). Fix: gradcheck in float64, always; the tolerances (atol 1e-5, rtol 1e-3) assume it.

# %% [markdown] slideshow={"slide_type": "subslide"} timing=60
# ## Why: the finite difference itself, at `eps = 1e-6`

# %% slideshow={"slide_type": "-"}
eps = 1e-6
for dt in (tt.float32, tt.float64):
    t0 = tt.tensor(0.7, dtype=dt)
    num = ((t0 + eps) ** 2 - (t0 - eps) ** 2) / (2 * eps)
    print(f"{str(dt):14} d(t^2)/dt at 0.7: exact 1.4, "
          f"finite difference {num.item():.6f}")

# %% [markdown] slideshow={"slide_type": "fragment"}
# - rounding in $f$, divided by $2\epsilon$: float32 up to $10^{-7} / 10^{-6}$, float64 $10^{-16} / 10^{-6}$
# - before you blame the op, ask whether the check can see that precision

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: a quick back-of-the-envelope. The numerator $f(t+\epsilon) - f(t-\epsilon)$ is tiny and each
# term carries a rounding error of $\varepsilon_{\text{mach}} |f|$; dividing by $2\epsilon$ magnifies it.
# Larger eps trades rounding error for truncation error. This is why every gradcheck in
# `tests/parity.py` (`check_grad`) runs in double.

# %% [markdown] slideshow={"slide_type": "slide"} timing=80
# ## The tools
#
# | question | tool |
# |---|---|
# | which **op** is wrong on this backend? | `compare_backends` (`teachtorch/testing/_compare_backends.py`) |
# | is this **backward formula** right? | `gradcheck`, in float64 (`teachtorch/autograd/gradcheck.py`) |
# | does it hold for every **layout**? | permuted, sliced, offset, expanded: `tests/parity.py`, with hypothesis |
# | which **kernel** ran? | `tt.dispatch.trace()` and `TraceView` |
# | where did the **NaN** start? | `tt.autograd.set_detect_anomaly(True)` |
# | did someone **write** into a saved tensor? | the version counter, `t._version` |
# | **what** went wrong, and what to do? | errors that say it: tensor, node, versions, a hint (case 3) |

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: one tool per layer. compare_backends localises a kernel bug to one op; gradcheck a formula bug to
# one input; the layout strategies (`layouts()`, `shapes()`, `inputs()` in `tests/parity.py`: contiguous,
# permuted, sliced with steps, offset, expanded) find bugs that only strides reveal; the dispatch trace shows
# which kernel actually ran; anomaly mode names the node that produced the first NaN; the version counter
# turns a silent wrong gradient into an error. And assertions with actionable messages: every error you saw
# today said what was wrong and what to do.

# %% [markdown] slideshow={"slide_type": "slide"} timing=30
# ## Go deeper
#
# - [Lesson 6: devices](../lessons/06_devices.py): the lost write-back, `compare_backends`
# - [Lesson 8: tensor autograd](../lessons/08_autograd.py): un-broadcasting, accumulation, `gradcheck`
# - [Lesson 9: views and in-place ops](../lessons/09_inplace.py): the version counter
# - [Lesson 10: backprop by hand](../lessons/10_backprop.py): backward with no net, softmax without overflow
# - [Lesson 13: performance](../lessons/13_performance.py): a fused op must match the unfused one
# - `tests/parity.py`: the layouts and the parity checks

# %% [markdown] slideshow={"slide_type": "notes"}
# What to say: each case has a lesson where you build the fix yourself. Lesson 6 has the autoencoder and
# exercise to write `addcmul_` with the write-back; lesson 8 `unbroadcast` and gradcheck; lesson 9 the
# version counter; lesson 10 backprop with no engine to hide a missing sum, and the stable softmax; lesson 13
# fuses ops for speed, and checks the fused op against the unfused one.
# `tests/parity.py` is the harness every op in the library passes.
