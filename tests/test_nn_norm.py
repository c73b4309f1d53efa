"""Normalisation: F.batch_norm, F.layer_norm, F.group_norm and BatchNorm1d/2d, LayerNorm, GroupNorm, against
PyTorch: values, strides, gradients of input, weight and bias, the running statistics (updated in place, over
several steps, with a momentum or as a cumulative average), train and eval mode, and the errors.

Issue 16: each is PyTorch's fused op (native_layer_norm, native_batch_norm, native_group_norm) with its backward
op: node names, second derivatives, one dispatched op each way, float16 in float32, the running statistics'
version counters."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module, copy_weights
from parity import LAYOUTS, P, assert_same, check, check_grad, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

F = tt.nn.functional


def grad_case(fn, *args, **kwargs):
    """Gradient parity (first and second order) of `fn(lib, *args)`. An expanded input (constant along one
    dim) can make a group constant: zero variance, where second derivatives grow like 1/eps and the float32
    rounding with them, so on that layout only first derivatives are compared, with a looser atol (there
    x - mean is exactly 0 here, and PyTorch's rounding noise of ~1e-4 reaches the weight's gradient)."""
    atol = 1e-4
    if any(isinstance(a, P) and a.layout == "expanded" for a in args):
        kwargs["double"] = False
        atol = 1e-3
    check_grad(fn, *args, name=False, gradcheck=False, gradgradcheck=False, rtol=1e-4, atol=atol, **kwargs)


def stats(c, seed=0):
    """Running statistics to start from: a mean and a (positive) variance per channel."""
    rng = np.random.default_rng(seed)
    return P(rng.standard_normal(c).astype("float32")), P((rng.random(c) + 0.5).astype("float32"))


# ---- F.batch_norm -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 5)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_values_and_gradients(shape, layout, training):
    c = shape[1]
    mean, var = stats(c)
    x = rand(*shape, layout=layout, low=-2, high=6)       # a mean far from 0, to test the centring
    grad_case(lambda lib, x, w, b: lib.nn.functional.batch_norm(x, _build(mean, lib), _build(var, lib), w, b,
                                                                training=training, momentum=0.2, eps=1e-3),
              x, rand(c, seed=1), rand(c, seed=2))


def _build(p, lib):
    return p.build(lib)


@pytest.mark.parametrize("momentum", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_batch_norm_updates_running_stats_in_place(momentum, layout):
    x = rand(5, 3, 4, 2, layout=layout, low=-1, high=5)
    mean, var = stats(3, seed=4)
    results = {}
    for lib in (tt, torch):
        rm, rv = mean.build(lib), var.build(lib)
        storages = (rm.untyped_storage().data_ptr(), rv.untyped_storage().data_ptr())
        out = lib.nn.functional.batch_norm(x.build(lib), rm, rv, training=True, momentum=momentum)
        assert (rm.untyped_storage().data_ptr(), rv.untyped_storage().data_ptr()) == storages
        results[lib] = (out, rm, rv)
    for a, b in zip(results[tt], results[torch]):
        assert_same(a, b, rtol=1e-5, atol=1e-6)


def test_batch_norm_without_running_stats_or_affine():
    grad_case(lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True), rand(6, 4, 3))
    grad_case(lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, training=True),
              rand(6, 4, layout="permuted"), rand(4, seed=1))
    # (double=False: PyTorch's double backward of batch_norm with a bias and no weight fails inside torch)
    grad_case(lambda lib, x, b: lib.nn.functional.batch_norm(x, None, None, None, b, training=True),
              rand(6, 4, 2, 2, layout="sliced"), rand(4, seed=1), double=False)


def test_batch_norm_second_derivatives():
    check_grad(lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True),
               rand(3, 2, 2, layout="permuted"), rand(2, seed=1), rand(2, seed=2), name=False,
               gradgradcheck=False, rtol=1e-4, atol=1e-4)


def test_batch_norm_channels_last_output():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype("float32")
    for lib in (tt, torch):
        t = lib.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
        assert lib.nn.functional.batch_norm(t, None, None, training=True).stride() == (60, 1, 15, 3)


@pytest.mark.parametrize("shape,args", [
    ((1, 3), dict(training=True)),
    ((1, 3, 1), dict(training=True)),
    ((4, 3), dict(running=4, training=True)),
    ((4, 3), dict(running=None, training=False)),
    ((4, 3), dict(weight=4, training=True)),
    ((4, 3), dict(bias=2, training=False)),
])
def test_batch_norm_errors(shape, args):
    def fn(lib, x):
        running = args.get("running", 3)
        rm = lib.zeros(running) if running else None
        rv = lib.ones(running) if running else None
        w = lib.ones(args["weight"]) if "weight" in args else None
        b = lib.zeros(args["bias"]) if "bias" in args else None
        return lib.nn.functional.batch_norm(x, rm, rv, w, b, training=args["training"])
    assert isinstance(check(fn, rand(*shape)), Exception)


# ---- BatchNorm modules ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.BatchNorm1d(3), (4, 3)),
    (lambda nn: nn.BatchNorm1d(3, momentum=0.3), (4, 3, 5)),
    (lambda nn: nn.BatchNorm1d(3, affine=False), (4, 3, 5)),
    (lambda nn: nn.BatchNorm2d(3), (2, 3, 4, 5)),
    (lambda nn: nn.BatchNorm2d(3, eps=1e-2, momentum=None), (2, 3, 4, 5)),
    (lambda nn: nn.BatchNorm2d(3, track_running_stats=False), (2, 3, 4, 5)),
    (lambda nn: nn.BatchNorm2d(3, bias=False), (2, 3, 4, 5)),
])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_batchnorm_module(make, shape, layout):
    check_module(make, rand(*shape, layout=layout, low=-2, high=4), rtol=1e-4, atol=1e-4)


def _train_steps(make, shapes, layout, modes):
    """Several forward passes (and backwards) through the same module pair, in the given modes, comparing
    the outputs, the parameter gradients and the buffers after every step."""
    torch.manual_seed(0)
    theirs, ours = make(torch.nn), make(tt.nn)
    copy_weights(ours, theirs)
    for step, (shape, mode) in enumerate(zip(shapes, modes)):
        theirs.train(mode)
        ours.train(mode)
        x = rand(*shape, layout=layout, seed=step, low=-3, high=5)
        outs = []
        for lib, module in ((tt, ours), (torch, theirs)):
            module.zero_grad()
            out = module(x.build(lib))
            if out.requires_grad:
                (out * out).sum().backward()
            outs.append((out.detach(), [p.grad for p in module.parameters()],
                         [b for b in module.buffers()]))
        (o1, g1, b1), (o2, g2, b2) = outs
        assert_same(o1, o2, rtol=1e-4, atol=1e-4, path=f"step {step} output")
        for i, (a, b) in enumerate(zip(g1, g2)):
            assert_same(a, b, rtol=1e-4, atol=1e-3, strides=False, path=f"step {step} grad {i}")
        assert len(b1) == len(b2)
        for i, (a, b) in enumerate(zip(b1, b2)):
            assert_same(a, b, rtol=1e-5, atol=1e-6, strides=False, path=f"step {step} buffer {i}")
    return ours, theirs


@pytest.mark.parametrize("momentum", [0.1, 0.7, None])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_batchnorm2d_running_stats_over_many_steps(momentum, layout):
    # train, train, train, eval (uses the running stats), train again, eval
    modes = [True, True, True, False, True, False]
    shapes = [(4, 3, 3, 3), (2, 3, 5, 2), (3, 3, 2, 2), (2, 3, 3, 3), (5, 3, 1, 2), (1, 3, 2, 2)]
    ours, _ = _train_steps(lambda nn: nn.BatchNorm2d(3, momentum=momentum), shapes, layout, modes)
    assert ours.num_batches_tracked.item() == 4 and ours.num_batches_tracked.dtype == tt.int64


@pytest.mark.parametrize("shape", [(5, 4), (3, 4, 6)])
def test_batchnorm1d_running_stats_over_many_steps(shape):
    modes = [True, True, False, True, False]
    _train_steps(lambda nn: nn.BatchNorm1d(4, momentum=None), [shape] * 5, "permuted", modes)
    _train_steps(lambda nn: nn.BatchNorm1d(4, track_running_stats=False), [shape] * 5, "sliced", modes)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_batchnorm2d_hypothesis(data):
    c = data.draw(st.integers(1, 4))
    steps = data.draw(st.integers(1, 4))
    shapes = [(data.draw(st.integers(2, 4)), c, data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
              for _ in range(steps)]
    modes = [data.draw(st.booleans()) for _ in range(steps)]
    momentum = data.draw(st.sampled_from([0.1, 0.9, None]))
    affine = data.draw(st.booleans())
    _train_steps(lambda nn: nn.BatchNorm2d(c, momentum=momentum, affine=affine), shapes,
                 data.draw(st.sampled_from(LAYOUTS)), modes)


def test_batchnorm_buffers_and_state_dict_like_pytorch():
    for make in (lambda nn: nn.BatchNorm2d(5), lambda nn: nn.BatchNorm1d(2, affine=False),
                 lambda nn: nn.BatchNorm2d(3, track_running_stats=False)):
        ours, theirs = make(tt.nn), make(torch.nn)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
        for (n, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert_same(a, b, path=n)
        assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.BatchNorm1d(3), (2, 3, 4, 5)),
    (lambda nn: nn.BatchNorm1d(3), (3,)),
    (lambda nn: nn.BatchNorm2d(3), (2, 3, 4)),
    (lambda nn: nn.BatchNorm1d(3), (1, 3)),
    (lambda nn: nn.BatchNorm2d(3), (1, 3, 1, 1)),
])
def test_batchnorm_module_errors(make, shape):
    x = np.zeros(shape, "float32")
    with pytest.raises(ValueError) as theirs:
        make(torch.nn)(torch.tensor(x))
    with pytest.raises(ValueError) as ours:
        make(tt.nn)(tt.tensor(x))
    assert str(ours.value) == str(theirs.value)


def test_batchnorm_eval_single_sample_is_fine():
    check_module(lambda nn: nn.BatchNorm1d(3), rand(1, 3), train=False)


# ---- layer_norm -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,normalized", [((4, 6), (6,)), ((2, 3, 5), (5,)), ((2, 3, 5), (3, 5)),
                                               ((2, 3, 4, 2), (4, 2)), ((7,), 7)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layer_norm(shape, normalized, layout):
    wshape = (normalized,) if isinstance(normalized, int) else normalized
    x = rand(*shape, layout=layout, low=-1, high=7)
    grad_case(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, normalized, w, b, eps=1e-3), x,
              rand(*wshape, seed=1), rand(*wshape, seed=2))
    grad_case(lambda lib, x: lib.nn.functional.layer_norm(x, normalized), x)
    grad_case(lambda lib, x, w: lib.nn.functional.layer_norm(x, normalized, w), x, rand(*wshape, seed=1))
    # (double=False: PyTorch's double backward with a bias and no weight fails inside torch)
    grad_case(lambda lib, x, b: lib.nn.functional.layer_norm(x, normalized, None, b), x, rand(*wshape, seed=1),
              double=False)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_layer_norm_hypothesis(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    k = data.draw(st.integers(1, len(shape)))
    normalized = shape[len(shape) - k:]
    # (float64: with few elements per row the variance can be tiny, and the input's gradient is then mostly
    # cancellation, which float32 cannot reproduce from one library to the other)
    x = rand(*shape, layout=data.draw(st.sampled_from(LAYOUTS)), seed=data.draw(st.integers(0, 999)),
             dtype="float64")
    grad_case(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, normalized, w, b), x,
              rand(*normalized, seed=1, dtype="float64"), rand(*normalized, seed=2, dtype="float64"))


def test_layer_norm_gradcheck_float64():
    check_grad(lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3,), w, b), rand(2, 3, layout="permuted"),
               rand(3, seed=1), rand(3, seed=2), name=False, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make,layout", [
    (lambda nn: nn.LayerNorm(5), "contiguous"),
    (lambda nn: nn.LayerNorm((3, 5), eps=1e-3), "permuted"),
    (lambda nn: nn.LayerNorm(5, elementwise_affine=False), "sliced"),
    (lambda nn: nn.LayerNorm(5, bias=False), "expanded"),
])
def test_layernorm_module(make, layout):
    check_module(make, rand(2, 3, 5, layout=layout), rtol=1e-4, atol=1e-4)
    assert repr(make(tt.nn)) == repr(make(torch.nn))


def test_layer_norm_errors():
    check(lambda lib, x: lib.nn.functional.layer_norm(x, (4,)), rand(2, 3))
    check(lambda lib, x: lib.nn.functional.layer_norm(x, (2, 3), lib.ones(3)), rand(2, 3))
    check(lambda lib, x: lib.nn.functional.layer_norm(x, (3,), None, lib.ones(4)), rand(2, 3))


# ---- group_norm -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,groups", [((2, 6), 3), ((2, 6, 5), 2), ((2, 4, 3, 3), 4), ((3, 4, 2, 3), 1)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_group_norm(shape, groups, layout):
    c = shape[1]
    x = rand(*shape, layout=layout, low=-1, high=7)
    grad_case(lambda lib, x, w, b: lib.nn.functional.group_norm(x, groups, w, b, eps=1e-3), x, rand(c, seed=1),
              rand(c, seed=2))
    grad_case(lambda lib, x: lib.nn.functional.group_norm(x, groups), x)


@pytest.mark.parametrize("make", [lambda nn: nn.GroupNorm(2, 4), lambda nn: nn.GroupNorm(4, 4, affine=False),
                                  lambda nn: nn.GroupNorm(1, 4, eps=1e-2, bias=False)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "expanded"])
def test_groupnorm_module(make, layout):
    check_module(make, rand(3, 4, 2, 3, layout=layout), rtol=1e-4, atol=1e-4)
    assert repr(make(tt.nn)) == repr(make(torch.nn))


def test_group_norm_errors():
    check(lambda lib, x: lib.nn.functional.group_norm(x, 4), rand(2, 6, 4))
    check(lambda lib, x: lib.nn.functional.group_norm(x, 3, lib.ones(5)), rand(2, 6, 4))
    check(lambda lib, x: lib.nn.functional.group_norm(x, 3, None, lib.ones(5)), rand(2, 6, 4))
    check(lambda lib, x: lib.nn.functional.group_norm(x, 3, lib.ones(6), lib.ones(5)), rand(2, 6, 4))
    check(lambda lib, x: lib.nn.functional.group_norm(x, 3), rand(6))
    with pytest.raises(ValueError) as theirs:
        torch.nn.GroupNorm(4, 6)
    with pytest.raises(ValueError) as ours:
        tt.nn.GroupNorm(4, 6)
    assert str(ours.value) == str(theirs.value)


def test_integer_inputs_are_refused():
    x = rand(2, 4, 3, dtype="int64")
    check(lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True), x)
    check(lambda lib, x: lib.nn.functional.layer_norm(x, (3,)), x)
    check(lambda lib, x: lib.nn.functional.group_norm(x, 2), x)


# ---- dtypes of input and parameters (issue 14: mixed dtypes) ------------------------------------------------

_NORM_DTYPES = [
    # (input, weight, bias, running stats): every branch of PyTorch's CPU rules (mixed_data_type.h)
    ("float64", "float32", "float32", "float32"),   # mixed, float32 parameters, input not reduced: refused
    ("float64", None, "float32", None),             # the first *given* parameter decides
    ("float32", "float64", "float64", "float64"),   # mixed, a parameter not float32
    ("float64", "float32", "float64", "float64"),   # mixed, one of them not float32
    ("float32", "float32", "float64", "float32"),   # not mixed, a later one differs: "expected scalar type"
    ("float64", "float64", "float16", "float64"),
    ("float16", "float16", "float32", "float16"),
    ("float16", "float32", "float32", "float32"),   # the one mix the kernels take: float16 with float32
    ("float16", "float32", None, "float32"),        # (teachtorch has no bfloat16, the other reduced float)
    ("float16", "float64", "float64", "float64"),
    ("int64", "float32", "float32", "float32"),     # an integer input with parameters: the mix is refused first
    ("float64", "float64", "float64", "float64"),
]


def _param(lib, dtype, n, value):
    return None if dtype is None else lib.full((n,), value, dtype=getattr(lib, dtype))


def _norm_input(lib, x, dtype):
    return x.to(getattr(lib, dtype))


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtypes", _NORM_DTYPES, ids=lambda d: "-".join(map(str, d)))
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", ["batch_norm_train", "batch_norm_eval", "layer_norm", "group_norm"])
def test_norm_mixed_dtypes_like_pytorch(kind, layout, dtypes):
    x_dtype, w_dtype, b_dtype, r_dtype = dtypes

    def fn(lib, x):
        F = lib.nn.functional
        x = _norm_input(lib, x, x_dtype)
        w, b = _param(lib, w_dtype, 4, 1.5), _param(lib, b_dtype, 4, 0.25)
        if kind == "layer_norm":
            return F.layer_norm(x, (4,), w, b)
        if kind == "group_norm":
            return F.group_norm(x.transpose(1, 2), 2, w, b)
        # (in training, running stats of a dtype that only a later check refuses trip an internal assert in
        # PyTorch 2.13's CPU kernel, a bug of its own: the modules below cover training with running stats)
        rm, rv = _param(lib, r_dtype, 4, 0.5), _param(lib, r_dtype, 4, 2.0)
        if kind == "batch_norm_train":
            rm = rv = None
        if kind == "batch_norm_eval" and rm is None:
            rm, rv = lib.zeros(4, dtype=x.dtype), lib.ones(4, dtype=x.dtype)
        # (contiguous: on other layouts PyTorch 2.13's CPU batch_norm trips an internal assert instead of
        # "expected scalar type ...", its own bug; our checks do not depend on the layout)
        return F.batch_norm(x.transpose(1, 2).contiguous(), rm, rv, w, b, training=kind == "batch_norm_train")

    # (float16 results are compared with float16's tolerance by assert_same)
    check(fn, rand(3, 5, 4, layout=layout), strides=False)


@pytest.mark.cpu_only
@pytest.mark.parametrize("make", [
    lambda nn: nn.BatchNorm1d(3), lambda nn: nn.BatchNorm2d(3), lambda nn: nn.LayerNorm(5),
    lambda nn: nn.GroupNorm(1, 3)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted"])
def test_norm_module_refuses_float64_input_with_float32_parameters(make, layout):
    """A float32 module given a float64 batch: PyTorch refuses it (call `.double()` on the module)."""
    def fn(lib, x):
        m = make(lib.nn)
        shape = (2, 3, 5) if not isinstance(m, lib.nn.BatchNorm2d) else (2, 3, 5, 1)
        return m(x.reshape(shape))
    check(fn, rand(2, 3, 5, dtype="float64", layout=layout))
    for training in (True, False):
        check(lambda lib, x: make(lib.nn).train(training).double()(x.reshape(2, 3, 5) if not isinstance(
            make(lib.nn), lib.nn.BatchNorm2d) else x.reshape(2, 3, 5, 1)), rand(2, 3, 5, dtype="float64",
                                                                                layout=layout), atol=1e-6)


# ---- issue 16: PyTorch's fused normalisation ops (native_layer_norm, native_batch_norm, native_group_norm) --------
# one op forward and one backward each, with PyTorch's node names; second derivatives (create_graph) are exact.

NORM_FUNCTIONS = {
    "layer_norm": (lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (4,), w, b, eps=1e-3), (3, 2, 4), 4),
    "layer_norm_2d": (lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (2, 4), w.reshape(2, 2).repeat(1, 2),
                                                                        b.reshape(2, 2).repeat(1, 2)), (3, 2, 4), 4),
    "group_norm": (lambda lib, x, w, b: lib.nn.functional.group_norm(x, 2, w, b, eps=1e-3), (3, 4, 5), 4),
    "batch_norm_train": (lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True,
                                                                          eps=1e-3), (3, 4, 5), 4),
    "batch_norm_eval": (lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, lib.linspace(-1, 1, 4, device=x.device, dtype=x.dtype), lib.linspace(0.5, 2, 4, device=x.device,
                                                                                dtype=x.dtype), w, b,
        training=False), (3, 4, 5), 4),
}


@pytest.mark.parametrize("name", NORM_FUNCTIONS)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "offset"])
def test_fused_norms_nodes_and_second_derivatives(name, layout):
    fn, shape, c = NORM_FUNCTIONS[name]
    check_grad(fn, rand(*shape, layout=layout, low=-2, high=4), rand(c, seed=1, low=0.5, high=2),
               rand(c, seed=2), rtol=1e-4, atol=1e-4, gradgradcheck=False)


@pytest.mark.parametrize("name", NORM_FUNCTIONS)
def test_fused_norms_gradgradcheck(name):
    fn, shape, c = NORM_FUNCTIONS[name]
    xs = [rand(*shape, low=-2, high=4), rand(c, seed=1, low=0.5, high=2), rand(c, seed=2)]
    args = [p.build(tt).double().requires_grad_(True) for p in xs]
    assert tt.autograd.gradgradcheck(lambda *a: fn(tt, *a), args)


NORM_NODE_CASES = {
    "layer_norm_plain": lambda lib, x: lib.nn.functional.layer_norm(x, (5,)),
    "layer_norm_weight": lambda lib, x: lib.nn.functional.layer_norm(x, (5,), lib.ones(5, device=x.device)),
    "group_norm_plain": lambda lib, x: lib.nn.functional.group_norm(x, 2),
    "batch_norm_stats": lambda lib, x: lib.nn.functional.batch_norm(x, lib.zeros(4, device=x.device),
                                                                    lib.ones(4, device=x.device), training=True),
    "batch_norm_no_stats": lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
    "batch_norm_eval": lambda lib, x: lib.nn.functional.batch_norm(x, lib.zeros(4, device=x.device),
                                                                   lib.ones(4, device=x.device)),
    "LayerNorm": lambda lib, x: lib.nn.LayerNorm(5).to(x.device)(x),
    "LayerNorm_no_affine": lambda lib, x: lib.nn.LayerNorm((4, 5), elementwise_affine=False)(x),
    "GroupNorm": lambda lib, x: lib.nn.GroupNorm(2, 4).to(x.device)(x),
    "BatchNorm1d": lambda lib, x: lib.nn.BatchNorm1d(4).to(x.device)(x),
    "BatchNorm1d_eval": lambda lib, x: lib.nn.BatchNorm1d(4).to(x.device).eval()(x),
    "BatchNorm2d": lambda lib, x: lib.nn.BatchNorm2d(4).to(x.device)(x.unsqueeze(-1)),
    "BatchNorm2d_no_stats": lambda lib, x: lib.nn.BatchNorm2d(4, track_running_stats=False).to(x.device)(
        x.unsqueeze(-1)),
}


@pytest.mark.parametrize("name", NORM_NODE_CASES)
def test_norm_node_names_are_pytorchs(name):
    names = {}
    for lib in (tt, torch):
        x = rand(3, 4, 5).build(lib).requires_grad_(True)
        names[lib] = type(NORM_NODE_CASES[name](lib, x).grad_fn).__name__
    assert names[tt] == names[torch]


def test_every_norm_module_is_covered():
    covered = {name.split("_")[0] for name in NORM_NODE_CASES}
    assert set(tt.nn.modules.normalization.__all__) | set(tt.nn.modules.batchnorm.__all__) <= covered


def test_layer_norm_is_one_op_each_way():
    x = tt.randn(3, 4, requires_grad=True)
    ln = tt.nn.LayerNorm(4)
    with tt.dispatch.trace() as t:
        y = ln(x)
    assert [e.op for e in t.events if e.parent is None] == ["aten::native_layer_norm"]
    with tt.dispatch.trace() as t:
        y.backward(tt.ones(3, 4))
    assert [e.op for e in t.events if e.parent is None and e.backward_node == "NativeLayerNormBackward0"] == [
        "aten::native_layer_norm_backward"]


def test_batch_norm_running_stats_keep_their_version_as_in_pytorch():
    """native_batch_norm updates the running statistics inside its kernel: their version counter does not
    move (PyTorch's stays 0), and changing them in place after an evaluation-mode forward, which saved them,
    makes backward fail with PyTorch's message."""
    for lib in (tt, torch):
        x = lib.randn(4, 3, requires_grad=True)
        rm, rv = lib.zeros(3), lib.ones(3)
        lib.nn.functional.batch_norm(x, rm, rv, training=True).sum().backward()
        assert rm._version == 0 and rv._version == 0
        assert rm.abs().sum().item() > 0           # (updated all the same)

    def changed_after_eval(lib):
        x = lib.ones(4, 3, requires_grad=True)
        rm, rv = lib.zeros(3), lib.ones(3)
        y = lib.nn.functional.batch_norm(x, rm, rv, training=False)
        rm.add_(1)
        y.sum().backward()
    check(changed_after_eval)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batchnorm_module_running_stats_and_eval_after_training(momentum):
    make = lambda nn: nn.BatchNorm2d(3, momentum=momentum)     # noqa: E731
    _train_steps(make, [(4, 3, 2, 2)] * 3 + [(2, 3, 2, 2)], "permuted", [True, True, False, True])


@pytest.mark.parametrize("fn", [
    lambda lib, x, w: lib.nn.functional.layer_norm(x, (6,), w, w),
    lambda lib, x, w: lib.nn.functional.group_norm(x, 3, w, w),
    lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, w, training=True),
])
@pytest.mark.parametrize("param_dtype", ["float16", "float32"])
def test_float16_is_computed_in_float32(fn, param_dtype):
    """float16 input, float16 or float32 (the "mixed" case) parameters: computed in float32, rounded once."""
    x = np.random.default_rng(0).uniform(-3, 5, (4, 6)).astype(np.float16)
    w = np.linspace(0.5, 2, 6).astype(param_dtype)
    check(fn, P(x), P(w), rtol=1e-3, atol=2e-3)
    grads = {}
    for lib in (tt, torch):
        xt = P(x).build(lib).requires_grad_(True)
        (g,) = lib.autograd.grad(fn(lib, xt, P(w).build(lib)).pow(2).sum(), xt)
        grads[lib] = g.float().cpu().numpy()
    np.testing.assert_allclose(grads[tt], grads[torch], rtol=1e-2, atol=2e-2)


def test_norms_on_the_meta_device():
    check(lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3, device="meta"), (3,)).shape)
    check(lambda lib: lib.nn.functional.batch_norm(lib.ones(2, 3, device="meta"), None, None, training=True).shape)
    check(lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3, device="meta"), 2).shape)
