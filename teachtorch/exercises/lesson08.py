"""Lesson 8, tensor autograd: the exercises. Each is a backward formula written as a plain function.

    L08.mul_backward     mul_backward(grad, a, b) -> (grad_a, grad_b)   for a * b, a and b broadcast: the
                         product rule, then un-broadcasting (the whole of add's backward)
    L08.sum_backward     sum_backward(grad, shape, dim, keepdim) -> grad_input   for x.sum(dim, keepdim)
    L08.matmul_backward  matmul_backward(grad, a, b) -> (grad_a, grad_b)   for a @ b, 2-D or batched 3-D

Each case (fixed ones worked out by hand, then seeded random shapes, all float64) is checked twice:

* against teachtorch's own autograd: the same op run forward with `requires_grad`, then `backward(grad)`;
  each gradient is compared on its shape, dtype and values, and the report names the input it belongs to;
* by `gradcheck` (teachtorch/autograd/gradcheck.py, finite differences in float64) on an
  `autograd.Function` whose backward is the answer, which also names the input whose Jacobian is wrong.

The answer's result is turned into one line per gradient ("grad_b: shape (3, 4), but b has shape (4,)")
plus one for gradcheck, and that tuple of lines is what is compared. (Through a Function, gradcheck alone
would accept a gradient of the broadcast shape: the engine sums it back, as PyTorch's does.)

PyTorch's counterparts: the formulas of `mul.Tensor`, `sum.dim_IntList`, `mm` / `bmm` in
tools/autograd/derivatives.yaml (`mul_tensor_backward`, `sum_backward`, `mm_mat1_backward` in
torch/csrc/autograd/FunctionsManual.cpp); teachtorch's are in teachtorch/autograd/derivatives/pointwise.py,
`reductions.py` and `linalg.py`, and un-broadcasting is `sum_to` in teachtorch/autograd/functions_manual.py.
"""

import re

import numpy as np

from .. import autograd
from .._tensor import Tensor
from .core import Case, Exercise

OK, PASSES = "matches autograd", "gradcheck: passes"



def _grads_line(name, got, want, of):
    """One line on one gradient: does `got` match autograd's `want` (the gradient of input `of`)?"""
    if not isinstance(got, Tensor):
        return f"{name}: expected a tensor, got {type(got).__name__}"
    if tuple(got.shape) != tuple(want.shape):
        return f"{name}: shape {tuple(got.shape)}, but {of} has shape {tuple(want.shape)}"
    if got.dtype != want.dtype:
        return f"{name}: dtype {got.dtype}, but {of} is {want.dtype}"
    e, g = want.detach().numpy(), got.detach().numpy()
    bad = ~np.isclose(g, e, rtol=1e-7, atol=1e-9)
    if bad.any():
        i = tuple(int(k) for k in np.argwhere(bad)[0])
        return (f"{name}: at {list(i)} autograd gives {e[i]:.4g}, you gave {g[i]:.4g} "
                f"({int(bad.sum())} of {bad.size} differ)")
    return f"{name}: {OK}"


def _gradcheck_line(forward, backward, inputs, names):
    """gradcheck on a Function whose backward is the answer: which input's Jacobian is wrong, if any."""
    class Answer(autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            ctx.save_for_backward(*xs)
            return forward(*xs)

        @staticmethod
        def backward(ctx, grad):
            return backward(grad, *ctx.saved_tensors)

    leaves = tuple(x.detach().clone().requires_grad_() for x in inputs)
    try:
        autograd.gradcheck(Answer.apply, leaves)
    except autograd.GradcheckError as e:
        k = re.search(r"respect to input (\d+)", str(e))
        return f"gradcheck: fails for {names[int(k[1])]}" if k else "gradcheck: fails"
    except NotImplementedError:
        raise
    except Exception as e:                                  # e.g. a gradient the engine cannot sum back
        return f"gradcheck: backward raised {type(e).__name__}: {str(e)[:80]}"
    return PASSES


def _autograd(forward, inputs, grad):
    """teachtorch's own gradients of forward(*inputs), for the incoming gradient `grad`."""
    leaves = [x.detach().clone().requires_grad_() for x in inputs]
    forward(*leaves).backward(grad)
    return [x.grad for x in leaves]


def _two(result):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise TypeError(f"return two gradients, (grad_a, grad_b); got {type(result).__name__}")
    return result


# ---- the cases ------------------------------------------------------------------------------------------


def _mul(x, y):
    return x * y


def _matmul(x, y):
    return x @ y


def _binary_call(forward):
    def call(answer, args):
        c, = args
        want = _autograd(forward, (c.a, c.b), c.grad)
        got = _two(answer(c.grad.clone(), c.a.clone(), c.b.clone()))
        lines = tuple(_grads_line(n, g, w, x) for n, g, w, x in zip(("grad_a", "grad_b"), got, want, "ab"))
        return lines + (_gradcheck_line(forward, lambda g, a, b: tuple(answer(g, a, b)), (c.a, c.b), "ab"),)
    return call


def _sum_call(answer, args):
    c, = args
    def forward(x):
        return x.sum(c.dim, keepdim=c.keepdim)
    want, = _autograd(forward, (c.x,), c.grad)
    got = answer(c.grad.clone(), tuple(c.x.shape), c.dim, c.keepdim)
    return (_grads_line("grad_input", got, want, "x"),
            _gradcheck_line(forward, lambda g, x: answer(g, tuple(x.shape), c.dim, c.keepdim), (c.x,), ["x"]))


def _randn(rng, shape):
    return rng.standard_normal(shape)


def _random_mul(rng):
    out = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    def operand():
        shape = out[len(out) - int(rng.integers(0, len(out) + 1)):]             # maybe fewer dims
        return tuple(1 if rng.random() < 0.3 else s for s in shape)             # maybe size-1 dims
    a, b = operand(), operand()
    return (Case(grad=_randn(rng, np.broadcast_shapes(a, b)), a=_randn(rng, a), b=_randn(rng, b)),)


def _random_sum(rng):
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 4))))
    dim, keepdim = int(rng.integers(-len(shape), len(shape))), bool(rng.integers(0, 2))
    out = [s for d, s in enumerate(shape) if d != dim % len(shape)] if not keepdim else \
        [1 if d == dim % len(shape) else s for d, s in enumerate(shape)]
    return (Case(grad=_randn(rng, out), x=_randn(rng, shape), dim=dim, keepdim=keepdim),)


def _random_matmul(rng):
    n, k, p = (int(s) for s in rng.integers(1, 5, size=3))
    batch = (int(rng.integers(1, 4)),) if rng.random() < 0.5 else ()
    return (Case(grad=_randn(rng, batch + (n, p)), a=_randn(rng, batch + (n, k)), b=_randn(rng, batch + (k, p))),)


def _ones(*shape):
    return np.ones(shape).tolist()


PAIR_OK = (f"grad_a: {OK}", f"grad_b: {OK}", PASSES)
SUM_OK = (f"grad_input: {OK}", PASSES)

EXERCISES = [
    Exercise(
        name="L08.mul_backward",
        title="mul_backward(grad, a, b) -> (grad_a, grad_b): the backward of a * b, with a and b broadcast",
        reference=lambda case: PAIR_OK,
        known=[((Case(grad=[1., 1., 1.], a=[1., 2., 3.], b=[4., 5., 6.]),), PAIR_OK),
               ((Case(grad=_ones(2, 3), a=[[1., 2., 3.], [4., 5., 6.]], b=[10., 20., 30.]),), PAIR_OK),
               ((Case(grad=_ones(3, 2), a=[[1.], [2.], [3.]], b=[[1., -1.]]),), PAIR_OK),
               ((Case(grad=_ones(2, 2), a=2.0, b=[[1., 2.], [3., 4.]]),), PAIR_OK)],
        random_args=_random_mul,
        call=_binary_call(_mul),
        hints=["Without broadcasting: out[i] = a[i] * b[i], so d out[i] / d a[i] = b[i]. Each input's gradient "
               "is grad times the *other* input.",
               "grad * b has the shape of the output. Where a was broadcast, several output elements used the "
               "same element of a: their gradients add up. unbroadcast(grad * b, a.shape) sums them.",
               "unbroadcast: sum away the leading dims that a did not have (sum(dim=...)), then sum the dims "
               "where a has size 1 but the gradient does not, with keepdim=True, so they stay as size 1."],
        solution='''def mul_backward(grad, a, b):
    return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)


def unbroadcast(grad, shape):
    lead = grad.dim() - len(shape)                      # dims broadcasting added in front
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    stretched = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    if stretched:
        grad = grad.sum(dim=stretched, keepdim=True)    # keep them, as size 1
    return grad''',
    ),
    Exercise(
        name="L08.sum_backward",
        title="sum_backward(grad, shape, dim, keepdim) -> the gradient of x (of this shape) for x.sum(dim, keepdim)",
        reference=lambda case: SUM_OK,
        known=[((Case(grad=[1., 2., 3.], x=_ones(3, 3), dim=1, keepdim=False),), SUM_OK),
               ((Case(grad=[[1., 2., 3.]], x=_ones(2, 3), dim=0, keepdim=True),), SUM_OK),
               ((Case(grad=[[1., 2.], [3., 4.]], x=_ones(2, 2, 3), dim=-1, keepdim=False),), SUM_OK)],
        random_args=_random_sum,
        call=_sum_call,
        hints=["Every x element along `dim` added 1 times itself into one output element: its gradient is that "
               "output element's gradient. So copy grad along `dim`.",
               "With keepdim=False the summed dim is gone from grad: put it back as a size-1 dim "
               "(grad.unsqueeze(dim)) before you expand; with keepdim=True it is already there.",
               "grad.unsqueeze(dim).expand(shape) if not keepdim, else grad.expand(shape)."],
        solution='''def sum_backward(grad, shape, dim, keepdim):
    if not keepdim:
        grad = grad.unsqueeze(dim)        # put the summed dim back, as size 1
    return grad.expand(shape)''',
    ),
    Exercise(
        name="L08.matmul_backward",
        title="matmul_backward(grad, a, b) -> (grad_a, grad_b): the backward of a @ b (2-D, or 3-D with a batch)",
        reference=lambda case: PAIR_OK,
        known=[((Case(grad=[[1., 0.], [0., 0.]], a=[[1., 2.], [3., 4.]], b=[[5., 6.], [7., 8.]]),), PAIR_OK),
               ((Case(grad=_ones(2, 4), a=_ones(2, 3), b=np.arange(12.).reshape(3, 4)),), PAIR_OK),
               ((Case(grad=_ones(2, 2, 2), a=np.arange(12.).reshape(2, 2, 3), b=_ones(2, 3, 2)),), PAIR_OK)],
        random_args=_random_matmul,
        call=_binary_call(_matmul),
        hints=["out[i, j] = sum_k a[i, k] * b[k, j]: a[i, k] moves every out[i, j] of row i by b[k, j].",
               "So grad_a[i, k] = sum_j grad[i, j] * b[k, j]: a product with b transposed. Check the shapes: "
               "grad is (n, p), a is (n, k), b is (k, p).",
               "grad_a = grad @ b^T, grad_b = a^T @ grad; transpose the last two dims (x.mT or "
               "x.transpose(-2, -1)) so a batch dim in front works too."],
        solution='''def matmul_backward(grad, a, b):
    return grad @ b.mT, a.mT @ grad''',
    ),
]
