"""The activations added for issue 14 (teachtorch/nn/functional/activation.py, nn/modules/activation.py)
against PyTorch: elu, selu, celu, softplus, mish, hardtanh, relu6, hardswish, hardsigmoid, logsigmoid,
softsign, tanhshrink, glu, prelu.

Values on every memory layout; first and second derivatives on every layout, both away from the kinks
(with gradcheck) and exactly at them (0 for the elu family and prelu, the bounds of hardtanh / relu6 /
hardsigmoid, -3 and 3 for hardswish, beta * x == threshold for softplus), where the gradient is a
convention and ours must be PyTorch's; huge inputs, where an unused branch must not turn the gradient
into nan; the in-place forms; the error messages; the modules (repr, state_dict, check_module).

Issue 16: each activation is PyTorch's fused op with its backward op (ops/activation.py): the node name of
every activation function and module is PyTorch's, second derivatives at the kinks too, one dispatched op
each way, and float16 computed in float32 as PyTorch's kernels do.
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
# piecewise linear: second derivatives are compared in test_fused_values_gradients_and_nodes (FUSED)
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
    # (second derivatives at the kinks: test_fused_second_derivatives_at_kinks)
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
            grads[lib] = (g.detach().cpu(), gg.cpu())
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


@pytest.mark.parametrize("name", ["elu", "celu", "selu"])
def test_elu_second_derivative_at_zero_is_pytorchs(name):
    """At exactly 0 the backward takes the exponential branch (x <= 0) and PyTorch's double backward masks
    with x < 0, so the second derivative there is 0: with elu_backward and its own formula, ours is too
    (a composition of where/exp gave alpha * input_scale**2 * scale, the limit from the left)."""
    kwargs = {"alpha": 2.0} if name == "celu" else {}
    got = {}
    for lib in (tt, torch):
        x = lib.tensor([0.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib.nn.functional, name)(x, **kwargs).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        got[lib] = (g.item(), gg.item())
    assert got[tt][0] == pytest.approx(got[torch][0])
    assert got[torch][1] == 0.0 and got[tt][1] == 0.0


# ---- issue 16: PyTorch's fused activation ops, their backward ops and their nodes ---------------------------------
# Each activation is one op forward (`aten::gelu`) and one op backward (`gelu_backward`), as in PyTorch, with
# PyTorch's node name; the backward ops have derivatives of their own, so second derivatives are compared too,
# at the kinks included (PyTorch's double backward conventions are the backward ops' formulas).

FUSED = {
    "gelu": lambda lib, x: F(lib).gelu(x),
    "gelu_tanh": lambda lib, x: F(lib).gelu(x, approximate="tanh"),
    "silu": lambda lib, x: F(lib).silu(x),
    "leaky_relu": lambda lib, x: F(lib).leaky_relu(x, 0.2),
    "leaky_relu_negative_slope": lambda lib, x: F(lib).leaky_relu(x, -0.3),
    "hardtanh": lambda lib, x: F(lib).hardtanh(x, -0.5, 2.0),
    "relu6": lambda lib, x: F(lib).relu6(x),
    "elu": lambda lib, x: F(lib).elu(x, 0.7),
    "selu": lambda lib, x: F(lib).selu(x),
    "celu": lambda lib, x: F(lib).celu(x, 2.0),
    "softplus": lambda lib, x: F(lib).softplus(x),
    "softplus_beta": lambda lib, x: F(lib).softplus(x, beta=2, threshold=2),
    "hardsigmoid": lambda lib, x: F(lib).hardsigmoid(x),
    "hardswish": lambda lib, x: F(lib).hardswish(x),
    "mish": lambda lib, x: F(lib).mish(x),
    "threshold": lambda lib, x: F(lib).threshold(x, 1.0, -2.0),
    "logsigmoid": lambda lib, x: F(lib).logsigmoid(x),
    "glu": lambda lib, x: F(lib).glu(x),
    "glu_dim0": lambda lib, x: F(lib).glu(x, 0),
    "relu": lambda lib, x: F(lib).relu(x),
}


@pytest.mark.parametrize("name", FUSED)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fused_values_gradients_and_nodes(name, layout):
    # values, node name, first and second derivatives against PyTorch, gradcheck and gradgradcheck in float64
    # (hardsigmoid_backward has no derivative, in PyTorch 2.13 as here: test_hardsigmoid_has_no_second_derivative)
    second = name != "hardsigmoid"
    check_grad(FUSED[name], P(SMOOTH, layout), rtol=1e-4, atol=1e-5, double=second, gradgradcheck=second)


def test_hardsigmoid_has_no_second_derivative():
    def second(lib):
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        (g,) = lib.autograd.grad(F(lib).hardsigmoid(x).sum(), x, create_graph=True)
        g.sum().backward()
    check(second)


@pytest.mark.parametrize("name", FUSED)
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_fused_second_derivatives_at_kinks(name, layout):
    # (mish'' at 100 is nan in PyTorch's float32, finite here: test_huge_inputs_give_pytorchs_second_derivatives)
    check_grad(FUSED[name], P(KINKS, layout), rtol=1e-4, atol=1e-5, gradcheck=False, gradgradcheck=False,
               double=name not in ("hardsigmoid", "mish"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_prelu_node_and_second_derivatives(layout):
    x = P(SMOOTH.reshape(2, 4, 2), layout)
    check_grad(lambda lib, x, w: F(lib).prelu(x, w), x, P(np.array([0.25, -0.5, 1.5, 0.1], np.float32)),
               rtol=1e-4, atol=1e-5)
    check_grad(lambda lib, x, w: F(lib).prelu(x, w), x, P(np.array([0.25], np.float32)), rtol=1e-4, atol=1e-5)


# every activation function and module in teachtorch.nn: the node of its output is PyTorch's
NODE_FUNCTIONS = dict(ACTIVATIONS, **FUSED, **{
    "sigmoid": lambda lib, x: F(lib).sigmoid(x),
    "tanh": lambda lib, x: F(lib).tanh(x),
    "softmax": lambda lib, x: F(lib).softmax(x, 1),
    "log_softmax": lambda lib, x: F(lib).log_softmax(x, 1),
    "softmin": lambda lib, x: F(lib).softmin(x, 1),
    "prelu": lambda lib, x: F(lib).prelu(x, lib.tensor([0.25], device=x.device)),
    "relu_inplace": lambda lib, x: F(lib).relu(x * 1, inplace=True),
    "gelu_module": lambda lib, x: lib.nn.GELU("tanh")(x),
    **{f"{name}_inplace": (lambda fn: lambda lib, x: fn(lib, x * 1))(fn) for name, fn in INPLACE.items()},
    "silu_inplace": lambda lib, x: F(lib).silu(x * 1, inplace=True),
    "leaky_relu_inplace": lambda lib, x: F(lib).leaky_relu(x * 1, 0.1, inplace=True),
})

NODE_MODULES = {
    "ReLU": lambda nn: nn.ReLU(), "LeakyReLU": lambda nn: nn.LeakyReLU(), "GELU": lambda nn: nn.GELU(),
    "SiLU": lambda nn: nn.SiLU(), "Tanh": lambda nn: nn.Tanh(), "Sigmoid": lambda nn: nn.Sigmoid(),
    "Softmax": lambda nn: nn.Softmax(1), "LogSoftmax": lambda nn: nn.LogSoftmax(1), "ELU": lambda nn: nn.ELU(),
    "SELU": lambda nn: nn.SELU(), "CELU": lambda nn: nn.CELU(), "Softplus": lambda nn: nn.Softplus(),
    "Mish": lambda nn: nn.Mish(), "Hardtanh": lambda nn: nn.Hardtanh(), "Threshold": lambda nn: nn.Threshold(0.1, 2),
    "ReLU6": lambda nn: nn.ReLU6(), "Hardswish": lambda nn: nn.Hardswish(), "Hardsigmoid": lambda nn: nn.Hardsigmoid(),
    "LogSigmoid": lambda nn: nn.LogSigmoid(), "Softsign": lambda nn: nn.Softsign(),
    "Tanhshrink": lambda nn: nn.Tanhshrink(), "GLU": lambda nn: nn.GLU(), "PReLU": lambda nn: nn.PReLU(),
    "Softmin": lambda nn: nn.Softmin(1),
}


def _node_name(lib, fn, values):
    x = P(values).build(lib).requires_grad_(True)
    return type(fn(lib, x).grad_fn).__name__


@pytest.mark.parametrize("name", NODE_FUNCTIONS)
def test_function_node_names_are_pytorchs(name):
    assert _node_name(tt, NODE_FUNCTIONS[name], SMOOTH) == _node_name(torch, NODE_FUNCTIONS[name], SMOOTH)


@pytest.mark.parametrize("name", NODE_MODULES)
def test_module_node_names_are_pytorchs(name):
    def run(lib, x):
        module = NODE_MODULES[name](lib.nn)
        return module.to(x.device)(x)
    assert _node_name(tt, run, SMOOTH) == _node_name(torch, run, SMOOTH)


@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_softmin(layout):
    check_grad(lambda lib, x: F(lib).softmin(x, 0), P(SMOOTH, layout), rtol=1e-5, atol=1e-6)
    check_grad(lambda lib, x: F(lib).softmin(x, 1, dtype=lib.float64), P(SMOOTH, layout), rtol=1e-5, atol=1e-6,
               gradcheck=False, gradgradcheck=False)
    check_module(lambda nn: nn.Softmin(1), P(SMOOTH, layout))
    assert repr(tt.nn.Softmin(1)) == repr(torch.nn.Softmin(1))


def test_every_activation_module_is_covered():
    assert set(tt.nn.modules.activation.__all__) <= set(NODE_MODULES)


def test_one_op_each_way():
    """gelu is one dispatched op forward and one backward (PyTorch's gelu, gelu_backward), not six."""
    x = tt.randn(3, 4, requires_grad=True)
    with tt.dispatch.trace() as t:
        y = F(tt).gelu(x)
    assert [e.op for e in t.events if e.parent is None] == ["aten::gelu"]
    g = tt.ones(3, 4)
    with tt.dispatch.trace() as t:
        y.backward(g)
    ran = [e.op for e in t.events if e.parent is None and e.backward_node == "GeluBackward0"]
    assert ran == ["aten::gelu_backward"]


# float16 is computed in float32 and rounded once, as PyTorch's kernels do (opmath_t)
HALF_GRID = np.linspace(-6, 6, 97).astype(np.float16).reshape(1, 97)


def test_gelu_float16_is_pytorchs_at_the_issue_point():
    ours = F(tt).gelu(tt.tensor([-3.0], dtype=tt.float16)).item()
    theirs = torch.nn.functional.gelu(torch.tensor([-3.0], dtype=torch.float16)).item()
    assert ours == theirs == pytest.approx(-4.05e-3, abs=1e-5)        # (step by step in float16: -4.39e-3)


@pytest.mark.parametrize("name", [n for n in FUSED if n not in ("glu", "glu_dim0")])
def test_float16_forward_and_backward(name):
    fn = FUSED[name]
    # values to the last bit but one (erf, exp differ in their last float32 bits between NumPy and PyTorch)
    check(fn, P(HALF_GRID), rtol=1e-3, atol=1e-5)
    grads = {}
    for lib in (tt, torch):
        x = P(HALF_GRID).build(lib).requires_grad_(True)
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x)
        grads[lib] = g.detach().cpu().float().numpy()
    np.testing.assert_allclose(grads[tt], grads[torch], rtol=1e-3, atol=1e-5)


def test_fused_errors():
    check(lambda lib: F(lib).gelu(lib.tensor([1, 2])))                          # "GeluKernelImpl" not implemented
    check(lambda lib: F(lib).silu(lib.tensor([1, 2])))
    check(lambda lib: F(lib).logsigmoid(lib.tensor([1, 2])))
    check(lambda lib: F(lib).glu(lib.tensor([1, 2])))
    check(lambda lib: F(lib).prelu(lib.tensor([1, 2]), lib.tensor([1])))
    check(lambda lib: F(lib).gelu(lib.ones(2), approximate="erf"))
    check(lambda lib: F(lib).hardtanh(lib.tensor([True, False])))
    for name in ("hardtanh", "relu6", "threshold", "leaky_relu", "elu", "hardswish", "softplus"):   # ints
        check(lambda lib: FUSED[name](lib, lib.tensor([-2, 0, 3])))
    check(lambda lib: F(lib).embedding(lib.tensor([-1]), lib.ones(3, 2)))

    def negative_slope_in_place(lib):
        x = lib.ones(3, requires_grad=True) * 1
        F(lib).leaky_relu(x, -0.1, inplace=True).sum().backward()
    check(negative_slope_in_place)
