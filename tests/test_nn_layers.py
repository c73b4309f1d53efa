"""The simple layers and their nn.functional twins, checked against PyTorch.

Modules: `check_module` (tests/nn_parity.py) copies torch's weights into ours and compares outputs,
gradients of inputs and parameters, in train and eval mode, on non-contiguous inputs.
Functions: `check` / `check_grad` / `check_inplace` (tests/parity.py) on every memory layout.
Random layers (dropout, the initialisers) cannot match torch's numbers: their distributions are tested.
"""

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module
from parity import LAYOUTS, P, check, check_grad, check_inplace, inputs, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

F_TT, F_TH = tt.nn.functional, torch.nn.functional


def F(lib):
    return F_TT if lib is tt else F_TH


def ids(values, layout="contiguous"):
    return P(np.array(values, dtype=np.int64), layout)


# ---- modules: parity in train and eval mode -------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_linear(layout):
    check_module(lambda nn: nn.Linear(4, 3), rand(5, 4, layout=layout))
    check_module(lambda nn: nn.Linear(4, 3, bias=False), rand(5, 4, layout=layout, seed=1))
    check_module(lambda nn: nn.Linear(4, 3), rand(2, 3, 4, layout=layout, seed=2))
    check_module(lambda nn: nn.Linear(4, 2), rand(4, layout=layout, seed=3))


def test_linear_dtype_and_shapes():
    m = tt.nn.Linear(3, 2, dtype=tt.float64, device="cpu")
    assert m.weight.dtype is tt.float64 and tuple(m.weight.shape) == (2, 3) and tuple(m.bias.shape) == (2,)
    assert m.bias is not None and tt.nn.Linear(3, 2, bias=False).bias is None
    check_module(lambda nn: nn.Linear(3, 2, dtype=torch.float64 if nn is torch.nn else tt.float64),
                 P(np.random.default_rng(0).standard_normal((4, 3))))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        check_module(lambda nn: nn.Linear(0, 2), P(np.zeros((3, 0), np.float32)))


@pytest.mark.parametrize("layout", ["permuted", "sliced", "expanded"])
@pytest.mark.parametrize("make", [
    lambda nn: nn.Identity(3, foo=1),
    lambda nn: nn.ReLU(),
    lambda nn: nn.LeakyReLU(),
    lambda nn: nn.LeakyReLU(0.3),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU(approximate="tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.Tanh(),
    lambda nn: nn.Sigmoid(),
    lambda nn: nn.Softmax(dim=1),
    lambda nn: nn.Softmax(dim=-1),
    lambda nn: nn.LogSoftmax(dim=0),
    lambda nn: nn.Flatten(),
    lambda nn: nn.Flatten(0, 1),
    lambda nn: nn.Unflatten(1, (2, 2)),
    lambda nn: nn.Dropout(0.0),
], ids=["Identity", "ReLU", "LeakyReLU", "LeakyReLU0.3", "GELU", "GELUtanh", "SiLU", "Tanh", "Sigmoid",
        "Softmax1", "Softmax-1", "LogSoftmax0", "Flatten", "Flatten01", "Unflatten", "Dropout0"])
def test_parameterless_layers(make, layout):
    check_module(make, rand(3, 4, 2, layout=layout))


@pytest.mark.parametrize("make", [
    lambda nn: nn.ReLU(inplace=True),
    lambda nn: nn.LeakyReLU(0.1, inplace=True),
    lambda nn: nn.SiLU(inplace=True),
    lambda nn: nn.Dropout(0.0, inplace=True),
], ids=["ReLU", "LeakyReLU", "SiLU", "Dropout"])
def test_inplace_layers(make):
    # in-place on a leaf that requires grad is an error in both libraries: run them on `x * 1`
    check_module(make, rand(3, 4, layout="permuted"), forward=lambda m, x: m(x * 1))


@pytest.mark.parametrize("layout", ["permuted", "sliced", "expanded"])
def test_dropout_eval_is_identity(layout):
    check_module(lambda nn: nn.Dropout(0.5), rand(4, 5, layout=layout), train=False)
    m = tt.nn.Dropout(0.9).eval()
    x = tt.randn(10)
    assert m(x) is x


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_embedding(layout):
    check_module(lambda nn: nn.Embedding(7, 3), ids([[1, 2, 6], [0, 2, 2]], layout))
    check_module(lambda nn: nn.Embedding(7, 3, padding_idx=2), ids([[1, 2, 6], [0, 2, 2]], layout))
    check_module(lambda nn: nn.Embedding(7, 3, padding_idx=-1), ids([[1, 6, 6], [0, 2, 2]], layout))
    check_module(lambda nn: nn.Embedding(5, 2), ids([4, 4, 0], layout))
    check_module(lambda nn: nn.Embedding(5, 2), ids(3))


def test_embedding_max_norm():
    # the lookup renormalises rows in place: compare the weights afterwards too
    def run(lib):
        torch.manual_seed(0)
        theirs = torch.nn.Embedding(6, 3, max_norm=1.0, norm_type=2.0)
        m = theirs if lib is torch else tt.nn.Embedding(6, 3, max_norm=1.0)
        if lib is tt:
            m.load_state_dict({"weight": tt.tensor(theirs.weight.detach().cpu().numpy())})
        idx = lib.tensor([[0, 2], [2, 5]])
        out = m(idx)
        return out, m.weight.detach().clone()
    check(run, share=False)


def test_embedding_init_and_padding_row():
    m = tt.nn.Embedding(4000, 8, padding_idx=3)
    w = m.weight.detach().cpu().numpy()
    assert not w[3].any()
    rest = np.delete(w, 3, axis=0)
    assert abs(rest.mean()) < 0.02 and abs(rest.std() - 1) < 0.02      # N(0, 1)
    out = m(tt.tensor([[3, 1], [3, 3]]))
    out.sum().backward()
    g = m.weight.grad.cpu().numpy()
    assert not g[3].any() and (g[1] == 1).all() and not g[0].any()
    assert repr(tt.nn.Embedding(5, 2, padding_idx=-2)) == repr(torch.nn.Embedding(5, 2, padding_idx=-2))
    pre = tt.nn.Embedding.from_pretrained(tt.ones(3, 2))
    assert not pre.weight.requires_grad and pre(tt.tensor([1])).tolist() == [[1.0, 1.0]]


def test_embedding_errors():
    w = rand(5, 3)
    check(lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w, padding_idx=5), w)
    check(lambda lib, w: F(lib).embedding(lib.tensor([1, 2]), w, padding_idx=-6), w)
    check(lambda lib, w: F(lib).embedding(lib.tensor([1, 7]), w), w)
    check(lambda lib, w: F(lib).embedding(lib.tensor([1.0, 2.0]), w), w)
    check(lambda lib: lib.nn.Embedding(5, 3, padding_idx=5))
    check(lambda lib, w: F(lib).embedding(lib.tensor([[4, 0]], dtype=lib.int32), w), w)   # int32 ids work too


# issue 16: embedding is PyTorch's one op (`aten::embedding`, node EmbeddingBackward0) with one backward op
# (`embedding_dense_backward`), which has a derivative of its own (second derivatives through the weight's grad)
EMBEDDING_CASES = {
    "plain": dict(),
    "padding_idx": dict(padding_idx=2),
    "negative_padding_idx": dict(padding_idx=-1),
    "scale_grad_by_freq": dict(scale_grad_by_freq=True),
    "both": dict(padding_idx=0, scale_grad_by_freq=True),
}


@pytest.mark.parametrize("case", EMBEDDING_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_embedding_node_and_gradients(case, layout):
    kwargs = EMBEDDING_CASES[case]
    indices = ids([[1, 2, 6], [0, 2, 2], [6, 6, 6]])
    # values, node name, the weight's gradient (repeated ids, the padding row, the counts), second derivatives
    # (a function of the weight's gradient is differentiated with respect to the output's gradient). gradcheck
    # only without the options: by design they are not the derivative (no gradient for the padding row)
    exact = not kwargs
    check_grad(lambda lib, w, i: F(lib).embedding(i, w, **kwargs), rand(7, 3, layout=layout), indices,
               rtol=1e-5, atol=1e-6, gradcheck=exact, gradgradcheck=exact)


def test_embedding_double_backward_goes_through_an_op():
    for lib in (tt, torch):
        w = lib.randn(5, 3, requires_grad=True)
        out = F(lib).embedding(lib.tensor([1, 1, 3]), w, padding_idx=3)
        v = lib.randn(3, 3, requires_grad=True)
        (g,) = lib.autograd.grad(out, w, v, create_graph=True)
        assert type(g.grad_fn).__name__ == "EmbeddingDenseBackwardBackward0"


def test_embedding_is_one_op_each_way():
    w = tt.randn(5, 3, requires_grad=True)
    with tt.dispatch.trace() as t:
        out = F(tt).embedding(tt.tensor([[1, 2], [2, 4]]), w)
    assert [e.op for e in t.events if e.parent is None and e.op != "aten::lift_fresh"][-1:] == ["aten::embedding"]
    with tt.dispatch.trace() as t:
        out.backward(tt.ones(2, 2, 3))
    assert [e.op for e in t.events if e.parent is None and e.backward_node == "EmbeddingBackward0"] == [
        "aten::embedding_dense_backward"]


def test_embedding_float16_sums_in_float16():
    """Many gradients added into one row: accumulated in float16 on the cpu, as PyTorch's CPU kernel does (it
    stalls at 256, where + 0.1 rounds back to 256); in float32 on cuda, as PyTorch's CUDA kernel does (acc_type)."""
    for scale in (False, True):
        w = tt.zeros(3, 2, dtype=tt.float16, requires_grad=True)
        out = F(tt).embedding(tt.zeros(3000, dtype=tt.int64, device=w.device), w, scale_grad_by_freq=scale)
        out.backward(tt.full((3000, 2), 0.1, dtype=tt.float16, device=w.device))
        ours = w.grad.float().cpu().numpy()
        if w.device.type == "cpu":
            theirs = torch.zeros(3, 2, dtype=torch.float16, requires_grad=True)
            torch.nn.functional.embedding(torch.zeros(3000, dtype=torch.int64), theirs,
                                          scale_grad_by_freq=scale).backward(torch.full((3000, 2), 0.1,
                                                                                        dtype=torch.float16))
            np.testing.assert_allclose(ours, theirs.grad.float().numpy(), rtol=1e-3)
        else:
            expected = 0.1 if scale else 3000 * np.float32(np.float16(0.1))
            np.testing.assert_allclose(ours[0], [expected] * 2, rtol=1e-3)


# stack and x.T: their nodes are PyTorch's (StackBackward0: stack is an op of its own; PermuteBackward0: `x.T` is
# `permute(n-1, ..., 0)`, for a matrix too); x.H of a real matrix stays a transpose
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_stack_node_and_gradients(dim, layout):
    check_grad(lambda lib, a, b: lib.stack([a, b], dim), rand(3, 4, layout=layout), rand(3, 4, seed=1),
               rtol=1e-6, atol=1e-6)
    check_grad(lambda lib, a, b: lib.stack([a, b.double()], dim), rand(3, 4, layout=layout), rand(3, 4, seed=1),
               rtol=1e-6, atol=1e-6, gradcheck=False, gradgradcheck=False)    # promoted: each gradient cast back


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_T_node_is_permute(shape):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # (PyTorch warns on x.T of other than 2 dims)
        check_grad(lambda lib, x: x.T, rand(*shape, layout="permuted"))
    check_grad(lambda lib, x: x.H, rand(3, 4, layout="permuted"))
    check_grad(lambda lib, x: x.mT, rand(*shape, layout="sliced"))


def test_sequential_model_parity():
    check_module(lambda nn: nn.Sequential(nn.Flatten(), nn.Linear(6, 8), nn.GELU(), nn.Dropout(0.0),
                                          nn.Linear(8, 8), nn.SiLU(), nn.Linear(8, 3), nn.LogSoftmax(dim=1)),
                 rand(4, 2, 3, layout="permuted"))
    check_module(lambda nn: nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(12, 2), nn.Tanh()),
                 ids([[1, 2, 3], [9, 0, 0]], "sliced"))


def test_default_linear_init_distribution():
    m = tt.nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # U(-bound, bound): mean 0, std bound / sqrt(3)
    assert abs(w.mean()) < 0.01 * bound and abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    assert abs(b.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert np.abs(w).max() > 0.99 * bound


# ---- nn.init ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (6, 2, 3, 3), (1, 7)])
def test_fans_match_torch(shape):
    assert tt.nn.init._calculate_fan_in_and_fan_out(tt.empty(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_init_errors_match_torch():
    for fn in (lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.empty(3)),
               lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(3, 3), mode="fan_avg"),
               lambda lib: lib.nn.init.xavier_normal_(lib.empty(2)),
               lambda lib: lib.nn.init.calculate_gain("softplus"),
               lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
               lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2))):
        check(fn)


def test_calculate_gain_matches_torch():
    for name in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu", "leaky_relu"):
        assert tt.nn.init.calculate_gain(name) == torch.nn.init.calculate_gain(name)
    for slope in (0, 0.2, 3):
        assert tt.nn.init.calculate_gain("leaky_relu", slope) == torch.nn.init.calculate_gain("leaky_relu", slope)


def _stats(t):
    a = t.detach().cpu().numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_init_distributions():
    tt.manual_seed(0)       # 3-sigma bounds on 60,000 draws: a fixed draw, not whatever the tests before left
    init = tt.nn.init
    n = (200, 300)
    fan_in, fan_out = 300, 200
    mean, std, lo, hi = _stats(init.uniform_(tt.empty(n), -2, 3))
    assert lo >= -2 and hi <= 3 and abs(mean - 0.5) < 0.02 and abs(std - 5 / math.sqrt(12)) < 0.02
    mean, std, _, _ = _stats(init.normal_(tt.empty(n), 1.5, 0.5))
    assert abs(mean - 1.5) < 0.01 and abs(std - 0.5) < 0.01
    a = math.sqrt(6 / (fan_in + fan_out))
    mean, std, lo, hi = _stats(init.xavier_uniform_(tt.empty(n)))
    assert -a <= lo and hi <= a and abs(std - a / math.sqrt(3)) < 0.01 * a
    mean, std, _, _ = _stats(init.xavier_normal_(tt.empty(n), gain=2.0))
    assert abs(std - 2 * math.sqrt(2 / (fan_in + fan_out))) < 0.01 * std
    bound = math.sqrt(2) * math.sqrt(3 / fan_in)
    mean, std, lo, hi = _stats(init.kaiming_uniform_(tt.empty(n), nonlinearity="relu"))
    assert -bound <= lo and hi <= bound and abs(std - bound / math.sqrt(3)) < 0.01 * bound
    mean, std, _, _ = _stats(init.kaiming_normal_(tt.empty(n), mode="fan_out", nonlinearity="relu"))
    assert abs(std - math.sqrt(2 / fan_out)) < 0.01 * std
    mean, std, lo, hi = _stats(init.trunc_normal_(tt.empty(n), mean=0.0, std=1.0, a=-1.0, b=2.0))
    assert lo >= -1 and hi <= 2
    # the mean of N(0, 1) truncated to [-1, 2]: (phi(-1) - phi(2)) / (Phi(2) - Phi(-1))
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    Phi = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2
    assert abs(mean - (phi(-1) - phi(2)) / (Phi(2) - Phi(-1))) < 0.01
    assert (init.constant_(tt.empty(3), 2.5).cpu().numpy() == 2.5).all()
    assert (init.ones_(tt.empty(3)).cpu().numpy() == 1).all() and (init.zeros_(tt.empty(3)).cpu().numpy() == 0).all()
    assert (init.eye_(tt.empty(2, 3)).cpu().numpy() == np.eye(2, 3)).all()


def test_init_runs_under_no_grad_and_in_place():
    p = tt.nn.Parameter(tt.empty(4, 3))
    out = tt.nn.init.kaiming_uniform_(p, a=math.sqrt(5))
    assert out is p and p.is_leaf and p.grad_fn is None and p.requires_grad
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        tt.nn.init.kaiming_normal_(tt.empty(0, 3))
    g = tt.Generator(tt.get_default_device())
    g.manual_seed(3)
    a = tt.nn.init.normal_(tt.empty(5), generator=g).tolist()
    g.manual_seed(3)
    assert tt.nn.init.normal_(tt.empty(5), generator=g).tolist() == a


# ---- nn.functional: parity of values and gradients ----------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
def test_linear_functional(layout):
    x, w, b = rand(4, 3, layout=layout), rand(5, 3, layout=layout, seed=1), rand(5, layout=layout, seed=2)
    check(lambda lib, x, w, b: F(lib).linear(x, w, b), x, w, b)
    check(lambda lib, x, w: F(lib).linear(x, w), x, w)
    check(lambda lib, x, w, b: F(lib).linear(x, w, b), rand(2, 4, 3, layout=layout), w, b)
    check(lambda lib, x, w, b: F(lib).linear(x, w, b), rand(3, layout=layout), w, b)
    check_grad(lambda lib, x, w, b: F(lib).linear(x, w, b), x, w, b, name=False)
    check_grad(lambda lib, x, w, b: F(lib).linear(x, w, b), rand(2, 2, 3, layout=layout), w, b, name=False)


def test_linear_shape_error():
    check(lambda lib, x, w: F(lib).linear(x, w), rand(4, 3), rand(5, 2), msg=False)


ACTIVATIONS = {
    "relu": lambda lib, x: F(lib).relu(x),
    "leaky_relu": lambda lib, x: F(lib).leaky_relu(x, 0.2),
    "gelu": lambda lib, x: F(lib).gelu(x),
    "gelu_tanh": lambda lib, x: F(lib).gelu(x, approximate="tanh"),
    "silu": lambda lib, x: F(lib).silu(x),
    "tanh": lambda lib, x: F(lib).tanh(x),
    "sigmoid": lambda lib, x: F(lib).sigmoid(x),
    "softmax": lambda lib, x: F(lib).softmax(x, dim=-1),
    "log_softmax": lambda lib, x: F(lib).log_softmax(x, dim=0),
    "softmax_dtype": lambda lib, x: F(lib).softmax(x, 1, dtype=lib.float64),
    "log_softmax_dtype": lambda lib, x: F(lib).log_softmax(x, dim=1, dtype=lib.float64),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_activation_values(name, layout):
    x = rand(3, 4, layout=layout)
    check(ACTIVATIONS[name], x, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradients(name):
    # away from relu's kink at 0 the derivative is defined, so gradcheck applies
    values = np.array([[-2.5, -1.0, -0.3, 0.4], [0.7, 1.5, 2.2, -0.6], [3.0, -2.0, 0.1, -0.1]], np.float32)
    # leaky_relu is piecewise linear: our gradient (a `where` on a mask) does not depend on x, so no graph of it
    # is recorded, where PyTorch records a graph that computes zeros; its second derivative is not compared
    check_grad(ACTIVATIONS[name], P(values, "permuted"), name=False, rtol=1e-4, atol=1e-5,
               double=name != "leaky_relu", gradgradcheck=name != "leaky_relu")


@settings(max_examples=30, deadline=None)
@given(x=inputs(), name=st.sampled_from(sorted(ACTIVATIONS)[:7]))
def test_activation_fuzz(x, name):
    if "softmax" in name and x.values.ndim < 2:
        return
    check(ACTIVATIONS[name], x, rtol=1e-5, atol=1e-6)


def test_activation_edge_cases():
    check(lambda lib: F(lib).gelu(lib.ones(2), approximate="foo"))
    check(lambda lib: F(lib).relu(lib.tensor([True, False])))
    check(lambda lib: lib.nn.GELU("foo")(lib.ones(1)))
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    check(lambda lib, x: F(lib).leaky_relu(x), P(x))
    check(lambda lib, x: F(lib).relu(x), P(np.array([1, -2, 3], np.int64)))
    check(lambda lib, x: F(lib).softmax(x, 0), P(np.array([1, 2], np.int64)))


def test_softmax_without_dim_warns_and_picks_legacy_dim():
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        values = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        for name in ("softmax", "log_softmax"):
            with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
                ours = getattr(F_TT, name)(tt.tensor(values))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = getattr(F_TH, name)(torch.tensor(values))
            np.testing.assert_allclose(ours.cpu().numpy(), theirs.cpu().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_inplace_activations(layout):
    x = rand(3, 4, layout=layout)
    check_inplace(lambda lib, x: F(lib).relu(x, inplace=True), x)
    check_inplace(lambda lib, x: F(lib).relu_(x), x)
    check_inplace(lambda lib, x: F(lib).leaky_relu(x, 0.3, inplace=True), x)
    check_inplace(lambda lib, x: F(lib).silu(x, inplace=True), x, rtol=1e-5, atol=1e-6)


def test_inplace_activation_gradients():
    # in place on a non-leaf, then backward: the gradient is that of the out-of-place function
    for fn in (lambda lib, x: F(lib).relu(x * 1, inplace=True),
               lambda lib, x: F(lib).leaky_relu(x * 1, 0.3, inplace=True),
               lambda lib, x: F(lib).silu(x * 1, inplace=True)):
        check_grad(fn, P(np.array([[-1.5, 0.5], [2.0, -0.2]], np.float32), "permuted"), name=False,
                   gradgradcheck=False, double=False)


# ---- dropout ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_statistics_and_exact_scaling(p):
    tt.manual_seed(0)
    x = tt.rand(200, 300) + 0.5
    out = F_TT.dropout(x, p)
    xv, ov = x.cpu().numpy(), out.cpu().numpy()
    kept = ov != 0
    scale = np.float32(1) / np.float32(1 - p)            # the mask holds 1 / (1 - p) in float32
    np.testing.assert_array_equal(ov[kept], xv[kept] * scale)
    assert abs(kept.mean() - (1 - p)) < 0.01             # the share of kept elements
    # and the expected value is unchanged: within 5 standard errors of the mean of x * mask / (1 - p)
    assert abs(ov.mean() - xv.mean()) < 5 * np.sqrt((xv ** 2).mean() * p / (1 - p) / xv.size)


def test_dropout_backward_uses_the_same_mask():
    x = tt.ones(50, 40, requires_grad=True)
    out = F_TT.dropout(x, 0.25)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), out.detach().cpu().numpy())   # both are mask / (1 - p)


def test_dropout_special_cases():
    x = tt.randn(4, 5)
    assert F_TT.dropout(x, 0.5, training=False) is x and F_TT.dropout(x, 0.0) is x
    check(lambda lib, x: F(lib).dropout(x, 1.0), rand(3, 4, layout="sliced"))
    for p in (1.5, -0.1):
        check(lambda lib, x: F(lib).dropout(x, p), rand(2))
        check(lambda lib: lib.nn.Dropout(p))
    y = x.clone()
    assert F_TT.dropout(y, 0.5, inplace=True) is y
    kept = y.cpu().numpy() != 0
    np.testing.assert_array_equal(y.cpu().numpy()[kept], x.cpu().numpy()[kept] * np.float32(2))


def test_dropout_module_train_and_eval():
    m = tt.nn.Dropout(0.5)
    x = tt.ones(1000)
    assert (m(x).cpu().numpy() == 0).any()
    m.eval()
    assert m(x) is x
    seq = tt.nn.Sequential(tt.nn.Linear(3, 3), tt.nn.Dropout(0.5)).eval()
    assert not seq[1].training


# ---- one_hot -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_one_hot(layout):
    t = ids([[0, 2, 1], [3, 3, 0]], layout)
    check(lambda lib, t: F(lib).one_hot(t), t)
    check(lambda lib, t: F(lib).one_hot(t, 6), t)
    check(lambda lib, t: F(lib).one_hot(t, num_classes=-1), ids(2))


def test_one_hot_errors():
    check(lambda lib: F(lib).one_hot(lib.tensor([1.0, 2.0])))
    check(lambda lib: F(lib).one_hot(lib.tensor([1, -2])))
    check(lambda lib: F(lib).one_hot(lib.tensor([1, 5]), 3))
    check(lambda lib: F(lib).one_hot(lib.tensor([], dtype=lib.int64)))
    check(lambda lib: F(lib).one_hot(lib.tensor([], dtype=lib.int64), 3))
    check(lambda lib: F(lib).one_hot(lib.tensor([1, 2]), -2))
    check(lambda lib: F(lib).one_hot(lib.tensor([1, 2], dtype=lib.int32), 3))


# ---- pad -----------------------------------------------------------------------------------------------------


PADS = {
    1: [(1, 2), (0, 3), (-1, 2), (2, -1), (-2, -1)],
    2: [(1, 1, 2, 0), (-1, 2, 1, -1), (0, 0, 1, 1)],
    3: [(1, 2, 1, 0, 1, 1), (1, -1, 0, 2, -1, 1)],
}


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_pad_values(mode, layout):
    for shape in [(2, 3, 4), (2, 3, 4, 5), (2, 2, 3, 4, 4)]:
        x = rand(*shape, layout=layout)
        for n_dims in (1, 2, 3):
            for pad in PADS[n_dims]:
                if mode != "constant" and (2 * n_dims, len(shape)) not in ((2, 3), (4, 3), (4, 4), (6, 4), (6, 5)):
                    continue
                check(lambda lib, x: F(lib).pad(x, pad, mode=mode), x, share=False)
    check(lambda lib, x: F(lib).pad(x, (1, 2), value=2.5), rand(3, 4, layout=layout))
    check(lambda lib, x: F(lib).pad(x, (1, 2, 0, 1, 1, 1, 1, 0)), rand(2, 3, 2, 2, layout=layout))
    check(lambda lib, x: F(lib).pad(x, (1, 1), value=2.5), rand(2, 3, dtype="int32", layout=layout))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradients(mode):
    x = rand(2, 3, 4, layout="permuted")
    # pad is linear in x: the second derivative is zero (ours records no graph for it, PyTorch's does)
    check_grad(lambda lib, x: F(lib).pad(x, (2, 1), mode=mode), x, name=False, gradgradcheck=False, double=False)
    check_grad(lambda lib, x: F(lib).pad(x, (-1, 2, 1, 1), mode=mode), x, name=False, gradgradcheck=False,
               double=False)


def test_pad_errors():
    x = rand(2, 3)
    for pad, mode, kwargs in [((1,), "constant", {}), ((1, 1, 1, 1, 1, 1), "constant", {}),
                              ((3, 3), "reflect", {}), ((4, 4), "circular", {}), ((1, 1), "foo", {}),
                              ((1, 1), "reflect", {"value": 2}), ((-2, -2), "constant", {}),
                              ((1, 1, 1, 1), "replicate", {})]:
        check(lambda lib, x: F(lib).pad(x, pad, mode=mode, **kwargs), x)
    check(lambda lib, x: F(lib).pad(x, (1, 1), mode="reflect"), rand(3))
    check(lambda lib, x: F(lib).pad(x, (5, 1, 1, 1), mode="reflect"), rand(2, 3, 4, 5))
    check(lambda lib, x: F(lib).pad(x, (1, 1, 4, 1), mode="reflect"), rand(2, 3, 4, 5))
    check(lambda lib, x: F(lib).pad(x, (1, 1), mode="replicate"), rand(2, 0, 3))
    check(lambda lib, x: F(lib).pad(x, (1, 1), mode="reflect"), rand(2, 3, 0))
    check(lambda lib, x: F(lib).pad(x, (-1, -1, 1, 1), mode="replicate"), rand(2, 3, 4, 1))
    check(lambda lib, x: F(lib).pad(x, (-3, -3, 1, 1), mode="circular"), rand(2, 3, 4, 5))
    check(lambda lib, x: F(lib).pad(x, (1, 1), mode="reflect", value=0), x)
    check(lambda lib, x: F(lib).pad(x, [1.5, 1]), x)
