"""Learning-rate schedulers against PyTorch: the lr (and momentum / beta1) sequences over 25+ steps, exactly.

Schedulers compute with Python floats in the same order as PyTorch, so the sequences are compared with
`==`, not a tolerance: a recursive formula that drifts would show up here.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt


def make_optimizer(lib, kind="SGD", groups=2):
    """An optimizer with `groups` param groups of different lrs (the schedulers treat each on its own)."""
    tensors = [lib.ones(2, requires_grad=True) for _ in range(groups)]
    group_list = [{"params": [t], "lr": 0.1 * (i + 1)} for i, t in enumerate(tensors)]
    if kind == "SGD":
        return lib.optim.SGD(group_list, lr=0.1, momentum=0.9)
    return getattr(lib.optim, kind)(group_list, lr=0.1)


class Scale:
    """A callable object for LambdaLR: its attributes go into the scheduler's state_dict."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor ** epoch


SCHEDULERS = {
    "StepLR": lambda lr, opt: lr.StepLR(opt, step_size=3, gamma=0.5),
    "StepLR-1": lambda lr, opt: lr.StepLR(opt, step_size=1),
    "MultiStepLR": lambda lr, opt: lr.MultiStepLR(opt, milestones=[2, 5, 5, 11], gamma=0.3),
    "ExponentialLR": lambda lr, opt: lr.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda lr, opt: lr.CosineAnnealingLR(opt, T_max=7),
    "CosineAnnealingLR-eta_min": lambda lr, opt: lr.CosineAnnealingLR(opt, T_max=10, eta_min=0.01),
    "LambdaLR": lambda lr, opt: lr.LambdaLR(opt, lambda epoch: 1 / (epoch + 1)),
    "LambdaLR-list": lambda lr, opt: lr.LambdaLR(opt, [lambda e: 0.95 ** e, Scale(0.8)]),
    "OneCycleLR": lambda lr, opt: lr.OneCycleLR(opt, max_lr=1.0, total_steps=30),
    "OneCycleLR-linear": lambda lr, opt: lr.OneCycleLR(opt, max_lr=[0.5, 2.0], total_steps=30,
                                                       anneal_strategy="linear", pct_start=0.25),
    "OneCycleLR-three_phase": lambda lr, opt: lr.OneCycleLR(opt, max_lr=1.0, epochs=5, steps_per_epoch=6,
                                                            three_phase=True, div_factor=10.0,
                                                            final_div_factor=100.0),
    "OneCycleLR-no-momentum": lambda lr, opt: lr.OneCycleLR(opt, max_lr=1.0, total_steps=30, cycle_momentum=False),
    "OneCycleLR-momenta": lambda lr, opt: lr.OneCycleLR(opt, max_lr=1.0, total_steps=30, base_momentum=[0.7, 0.8],
                                                        max_momentum=0.99),
}


def momenta(opt):
    """What OneCycleLR cycles: SGD's momentum, or Adam's beta1."""
    return [g["betas"] if "betas" in g else g["momentum"] for g in opt.param_groups]


def run(lib, name, kind, steps):
    opt = make_optimizer(lib, kind)
    sched = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
    lrs = [sched.get_last_lr()]
    moms = [momenta(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append(momenta(opt))
        assert [g["lr"] for g in opt.param_groups] == lrs[-1]
    return opt, sched, lrs, moms


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_matches_torch(name, kind):
    steps = 30 if name.startswith("OneCycleLR") else 40
    tt_opt, tt_sched, tt_lrs, tt_moms = run(tt, name, kind, steps)
    th_opt, th_sched, th_lrs, th_moms = run(torch, name, kind, steps)
    assert tt_lrs == th_lrs                      # exactly: the same float operations in the same order
    assert tt_moms == th_moms
    assert len(set(map(tuple, tt_lrs))) > 1      # the schedule did change the lr
    assert tt_sched.last_epoch == th_sched.last_epoch == steps
    assert tt_sched.base_lrs == th_sched.base_lrs
    assert tt_sched.state_dict() == th_sched.state_dict()   # plain data, OneCycleLR's phases included
    strip = lambda g: {k: v for k, v in g.items() if k not in ("params", "foreach", "fused", "capturable",
                                                                 "differentiable")}
    assert [strip(g) for g in tt_opt.param_groups] == [strip(g) for g in th_opt.param_groups]


def test_onecycle_cycles_momentum_and_beta1():
    _, _, _, sgd_moms = run(tt, "OneCycleLR", "SGD", 30)
    _, _, _, adam_moms = run(tt, "OneCycleLR", "Adam", 30)
    assert sgd_moms[0] == [0.95, 0.95] and min(m[0] for m in sgd_moms) == pytest.approx(0.85)
    assert adam_moms[0] == [(0.95, 0.999), (0.95, 0.999)]
    assert [m[0][0] for m in adam_moms] == [m[0] for m in sgd_moms]


def test_onecycle_stepping_past_total_steps_raises_like_torch():
    errors = []
    for lib in (torch, tt):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
        for _ in range(10):
            opt.step()
            sched.step()
        opt.step()
        with pytest.raises(ValueError) as e:
            sched.step()
        errors.append(str(e.value))
    assert errors[0] == errors[1] == "Tried to step 11 times. The specified number of total steps is 10"


def test_training_with_a_schedule_matches_torch():
    """The lr a scheduler writes is the one the next optimizer step uses."""
    def train(lib):
        rng = np.random.default_rng(0)
        w = lib.tensor(rng.standard_normal((3, 4)).astype("float32")).t().clone().requires_grad_()
        x = lib.tensor(rng.standard_normal((5, 4)).astype("float32"))
        opt = lib.optim.Adam([w], lr=0.1)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, total_steps=20)
        for _ in range(20):
            opt.zero_grad()
            lib.tanh(x @ w).pow(2).sum().backward()
            opt.step()
            sched.step()
        return w.detach().cpu().numpy()

    np.testing.assert_allclose(train(tt), train(torch), rtol=2e-5, atol=2e-6)


def test_cosine_annealing_follows_the_closed_form_over_many_periods():
    opt = make_optimizer(tt, groups=1)
    sched = tt.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
    for epoch in range(1, 60):
        opt.step()
        sched.step()
        closed = 0.001 + (0.1 - 0.001) * (1 + math.cos(math.pi * epoch / 5)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(closed, rel=1e-9, abs=1e-12)


def test_initial_lr_in_groups_and_resuming_with_last_epoch():
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.2]

    def resumed(lib):
        opt = make_optimizer(lib)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=3)  # closed form at epoch 4
        lrs = [sched.get_last_lr()]
        for _ in range(10):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        return lrs

    assert resumed(tt) == resumed(torch)


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LambdaLR-list", "OneCycleLR"])
def test_scheduler_state_dict_round_trip(name):
    """Save optimizer and scheduler after 7 steps, restore into fresh ones: the same lrs as the uninterrupted run."""
    def resume(lib):
        opt, sched, _, _ = run(lib, name, "SGD", 7)
        opt_state, sched_state = opt.state_dict(), sched.state_dict()
        opt2 = make_optimizer(lib)
        sched2 = SCHEDULERS[name](lib.optim.lr_scheduler, opt2)
        opt2.load_state_dict(opt_state)
        sched2.load_state_dict(sched_state)
        lrs, lrs2 = [], []
        for _ in range(12):
            for o, s, out in ((opt, sched, lrs), (opt2, sched2, lrs2)):
                o.step()
                s.step()
                out.append(s.get_last_lr())
        assert lrs == lrs2
        return lrs2, sched_state

    (tt_lrs, tt_state), (th_lrs, th_state) = resume(tt), resume(torch)
    assert tt_lrs == th_lrs
    assert tt_state == th_state


def test_lambda_state_dict_saves_callable_objects_not_functions():
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0, Scale(0.5)])
        state = sched.state_dict()
        assert state["lr_lambdas"] == [None, {"factor": 0.5}]
        state["lr_lambdas"] = [None, {"factor": 0.25}]
        sched.load_state_dict(state)
        assert sched.lr_lambdas[1].factor == 0.25


def test_get_lr_outside_step_warns_like_torch():
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
            sched.get_lr()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step()
            sched.step()


def same_error(fn):
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(type(expected.value)) as got:
        fn(tt)
    assert str(got.value) == str(expected.value)


ERRORS = {
    "not an optimizer": lambda lib: lib.optim.lr_scheduler.StepLR(3, step_size=2),
    "onecycle not an optimizer": lambda lib: lib.optim.lr_scheduler.OneCycleLR([1], max_lr=1.0, total_steps=3),
    "resume without initial_lr": lambda lib: lib.optim.lr_scheduler.StepLR(make_optimizer(lib), 2, last_epoch=4),
    "lambdas count": lambda lib: lib.optim.lr_scheduler.LambdaLR(make_optimizer(lib), [lambda e: 1.0]),
    "onecycle no length": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), max_lr=1.0),
    "onecycle epochs only": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, epochs=3),
    "onecycle total_steps 0": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, total_steps=0),
    "onecycle total_steps float": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, 10.0),
    "onecycle epochs": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, epochs=0,
                                                                     steps_per_epoch=3),
    "onecycle steps_per_epoch": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, epochs=2,
                                                                              steps_per_epoch=-1),
    "onecycle pct_start": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, 10, pct_start=1.5),
    "onecycle pct_start int": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, 10, pct_start=0),
    "onecycle anneal": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, 10,
                                                                     anneal_strategy="exp"),
    "onecycle max_lr list": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), [1.0], 10),
    "onecycle momentum list": lambda lib: lib.optim.lr_scheduler.OneCycleLR(make_optimizer(lib), 1.0, 10,
                                                                            max_momentum=[0.9, 0.9, 0.9]),
    "onecycle no momentum": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Optimizer([lib.ones(1, requires_grad=True)], {"lr": 0.1}), 1.0, 10),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    same_error(ERRORS[case])
