"""Adamax: Adam with the infinity norm in place of the root mean square (Kingma and Ba, section 7.1).

Adam divides by sqrt(v), a running average of g^2. Adamax divides by u, a running *maximum* of |g| that
decays by beta2 each step; a maximum needs no bias correction, only the first moment m does. The update,
as PyTorch's torch/optim/adamax.py computes it (`_single_tensor_adamax`; lambda = weight_decay):

    g <- -g                                        if maximize
    g <- g + lambda * theta                        if lambda != 0
    m <- lerp(m, g, 1 - beta1)                     ('exp_avg')
    u <- max(beta2 * u, |g| + eps)                 ('exp_inf')
    theta <- theta - lr / (1 - beta1^t) * m / u

eps is added to |g| *inside* the maximum, so u is never 0.

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_adamax` below: one `_foreach_*` call per line over all the parameters of a group (PyTorch's
torch/optim/adamax.py `_multi_tensor_adamax`, its non-capturable branch, line by line).
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_abs, _foreach_abs_, _foreach_add, _foreach_add_, _foreach_addcdiv_, _foreach_lerp_, _foreach_maximum_,
    _foreach_mul_, _foreach_neg, maximum, preserve_format, tensor, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax: `Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0)`."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}                                      # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, param, state):
        """The state of a parameter on its first step: a step counter and zero moments shaped like it."""
        # all at once: Ctrl-C while the zeros are made leaves no half-made state
        state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                      "exp_avg": zeros_like(param, memory_format=preserve_format),
                      "exp_inf": zeros_like(param, memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), None, group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)

                bias_correction = 1 - beta1 ** state["step"].item()
                param.addcdiv_(exp_avg, exp_inf, value=-(lr / bias_correction))
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_adamax`)."""
        grads, exp_avgs, exp_infs, state_steps = [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state)
            grads.append(param.grad)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
            state_steps.append(state["step"])
        beta1, beta2 = group["betas"]
        _multi_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1,
                             beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                             maximize=group["maximize"])


def _multi_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                         maximize):
    """Adamax over lists of tensors, one `_foreach_*` call per line (torch/optim/adamax.py
    `_multi_tensor_adamax`; its capturable and complex branches are not here, as in the loop above)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, exp_avgs, exp_infs, state_steps])
    for (grouped_params, grouped_grads, grouped_exp_avgs, grouped_exp_infs, grouped_state_steps), _ in \
            grouped.values():
        if maximize:
            grouped_grads = _foreach_neg(grouped_grads)
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(grouped_state_steps, 1)

        if weight_decay != 0:
            if maximize:      # grouped_grads is already a new list of tensors: reuse it
                _foreach_add_(grouped_grads, grouped_params, alpha=weight_decay)
            else:
                grouped_grads = _foreach_add(grouped_grads, grouped_params, alpha=weight_decay)

        # the biased first moment, then the exponentially weighted infinity norm
        _foreach_lerp_(grouped_exp_avgs, grouped_grads, 1 - beta1)
        _foreach_mul_(grouped_exp_infs, beta2)
        # |g| in place when grouped_grads is already a copy (maximize or weight decay made one), else a new list:
        # the grads themselves must not change
        if not maximize and weight_decay == 0:
            grouped_grads = _foreach_abs(grouped_grads)
        else:
            _foreach_abs_(grouped_grads)
        _foreach_add_(grouped_grads, eps)
        _foreach_maximum_(grouped_exp_infs, grouped_grads)

        # one Python number per parameter (each has its own step count)
        bias_corrections = [1 - beta1 ** step.item() for step in grouped_state_steps]
        step_size = [(lr / bc) * -1 for bc in bias_corrections]
        _foreach_addcdiv_(grouped_params, grouped_exp_avgs, grouped_exp_infs, step_size)
