"""Adadelta: an adaptive learning rate that needs (almost) no learning rate (Zeiler, "ADADELTA", 2012).

Adadelta keeps two running averages per parameter: of the squared gradients (`'square_avg'`, as RMSprop)
and of the squared *updates* (`'acc_delta'`). Each update is the gradient scaled by the ratio of their
roots, so it has the units of the parameter itself. The update, as PyTorch's torch/optim/adadelta.py
computes it (`_single_tensor_adadelta`; rho = the smoothing constant, lambda = weight_decay):

    g <- -g                                           if maximize
    g <- g + lambda * theta                           if lambda != 0
    v <- rho * v + (1 - rho) * g * g                  ('square_avg')
    delta <- sqrt(u + eps) / sqrt(v + eps) * g        (u = 'acc_delta')
    u <- rho * u + (1 - rho) * delta * delta
    theta <- theta - lr * delta                       (lr defaults to 1.0)

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_adadelta` below: one `_foreach_*` call per line over all the parameters of a group (PyTorch's
torch/optim/adadelta.py `_multi_tensor_adadelta`, its non-capturable branch, line by line).
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcmul_, _foreach_div_, _foreach_mul_, _foreach_neg, _foreach_sqrt_,
    preserve_format, zeros, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta: `Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0)`."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}                              # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, param, state):
        """The state of a parameter on its first step: a step counter and zero averages shaped like it."""
        # all at once: Ctrl-C while the zeros are made leaves no half-made state
        state.update({"step": zeros((), dtype=_scalar_dtype()),
                      "square_avg": zeros_like(param, memory_format=preserve_format),
                      "acc_delta": zeros_like(param, memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), None, group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]

                state["step"].add_(1)
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-lr)
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_adadelta`)."""
        grads, square_avgs, acc_deltas, state_steps = [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state)
            grads.append(param.grad)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])
        _multi_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"], rho=group["rho"],
                               eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"])


def _multi_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                           maximize):
    """Adadelta over lists of tensors, one `_foreach_*` call per line (torch/optim/adadelta.py
    `_multi_tensor_adadelta`; its capturable and complex branches are not here, as in the loop above)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, square_avgs, acc_deltas, state_steps])
    for (device_params, device_grads, device_square_avgs, device_acc_deltas, device_state_steps), _ in \
            grouped.values():
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(device_state_steps, 1)
        if maximize:
            device_grads = _foreach_neg(device_grads)

        if weight_decay != 0:
            if maximize:      # device_grads is already a new list of tensors: reuse it
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)

        _foreach_mul_(device_square_avgs, rho)
        _foreach_addcmul_(device_square_avgs, device_grads, device_grads, value=1 - rho)

        # delta = sqrt(u + eps) / sqrt(v + eps) * g
        std = _foreach_add(device_square_avgs, eps)
        _foreach_sqrt_(std)
        deltas = _foreach_add(device_acc_deltas, eps)
        _foreach_sqrt_(deltas)
        _foreach_div_(deltas, std)
        _foreach_mul_(deltas, device_grads)

        _foreach_mul_(device_acc_deltas, rho)
        _foreach_addcmul_(device_acc_deltas, deltas, deltas, value=1 - rho)
        _foreach_add_(device_params, deltas, alpha=-lr)
