"""gradcheck / gradgradcheck: they pass on correct formulas, and they catch wrong ones (the checker is checked).

Where PyTorch gives the same verdict, the same case is run in torch too and the result, the error type and
message, and the warnings are compared. Fast mode draws its random vectors from another generator than
PyTorch's, so only the slow-mode part of its report is compared exactly.
"""

import re
import sys
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import teachtorch as tt
from parity import LAYOUTS, P, as_on_cpu, assert_same, layouts, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

gc_module = sys.modules["teachtorch.autograd.gradcheck"]   # (`tt.autograd.gradcheck` is the function)
LIBS = (torch, tt)


def G(*shape, layout="contiguous", seed=0, low=-2, high=2, dtype="float64"):
    """A float64 input that requires grad."""
    p = rand(*shape, dtype=dtype, layout=layout, seed=seed, low=low, high=high)
    p.requires_grad = True
    return p


def build(lib, args):
    return tuple(a.build(lib) if isinstance(a, P) else a for a in args)


def outcome(lib, checker, func, args, **kw):
    """(result or exception, [(warning class name, text)]) of `lib.autograd.<checker>(func, inputs, **kw)`.
    `P` arguments, keyword ones too (grad_outputs), are built in `lib`."""
    inputs = build(lib, args)
    kw = {k: v.build(lib) if isinstance(v, P) else v for k, v in kw.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = getattr(lib.autograd, checker)(func, inputs, **kw)
        except Exception as e:      # noqa: BLE001  (compared below)
            result = e
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def same_outcome(checker, make_func, *args, msg=True, **kw):
    """Run the check in both libraries; `make_func(lib)` makes the function for each. Returns ours."""
    (rt, wt), (rm, wm) = (outcome(lib, checker, make_func(lib), args, **kw) for lib in LIBS)
    if isinstance(rt, Exception):
        assert isinstance(rm, Exception), f"torch raised {type(rt).__name__}({rt}); teachtorch returned {rm!r}"
        assert type(rm).__name__ == type(rt).__name__, f"{type(rm).__name__}({rm}) != {type(rt).__name__}({rt})"
        if msg:
            assert as_on_cpu(str(rm)) == str(rt), f"message:\n{rm}\n---- torch's:\n{rt}"
    else:
        assert not isinstance(rm, Exception), f"teachtorch raised {type(rm).__name__}: {rm}"
        assert rm == rt
    assert wm == wt
    return rm


# ---- custom Functions, the same code for both libraries ---------------------------------------------------


def functions(lib):
    Function = lib.autograd.Function

    class Twice(Function):
        """Identity whose backward is twice too big."""
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class WrongSign(Function):
        """exp with the sign of its gradient flipped."""
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return -g * y

    class Mul(Function):
        """x * y, right for x, three times too big for y."""
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, 3 * g * x

    class TwoOut(Function):
        """(2x, 3x), with the gradient of the second output taken as if it were 2x."""
        @staticmethod
        def forward(ctx, x):
            return 2 * x, 3 * x

        @staticmethod
        def backward(ctx, g1, g2):
            return 2 * g1 + 2 * g2

    class Square(Function):
        """x**2 with a right first derivative whose backward is not differentiable in x (x is detached)."""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x.detach()

    class Noisy(Function):
        """Identity whose backward adds noise: running it twice gives different gradients."""
        scale = 1e-3

        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return g + g * lib.randn_like(g) * Noisy.scale     # (zero for a zero grad_output)

    class NotMulByGrad(Function):
        """x**2, right for every nonzero grad_output, but ones for a zero one."""
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x if bool(g.abs().sum() > 0) else lib.ones_like(x)

    class OnesForUndefined(Function):
        """Identity that answers an undefined (None) grad_output with ones."""
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return lib.ones_like(x) if g is None else g

    class RaisesForUndefined(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("no grad_output")
            return g

    return {name: cls for name, cls in locals().items() if isinstance(cls, type)}


def fn(name):
    return lambda lib: functions(lib)[name].apply


# ---- passing on correct formulas --------------------------------------------------------------------------

CASES = {
    "pointwise": (lambda lib, x, y: (x * y).sin() + x.exp() / (y.cos() + 3) - x.neg(), [(2, 3), (2, 3)]),
    "sqrt_div": (lambda lib, x: (x * x + 1).sqrt() / (x.exp() + 1), [(3, 2)]),
    "broadcast": (lambda lib, x, y: x * y + x - y, [(2, 3), (3,)]),
    "sums": (lambda lib, x: (x.sum(), x.sum(1), x.sum(0, keepdim=True)), [(2, 3)]),
    "mm": (lambda lib, x, y: x.mm(y), [(2, 3), (3, 2)]),
    "views": (lambda lib, x: (x.t(), x.permute(1, 0)[1:], x.reshape(-1)[::2], x.unsqueeze(0).expand(2, 2, 3)),
              [(2, 3)]),
    "clone_copy": (lambda lib, x, y: y.clone().copy_(x) * y, [(2, 3), (2, 3)]),
}


def _ins(shapes, layout):
    return [G(*s, layout=layout, seed=k) for k, s in enumerate(shapes)]


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS[:-1])
@pytest.mark.parametrize("case", CASES)
def test_passes_on_correct_ops(case, layout, fast_mode):
    f, shapes = CASES[case]
    args = _ins(shapes, layout)
    assert same_outcome("gradcheck", lambda lib: lambda *xs: f(lib, *xs), *args, fast_mode=fast_mode) is True


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS[:-1])
@pytest.mark.parametrize("case", ["pointwise", "sqrt_div", "broadcast", "mm", "views"])
def test_gradgradcheck_passes_on_correct_ops(case, layout, fast_mode):
    f, shapes = CASES[case]
    xs = build(tt, _ins(shapes, layout))
    assert tt.autograd.gradgradcheck(lambda *a: f(tt, *a), xs, fast_mode=fast_mode)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 1)])
@pytest.mark.parametrize("fast_mode", [False, True])
def test_zero_dim_and_empty_inputs(shape, fast_mode):
    make = lambda lib: lambda x: (x.sin() * 2, x.sum())
    assert same_outcome("gradcheck", make, G(*shape), fast_mode=fast_mode) is True
    x = G(*shape).build(tt)
    assert tt.autograd.gradgradcheck(lambda x: x.sin() * x, x, fast_mode=fast_mode)


def test_single_tensor_input_and_list_output():
    x = G(2, 3).build(tt)
    assert tt.autograd.gradcheck(lambda x: [x.sin(), x * 2], x)
    assert tt.autograd.gradgradcheck(lambda x: [x.sin(), x * x], x)


def test_output_that_is_a_view_of_the_input():
    # the outputs are copied before the input is nudged again, else `a` would change with it
    assert same_outcome("gradcheck", lambda lib: lambda x: (x.t(), x[1:]), G(3, 2, layout="permuted")) is True


def test_inputs_are_restored():
    for layout in LAYOUTS[:-1]:
        x = G(2, 3, layout=layout).build(tt)
        before, version = x.detach().clone(), x._version
        for fast in (False, True):
            assert tt.autograd.gradcheck(lambda x: x.exp(), x, fast_mode=fast)
        assert tt.equal(x.detach(), before) and x._version == version and x.grad is None


def test_input_restored_when_func_raises():
    x = G(2, 2).build(tt)
    before = x.detach().clone()
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) > 2:
            raise ValueError("boom")
        return x * 2
    with pytest.raises(ValueError, match="boom"):
        tt.autograd.gradcheck(f, x)
    assert tt.equal(x.detach(), before)


# ---- several inputs and outputs, non-tensor inputs, non-float outputs -------------------------------------


def test_multiple_inputs_and_outputs():
    make = lambda lib: lambda x, y, z: (x * y, (y * z).sum(0), x.mm(z.t()))
    for fast in (False, True):
        assert same_outcome("gradcheck", make, G(2, 3), G(2, 3, layout="sliced", seed=1),
                            G(2, 3, layout="permuted", seed=2), fast_mode=fast) is True
    xs = build(tt, [G(2, 3), G(2, 3, seed=1), G(2, 3, seed=2)])
    assert tt.autograd.gradgradcheck(make(tt), xs)


def test_non_tensor_and_non_grad_inputs_pass_through():
    make = lambda lib: lambda x, k, name, w, y: (x * k + w) * y if name == "abc" else None
    args = (G(2, 3), 3.0, "abc", P(np.ones((2, 3))), G(2, 3, seed=1))
    for fast in (False, True):
        assert same_outcome("gradcheck", make, *args, fast_mode=fast) is True
    assert tt.autograd.gradgradcheck(make(tt), build(tt, args))


def test_non_float_outputs_are_ignored():
    # (torch itself fails when a non-float output comes first; we do not)
    assert same_outcome("gradcheck", lambda lib: lambda x: (x * 2, x.argmax()), G(2, 3)) is True
    x = G(2, 3).build(tt)
    for fast in (False, True):
        assert tt.autograd.gradcheck(lambda x: (x.argmax(), x * 2, x > 0), x, fast_mode=fast)


def test_no_differentiable_output():
    # nothing requires grad in the output: then the function must be constant (it is not, here)
    same_outcome("gradcheck", lambda lib: lambda x: x.detach() * 2, G(2, 2))
    same_outcome("gradcheck", lambda lib: lambda x: x.detach() * 2, G(2, 2), fast_mode=True)
    assert same_outcome("gradcheck", lambda lib: lambda x: (x > 5).to(x.dtype), G(2, 2)) is True


# ---- wrong formulas are caught ----------------------------------------------------------------------------


def _fast_report(e):
    """Split a fast-mode failure: (output, input, numerical, analytical, the slow-mode part)."""
    m = re.match(r"Jacobian mismatch for output (\d+) with respect to input (\d+),\n"
                 r"numerical:(\S+)\nanalytical:(\S+)\n(.*)", str(e), re.S)
    assert m, str(e)
    return int(m[1]), int(m[2]), float(m[3]), float(m[4]), m[5]


def test_wrong_backward_rejected_slow():
    e = same_outcome("gradcheck", fn("Twice"), G(2, 2, layout="permuted"))
    assert isinstance(e, tt.autograd.GradcheckError) and isinstance(e, RuntimeError)
    assert str(e).startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[1.0000,")
    assert "analytical:tensor([[2., 0., 0., 0.]," in str(e)
    same_outcome("gradcheck", fn("WrongSign"), G(3, layout="sliced"))


def test_wrong_backward_rejected_fast():
    results = {lib: outcome(lib, "gradcheck", fn("Twice")(lib), [G(2, 2, layout="sliced")], fast_mode=True)[0]
               for lib in LIBS}
    ours, theirs = results[tt], results[torch]
    assert type(ours).__name__ == type(theirs).__name__ == "GradcheckError"
    o, i, n, a, slow = _fast_report(ours)
    assert (o, i) == (0, 0) and a == pytest.approx(2 * n)       # v^T J u, twice too big
    assert as_on_cpu(slow) == _fast_report(theirs)[4]            # the slow-mode Jacobians, as torch's
    assert "Below, we recompute numerical and analytical jacobians in slow mode" in slow


def test_wrong_gradient_for_second_input():
    e = same_outcome("gradcheck", fn("Mul"), G(2, 3), G(2, 3, layout="offset", seed=1))
    assert "for output 0 with respect to input 1," in str(e)
    e = same_outcome("gradcheck", fn("Mul"), G(2, 3), G(2, 3, seed=1), fast_mode=True, msg=False)
    assert _fast_report(e)[:2] == (0, 1)


def test_wrong_gradient_for_second_output():
    e = same_outcome("gradcheck", fn("TwoOut"), G(3, 2))
    assert "for output 1 with respect to input 0," in str(e)
    e = same_outcome("gradcheck", fn("TwoOut"), G(3, 2), fast_mode=True, msg=False)
    assert _fast_report(e)[:2] == (1, 0)


def test_input_index_counts_inputs_that_require_grad():
    # as in torch: the wrong input is the 2nd argument but the 1st one that requires grad, so "input 0"
    make = lambda lib: lambda w, x: functions(lib)["Twice"].apply(x) * w
    e = same_outcome("gradcheck", make, P(np.ones(3)), G(3))
    assert "with respect to input 0," in str(e)


def test_raise_exception_false_returns_false():
    for fast in (False, True):
        assert same_outcome("gradcheck", fn("Twice"), G(2, 2), raise_exception=False, fast_mode=fast) is False
    assert same_outcome("gradgradcheck", fn("Square"), G(2, 2), raise_exception=False) is False
    # ... but only gradcheck's own failures turn into False
    same_outcome("gradcheck", lambda lib: lambda x: x * 2, P(np.ones(2)), raise_exception=False)


def test_wrong_backward_found_through_a_hook():
    # a gradient hook that doubles the gradient: the same checker, without a custom Function
    def make(lib):
        def f(x):
            y = x * 1
            y.register_hook(lambda g: 2 * g)
            return y.sin()
        return f
    e = same_outcome("gradcheck", make, G(2, 3, layout="sliced"))
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(e)
    e = same_outcome("gradcheck", make, G(2, 3), fast_mode=True, msg=False)
    o, i, n, a, _ = _fast_report(e)
    assert a == pytest.approx(2 * n)


def test_gradgradcheck_rejects_wrong_double_backward():
    # first derivative right, second wrong: gradcheck passes, gradgradcheck fails; with the same explicit
    # grad_outputs as torch, the whole report is torch's
    assert same_outcome("gradcheck", fn("Square"), G(2, 2)) is True
    e = same_outcome("gradgradcheck", fn("Square"), G(2, 2), grad_outputs=G(2, 2, seed=5))
    assert str(e).startswith("Jacobian mismatch for output 0 with respect to input 0,")


def test_gradgradcheck_rejects_straight_through_square():
    # x*x written so that its value and first derivative are right but the first derivative is made of
    # detached tensors: the second derivative is lost (no custom Function needed)
    def make(lib):
        return lambda x: x.detach() * x.detach() + (x - x.detach()) * 2 * x.detach()
    assert same_outcome("gradcheck", make, G(2, 3)) is True
    go = G(2, 3, seed=3)
    e = same_outcome("gradgradcheck", make, G(2, 3), grad_outputs=go)
    assert str(e).startswith("Jacobian mismatch for output 0 with respect to input 0,")
    e = same_outcome("gradgradcheck", make, G(2, 3), grad_outputs=go, fast_mode=True, msg=False)
    torch_e = outcome(torch, "gradgradcheck", make(torch), [G(2, 3)], grad_outputs=go, fast_mode=True)[0]
    assert as_on_cpu(_fast_report(e)[4]) == _fast_report(torch_e)[4]


def test_gradgradcheck_generated_grad_outputs():
    x = G(2, 3).build(tt)
    assert tt.autograd.gradgradcheck(lambda x: x.sin() * x, x, gen_non_contig_grad_outputs=True)
    out = tt.zeros(2, 3, dtype=tt.float32)
    tt.manual_seed(0)
    a = gc_module._make_grad_output(out, True)
    tt.manual_seed(0)
    b = gc_module._make_grad_output(out, True)
    assert tt.equal(a, b) and a.requires_grad and a.dtype is tt.float32 and tuple(a.shape) == (2, 3)
    assert not a.is_contiguous() and a.storage_offset() == 1
    c = gc_module._make_grad_output(tt.zeros(50, 2, dtype=tt.float64), False)
    assert c.is_contiguous() and -1 <= c.min().item() and c.max().item() < 1
    assert gc_module._make_grad_output(tt.zeros(1, 1), True).is_contiguous()   # one element: nothing to skip


def test_nondeterministic_backward_rejected():
    e = same_outcome("gradcheck", fn("Noisy"), G(2, 2))
    assert str(e).startswith("Backward is not reentrant, i.e., running backward with same input and "
                             "grad_output multiple times gives different values")
    assert "The tolerance for nondeterminism was 0.0." in str(e)
    e = same_outcome("gradcheck", fn("Noisy"), G(2, 2), fast_mode=True)
    assert "not reentrant" in str(e)


def test_nondet_tol_allows_small_noise():
    def make(lib):
        cls = functions(lib)["Noisy"]
        cls.scale = 1e-12
        return cls.apply
    assert same_outcome("gradcheck", make, G(2, 2), nondet_tol=1e-9) is True
    e = same_outcome("gradcheck", make, G(2, 2), msg=False)
    assert "not reentrant" in str(e)


def test_nondeterministic_hook_rejected():
    def make(lib):
        def f(x):
            y = x * 1
            y.register_hook(lambda g: g * (1 + lib.rand_like(g) * 1e-3))
            return y
        return f
    same_outcome("gradcheck", make, G(3))


def test_backward_not_multiplied_by_grad_output():
    e = same_outcome("gradcheck", fn("NotMulByGrad"), G(2, 2))
    assert str(e) == "backward not multiplied by grad_output"


def test_undefined_grad_checks():
    e = same_outcome("gradcheck", fn("OnesForUndefined"), G(2, 2))
    assert str(e).startswith("Expected all input grads to be undefined or zero")
    assert same_outcome("gradcheck", fn("OnesForUndefined"), G(2, 2), check_undefined_grad=False) is True
    e = same_outcome("gradcheck", fn("RaisesForUndefined"), G(2, 2))
    assert str(e).startswith("Expected backward function to handle undefined output grads")
    assert isinstance(e.__cause__, RuntimeError)


def test_undefined_grad_multi_output_op():
    # with several outputs, each one's gradient is also made undefined alone: unbind must cope
    assert same_outcome("gradcheck", lambda lib: lambda x: x.unbind(0), G(2, 3)) is True


# ---- input checks: warnings and errors, as torch's ---------------------------------------------------------


def test_warns_for_float32_input():
    make = lambda lib: lambda x, y: x * y
    x32 = G(2, 2, dtype="float32")
    # both warn for input #1 (then the check fails or passes by luck: not compared)
    for lib in LIBS:
        _, w = outcome(lib, "gradcheck", make(lib), [G(2, 2), x32], raise_exception=False)
        assert w[:1] == [("UserWarning", "Input #1 requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are not of double "
                          "precision floating point or complex. ")]
    assert same_outcome("gradcheck", make, G(2, 2, dtype="float32"), G(2, 2, dtype="float32"),
                        atol=1e-1, rtol=1e-1, eps=1e-2) is True


def test_rejects_expanded_input():
    e = same_outcome("gradcheck", lambda lib: lambda x: x * 2, G(2, 3, layout="expanded"))
    assert isinstance(e, RuntimeError) and "The 0th input has a dimension with stride 0" in str(e)
    same_outcome("gradcheck", lambda lib: lambda x, y: x * y, G(2, 3), G(2, 3, layout="expanded"))
    same_outcome("gradgradcheck", lambda lib: lambda x: x * 2, G(3, 2, layout="expanded"))
    # a size-1 dim with stride 0 overlaps nothing
    x = tt.ones(3, dtype=tt.float64).as_strided((1, 3), (0, 1)).requires_grad_()
    assert x.stride() == (0, 1) and tt.autograd.gradcheck(lambda x: x * 2, x)


def test_needs_an_input_that_requires_grad():
    e = same_outcome("gradcheck", lambda lib: lambda x: x * 2, P(np.ones(2)), 3)
    assert isinstance(e, ValueError)
    same_outcome("gradgradcheck", lambda lib: lambda x: x * 2, P(np.ones(2)))


@pytest.mark.parametrize("kw", [dict(check_forward_ad=False, check_backward_ad=False),
                                dict(check_batched_grad=True, check_backward_ad=False, check_forward_ad=True),
                                dict(check_batched_forward_grad=True)])
def test_option_assertions_as_torch(kw):
    same_outcome("gradcheck", lambda lib: lambda x: x * 2, G(2), **kw)


@pytest.mark.parametrize("kw", [dict(check_fwd_over_rev=False, check_rev_over_rev=False),
                                dict(check_rev_over_rev=False, check_fwd_over_rev=True)])
def test_gradgradcheck_option_assertions_as_torch(kw):
    same_outcome("gradgradcheck", lambda lib: lambda x: x * 2, G(2), **kw)


@pytest.mark.parametrize("checker, kw", [
    ("gradcheck", dict(check_forward_ad=True)),
    ("gradcheck", dict(check_batched_grad=True)),
    ("gradcheck", dict(check_forward_ad=True, check_batched_forward_grad=True)),
    ("gradcheck", dict(check_forward_ad=True, check_backward_ad=False)),
    ("gradgradcheck", dict(check_fwd_over_rev=True)),
    ("gradgradcheck", dict(check_batched_grad=True)),
])
def test_unsupported_options_raise(checker, kw):
    x = G(2).build(tt)
    with pytest.raises(NotImplementedError, match="teachtorch does not have"):
        getattr(tt.autograd, checker)(lambda x: x * 2, x, **kw)
    with pytest.raises(NotImplementedError):
        getattr(tt.autograd, checker)(lambda x: x * 2, x, raise_exception=False, **kw)


def test_masked_zero_check():
    assert tt.autograd.gradcheck(lambda x: x.exp(), G(2, 2).build(tt), masked=True)


# ---- the Jacobians themselves, against torch's helpers ----------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS[:-1])
def test_numerical_jacobian_matches_torch(layout):
    from torch.autograd.gradcheck import get_numerical_jacobian as torch_numerical
    from teachtorch.autograd.gradcheck import get_numerical_jacobian

    args = [G(2, 3, layout=layout), G(3, seed=1)]
    f = lambda xs: (xs[0].sin() * xs[1]).sum(0) + xs[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)    # torch's helper is deprecated (but still there)
        expected = torch_numerical(f, build(torch, args), eps=1e-6)
    got = get_numerical_jacobian(f, build(tt, args), eps=1e-6)
    assert [tuple(j.shape) for j in got] == [(6, 3), (3, 3)]
    assert_same(got, expected, atol=1e-9, rtol=1e-9, strides=False)


@pytest.mark.parametrize("layout", LAYOUTS[:-1])
def test_analytical_jacobian_matches_torch(layout):
    from torch.autograd.gradcheck import get_analytical_jacobian as torch_analytical
    from teachtorch.autograd.gradcheck import get_analytical_jacobian

    args = [G(2, 3, layout=layout), G(3, seed=1)]
    res = {}
    for lib in LIBS:
        xs = build(lib, args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            fn_ = torch_analytical if lib is torch else get_analytical_jacobian
            res[lib] = fn_(xs, (xs[0].sin() * xs[1]).sum(0) + xs[1])
    assert_same(list(res[tt][0]), list(res[torch][0]), strides=False)
    assert res[tt][1:] == (True, True, True)


def test_numerical_jacobian_order_follows_logical_elements():
    # a permuted input is nudged in logical (row-major) order, whatever its memory order
    x = G(2, 3, layout="permuted").build(tt)
    w = tt.arange(6, dtype=tt.float64).reshape(2, 3)
    jac, = gc_module._get_numerical_jacobian(lambda x: (x * w).sum(), (x,), eps=1e-6)[0]
    np.testing.assert_allclose(jac.cpu().numpy()[:, 0], np.arange(6.0), atol=1e-8)


@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple), layout=layouts(False),
       fast=st.booleans())
def test_hypothesis_passes_and_catches(shape, layout, fast):
    x = P(np.random.default_rng(len(shape)).uniform(-1, 1, shape), layout).build(tt).requires_grad_()
    assert tt.autograd.gradcheck(lambda x: x.sin() * x + 1, x, fast_mode=fast)

    def wrong(x):
        y = x * 1
        y.register_hook(lambda g: g * 1.01)     # a 1% error is caught
        return y.exp()
    assert tt.autograd.gradcheck(wrong, x, fast_mode=fast, raise_exception=False) is False


def test_undefined_grad_through_copy_slices():
    # the backward of a slice writes the gradient into a slice of zeros (a CopySlices node in double
    # backward): gradgradcheck's undefined-gradient check sends it an undefined gradient
    assert same_outcome("gradgradcheck", lambda lib: lambda x: x[1:], G(3, 2)) is True


def test_empty_input_strides():
    # an empty tensor made from NumPy data has strides (0, 0): torch refuses it like an expanded one ...
    e = same_outcome("gradcheck", lambda lib: lambda x: x.sin(), G(2, 0))
    assert isinstance(e, RuntimeError) and "stride 0" in str(e)
    # ... while a freshly laid out empty tensor (strides (1, 1)) is checked
    for make in (lambda lib: lib.empty(2, 0, dtype=lib.float64), lambda lib: G(2, 0).build(lib).detach().clone(
            memory_format=lib.contiguous_format)):
        x = make(tt).requires_grad_()
        assert x.stride() == make(torch).stride() == (1, 1)
        assert tt.autograd.gradcheck(lambda x: x.sin(), x) and tt.autograd.gradgradcheck(lambda x: x.sin() * x, x)
