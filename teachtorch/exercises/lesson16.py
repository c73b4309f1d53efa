"""Lesson 16, add an op end to end: the exercises. Each is one piece of the op `softclip(x, limit)`, the
cubic soft clipper: x - x**3 / (3 limit**2) where |x| <= limit, and +-2 limit / 3 beyond.

    L16.softclip_kernel    softclip_kernel(xp, x, limit) -> a new array: the CPU/CUDA kernel over `xp`
    L16.softclip_backward  softclip_backward(grad, x, limit) -> grad_x: the derivative formula, in tensor ops
    L16.softclip_fake      softclip_fake(x, limit) -> an empty tensor: the Meta kernel (shapes only)

The checks run the student's piece *as an operator*: a checker op `l16check::softclip` is defined once with
`teachtorch.library` (Library, impl for CPU, register_fake, register_autograd), and each check plugs the
answer in as its piece, the lesson's solution for the others. Inputs come in the layouts teachtorch's own op
tests use (tests/parity.py: contiguous, permuted, sliced with steps, offset, expanded), seeded.

* `L16.softclip_kernel`: the op's values against the formula computed in NumPy here; the input's storage is
  unchanged (a kernel never writes into its input); the same kernel called on the arrays of `standin`, the
  CuPy stand-in of lesson 6 (teachtorch/exercises/lesson06.py), gives the same result, so a kernel that calls
  `np.` instead of `xp.` is caught.
* `L16.softclip_backward`: x.grad after `backward(grad)` against autograd run through the same formula
  written with teachtorch's built-in ops; `gradcheck` (teachtorch/autograd/gradcheck.py) in float64; and the
  dispatch trace of the forward, which must be Autograd, then CPU.
* `L16.softclip_fake`: the op called on meta tensors (random shapes, float32 or float64, some permuted):
  the result's shape, dtype and device, and that it is a new tensor, not the input.

Each answer's outcome is a tuple of short lines ("values: match the formula", ...), and the expected tuple
is all of them fine. PyTorch's counterparts: `torch.library.Library`, `impl`, `register_fake` and
`register_autograd` (torch/library.py); inside PyTorch, the op's line in native_functions.yaml, its kernel in
aten/src/ATen/native/, and its formula in tools/autograd/derivatives.yaml.
"""

import numpy as np

from .. import autograd, library
from .._dtype import float32, float64
from ..backends import wrap
from ..dispatch.trace import trace
from ..kernels.indexing import xp_for
from ..ops.tensor_new import tensor
from .core import Exercise
from .lesson06 import _elsewhere, _same, second_modules

LAYOUTS = ("contiguous", "permuted", "sliced", "offset", "expanded")


# ---- the lesson's solution: what the checker op uses for the pieces not under test --------------------------


def _kernel(xp, x, limit):
    inside = x - x ** 3 / (3 * limit ** 2)
    return xp.where(xp.abs(x) <= limit, inside, xp.sign(x) * (2 * limit / 3))


def _backward(grad, x, limit):
    return (grad * (1 - (x / limit) ** 2)).where(x.abs() <= limit, 0.0)


def _fake(x, limit):
    return x.new_empty(x.shape)


PIECES = {"kernel": _kernel, "backward": _backward, "fake": _fake}
_OP = []


def _op():
    """The checker op, defined on first use; its pieces are read from PIECES at each call."""
    if not _OP:
        lib = library.Library("l16check", "DEF")
        lib.define("softclip(Tensor x, float limit) -> Tensor")

        def cpu(x, limit):
            return wrap(PIECES["kernel"](xp_for(x), x._data(), limit), x.dtype, x.device)
        lib.impl("softclip", cpu, "CPU")
        library.register_fake("l16check::softclip", lambda x, limit: PIECES["fake"](x, limit))

        def setup(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.limit = inputs[1]

        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return PIECES["backward"](grad, x, ctx.limit), None
        library.register_autograd("l16check::softclip", backward, setup_context=setup)
        _OP.append((lib, library._operator("l16check::softclip")))
    return _OP[0][1]


def _run(piece, answer, fn):
    """fn() with the answer plugged in as `piece` of the checker op."""
    saved = PIECES[piece]
    PIECES[piece] = answer
    try:
        return fn()
    finally:
        PIECES[piece] = saved


def softclip(x, limit):
    return _op()(x, limit)


# ---- the inputs: one case is the values, a layout and a limit -------------------------------------------------


class Case:
    def __init__(self, values, layout, limit, dtype="float64"):
        self.values, self.layout, self.limit, self.dtype = np.asarray(values, dtype=dtype), layout, limit, dtype
        if layout == "expanded" and self.values.ndim:
            self.values = np.broadcast_to(self.values[:1], self.values.shape).copy()

    def tensor(self):
        """A teachtorch tensor showing `values` in this layout (as tests/parity.py builds them)."""
        v = self.values
        def mk(a):
            return tensor(np.array(a, order="C", copy=True))
        if self.layout == "contiguous" or v.ndim < 2:
            return mk(v)
        if self.layout == "permuted":
            return mk(v.T).permute(*reversed(range(v.ndim)))
        if self.layout == "sliced":
            big = np.zeros(tuple(2 * s + 1 for s in v.shape), dtype=v.dtype)
            big[tuple(slice(1, None, 2) for _ in v.shape)] = v
            return mk(big)[tuple(slice(1, None, 2) for _ in v.shape)]
        if self.layout == "offset":
            return mk(np.concatenate([np.zeros(3, dtype=v.dtype), v.ravel()]))[3:].view(*v.shape)
        return mk(v[:1]).expand(*v.shape)

    def __repr__(self):
        shown = self.values.tolist() if self.values.size <= 6 else f"<shape {self.values.shape}>"
        return f"x={shown} ({self.layout}, {self.dtype}), limit={self.limit}"


def _random_case(rng):
    shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(2, 4))))
    limit = float(rng.choice([0.5, 1.0, 2.0, 3.0]))
    values = rng.uniform(-2 * limit, 2 * limit, size=shape)
    return (Case(values, LAYOUTS[int(rng.integers(0, len(LAYOUTS)))], limit,
                 str(rng.choice(["float32", "float64"]))),)


# ---- L16.softclip_kernel ------------------------------------------------------------------------------------

KERNEL_OK = ("values: match the formula", "input: unchanged", "standin: same result")


def _kernel_call(answer, args):
    c, = args
    x = c.tensor()
    before = x.clone().numpy()
    want = _kernel(np, c.values.copy(), c.limit)
    try:
        got = _run("kernel", answer, lambda: softclip(x, c.limit)).numpy()
        values = ("values: match the formula" if got.dtype == want.dtype and _same(got, want) else
                  f"values: {np.round(got, 4).tolist() if got.size <= 6 else 'differ'} (dtype {got.dtype})")
    except NotImplementedError:
        raise
    except Exception as e:
        values = f"values: the kernel raised {type(e).__name__}: {str(e)[:80]}"
    same_input = np.array_equal(x.clone().numpy(), before)
    lines = [values, "input: unchanged" if same_input else "input: changed (the kernel wrote into its input)"]
    name, xp = second_modules()[0]
    try:
        there = answer(xp, xp.asarray(c.values.copy()), c.limit)
        lines.append("standin: same result" if _same(xp.asnumpy(there), want) else "standin: a different result")
    except NotImplementedError:
        raise
    except Exception as e:
        lines.append(_elsewhere(name, e)[:160])
    return tuple(lines)


# ---- L16.softclip_backward ------------------------------------------------------------------------------------

BACKWARD_OK = ("grad_x: matches autograd", "gradcheck: passes", "trace: AutogradCPU -> CPU")


def _builtin_softclip(x, limit):
    """The same formula from built-in ops: what autograd differentiates for the expected gradient."""
    return (x - x ** 3 / (3 * limit ** 2)).where(x.abs() <= limit, x.sign() * (2 * limit / 3))


def _grad_of(f, c, grad):
    leaf = c.tensor().detach().requires_grad_()
    f(leaf, c.limit).backward(grad)
    return leaf.grad.numpy()


def _grad_line(got, want, tol):
    """One line on x.grad: does the answer's gradient match autograd's, and where not?"""
    if got.shape != want.shape:
        return f"grad_x: shape {got.shape}, x has {want.shape}"
    bad = ~np.isclose(got, want, **tol)
    if not bad.any():
        return "grad_x: matches autograd"
    i = tuple(int(k) for k in np.argwhere(bad)[0])
    return f"grad_x: at {list(i)} autograd gives {want[i]:.4g}, you gave {got[i]:.4g}"


def _backward_call(answer, args):
    c, = args
    grad = tensor(np.linspace(-1.5, 2.0, c.values.size).reshape(c.values.shape).astype(c.dtype))
    tol = dict(rtol=1e-7, atol=1e-9) if c.dtype == "float64" else dict(rtol=1e-5, atol=1e-6)
    want = _grad_of(_builtin_softclip, c, grad)
    try:
        got = _run("backward", answer, lambda: _grad_of(softclip, c, grad))
        line = _grad_line(got, want, tol)
    except NotImplementedError:
        raise
    except Exception as e:
        line = f"grad_x: backward raised {type(e).__name__}: {str(e)[:80]}"
    x = c.tensor().to(float64)
    leaf = (x.clone() if c.layout == "expanded" else x).detach().requires_grad_()   # gradcheck refuses overlap
    try:
        _run("backward", answer, lambda: autograd.gradcheck(lambda x: softclip(x, c.limit), (leaf,)))
        checked = "gradcheck: passes"
    except autograd.GradcheckError as e:
        checked = "gradcheck: fails" + (" (the Jacobians differ)" if "Jacobian mismatch" in str(e) else "")
    except NotImplementedError:
        raise
    except Exception as e:
        checked = f"gradcheck: backward raised {type(e).__name__}"
    with trace() as t:
        softclip(c.tensor().detach().requires_grad_(), c.limit)
    hops = " -> ".join(e.key for e in t.events if e.op == "l16check::softclip")
    return (line, checked, f"trace: {hops}")


# ---- L16.softclip_fake ------------------------------------------------------------------------------------------


def _random_meta(rng):
    shape = tuple(int(s) for s in rng.integers(0, 5, size=int(rng.integers(0, 4))))
    return (shape, str(rng.choice(["float32", "float64"])), bool(rng.integers(0, 2)), float(rng.choice([1.0, 2.0])))


def _meta_input(shape, dtype, permuted):
    from ..ops.factories import empty
    dt = {"float32": float32, "float64": float64}[dtype]
    if permuted and len(shape) > 1:
        return empty(tuple(reversed(shape)), dtype=dt, device="meta").permute(*reversed(range(len(shape))))
    return empty(tuple(shape), dtype=dt, device="meta")


def _fake_reference(shape, dtype, permuted, limit):
    return (f"shape {tuple(shape)}", f"dtype {dtype}", "device meta", "a new tensor")


def _fake_call(answer, args):
    shape, dtype, permuted, limit = args
    x = _meta_input(shape, dtype, permuted)
    try:
        y = _run("fake", answer, lambda: softclip(x, limit))
    except NotImplementedError:
        raise
    except Exception as e:
        return (f"the op raised {type(e).__name__}: {str(e)[:80]}",)
    return (f"shape {tuple(y.shape)}", f"dtype {str(y.dtype).replace('torch.', '')}", f"device {y.device.type}",
            "the input itself (a fake kernel returns a new tensor)" if y is x else "a new tensor")


EXERCISES = [
    Exercise(
        name="L16.softclip_kernel",
        title="softclip_kernel(xp, x, limit) -> a new array: x - x**3/(3 limit**2) inside [-limit, limit], "
              "+-2 limit/3 beyond",
        reference=lambda case: KERNEL_OK,
        known=[((Case([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0], "contiguous", 1.0),), KERNEL_OK),
               ((Case([[3.0, -3.0], [1.5, 0.0]], "permuted", 1.5),), KERNEL_OK)],
        random_args=_random_case,
        call=_kernel_call,
        hints=["Inside: x - x ** 3 / (3 * limit ** 2). Beyond: the same sign as x, size 2 * limit / 3. "
               "xp.where(condition, a, b) picks elementwise.",
               "Use only the xp you are given (xp.where, xp.abs, xp.sign): np.* refuses CuPy's arrays.",
               "Return a new array: never assign into x (x[...] = ..., out=x): x is the input tensor's memory."],
        solution='''def softclip_kernel(xp, x, limit):
    inside = x - x ** 3 / (3 * limit ** 2)
    return xp.where(xp.abs(x) <= limit, inside, xp.sign(x) * (2 * limit / 3))''',
    ),
    Exercise(
        name="L16.softclip_backward",
        title="softclip_backward(grad, x, limit) -> grad_x, written with teachtorch ops",
        reference=lambda case: BACKWARD_OK,
        known=[((Case([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0], "contiguous", 1.0),), BACKWARD_OK),
               ((Case([[3.0, -3.0], [1.5, 0.0]], "sliced", 2.0),), BACKWARD_OK)],
        random_args=_random_case,
        call=_backward_call,
        hints=["Inside [-limit, limit] the derivative of x - x^3/(3 limit^2) is 1 - (x/limit)^2; beyond, the "
               "output is constant: derivative 0.",
               "The chain rule: what flows back is grad times the derivative, not the derivative alone.",
               "(grad * (1 - (x / limit) ** 2)).where(x.abs() <= limit, 0.0)"],
        solution='''def softclip_backward(grad, x, limit):
    slope = 1 - (x / limit) ** 2                         # the derivative inside [-limit, limit]
    return (grad * slope).where(x.abs() <= limit, 0.0)   # and 0 beyond, where the output is constant''',
    ),
    Exercise(
        name="L16.softclip_fake",
        title="softclip_fake(x, limit) -> a new (empty) tensor of the output's shape, dtype and device",
        reference=_fake_reference,
        known=[(((2, 3), "float32", False, 1.0), _fake_reference((2, 3), "float32", False, 1.0)),
               (((4,), "float64", False, 1.0), _fake_reference((4,), "float64", False, 1.0))],
        random_args=_random_meta,
        call=_fake_call,
        hints=["The output of an elementwise op has the input's shape, dtype and device.",
               "Make a new tensor, do not return x: x.new_empty(...) or teachtorch.empty_like(x).",
               "return x.new_empty(x.shape)"],
        solution='''def softclip_fake(x, limit):
    return x.new_empty(x.shape)          # shape, dtype and device of x; no numbers computed''',
    ),
]
