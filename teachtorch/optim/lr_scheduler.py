"""Learning-rate schedulers: change each parameter group's `lr` as training goes on.

A scheduler wraps an optimizer and, at every `scheduler.step()` (once an epoch, or once a batch for
OneCycleLR), computes new learning rates and writes them into `optimizer.param_groups[i]['lr']`. The
optimizer reads `group['lr']` at its next step, so nothing else has to know that a schedule exists.

As in PyTorch's torch/optim/lr_scheduler.py:

* `last_epoch` counts the scheduler's steps. Creating a scheduler already takes one step (`last_epoch`
  goes from -1 to 0) so that the optimizer starts with the schedule's first lr.
* `base_lrs` are the groups' starting rates, stored in each group as `'initial_lr'` (a scheduler made with
  `last_epoch >= 0` resumes a run and expects to find them there).
* `get_lr()` computes the next rates; most schedulers compute them *from the current ones* (StepLR
  multiplies the current lr by gamma at each milestone, CosineAnnealingLR applies a ratio of cosines), so
  the numbers here match PyTorch's bit for bit, rounding included, over any number of steps.
* `get_last_lr()` returns the rates set by the last step; `state_dict()` is every attribute except the
  optimizer.

Call `optimizer.step()` first, then `scheduler.step()`. (PyTorch also wraps `optimizer.step` to warn when
the order is reversed, and accepts a deprecated `step(epoch)`; teachtorch leaves both out.)
"""

import math
import types
import warnings
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "OneCycleLR"]


class LRScheduler:
    """Base class: set up `base_lrs` and `last_epoch`, take the first step; subclasses write `get_lr()`."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                        "with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't properly loaded "
                        "the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch

        # the first step, made here: last_epoch -1 -> 0, and the optimizer gets the schedule's first lr
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def get_lr(self):
        """The learning rates for `last_epoch`, one per parameter group (called by `step`)."""
        raise NotImplementedError

    def get_last_lr(self):
        """The learning rates the last `step()` wrote into the optimizer's groups."""
        return self._last_lr

    def step(self):
        """Advance the schedule by one and write the new rates into the optimizer's groups."""
        self._step_count += 1
        self.last_epoch += 1
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_called_outside_step(self):
        # get_lr() of a recursive schedule computes the *next* rate: calling it by hand is almost always a bug
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def state_dict(self):
        """The scheduler's state: every attribute except the optimizer (which has its own state_dict)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch), with one function for all groups or a list of one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """As the base class, but functions cannot be saved: a plain function is stored as None, a callable
        object as its attribute dict (which load_state_dict puts back into this scheduler's objects)."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None] * len(self.lr_lambdas)
        for i, fn in enumerate(self.lr_lambdas):
            if not isinstance(fn, types.FunctionType):
                state["lr_lambdas"][i] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for i, fn_state in enumerate(lr_lambdas):
            if fn_state is not None:
                self.lr_lambdas[i].__dict__.update(fn_state)

    def get_lr(self):
        self._warn_if_called_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply the lr by `gamma` every `step_size` epochs: lr = initial_lr * gamma ** (epoch // step_size)."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]


class MultiStepLR(LRScheduler):
    """Multiply the lr by `gamma` at each epoch listed in `milestones` (a milestone listed twice: gamma ** 2)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]


class ExponentialLR(LRScheduler):
    """Multiply the lr by `gamma` every epoch: lr = initial_lr * gamma ** epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        if self._is_initial:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial lr down to `eta_min` over `T_max` epochs (then back up, and so on).

    The closed form is  lr_t = eta_min + (initial_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2.  PyTorch
    computes it *recursively* from the current lr, so that another change of lr (by hand, or by a second
    scheduler) is carried along:

        lr_t = eta_min + (lr_{t-1} - eta_min) * (1 + cos(pi * t / T_max)) / (1 + cos(pi * (t - 1) / T_max))

    That ratio is 0/0 where the cosine's period restarts, so those epochs add a fixed increment instead.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_called_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        if self._step_count == 1 and self.last_epoch > 0:
            # resumed at a later epoch: nothing to recur from, use the closed form
            return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min
                for group in groups]


def _per_group(name, optimizer, value):
    """`value` for each param group: a list or tuple must have one entry per group; a number is repeated."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(value)
    return [value] * len(optimizer.param_groups)


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith and Topin, "Super-Convergence"): step once per *batch*, `total_steps` in all.

    The lr warms up from max_lr / div_factor to max_lr over the first `pct_start` of the steps, then anneals
    down to initial_lr / final_div_factor; the momentum (SGD's `momentum`, or Adam's beta1) moves the
    opposite way, between `max_momentum` and `base_momentum`. Each phase anneals with half a cosine
    (`anneal_strategy='cos'`) or a straight line (`'linear'`). `three_phase=True` comes back down to the
    initial lr symmetrically before the final annealing. The groups get 'initial_lr', 'max_lr', 'min_lr'
    (and 'max_momentum', 'base_momentum') that each phase reads its end points from.

    Give `total_steps`, or `epochs` and `steps_per_epoch`. Stepping past `total_steps` raises.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer

        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        # Each phase runs until `end_step` and anneals between two values that the groups store by name.
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr", "end_lr": "initial_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]

        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for group, group_max_lr in zip(optimizer.param_groups, max_lrs):
                group["initial_lr"] = group_max_lr / div_factor
                group["max_lr"] = group_max_lr
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults   # Adam's momentum is beta1
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for group, group_max, group_base in zip(optimizer.param_groups, max_momentums, base_momentums):
                    self._set_momentum(group, group_max)
                    group["max_momentum"] = group_max
                    group["base_momentum"] = group_base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, momentum):
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum

    def _anneal(self, start, end, pct):
        """The value `pct` of the way (0 to 1) from `start` to `end`."""
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. "
                             f"The specified number of total steps is {self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            # find the phase step_num is in (the last phase takes anything beyond), and how far into it
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                self._set_momentum(group, momentum)
        return lrs
