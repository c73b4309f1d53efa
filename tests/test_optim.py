"""Optimizers against PyTorch: trajectories over 20 steps, state and state_dict, param groups, errors.

Every trajectory test builds the same parameters in both libraries (same values, same memory layout, among
them transposed clones: the layout that froze Adam on MPS), runs the same small MLP-like loss, and after
every step compares the parameters (float32 tolerance), their strides and their storage (updates are in
place). At the end it compares the optimizers' state_dicts: state keys, state tensors with their strides,
the `step` counters, the param groups.
"""

import copy
import warnings

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings, strategies as st

import teachtorch as tt
from parity import as_on_cpu, assert_same

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.05, maximize=True)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=0.05, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.05, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05, amsgrad=True)),
    ("AdamW", dict(lr=0.05, betas=(0.5, 0.9), weight_decay=0.5, maximize=True)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, maximize=True)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, centered=True, weight_decay=0.1, eps=1e-4, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, eps=1e-6, maximize=True)),
    ("Adamax", dict()),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, maximize=True)),
    ("NAdam", dict()),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict()),      # rho_t > 5 from step 6 on: both branches run
    ("RAdam", dict(lr=0.05, weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("ASGD", dict()),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1)),   # t0=5: the average moves
    ("ASGD", dict(lr=0.05, t0=3, maximize=True)),
]

# LBFGS runs up to max_iter closure calls a step, and its history holds differences of gradients (y = g' - g)
# and their ratios (H_diag = y.s / y.y) that lose the digits g' and g share: near the optimum of the test
# problem, float32 rounding makes them differ by percents (in PyTorch from one kernel to another, too). Its
# trajectories are compared in float64, where the same comparisons are exact to the usual tolerance.
LBFGS_CONFIGS = [
    ("LBFGS", dict()),
    ("LBFGS", dict(lr=0.5, max_iter=4)),
    ("LBFGS", dict(max_iter=3, history_size=2)),          # the history is full: old pairs are dropped
    ("LBFGS", dict(max_iter=5, line_search_fn="strong_wolfe")),
    ("LBFGS", dict(lr=0.8, max_iter=20, max_eval=30, history_size=3, tolerance_change=1e-5,
                   line_search_fn="strong_wolfe")),
]

# the parameters of the test problem, with their shapes; `unused` gets no gradient and must be skipped
SHAPES = {"w1": (4, 3), "b1": (3,), "w2": (3, 2), "unused": (2, 2)}
LAYOUTS_2D = ("contiguous", "t_clone", "permuted", "sliced", "offset")
LAYOUTS_1D = ("contiguous", "sliced", "offset")
NONCONTIGUOUS = {"w1": "t_clone", "b1": "sliced", "w2": "permuted", "unused": "offset"}
# LBFGS flattens each gradient with `view(-1)`, which (in PyTorch too) raises for a dense transposed one:
# its non-contiguous layouts are the strided views, whose gradients are contiguous
NONCONTIGUOUS_FLAT = {"w1": "sliced", "b1": "sliced", "w2": "offset", "unused": "sliced"}
SENTINEL = 7.0


def build_param(lib, values, layout):
    """A leaf tensor with `values` and the given memory layout, plus the tensor that owns its storage.

    't_clone' is `x.t().clone()`: a fresh tensor (not a view) whose strides are transposed, the MPS case.
    'sliced' and 'offset' are views into a bigger buffer of sentinels, which the updates must not touch."""
    base = None
    if layout == "contiguous":
        t = lib.tensor(values)
    elif layout == "t_clone":
        t = lib.tensor(np.ascontiguousarray(values.T)).t().clone()
    elif layout == "permuted":
        t = lib.tensor(np.ascontiguousarray(values.T)).t()
    elif layout == "sliced":
        base = lib.full(tuple(2 * s + 1 for s in values.shape), SENTINEL, dtype=lib.tensor(values).dtype)
        t = base[tuple(slice(1, None, 2) for _ in values.shape)]
        t.copy_(lib.tensor(values))
    elif layout == "offset":
        base = lib.full((values.size + 3,), SENTINEL, dtype=lib.tensor(values).dtype)
        t = base[3:].view(*values.shape)
        t.copy_(lib.tensor(values))
    else:
        raise ValueError(layout)
    return t.requires_grad_(), base


def make_problem(lib, layouts=None, seed=0, dtype="float32"):
    """Parameters (a dict name -> tensor), the buffers behind them, and the data, identical in both libs."""
    rng = np.random.default_rng(seed)
    layouts = layouts or {}
    params, bases = {}, {}
    for name, shape in SHAPES.items():
        values = rng.standard_normal(shape).astype(dtype)
        params[name], bases[name] = build_param(lib, values, layouts.get(name, "contiguous"))
    x = lib.tensor(rng.standard_normal((5, 4)).astype(dtype))
    y = lib.tensor(rng.standard_normal((5, 2)).astype(dtype))
    return params, bases, (x, y)


def loss_of(lib, params, data, sign=1.0):
    """A small MLP's squared error. With `sign=-1` (for `maximize=True`) maximizing it is minimizing the
    error, so the trajectory converges instead of running off (where float32 rounding would grow without end)."""
    x, y = data
    h = lib.tanh(x @ params["w1"] + params["b1"])
    return ((h @ params["w2"] - y) ** 2).mean() * sign


def make_optimizer(lib, name, params, kwargs):
    return getattr(lib.optim, name)(params, **kwargs)


def train_step(lib, opt, params, data):
    sign = -1.0 if opt.param_groups[0].get("maximize") else 1.0
    if isinstance(opt, lib.optim.LBFGS):     # LBFGS re-evaluates the loss itself, as often as it needs
        def closure():
            opt.zero_grad()
            loss = loss_of(lib, params, data, sign)
            loss.backward()
            return loss
        return opt.step(closure)
    opt.zero_grad()
    loss = loss_of(lib, params, data, sign)
    loss.backward()
    opt.step()
    return loss


def scaled_atol(value, atol):
    """`atol` times the tensor's largest magnitude (at least 1). Both libraries round float32 differently
    inside their kernels, and over 20 steps an element that cancelled down near 0 keeps an error of the size
    of its neighbours' rounding, so an absolute tolerance must follow the tensor's scale."""
    value = value.detach()
    if value.numel() == 0 or not value.is_floating_point():
        return atol
    return atol * max(1.0, float(value.abs().max()))


def assert_params_match(tt_params, th_params, rtol=2e-5, atol=1e-5):
    for name in SHAPES:
        assert_same(tt_params[name], th_params[name], rtol=rtol, atol=scaled_atol(th_params[name], atol), path=name)


def assert_state_dicts_match(tt_sd, th_sd, rtol=2e-5, atol=1e-5):
    """Same structure as torch's state_dict (keys, 'params' indices, options) and the same state values."""
    assert list(tt_sd) == list(th_sd) == ["state", "param_groups"]
    assert list(tt_sd["state"]) == list(th_sd["state"])
    for index, th_state in th_sd["state"].items():
        tt_state = tt_sd["state"][index]
        assert list(tt_state) == list(th_state), (index, list(tt_state), list(th_state))
        for key, value in th_state.items():
            if key == "al":
                # LBFGS's scratch list for the two-loop recursion: rewritten before it is read, and near the
                # optimum its entries are rounding noise (1e-5 with either sign); only its shape is state
                assert len(tt_state[key]) == len(value)
                continue
            # the state tensors have the parameter's strides in both libraries (zeros_like preserve_format)
            assert_same_value(tt_state[key], value, rtol, atol, f"state[{index}][{key!r}]")
    assert len(tt_sd["param_groups"]) == len(th_sd["param_groups"])
    for tt_group, th_group in zip(tt_sd["param_groups"], th_sd["param_groups"]):
        # every key of PyTorch's, in PyTorch's order (its kernel switches foreach, fused, ... included)
        assert list(tt_group.items()) == list(th_group.items())


def assert_same_value(tt_value, th_value, rtol, atol, path):
    """A state value: a tensor, a list of them (LBFGS's history), or a number (its counters and `prev_loss`)."""
    if isinstance(th_value, torch.Tensor):
        assert_same(tt_value, th_value, rtol=rtol, atol=scaled_atol(th_value, atol), path=path)
    elif isinstance(th_value, list):
        assert isinstance(tt_value, list) and len(tt_value) == len(th_value), path
        # near the optimum LBFGS's coefficients (`al`, `ro`) are noise-sized: scale atol to the whole list's
        scale = max([1.0] + [float(v.abs().max()) for v in th_value if isinstance(v, torch.Tensor) and v.numel()])
        for i, (a, b) in enumerate(zip(tt_value, th_value)):
            assert_same_value(a, b, rtol, atol * scale, f"{path}[{i}]")
    elif th_value is None:
        assert tt_value is None, path
    else:
        assert type(tt_value) is type(th_value), path
        assert tt_value == pytest.approx(th_value, rel=rtol, abs=atol), path


def run_trajectory(name, kwargs, layouts, seed=0, dtype="float32", steps=20):
    tt_params, tt_bases, tt_data = make_problem(tt, layouts, seed, dtype)
    th_params, th_bases, th_data = make_problem(torch, layouts, seed, dtype)
    initial = {k: v.detach().clone() for k, v in tt_params.items()}
    layout_before = {k: (v.stride(), v.storage_offset(), v.data_ptr()) for k, v in tt_params.items()}
    assert {k: v.stride() for k, v in tt_params.items()} == {k: v.stride() for k, v in th_params.items()}

    tt_opt = make_optimizer(tt, name, list(tt_params.values()), kwargs)
    th_opt = make_optimizer(torch, name, list(th_params.values()), kwargs)
    for _ in range(steps):
        tt_loss = train_step(tt, tt_opt, tt_params, tt_data)
        th_loss = train_step(torch, th_opt, th_params, th_data)
        assert_same(tt_loss.detach(), th_loss.detach(), rtol=2e-5, atol=2e-6)
        assert_params_match(tt_params, th_params, rtol=2e-5, atol=1e-5)
        # the update is in place: same storage, same strides, same offset
        assert {k: (v.stride(), v.storage_offset(), v.data_ptr()) for k, v in tt_params.items()} == layout_before

    for k in ("w1", "b1", "w2"):   # every parameter with a gradient moved (the MPS bug left them unchanged)
        assert not np.allclose(tt_params[k].detach().cpu().numpy(), initial[k].cpu().numpy()), k
    np.testing.assert_array_equal(tt_params["unused"].detach().cpu().numpy(), initial["unused"].cpu().numpy())
    for k, base in tt_bases.items():   # the sentinels around sliced / offset parameters are untouched
        if base is not None:
            assert_same(base.detach(), th_bases[k].detach(), rtol=2e-5, atol=scaled_atol(th_bases[k], 1e-5),
                        path=f"storage of {k}")
            assert (base.detach().cpu().numpy() == SENTINEL).sum() == base.numel() - tt_params[k].numel()
    assert_state_dicts_match(tt_opt.state_dict(), th_opt.state_dict())
    return tt_opt, th_opt


@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in CONFIGS])
def test_trajectory_matches_torch(name, kwargs, layout):
    run_trajectory(name, kwargs, NONCONTIGUOUS if layout == "noncontiguous" else None)


# foreach=True: the multi-tensor paths (`_multi_tensor_sgd`, ...), in both libraries (PyTorch runs its foreach
# ops' slow path on the CPU); every optimizer of CONFIGS has one
FOREACH_CONFIGS = CONFIGS


@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("name,kwargs", FOREACH_CONFIGS,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in FOREACH_CONFIGS])
def test_foreach_trajectory_matches_torch(name, kwargs, layout):
    run_trajectory(name, {**kwargs, "foreach": True}, NONCONTIGUOUS if layout == "noncontiguous" else None)


@pytest.mark.parametrize("layout", ["contiguous", "noncontiguous"])
@pytest.mark.parametrize("name,kwargs", LBFGS_CONFIGS,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in LBFGS_CONFIGS])
def test_lbfgs_trajectory_matches_torch(name, kwargs, layout):
    tt_opt, th_opt = run_trajectory(name, kwargs, NONCONTIGUOUS_FLAT if layout == "noncontiguous" else None,
                                    dtype="float64")
    # the counters and the whole state live under the first parameter
    assert list(tt_opt.state_dict()["state"]) == [0]
    assert tt_opt.state[tt_opt.param_groups[0]["params"][0]]["func_evals"] >= 20


@settings(max_examples=30, deadline=None)
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**16),
       layouts=st.fixed_dictionaries({"w1": st.sampled_from(LAYOUTS_2D), "b1": st.sampled_from(LAYOUTS_1D),
                                      "w2": st.sampled_from(LAYOUTS_2D), "unused": st.sampled_from(LAYOUTS_2D)}),
       dtype=st.sampled_from(["float32", "float64"]))
# (0525b51, a random-seed finding) the libraries round float32 differently inside their kernels, and after a few
# steps an element that cancelled down near 0 carries an error of its neighbours' size: a fixed atol of 2e-6
# failed here, one scaled to the tensor's largest magnitude (scaled_atol) does not
@example(config=("RMSprop", dict(lr=0.01, momentum=0.9)), seed=10709,
         layouts=dict(w1="sliced", b1="sliced", w2="contiguous", unused="contiguous"), dtype="float32")
def test_trajectory_fuzz(config, seed, layouts, dtype):
    name, kwargs = config
    run_trajectory(name, kwargs, layouts, seed=seed, dtype=dtype, steps=8)


def test_transposed_clone_adam_moves_every_weight():
    """The MPS bug's exact case: `encoder.weight = decoder.weight.T.clone()`, then Adam. Adam's state has the
    parameter's (transposed) strides, and every step must move every weight."""
    for lib in (tt, torch):
        w = lib.tensor(np.arange(1, 13, dtype="float32").reshape(3, 4)).t().clone().requires_grad_()
        assert not w.is_contiguous()
        opt = lib.optim.Adam([w], lr=0.1)
        for _ in range(3):
            before = w.detach().clone()
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
            assert (w.detach() != before).all()
        assert opt.state[w]["exp_avg"].stride() == w.stride() == (1, 4)
        assert opt.state[w]["exp_avg_sq"].stride() == (1, 4)


def test_param_groups_with_their_own_options():
    def run(lib):
        params, _, data = make_problem(lib, NONCONTIGUOUS)
        opt = lib.optim.SGD([{"params": [params["w1"], params["b1"]], "lr": 0.3, "nesterov": True},
                             {"params": [params["w2"]], "momentum": 0.5}], lr=0.1, momentum=0.9)
        losses = [train_step(lib, opt, params, data).item() for _ in range(20)]
        return params, opt, losses

    (tt_params, tt_opt, tt_losses), (th_params, th_opt, th_losses) = run(tt), run(torch)
    np.testing.assert_allclose(tt_losses, th_losses, rtol=2e-5)
    assert_params_match(tt_params, th_params)
    assert tt_opt.param_groups[0]["lr"] == 0.3 and tt_opt.param_groups[1]["lr"] == 0.1
    assert_state_dicts_match(tt_opt.state_dict(), th_opt.state_dict())


def test_add_param_group_while_training():
    def run(lib):
        params, _, data = make_problem(lib)
        opt = lib.optim.Adam([params["w1"]], lr=0.05)
        for i in range(20):
            if i == 5:
                opt.add_param_group({"params": [params["w2"], params["b1"]], "lr": 0.01, "amsgrad": True})
            train_step(lib, opt, params, data)
        return params, opt

    (tt_params, tt_opt), (th_params, th_opt) = run(tt), run(torch)
    assert_params_match(tt_params, th_params)
    assert_state_dicts_match(tt_opt.state_dict(), th_opt.state_dict())


def test_closure_is_called_with_grad_enabled_and_its_loss_returned():
    def run(lib):
        params, _, data = make_problem(lib)
        opt = lib.optim.RMSprop(params.values(), lr=0.01, momentum=0.9)
        seen = []

        def closure():
            seen.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = loss_of(lib, params, data)
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(5)]
        assert seen == [True] * 5
        return params, losses

    (tt_params, tt_losses), (th_params, th_losses) = run(tt), run(torch)
    np.testing.assert_allclose(tt_losses, th_losses, rtol=2e-5)
    assert_params_match(tt_params, th_params)
    params, _, _ = make_problem(tt)
    assert tt.optim.SGD(params.values()).step() is None


def test_step_does_not_record_autograd_history():
    w = tt.ones(3, requires_grad=True)
    opt = tt.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert w.is_leaf and w.grad_fn is None and w.requires_grad
    assert opt.state[w]["exp_avg"].requires_grad is False


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    for lib in (tt, torch):
        params, _, data = make_problem(lib, NONCONTIGUOUS)
        opt = lib.optim.SGD(params.values(), lr=0.1)
        loss_of(lib, params, data).backward()
        grads = {k: p.grad for k, p in params.items()}
        strides = {k: g.stride() for k, g in grads.items() if g is not None}
        opt.zero_grad(set_to_none=set_to_none)
        for k, p in params.items():
            if set_to_none or grads[k] is None:
                assert p.grad is None
            else:
                assert p.grad is grads[k]           # zeroed in place, strides kept
                assert (p.grad == 0).all() and p.grad.stride() == strides[k]


def test_zero_grad_detaches_a_grad_that_has_history():
    for lib in (tt, torch):
        w = lib.ones(3, requires_grad=True)
        g, = lib.autograd.grad((w ** 3).sum(), w, create_graph=True)
        w.grad = g
        assert w.grad.grad_fn is not None
        lib.optim.SGD([w]).zero_grad(set_to_none=False)
        assert w.grad.grad_fn is None and not w.grad.requires_grad and (w.grad == 0).all()


def test_state_is_lazy_and_keyed_by_parameter():
    params, _, data = make_problem(tt)
    opt = tt.optim.Adam(params.values())
    assert len(opt.state) == 0
    train_step(tt, opt, params, data)
    assert set(opt.state) == {params["w1"], params["b1"], params["w2"]}     # `unused` has no grad
    state = opt.state[params["w1"]]
    assert list(state) == ["step", "exp_avg", "exp_avg_sq"]
    assert state["step"].dtype == tt.float32 and state["step"].shape == () and state["step"].item() == 1.0


def test_step_counter_is_float64_when_that_is_the_default_dtype():
    for lib in (tt, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            w = lib.ones(2, requires_grad=True)
            opt = lib.optim.Adam([w])
            w.sum().backward()
            opt.step()
            assert str(opt.state[w]["step"].dtype) == "torch.float64"
        finally:
            lib.set_default_dtype(old)


# ---- state_dict ------------------------------------------------------------------------------------------


ROUND_TRIP = [c for c in CONFIGS + LBFGS_CONFIGS if c[1]]


@pytest.mark.parametrize("name,kwargs", ROUND_TRIP, ids=[f"{n}-{'-'.join(k)}" for n, k in ROUND_TRIP])
def test_state_dict_round_trip_continues_the_same_trajectory(name, kwargs):
    """Save after 10 steps, load into a fresh optimizer over fresh copies of the parameters, run 10 more:
    the same numbers as the uninterrupted run."""
    params, _, data = make_problem(tt, NONCONTIGUOUS_FLAT if name == "LBFGS" else NONCONTIGUOUS)
    opt = make_optimizer(tt, name, list(params.values()), kwargs)
    for _ in range(10):
        train_step(tt, opt, params, data)
    saved = snapshot(opt.state_dict())

    resumed = {k: p.detach().clone().requires_grad_() for k, p in params.items()}
    if name != "LBFGS":     # (LBFGS's w1 is a strided view, whose clone is contiguous)
        assert resumed["w1"].stride() == params["w1"].stride()
    opt2 = make_optimizer(tt, name, list(resumed.values()), {})    # options come from the state_dict
    opt2.load_state_dict(saved)
    assert opt2.param_groups[0]["params"][0] is resumed["w1"]
    for _ in range(10):
        train_step(tt, opt, params, data)
        train_step(tt, opt2, resumed, data)
        for k in SHAPES:
            np.testing.assert_array_equal(resumed[k].detach().cpu().numpy(), params[k].detach().cpu().numpy())
    assert_same_state_dicts_tt(opt2.state_dict(), opt.state_dict())


def snapshot(state_dict):
    """A copy of a state_dict that later steps cannot change: its state tensors cloned (clone keeps strides).

    (copy.deepcopy would do in PyTorch; teachtorch's deepcopy of a tensor pickles it by value and returns it
    contiguous, so the strides of the state would not survive.)"""
    def clone(value):       # LBFGS's state also holds lists of tensors and plain numbers
        if isinstance(value, list):
            return [clone(v) for v in value]
        return value.clone() if isinstance(value, tt.Tensor) else value

    return {"state": {i: {k: clone(v) for k, v in s.items()} for i, s in state_dict["state"].items()},
            "param_groups": copy.deepcopy(state_dict["param_groups"])}


def assert_same_state_dicts_tt(a, b):
    assert a["param_groups"] == b["param_groups"]
    assert list(a["state"]) == list(b["state"])
    for i in b["state"]:
        assert list(a["state"][i]) == list(b["state"][i])
        for key, value in b["state"][i].items():
            assert_identical_tt(a["state"][i][key], value)


def assert_identical_tt(a, b):
    if isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_identical_tt(x, y)
    elif isinstance(b, tt.Tensor):
        np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())
        assert a.stride() == b.stride()
    else:
        assert a == b


def test_state_dict_format_is_torchs_and_loads_across_libraries():
    """A torch state_dict, its tensors turned into teachtorch tensors, loads into teachtorch and continues
    exactly as torch continues; and teachtorch's state_dict has torch's structure."""
    tt_params, _, tt_data = make_problem(tt, NONCONTIGUOUS)
    th_params, _, th_data = make_problem(torch, NONCONTIGUOUS)
    groups = lambda p: [{"params": [p["w1"], p["unused"]], "lr": 0.05}, {"params": [p["b1"], p["w2"]]}]
    th_opt = torch.optim.Adam(groups(th_params), lr=0.01, amsgrad=True)
    for _ in range(7):
        train_step(torch, th_opt, th_params, th_data)
    sd = th_opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1] and sd["param_groups"][1]["params"] == [2, 3]
    assert list(sd["state"]) == [0, 2, 3]        # index 1 (`unused`) never had a gradient

    # the torch run's parameters, copied into the teachtorch ones (same layout)
    with tt.no_grad():
        for k in SHAPES:
            tt_params[k].copy_(tt.tensor(th_params[k].detach().cpu().numpy()))
    as_tt = lambda t: tt.tensor(t.cpu().numpy()).as_strided(tuple(t.shape), t.stride()).clone() if t.dim() else tt.tensor(t.item())
    tt_sd = {"state": {i: {k: as_tt(v) for k, v in s.items()} for i, s in sd["state"].items()},
             "param_groups": sd["param_groups"]}
    tt_opt = tt.optim.Adam(groups(tt_params))
    tt_opt.load_state_dict(tt_sd)
    assert tt_opt.param_groups[0]["lr"] == 0.05 and tt_opt.param_groups[1]["amsgrad"] is True
    for _ in range(10):
        train_step(torch, th_opt, th_params, th_data)
        train_step(tt, tt_opt, tt_params, tt_data)
        assert_params_match(tt_params, th_params)
    assert_state_dicts_match(tt_opt.state_dict(), th_opt.state_dict())


def test_state_dict_aliases_live_state_like_torch():
    for lib in (tt, torch):
        w = lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1, momentum=0.9)
        w.sum().backward()
        opt.step()
        sd = opt.state_dict()
        assert sd["state"][0]["momentum_buffer"] is opt.state[w]["momentum_buffer"]
        assert sd["param_groups"][0] is not opt.param_groups[0] and "params" in opt.param_groups[0]


def test_load_state_dict_casts_state_to_param_dtype_but_not_step():
    def run(lib):
        w64 = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([w64])
        (w64 * w64).sum().backward()
        opt.step()
        w32 = lib.ones(2, 3, requires_grad=True)
        opt32 = lib.optim.Adam([w32])
        opt32.load_state_dict(opt.state_dict())
        return opt32.state[w32]

    tt_state, th_state = run(tt), run(torch)
    for key in th_state:
        assert_same(tt_state[key], th_state[key], path=key)
    assert tt_state["exp_avg"].dtype == tt.float32 and tt_state["step"].dtype == tt.float32


def test_load_state_dict_keeps_param_names():
    for lib in (tt, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([("a", a), ("b", b)], lr=0.1)
        assert opt.param_groups[0]["param_names"] == ["a", "b"]
        sd = opt.state_dict()
        assert sd["param_groups"][0]["param_names"] == ["a", "b"] and sd["param_groups"][0]["params"] == [0, 1]
        opt2 = lib.optim.SGD([a, b], lr=0.5)
        opt2.load_state_dict(sd)
        assert opt2.param_groups[0]["param_names"] == ["a", "b"] and opt2.param_groups[0]["lr"] == 0.1


def test_adamw_loading_an_adam_state_stays_decoupled():
    for lib in (tt, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.AdamW([w])
        opt.load_state_dict(lib.optim.Adam([lib.ones(2, requires_grad=True)]).state_dict())
        assert opt.param_groups[0]["decoupled_weight_decay"] is True


def test_repr_like_torch():
    def text(lib):
        params, _, _ = make_problem(lib)
        opt = lib.optim.Adam([{"params": [params["w1"]], "lr": 0.1}, {"params": [params["w2"]]}], amsgrad=True)
        return repr(opt)

    assert text(tt) == text(torch)
    assert text(tt).startswith("Adam (\nParameter Group 0\n    amsgrad: True\n")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adadelta", "Adagrad", "Adamax", "NAdam",
                                  "RAdam", "ASGD"])
def test_param_groups_have_torchs_keys_and_kernel_switches(name):
    for options in ({}, {"foreach": True}, {"foreach": False}, {"maximize": True}):
        groups = [getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], lr=0.1, **options).param_groups[0]
                  for lib in (tt, torch)]
        assert [(k, v) for k, v in groups[0].items() if k != "params"] == \
               [(k, v) for k, v in groups[1].items() if k != "params"]


def test_default_foreach_rule_is_torchs():
    """foreach=None: the multi-tensor path only when every parameter is on cuda (torch/optim/optimizer.py
    `_default_to_fused_or_foreach`); on the CPU the single-tensor loop, as in PyTorch."""
    from torch.optim.optimizer import _default_to_fused_or_foreach as torch_rule

    from teachtorch.optim.optimizer import _default_to_fused_or_foreach
    cpu = [tt.zeros(2, device="cpu"), None]
    assert _default_to_fused_or_foreach(cpu, False) == torch_rule([torch.zeros(2), None], False) == (False, False)
    assert _default_to_fused_or_foreach([tt.zeros(2, device="meta")], False) == (False, False)
    assert _default_to_fused_or_foreach([tt.zeros(2)], True) == (False, False)       # differentiable
    on_cuda = tt.get_default_device().type == "cuda"
    assert _default_to_fused_or_foreach([tt.zeros(2)], False) == (False, on_cuda)


# (not ASGD: its foreach path computes each parameter's next eta with 0-dim tensor ops, as PyTorch's does)
@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adamax", "NAdam", "RAdam",
                                  "Adadelta"])
def test_foreach_runs_one_op_per_line_for_all_parameters(name, foreach):
    """The dispatched ops of one step (depth 0 of a trace): one per parameter and line of the algorithm in the
    single-tensor loop, one per line for the whole group with foreach (the count does not grow with it)."""
    def ops_in_one_step(n_params):
        params = [tt.randn(3, 2, requires_grad=True) for _ in range(n_params)]
        kwargs = {"momentum": 0.9} if name == "SGD" else {}
        opt = getattr(tt.optim, name)(params, lr=0.1, foreach=foreach, **kwargs)
        for _ in range(2):                                      # the second step: the state exists
            for p in params:
                p.grad = tt.ones(3, 2)
            with tt.dispatch.trace() as t:
                opt.step()
        return [e.aten_name for e in t.events if e.depth == 0]
    few, many = ops_in_one_step(2), ops_in_one_step(6)
    multi = foreach or (foreach is None and tt.get_default_device().type == "cuda")
    assert all(op.startswith("aten._foreach_") for op in few + many) == multi
    assert (len(few) == len(many)) == multi
    assert len(many) == (len(few) if multi else 3 * len(few))


# ---- foreach=True for Adamax, NAdam, RAdam, Adadelta and ASGD (issue 16) -------------------------------------
# Their `_multi_tensor_*` paths on one group holding float32 and float64 parameters (so that the grouping by
# dtype splits it) and one without a gradient, against PyTorch's foreach=True and teachtorch's own loop.

FOREACH_NEW = ("Adamax", "NAdam", "RAdam", "Adadelta", "ASGD")
FOREACH_NEW_CONFIGS = [(name, kwargs) for name, kwargs in CONFIGS if name in FOREACH_NEW] + [
    ("Adamax", dict(lr=0.05, maximize=True)),             # |g| in place into the negated copy
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),          # ... into the decayed copy
    ("NAdam", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict(lr=0.5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, lambd=0.01, t0=2, weight_decay=0.1, maximize=True)),
]
MIXED_SHAPES = {"w1": ((4, 3), "float32"), "b1": ((3,), "float64"), "w2": ((3, 2), "float64"),
                "b2": ((2,), "float32"), "unused": ((2, 2), "float64")}


def make_mixed_problem(lib, seed=0):
    """MIXED_SHAPES's parameters (float32 and float64 in turn, `unused` gets no gradient) and the data."""
    rng = np.random.default_rng(seed)
    params = {name: lib.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
              for name, (shape, dtype) in MIXED_SHAPES.items()}
    x, y = (lib.tensor(rng.standard_normal(shape).astype("float32")) for shape in ((5, 4), (5, 2)))
    return params, (x, y)


def mixed_step(lib, opt, params, data):
    x, y = data
    sign = -1.0 if opt.param_groups[0]["maximize"] else 1.0
    opt.zero_grad()
    h = lib.tanh(x @ params["w1"] + params["b1"])        # float64 from here on
    loss = ((h @ params["w2"] + params["b2"] - y) ** 2).mean() * sign
    loss.backward()
    opt.step()
    return loss


@pytest.mark.parametrize("name,kwargs", FOREACH_NEW_CONFIGS,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in FOREACH_NEW_CONFIGS])
def test_foreach_with_two_dtypes_matches_torch_and_the_loop(name, kwargs):
    tt_params, tt_data = make_mixed_problem(tt)
    th_params, th_data = make_mixed_problem(torch)
    loop_params, loop_data = make_mixed_problem(tt)
    initial = {k: v.detach().clone() for k, v in tt_params.items()}
    tt_opt = getattr(tt.optim, name)(list(tt_params.values()), foreach=True, **kwargs)
    th_opt = getattr(torch.optim, name)(list(th_params.values()), foreach=True, **kwargs)
    loop_opt = getattr(tt.optim, name)(list(loop_params.values()), foreach=False, **kwargs)
    for _ in range(12):
        tt_loss = mixed_step(tt, tt_opt, tt_params, tt_data)
        th_loss = mixed_step(torch, th_opt, th_params, th_data)
        mixed_step(tt, loop_opt, loop_params, loop_data)
        assert_same(tt_loss.detach(), th_loss.detach(), rtol=2e-5, atol=2e-6)
        for k in MIXED_SHAPES:
            atol = scaled_atol(th_params[k], 1e-5)
            assert_same(tt_params[k], th_params[k], rtol=2e-5, atol=atol, path=k)
            # the loop rounds some lines differently (NAdam's sqrt(v / bc) is sqrt(v) / sqrt(bc) here, as in
            # PyTorch): the same numbers to float tolerance
            np.testing.assert_allclose(tt_params[k].detach().cpu().numpy(), loop_params[k].detach().cpu().numpy(),
                                       rtol=2e-5, atol=atol, err_msg=k)
    for k in ("w1", "b1", "w2", "b2"):
        assert not np.allclose(tt_params[k].detach().cpu().numpy(), initial[k].cpu().numpy()), k
    np.testing.assert_array_equal(tt_params["unused"].detach().cpu().numpy(), initial["unused"].cpu().numpy())
    assert_state_dicts_match(tt_opt.state_dict(), th_opt.state_dict())
    loop_sd = loop_opt.state_dict()
    for index, state in tt_opt.state_dict()["state"].items():
        assert list(state) == list(loop_sd["state"][index])
        for key, value in state.items():
            expected = loop_sd["state"][index][key]
            assert (value.dtype, value.device) == (expected.dtype, expected.device), (index, key)
            np.testing.assert_allclose(value.cpu().numpy(), expected.cpu().numpy(), rtol=2e-5,
                                       atol=scaled_atol(value, 1e-5), err_msg=f"{index} {key}")


def foreach_ops_of_torch(opt, params, data):
    """The `_foreach_*` ops (overload dropped) that one torch step calls, in order."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))
    calls = []
    with Recorder():
        mixed_step(torch, opt, params, data)
    return [c for c in calls if c.startswith("_foreach_")]


@pytest.mark.parametrize("name,kwargs", FOREACH_NEW_CONFIGS,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in FOREACH_NEW_CONFIGS])
def test_foreach_calls_torchs_foreach_ops_in_torchs_order(name, kwargs):
    """A step with foreach=True dispatches PyTorch's `_foreach_*` ops, line by line in PyTorch's order, for each
    (device, dtype) group: the loop (or any other sequence) fails here."""
    tt_params, tt_data = make_mixed_problem(tt)
    th_params, th_data = make_mixed_problem(torch)
    tt_opt = getattr(tt.optim, name)(list(tt_params.values()), foreach=True, **kwargs)
    th_opt = getattr(torch.optim, name)(list(th_params.values()), foreach=True, **kwargs)
    for _ in range(2):                     # the first step makes the state, the second finds it
        with tt.dispatch.trace() as t:
            mixed_step(tt, tt_opt, tt_params, tt_data)
        ours = [e.aten_name.split(".")[1] for e in t.events if e.depth == 0]
        ours = [op for op in ours if op.startswith("_foreach_")]
        theirs = foreach_ops_of_torch(th_opt, th_params, th_data)
        assert ours == theirs
        assert len(theirs) > 8 and theirs[:len(theirs) // 2] == theirs[len(theirs) // 2:]    # two dtype groups


def test_fused_with_foreach_and_differentiable_are_refused():
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        tt.optim.Adam([tt.zeros(1, requires_grad=True)], foreach=True, fused=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        tt.optim.SGD([tt.zeros(1, requires_grad=True)], lr=0.1, differentiable=True)


# ---- errors ----------------------------------------------------------------------------------------------


def same_error(fn):
    """`fn(lib)` raises in torch; teachtorch must raise the same type with the same message."""
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(type(expected.value)) as got:
        fn(tt)
    assert as_on_cpu(str(got.value)) == str(expected.value)


def leaf(lib):
    return lib.ones(2, requires_grad=True)


ERRORS = {
    "tensor params": lambda lib: lib.optim.SGD(leaf(lib)),
    "empty": lambda lib: lib.optim.Adam([]),
    "empty generator": lambda lib: lib.optim.SGD(iter([])),
    "non-tensor": lambda lib: lib.optim.SGD([leaf(lib), 1.5]),
    "non-tensor string": lambda lib: lib.optim.SGD([{"params": ["w"]}]),
    "non-leaf": lambda lib: lib.optim.SGD([leaf(lib) * 2]),
    "set group": lambda lib: lib.optim.SGD([{"params": {leaf(lib)}}]),
    "same param in two groups": lambda lib: (lambda w: lib.optim.SGD([{"params": [w]}, {"params": [w]}]))(leaf(lib)),
    "group not a dict": lambda lib: lib.optim.SGD([leaf(lib)]).add_param_group([leaf(lib)]),
    "names missing": lambda lib: lib.optim.SGD([("a", leaf(lib)), leaf(lib)]),
    "names in one group only": lambda lib: lib.optim.SGD([{"params": [("a", leaf(lib))]}, {"params": [leaf(lib)]}]),
    "sgd lr": lambda lib: lib.optim.SGD([leaf(lib)], lr=-0.1),
    "sgd momentum": lambda lib: lib.optim.SGD([leaf(lib)], momentum=-0.5),
    "sgd weight_decay": lambda lib: lib.optim.SGD([leaf(lib)], weight_decay=-1),
    "sgd nesterov no momentum": lambda lib: lib.optim.SGD([leaf(lib)], nesterov=True),
    "sgd nesterov dampening": lambda lib: lib.optim.SGD([leaf(lib)], momentum=0.9, dampening=0.1, nesterov=True),
    "sgd checks before params": lambda lib: lib.optim.SGD([], lr=-1),
    "adam lr": lambda lib: lib.optim.Adam([leaf(lib)], lr=-1e-3),
    "adam eps": lambda lib: lib.optim.Adam([leaf(lib)], eps=-1.0),
    "adam beta0": lambda lib: lib.optim.Adam([leaf(lib)], betas=(1.0, 0.999)),
    "adam beta1": lambda lib: lib.optim.Adam([leaf(lib)], betas=(0.9, -0.1)),
    "adam weight_decay": lambda lib: lib.optim.Adam([leaf(lib)], weight_decay=-0.1),
    "adam int betas": lambda lib: lib.optim.Adam([leaf(lib)], betas=(0, 0.9)),
    "adamw beta0": lambda lib: lib.optim.AdamW([leaf(lib)], betas=(-0.5, 0.9)),
    "adamw weight_decay": lambda lib: lib.optim.AdamW([leaf(lib)], weight_decay=-0.1),
    "rmsprop lr": lambda lib: lib.optim.RMSprop([leaf(lib)], lr=-1),
    "rmsprop eps": lambda lib: lib.optim.RMSprop([leaf(lib)], eps=-1),
    "rmsprop momentum": lambda lib: lib.optim.RMSprop([leaf(lib)], momentum=-1),
    "rmsprop weight_decay": lambda lib: lib.optim.RMSprop([leaf(lib)], weight_decay=-1),
    "rmsprop alpha": lambda lib: lib.optim.RMSprop([leaf(lib)], alpha=-0.5),
    "adadelta lr": lambda lib: lib.optim.Adadelta([leaf(lib)], lr=-1),
    "adadelta rho": lambda lib: lib.optim.Adadelta([leaf(lib)], rho=1.5),
    "adadelta eps": lambda lib: lib.optim.Adadelta([leaf(lib)], eps=-1e-6),
    "adadelta weight_decay": lambda lib: lib.optim.Adadelta([leaf(lib)], weight_decay=-1),
    "adagrad lr": lambda lib: lib.optim.Adagrad([leaf(lib)], lr=-1),
    "adagrad lr_decay": lambda lib: lib.optim.Adagrad([leaf(lib)], lr_decay=-0.1),
    "adagrad weight_decay": lambda lib: lib.optim.Adagrad([leaf(lib)], weight_decay=-0.1),
    "adagrad initial_accumulator_value": lambda lib: lib.optim.Adagrad([leaf(lib)], initial_accumulator_value=-1),
    "adagrad eps": lambda lib: lib.optim.Adagrad([leaf(lib)], eps=-1),
    "adamax lr": lambda lib: lib.optim.Adamax([leaf(lib)], lr=-1),
    "adamax eps": lambda lib: lib.optim.Adamax([leaf(lib)], eps=-1),
    "adamax beta0": lambda lib: lib.optim.Adamax([leaf(lib)], betas=(1.0, 0.999)),
    "adamax beta1": lambda lib: lib.optim.Adamax([leaf(lib)], betas=(0.9, 1.5)),
    "adamax weight_decay": lambda lib: lib.optim.Adamax([leaf(lib)], weight_decay=-1),
    "nadam lr": lambda lib: lib.optim.NAdam([leaf(lib)], lr=-1),
    "nadam eps": lambda lib: lib.optim.NAdam([leaf(lib)], eps=-1),
    "nadam beta0": lambda lib: lib.optim.NAdam([leaf(lib)], betas=(-0.1, 0.999)),
    "nadam beta1": lambda lib: lib.optim.NAdam([leaf(lib)], betas=(0.9, 1.0)),
    "nadam weight_decay": lambda lib: lib.optim.NAdam([leaf(lib)], weight_decay=-1),
    "nadam momentum_decay": lambda lib: lib.optim.NAdam([leaf(lib)], momentum_decay=-1e-3),
    "radam lr": lambda lib: lib.optim.RAdam([leaf(lib)], lr=-1),
    "radam eps": lambda lib: lib.optim.RAdam([leaf(lib)], eps=-1),
    "radam beta0": lambda lib: lib.optim.RAdam([leaf(lib)], betas=(1.0, 0.999)),
    "radam beta1": lambda lib: lib.optim.RAdam([leaf(lib)], betas=(0.9, -0.5)),
    "radam weight_decay": lambda lib: lib.optim.RAdam([leaf(lib)], weight_decay=-1),
    "asgd lr": lambda lib: lib.optim.ASGD([leaf(lib)], lr=-1),
    "asgd weight_decay": lambda lib: lib.optim.ASGD([leaf(lib)], weight_decay=-1),
    "lbfgs lr": lambda lib: lib.optim.LBFGS([leaf(lib)], lr=-1),
    "lbfgs param groups": lambda lib: lib.optim.LBFGS([{"params": [leaf(lib)]}, {"params": [leaf(lib)]}]),
    "lbfgs line search": lambda lib: (lambda w: lib.optim.LBFGS([w], line_search_fn="armijo").step(
        lambda: (w * w).sum().backward() or (w * w).sum()))(leaf(lib)),
    # the flat gradient is made with view(-1): a dense transposed gradient cannot be viewed flat
    "lbfgs transposed parameter": lambda lib: (lambda w: lib.optim.LBFGS([w]).step(
        lambda: (w * w).sum().backward() or (w * w).sum()))(lib.ones(3, 2).t().clone().requires_grad_()),
    "load group count": lambda lib: lib.optim.SGD([leaf(lib)]).load_state_dict(
        lib.optim.SGD([{"params": [leaf(lib)]}, {"params": [leaf(lib)]}]).state_dict()),
    "load group size": lambda lib: lib.optim.SGD([leaf(lib)]).load_state_dict(
        lib.optim.SGD([leaf(lib), leaf(lib)]).state_dict()),
    "base step": lambda lib: lib.optim.Optimizer([leaf(lib)], {"lr": 0.1}).step(),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    same_error(ERRORS[case])


def test_duplicate_parameter_in_a_group_warns_like_torch():
    for lib in (tt, torch):
        w = leaf(lib)
        with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
            lib.optim.SGD([w, w])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tt.optim.SGD([leaf(tt), leaf(tt)])


def test_with_nn_modules_and_named_parameters():
    """The usual call: an optimizer over a module's (named) parameters, trained next to torch's."""
    def train(lib):
        torch.manual_seed(0)
        th_model = torch.nn.Linear(4, 3)
        model = lib.nn.Linear(4, 3)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(th_model.weight.detach().cpu().numpy()))
            model.bias.copy_(lib.tensor(th_model.bias.detach().cpu().numpy()))
        opt = lib.optim.AdamW(model.named_parameters(), lr=0.05)
        assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
        x = lib.tensor(np.linspace(-1, 1, 20, dtype="float32").reshape(5, 4))
        for _ in range(20):
            opt.zero_grad()
            (model(x) ** 2).mean().backward()
            opt.step()
        assert isinstance(model.weight, lib.nn.Parameter)
        return model.weight.detach().cpu().numpy(), model.bias.detach().cpu().numpy()

    for a, b in zip(train(tt), train(torch)):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


def test_lbfgs_on_a_quadratic_like_torch():
    """LBFGS in float32 on a well-conditioned problem: the closure's losses, the counters, the stop at
    tolerance_grad (a step that starts at the optimum returns at once, after one closure call)."""
    def run(lib, line_search_fn):
        a = lib.tensor(np.diag([1.0, 2.0, 3.0, 4.0]).astype("float32"))
        b = lib.tensor(np.array([1.0, -1.0, 2.0, 0.5], dtype="float32"))
        base = lib.zeros(9)
        x = base[1::2].requires_grad_()           # a strided view: its gradient is contiguous
        opt = lib.optim.LBFGS([x], history_size=3, line_search_fn=line_search_fn, tolerance_grad=1e-4)
        calls = []

        def closure():
            opt.zero_grad()
            loss = 0.5 * (x @ (a @ x)) - b @ x
            loss.backward()
            calls.append(loss.item())
            return loss

        losses = [opt.step(closure).item() for _ in range(3)]
        state = opt.state[x]
        return x.detach().cpu().numpy(), losses, calls, state["n_iter"], state["func_evals"]

    for line_search_fn in (None, "strong_wolfe"):
        (tt_x, tt_losses, tt_calls, tt_iter, tt_evals), (th_x, th_losses, th_calls, th_iter, th_evals) = \
            run(tt, line_search_fn), run(torch, line_search_fn)
        np.testing.assert_allclose(tt_x, th_x, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(tt_x, [1.0, -0.5, 2 / 3, 0.125], rtol=1e-4)     # A^-1 b
        np.testing.assert_allclose(tt_losses, th_losses, rtol=1e-5)
        assert len(tt_calls) == len(th_calls) and (tt_iter, tt_evals) == (th_iter, th_evals)
        assert tt_calls[-1] == tt_losses[-1]            # the last step started at the optimum: one call only
