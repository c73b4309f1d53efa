"""Adagrad: divide each gradient by the root of the sum of all its past squares (Duchi et al., 2011).

A weight that has had large gradients gets small steps from then on, and a rarely-updated one keeps large
steps, which suits sparse features. The sum only grows, so the steps only shrink. The update, as
PyTorch's torch/optim/adagrad.py computes it (`_single_tensor_adagrad`; lambda = weight_decay):

    g <- -g                                       if maximize
    g <- g + lambda * theta                       if lambda != 0
    lr_t <- lr / (1 + (t - 1) * lr_decay)
    s <- s + g * g                                ('sum', starts at initial_accumulator_value)
    theta <- theta - lr_t * g / (sqrt(s) + eps)

Unlike the other optimizers, PyTorch makes Adagrad's state in `__init__`, for every parameter (a parameter
that never gets a gradient has state too), so teachtorch does the same: the state_dicts then agree.
(Sparse gradients, which Adagrad is often used with in PyTorch, do not exist in teachtorch.)
"""

from ..autograd.grad_mode import no_grad
from ..ops import full_like, preserve_format, tensor
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcdiv_, _foreach_addcmul_, _foreach_mul, _foreach_mul_, _foreach_neg,
    _foreach_sqrt,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: `Adagrad(params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10)`."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "fused": fused}                                                # PyTorch's keys, in its order
        _check_kernel_switches(foreach, fused, differentiable)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(param, self.state[param])

    def _init_state(self, param, state):
        # the accumulator starts at the *optimizer's* initial_accumulator_value, as in PyTorch
        state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                      "sum": full_like(param, self.defaults["initial_accumulator_value"],
                                       memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), group.get("fused"), group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:            # a group added later with add_param_group
                    self._init_state(param, state)
                state_sum = state["sum"]

                state["step"].add_(1)
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                clr = lr / (1 + (state["step"].item() - 1) * lr_decay)

                state_sum.addcmul_(grad, grad, value=1)
                std = state_sum.sqrt().add_(eps)
                param.addcdiv_(grad, std, value=-clr)
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_adagrad`)."""
        state_sums, state_steps = [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state)
            state_sums.append(state["sum"])
            state_steps.append(state["step"])
        _multi_tensor_adagrad(params, [p.grad for p in params], state_sums, state_steps, lr=group["lr"],
                              weight_decay=group["weight_decay"], lr_decay=group["lr_decay"], eps=group["eps"],
                              maximize=group["maximize"])


def _multi_tensor_adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    """Adagrad over lists of tensors, one `_foreach_*` call per line (torch/optim/adagrad.py
    `_multi_tensor_adagrad`)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, state_sums, state_steps])
    for (device_params, device_grads, device_state_sums, device_state_steps), _ in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        _foreach_add_(device_state_steps, 1)
        if weight_decay != 0:
            if maximize:      # device_grads is already a new list of tensors: reuse it
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)

        minus_clr = [-lr / (1 + (step.item() - 1) * lr_decay) for step in device_state_steps]
        _foreach_addcmul_(device_state_sums, device_grads, device_grads, 1)
        std = _foreach_sqrt(device_state_sums)
        _foreach_add_(std, eps)
        if weight_decay != 0 or maximize:     # device_grads is a new list: scale it in place
            _foreach_mul_(device_grads, minus_clr)
            numerator = device_grads
        else:
            numerator = _foreach_mul(device_grads, minus_clr)
        _foreach_addcdiv_(device_params, numerator, std)
