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

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)


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
    "LinearLR": lambda lr, opt: lr.LinearLR(opt),
    "LinearLR-decay": lambda lr, opt: lr.LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=17),
    "CosineAnnealingWarmRestarts": lambda lr, opt: lr.CosineAnnealingWarmRestarts(opt, T_0=6),
    "CosineAnnealingWarmRestarts-T_mult": lambda lr, opt: lr.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2,
                                                                                         eta_min=0.01),
    "SequentialLR": lambda lr, opt: lr.SequentialLR(
        opt, [lr.LinearLR(opt, start_factor=0.1, total_iters=4), lr.CosineAnnealingLR(opt, T_max=9)], milestones=[5]),
    "SequentialLR-three": lambda lr, opt: lr.SequentialLR(
        opt, [lr.ExponentialLR(opt, gamma=0.8), lr.StepLR(opt, step_size=3, gamma=0.5),
              lr.LambdaLR(opt, lambda e: 1 / (e + 1))], milestones=[4, 15]),
    "ChainedScheduler": lambda lr, opt: lr.ChainedScheduler(
        [lr.LinearLR(opt, start_factor=0.25, total_iters=6), lr.ExponentialLR(opt, gamma=0.95)]),
    "ChainedScheduler-optimizer": lambda lr, opt: lr.ChainedScheduler(
        [lr.MultiStepLR(opt, milestones=[3, 8], gamma=0.5), lr.CosineAnnealingLR(opt, T_max=12, eta_min=0.001)],
        optimizer=opt),
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
    # (the combinators SequentialLR and ChainedScheduler keep no base_lrs, ChainedScheduler no last_epoch)
    assert getattr(tt_sched, "last_epoch", None) == getattr(th_sched, "last_epoch", None)
    assert getattr(tt_sched, "last_epoch", steps) == steps
    assert getattr(tt_sched, "base_lrs", None) == getattr(th_sched, "base_lrs", None)
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


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LambdaLR-list", "OneCycleLR",
                                  "LinearLR", "CosineAnnealingWarmRestarts-T_mult", "SequentialLR",
                                  "ChainedScheduler"])
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
    "linear start_factor": lambda lib: lib.optim.lr_scheduler.LinearLR(make_optimizer(lib), start_factor=0),
    "linear start_factor big": lambda lib: lib.optim.lr_scheduler.LinearLR(make_optimizer(lib), start_factor=1.5),
    "linear end_factor": lambda lib: lib.optim.lr_scheduler.LinearLR(make_optimizer(lib), end_factor=-0.1),
    "warm restarts T_0": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(lib), T_0=0),
    "warm restarts T_0 float": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(lib), 2.0),
    "warm restarts T_mult": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(lib), 2,
                                                                                          T_mult=0),
    "warm restarts eta_min": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(make_optimizer(lib), 2,
                                                                                           eta_min="0"),
    "warm restarts negative epoch": lambda lib: lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        make_optimizer(lib), 2).step(-1),
    "plateau factor": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib), factor=1.0),
    "plateau not an optimizer": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(None),
    "plateau min_lrs": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib), min_lr=[0.1]),
    "plateau mode": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib), mode="low"),
    "plateau threshold_mode": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib),
                                                                                   threshold_mode="pct"),
    "plateau metric": lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib)).step("low"),
    "sequential none": lambda lib: lib.optim.lr_scheduler.SequentialLR(make_optimizer(lib), [], milestones=[]),
    "sequential milestones": lambda lib: (lambda opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2), lib.optim.lr_scheduler.StepLR(opt, 3)], milestones=[2, 4]))(
        make_optimizer(lib)),
    "sequential plateau": lambda lib: (lambda opt: lib.optim.lr_scheduler.SequentialLR(
        opt, [lib.optim.lr_scheduler.StepLR(opt, 2), lib.optim.lr_scheduler.ReduceLROnPlateau(opt)], milestones=[2]))(
        make_optimizer(lib)),
    "sequential not a scheduler": lambda lib: lib.optim.lr_scheduler.SequentialLR(make_optimizer(lib), [3],
                                                                                  milestones=[]),
    "chained none": lambda lib: lib.optim.lr_scheduler.ChainedScheduler([]),
    "chained plateau": lambda lib: lib.optim.lr_scheduler.ChainedScheduler(
        [lib.optim.lr_scheduler.ReduceLROnPlateau(make_optimizer(lib))]),
    "onecycle no momentum": lambda lib: lib.optim.lr_scheduler.OneCycleLR(
        lib.optim.Optimizer([lib.ones(1, requires_grad=True)], {"lr": 0.1}), 1.0, 10),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_like_torch(case):
    same_error(ERRORS[case])


# ---- ReduceLROnPlateau -----------------------------------------------------------------------------------

# a validation loss that improves, stalls, wobbles inside the threshold, improves again, stalls for long
METRICS = [1.0, 0.9, 0.85, 0.85, 0.86, 0.8499, 0.87, 0.9, 0.7, 0.7, 0.71, 0.72, 0.7, 0.69999, 0.73, 0.75,
           0.6, 0.61, 0.62, 0.63, 0.64, 0.65, 0.66, 0.67, 0.68, 0.69, 0.7, 0.71, 0.72, 0.73]

PLATEAU = {
    "default": dict(),
    "patience": dict(patience=2),
    "factor-cooldown": dict(factor=0.5, patience=1, cooldown=2),
    "abs": dict(patience=1, threshold=0.02, threshold_mode="abs"),
    "max": dict(mode="max", patience=2, factor=0.3),
    "max-abs": dict(mode="max", threshold_mode="abs", threshold=0.05, patience=0),
    "min_lr": dict(patience=0, factor=0.5, min_lr=0.02),
    "min_lr-list": dict(patience=0, factor=0.5, min_lr=[0.03, 0.01]),
    "eps": dict(patience=0, factor=0.9, eps=0.01),        # reductions smaller than eps are skipped
}


@pytest.mark.parametrize("name", list(PLATEAU))
def test_reduce_lr_on_plateau_matches_torch(name):
    def run_plateau(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[name])
        lrs, counters = [sched.get_last_lr()], []
        for metric in METRICS:
            opt.step()
            sched.step(lib.tensor(metric) if metric == 0.7 else metric)    # a 0-d tensor is a metric too
            lrs.append(sched.get_last_lr())
            counters.append((sched.num_bad_epochs, sched.cooldown_counter, sched.best, sched.in_cooldown))
            assert [g["lr"] for g in opt.param_groups] == lrs[-1]
        return sched, lrs, counters

    (tt_sched, tt_lrs, tt_counters), (th_sched, th_lrs, th_counters) = run_plateau(tt), run_plateau(torch)
    assert tt_lrs == th_lrs
    assert tt_counters == th_counters
    assert len(set(map(tuple, tt_lrs))) > 1            # the lr was reduced at least once
    assert tt_sched.last_epoch == th_sched.last_epoch == len(METRICS)
    assert tt_sched.state_dict() == th_sched.state_dict()


def test_reduce_lr_on_plateau_state_dict_round_trip():
    def resume(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", patience=1, cooldown=1)
        for metric in METRICS[:12]:
            sched.step(-metric)
        opt2 = make_optimizer(lib)
        sched2 = lib.optim.lr_scheduler.ReduceLROnPlateau(opt2)      # mode etc. come from the state_dict
        opt2.load_state_dict(opt.state_dict())
        sched2.load_state_dict(sched.state_dict())
        assert sched2.mode_worse == -math.inf
        lrs, lrs2 = [], []
        for metric in METRICS[12:]:
            sched.step(-metric)
            sched2.step(-metric)
            lrs.append(sched.get_last_lr())
            lrs2.append(sched2.get_last_lr())
        assert lrs == lrs2
        return lrs

    assert resume(tt) == resume(torch)


def test_reduce_lr_on_plateau_min_lrs_after_add_param_group():
    """A group added later gets the single min_lr; with a list of min_lrs it is an error (as in PyTorch)."""
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=0.05)
        opt.add_param_group({"params": [lib.ones(1, requires_grad=True)], "lr": 1.0})
        sched.step(1.0)
        sched.step(2.0)
        assert sched.min_lrs == [0.05] * 3 and sched.get_last_lr() == pytest.approx([0.05, 0.05, 0.1])

    def list_of_min_lrs(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0, 0])
        opt.add_param_group({"params": [lib.ones(1, requires_grad=True)]})
        sched.step(1.0)
        sched.step(2.0)          # the first bad epoch reduces: 3 groups, 2 min_lrs

    same_error(list_of_min_lrs)


# ---- step order, step(epoch) -----------------------------------------------------------------------------


ORDER_WARNING = ("Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, "
                 "you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
                 "Failure to do this will result in PyTorch skipping the first value of the learning rate "
                 "schedule. See more details at "
                 "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


def test_scheduler_step_before_optimizer_step_warns_like_torch():
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()          # the optimizer has not stepped yet
            sched.step()          # only the first step() checks
        assert [str(w.message) for w in caught] == [ORDER_WARNING]
        assert caught[0].category is UserWarning and caught[0].filename == __file__

        # the right order: no warning, and a second scheduler on the same optimizer shares the flag
        opt = make_optimizer(lib)
        scheds = [lib.optim.lr_scheduler.StepLR(opt, step_size=2), lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            opt.step()
            for sched in scheds:
                sched.step()


def test_step_wrapper_keeps_the_optimizers_step():
    """The wrapped step still is the optimizer's step: it updates, takes a closure, returns its loss."""
    for lib in (tt, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.5)
        lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        lib.optim.lr_scheduler.StepLR(opt, step_size=3)      # wraps once only
        assert opt.step._wrapped_by_lr_sched is True

        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        assert opt.step(closure).item() == 2.0
        assert w.tolist() == [0.0, 0.0] and opt._opt_called is True


def test_overridden_optimizer_step_warns_like_torch():
    messages = []
    for lib in (tt, torch):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        opt.step = lambda closure=None: None          # replaced after the scheduler was made
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0][0].startswith("Seems like `optimizer.step()` has been overridden")


EPOCH_SCHEDULERS = ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR-eta_min", "LambdaLR",
                    "LinearLR", "LinearLR-decay", "OneCycleLR"]
EPOCHS = [3, 4, 4, 11, 2, 0, 7, 20, 5, 6]


@pytest.mark.parametrize("name", EPOCH_SCHEDULERS)
def test_step_with_epoch_warns_and_uses_the_closed_form_like_torch(name):
    def run_epochs(lib):
        opt = make_optimizer(lib)
        sched = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        lrs = []
        for i, epoch in enumerate(EPOCHS):
            opt.step()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                sched.step(epoch)
            assert [str(w.message) for w in caught] == [tt.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING]
            lrs.append(sched.get_last_lr())
            if i % 3 == 2:        # recursive steps in between continue from where the jump landed
                opt.step()
                sched.step()
                lrs.append(sched.get_last_lr())
            assert sched.last_epoch == (epoch if i % 3 != 2 else epoch + 1)
        return lrs, sched.state_dict()

    (tt_lrs, tt_state), (th_lrs, th_state) = run_epochs(tt), run_epochs(torch)
    assert tt_lrs == th_lrs
    assert tt_state == th_state


def test_step_with_epoch_is_the_closed_form():
    for name, closed in [("StepLR", lambda e: 0.1 * 0.5 ** (e // 3)),
                         ("ExponentialLR", lambda e: 0.1 * 0.9 ** e),
                         ("LinearLR", lambda e: 0.1 * (1 / 3 + (2 / 3) * min(e, 5) / 5))]:
        opt = make_optimizer(tt)
        sched = SCHEDULERS[name](tt.optim.lr_scheduler, opt)
        opt.step()
        for epoch in [7, 2, 0, 13]:
            with pytest.warns(UserWarning, match=r"The epoch parameter in `scheduler.step\(\)`"):
                sched.step(epoch)
            assert sched.get_last_lr()[0] == pytest.approx(closed(epoch), rel=1e-12), (name, epoch)


FRACTIONAL = [0, 0.5, 1.25, 2.999, 3, 4.2, 7.5, 8.0, 9.75, 20.1, 44.9, 45, 2.5, 0.0, 100.3]


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_with_fractional_epochs_match_torch(T_mult):
    """SGDR is stepped per batch with `step(epoch + i / iters)`: fractional epochs, restarts, jumps back."""
    def run_fractional(lib):
        opt = make_optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=T_mult, eta_min=0.001)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # step(epoch) is SGDR's own form: no deprecation warning
            for epoch in FRACTIONAL:
                opt.step()
                sched.step(epoch)
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
                opt.step()
                sched.step()                            # and a plain step after each
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out, sched.state_dict()

    assert run_fractional(tt) == run_fractional(torch)


def test_warm_restarts_restart_at_the_period_ends():
    opt = make_optimizer(tt, groups=1)
    sched = tt.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    lrs = [sched.get_last_lr()[0]]
    for _ in range(14):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    # periods of 2, 4, 8 epochs: the lr is back at 0.1 at epochs 0, 2, 6, 14
    assert [i for i, lr in enumerate(lrs) if lr == 0.1] == [0, 2, 6, 14]


def test_sequential_lr_hands_over_at_the_milestones():
    opt = make_optimizer(tt, groups=1)
    lr = tt.optim.lr_scheduler
    sched = lr.SequentialLR(opt, [lr.LinearLR(opt, start_factor=0.5, total_iters=2), lr.ExponentialLR(opt, gamma=0.5)],
                            milestones=[3])
    lrs = [sched.get_last_lr()[0]]
    for _ in range(5):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == pytest.approx([0.05, 0.075, 0.1, 0.1, 0.05, 0.025])


def test_copies_of_an_optimizer_do_not_keep_the_schedulers_step_wrapper():
    """The wrapper is bound to the optimizer it was made for: a deepcopy (or an unpickled copy) that kept it
    would step the original's parameters. As in PyTorch, copies get the class's own step back."""
    import copy
    import pickle

    for lib in (tt, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.5)
        lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
            assert not hasattr(clone.step, "_wrapped_by_lr_sched")
            (clone.param_groups[0]["params"][0] * 1).sum().backward()
            clone.step()
            assert w.tolist() == [1.0, 1.0]              # the original did not move
            assert clone.param_groups[0]["params"][0].tolist() == [0.5, 0.5]
