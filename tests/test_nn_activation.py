"""The activations added for issue 14 (teachtorch/nn/functional/activation.py, nn/modules/activation.py)
against PyTorch: elu, selu, celu, softplus, mish, hardtanh, relu6, hardswish, hardsigmoid, logsigmoid,
softsign, tanhshrink, glu, prelu.

Values on every memory layout; first and second derivatives on every layout, both away from the kinks
(with gradcheck) and exactly at them (0 for the elu family and prelu, the bounds of hardtanh / relu6 /
hardsigmoid, -3 and 3 for hardswish, beta * x == threshold for softplus), where the gradient is a
convention and ours must be PyTorch's; huge inputs, where an unused branch must not turn the gradient
into nan; the in-place forms; the error messages; the modules (repr, state_dict, check_module).
"""

import numpy as np
import pytest
import torch

import teachtorch as tt
from nn_parity import check_module
from parity import LAYOUTS, P, check, check_grad, check_inplace, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)


def F(lib):
    return lib.nn.functional


ACTIVATIONS = {
    "elu": lambda lib, x: F(lib).elu(x),
    "elu_alpha": lambda lib, x: F(lib).elu(x, alpha=0.5),
    "selu": lambda lib, x: F(lib).selu(x),
    "celu": lambda lib, x: F(lib).celu(x, alpha=2.0),
    "softplus": lambda lib, x: F(lib).softplus(x),
    "softplus_beta": lambda lib, x: F(lib).softplus(x, beta=2, threshold=2),
    "softplus_negative_beta": lambda lib, x: F(lib).softplus(x, beta=-1.5),
    "mish": lambda lib, x: F(lib).mish(x),
    "hardtanh": lambda lib, x: F(lib).hardtanh(x),
    "hardtanh_bounds": lambda lib, x: F(lib).hardtanh(x, min_val=-0.5, max_val=2.0),
    "relu6": lambda lib, x: F(lib).relu6(x),
    "hardswish": lambda lib, x: F(lib).hardswish(x),
    "hardsigmoid": lambda lib, x: F(lib).hardsigmoid(x),
    "logsigmoid": lambda lib, x: F(lib).logsigmoid(x),
    "softsign": lambda lib, x: F(lib).softsign(x),
    "tanhshrink": lambda lib, x: F(lib).tanhshrink(x),
    "glu": lambda lib, x: F(lib).glu(x),
    "glu_dim0": lambda lib, x: F(lib).glu(x, 0),
    "threshold": lambda lib, x: F(lib).threshold(x, 1.0, -2.0),
    "threshold_at_kink": lambda lib, x: F(lib).threshold(x, 0.0, 0.0),
}
# piecewise linear: our gradient is a `where` on a mask that does not depend on x, so no graph of it is
# recorded where PyTorch records one that computes zeros; their second derivatives are not compared
PIECEWISE_LINEAR = {"hardtanh", "hardtanh_bounds", "relu6", "hardsigmoid", "threshold", "threshold_at_kink"}

# every kink of the functions above, and values beyond the ranges where exp overflows in float32
KINKS = np.array([[0.0, -3.0, 3.0, 6.0], [-1.0, 1.0, 2.0, -0.5], [100.0, -100.0, 30.0, -30.0],
                  [1.0, 0.0, -3.0, 3.0]], np.float32)
SMOOTH = np.array([[-2.5, -1.3, -0.3, 0.4], [0.7, 1.5, 2.2, -0.6], [4.0, -4.5, 0.1, -0.1],
                   [3.5, -3.7, 5.0, 7.0]], np.float32)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_values(name, layout):
    check(ACTIVATIONS[name], rand(3, 4, 2, layout=layout, low=-8, high=8), rtol=1e-5, atol=1e-6)
    check(ACTIVATIONS[name], P(KINKS, layout), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradients_away_from_kinks(name, layout):
    linear = name in PIECEWISE_LINEAR
    check_grad(ACTIVATIONS[name], P(SMOOTH, layout), name=False, rtol=1e-4, atol=1e-5, double=not linear,
               gradgradcheck=not linear)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_gradients_at_kinks_and_huge_inputs(name, layout):
    # at a kink the derivative is PyTorch's convention (numerical differentiation cannot check it: no gradcheck).
    # First derivatives only: PyTorch's double backward has conventions of its own at the kinks (elu's second
    # derivative at 0 is 0, its backward's test is x < 0), which these compositions do not reproduce
    check_grad(ACTIVATIONS[name], P(KINKS, layout), name=False, rtol=1e-4, atol=1e-5,
               double=False, gradcheck=False, gradgradcheck=False)


def test_kink_conventions_are_pytorchs():
    # spelled out, so that a change of convention on both sides still shows here
    x = tt.tensor([-3.0, 0.0, 3.0, 6.0, 1.0, -1.0], requires_grad=True)
    cases = {
        "relu6": [0, 0, 1, 0, 1, 0],
        "hardtanh": [0, 1, 0, 0, 0, 0],
        "hardsigmoid": [0, 1 / 6, 0, 0, 1 / 6, 1 / 6],
        "hardswish": [0, 0.5, 1, 1, 5 / 6, 1 / 6],
        "selu": [None, 1.0507009873554805 * 1.6732632423543772, None, None, 1.0507009873554805, None],
    }
    for name, expected in cases.items():
        (g,) = tt.autograd.grad(getattr(tt.nn.functional, name)(x).sum(), x)
        for got, want in zip(g.tolist(), expected):
            if want is not None:
                assert got == pytest.approx(want, rel=1e-6), (name, g.tolist())


def test_huge_inputs_give_finite_gradients():
    x = tt.tensor([1e4, -1e4, 88.0, 89.0, -89.0], requires_grad=True)
    for name in ("elu", "selu", "celu", "softplus", "mish", "logsigmoid", "softsign", "tanhshrink"):
        (g,) = tt.autograd.grad(getattr(tt.nn.functional, name)(x).sum(), x)
        assert not g.isnan().any(), (name, g)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_huge_inputs_give_pytorchs_second_derivatives(dtype):
    """softplus'' = sigmoid' at -100 (where exp(100) overflows float32): PyTorch 0, ours once nan (logaddexp's
    derivative was 1 / (1 + exp(other - self)), whose own derivative is inf / inf there)."""
    values = [-1e4, -100.0, -88.0, -30.0, -1.0, 0.0, 1.0, 30.0, 88.0, 100.0, 1e4]
    for name in ("softplus", "mish", "logsigmoid", "silu", "softsign", "tanhshrink", "gelu"):
        grads = {}
        for lib in (tt, torch):
            x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
            (g,) = lib.autograd.grad(getattr(lib.nn.functional, name)(x).sum(), x, create_graph=True)
            (gg,) = lib.autograd.grad(g.sum(), x)
            grads[lib] = (g.detach(), gg)
        ours, theirs = grads[tt], grads[torch]
        for a, b in zip(ours, theirs):
            assert not a.isnan().any(), (name, a)
            finite = b.isfinite()               # torch's mish'' is nan at +100 in float32: ours is 0 there
            np.testing.assert_allclose(a.numpy()[finite.numpy()], b.numpy()[finite.numpy()], rtol=1e-5,
                                       atol=1e-7, err_msg=name)


def _with_zeros(shape, seed=0):
    values = np.random.default_rng(seed).uniform(-3, 3, size=shape).astype(np.float32)
    values.reshape(-1)[::5] = 0.0                            # prelu's kink, where the slope is the weight
    return values


@pytest.mark.parametrize("layout", LAYOUTS)
def test_prelu_function(layout):
    x = P(_with_zeros((2, 3, 4)), layout)
    for w in (P(np.array([0.25], np.float32)), P(np.array([0.1, -0.3, 2.0], np.float32), layout)):
        check_grad(lambda lib, x, w: F(lib).prelu(x, w), x, w, name=False, rtol=1e-4, atol=1e-5, double=False,
                   gradcheck=False, gradgradcheck=False)
    smooth = rand(2, 3, 4, layout=layout, seed=3)
    check_grad(lambda lib, x, w: F(lib).prelu(x, w), smooth, P(np.array([0.1, -0.3, 2.0], np.float32)),
               name=False, rtol=1e-4, atol=1e-5, double=False)
    # one slope for a 1-d input, and a 0-d weight
    check_grad(lambda lib, x, w: F(lib).prelu(x, w), P(_with_zeros((5,)), layout), P(np.float32(0.2)),
               name=False, rtol=1e-4, atol=1e-5, double=False, gradcheck=False, gradgradcheck=False)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5), (3,)])
@pytest.mark.parametrize("num_parameters", [1, 3])
def test_prelu_module(shape, num_parameters):
    if num_parameters == 3 and len(shape) == 1:
        shape = (3, 3)
    check_module(lambda nn: nn.PReLU(num_parameters, init=0.1), P(_with_zeros(shape), "permuted"))
    ours, theirs = tt.nn.PReLU(num_parameters), torch.nn.PReLU(num_parameters)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(ours.weight.detach().cpu().numpy(), theirs.weight.detach().numpy())


INPLACE = {
    "elu": lambda lib, x: F(lib).elu(x, 0.7, inplace=True),
    "elu_": lambda lib, x: F(lib).elu_(x),
    "selu": lambda lib, x: F(lib).selu(x, inplace=True),
    "celu": lambda lib, x: F(lib).celu(x, 1.5, inplace=True),
    "mish": lambda lib, x: F(lib).mish(x, inplace=True),
    "hardtanh": lambda lib, x: F(lib).hardtanh(x, -0.5, 0.5, inplace=True),
    "hardtanh_": lambda lib, x: F(lib).hardtanh_(x),
    "leaky_relu_": lambda lib, x: F(lib).leaky_relu_(x, 0.2),
    "selu_": lambda lib, x: F(lib).selu_(x),
    "celu_": lambda lib, x: F(lib).celu_(x, 0.5),
    "relu6": lambda lib, x: F(lib).relu6(x, inplace=True),
    "hardswish": lambda lib, x: F(lib).hardswish(x, inplace=True),
    "hardsigmoid": lambda lib, x: F(lib).hardsigmoid(x, inplace=True),
    "threshold": lambda lib, x: F(lib).threshold(x, 0.5, -1.0, inplace=True),
    "threshold_": lambda lib, x: F(lib).threshold_(x, 0.5, -1.0),
}


@pytest.mark.parametrize("name", INPLACE)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_inplace(name, layout):
    check_inplace(INPLACE[name], rand(3, 4, layout=layout, low=-7, high=7), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_gradients(name):
    # in place on a non-leaf, then backward: the gradient is that of the out-of-place function
    fn = INPLACE[name]
    check_grad(lambda lib, x: fn(lib, x * 1), P(KINKS, "permuted"), name=False, rtol=1e-4, atol=1e-5,
               double=False, gradcheck=False, gradgradcheck=False)


def test_inplace_on_a_leaf_is_an_error():
    check(lambda lib: F(lib).elu(lib.ones(2, requires_grad=True), inplace=True))


def test_errors():
    check(lambda lib: F(lib).glu(lib.ones(3)))
    check(lambda lib: F(lib).glu(lib.ones(())))
    check(lambda lib: F(lib).glu(lib.ones(2, 3), dim=1))
    check(lambda lib: F(lib).glu(lib.ones(2, 3), dim=-1))
    check(lambda lib: F(lib).glu(lib.ones(2, 4), dim=3))
    check(lambda lib: F(lib).hardtanh(lib.ones(2), 2.0, 1.0))
    check(lambda lib: lib.nn.Hardtanh(2.0, 1.0))
    check(lambda lib: lib.nn.Hardtanh(1.0, 1.0))
    check(lambda lib, x: F(lib).hardtanh(x, 1.0, 1.0), rand(3))
    check(lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(2)))
    check(lambda lib: F(lib).prelu(lib.ones(2, 3), lib.ones(3, 1)))
    check(lambda lib: F(lib).prelu(lib.ones(3), lib.ones(3)))
    check(lambda lib: F(lib).celu(lib.ones(2), 0.0))


MODULES = [
    lambda nn: nn.ELU(), lambda nn: nn.ELU(0.5), lambda nn: nn.SELU(), lambda nn: nn.CELU(2.0),
    lambda nn: nn.Softplus(), lambda nn: nn.Softplus(2, 1), lambda nn: nn.Mish(), lambda nn: nn.Hardtanh(),
    lambda nn: nn.Hardtanh(-0.5, 2.0), lambda nn: nn.ReLU6(), lambda nn: nn.Hardswish(),
    lambda nn: nn.Hardsigmoid(), lambda nn: nn.LogSigmoid(), lambda nn: nn.Softsign(), lambda nn: nn.Tanhshrink(),
    lambda nn: nn.GLU(), lambda nn: nn.GLU(1), lambda nn: nn.Threshold(0.5, -1.0),
]
INPLACE_MODULES = [
    lambda nn: nn.ELU(0.5, inplace=True), lambda nn: nn.SELU(True), lambda nn: nn.CELU(inplace=True),
    lambda nn: nn.Mish(True), lambda nn: nn.Hardtanh(-2, 3, True), lambda nn: nn.ReLU6(True),
    lambda nn: nn.Hardswish(True), lambda nn: nn.Hardsigmoid(True), lambda nn: nn.Threshold(0.5, -1.0, True),
]


@pytest.mark.parametrize("make", range(len(MODULES)))
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_modules(make, layout):
    make = MODULES[make]
    check_module(make, rand(3, 4, 2, layout=layout, low=-5, high=5))
    assert repr(make(tt.nn)) == repr(make(torch.nn))
    assert list(make(tt.nn).state_dict()) == []


@pytest.mark.parametrize("make", range(len(INPLACE_MODULES)))
def test_inplace_modules(make):
    make = INPLACE_MODULES[make]
    check_module(make, rand(3, 4, layout="permuted", low=-5, high=5), forward=lambda m, x: m(x * 1))
    assert repr(make(tt.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize("name, expected", [("elu", 1.0), ("celu", 0.5),
                                            ("selu", 1.0507009873554805 * 1.6732632423543772)])
def test_elu_deviation_second_derivative_at_zero(name, expected):
    """At exactly 0: ours is alpha * input_scale**2 * scale (the limit from the left), PyTorch's 0 (its double
    backward masks with x < 0, its backward with x <= 0). Elsewhere they agree (test_gradients_*)."""
    kwargs = {"alpha": 2.0} if name == "celu" else {}
    got = {}
    for lib in (tt, torch):
        x = lib.tensor([0.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib.nn.functional, name)(x, **kwargs).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        got[lib] = (g.item(), gg.item())
    assert got[tt][0] == pytest.approx(got[torch][0])              # first derivatives agree
    assert got[torch][1] == 0.0 and got[tt][1] == pytest.approx(expected)
