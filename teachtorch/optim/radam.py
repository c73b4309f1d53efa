"""RAdam: Adam with a *rectified* adaptive learning rate (Liu et al., "On the Variance of the Adaptive
Learning Rate and Beyond", 2019).

In Adam's first steps v is an average of very few squared gradients, so 1 / sqrt(v) varies wildly, which
is why Adam is usually run with a warm-up. RAdam estimates how many steps the average really holds
(rho_t, tending to rho_inf = 2 / (1 - beta2) - 1): while rho_t <= 5 it takes plain momentum steps (no
division by sqrt(v)), afterwards Adam steps scaled by a rectification term r_t that grows to 1. The
update, as PyTorch's torch/optim/radam.py computes it (`_single_tensor_radam`; lambda = weight_decay):

    g <- -g                                        if maximize
    theta <- theta * (1 - lr * lambda)             if decoupled_weight_decay (RAdamW)
    g <- g + lambda * theta                        otherwise, if lambda != 0
    m <- lerp(m, g, 1 - beta1);  v <- beta2 * v + (1 - beta2) * g * g
    m_hat <- m / (1 - beta1^t)
    rho_t <- rho_inf - 2 t beta2^t / (1 - beta2^t)
    if rho_t > 5:
        r_t <- sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        theta <- theta - m_hat * lr * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
    else:
        theta <- theta - m_hat * lr

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_radam` below: one `_foreach_*` call per line over all the parameters of a group (PyTorch's
torch/optim/radam.py `_multi_tensor_radam`, its non-capturable branch, line by line). Both branches become one
formula there: theta <- theta + m * (sqrt(1 - beta2^t) * step_rect / (sqrt(v) + eps) + step_unrect), where one
of the two Python numbers step_rect = -lr * r_t / (1 - beta1^t) and step_unrect = -lr / (1 - beta1^t) is 0.
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcmul_, _foreach_div_, _foreach_lerp_, _foreach_mul_, _foreach_neg,
    _foreach_reciprocal_, _foreach_sqrt, preserve_format, tensor, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam: `RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False)`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
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
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}                              # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, param, state):
        """The state of a parameter on its first step: a step counter and zero moments shaped like it."""
        # all at once: Ctrl-C while the zeros are made leaves no half-made state
        state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                      "exp_avg": zeros_like(param, memory_format=preserve_format),
                      "exp_avg_sq": zeros_like(param, memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient; returns `closure()`'s loss if given."""
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
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                step = state["step"].item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                bias_corrected_exp_avg = exp_avg / bias_correction1

                # the length of the simple moving average that v approximates, now and in the limit
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
                    param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_radam`)."""
        grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state)
            grads.append(param.grad)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            state_steps.append(state["step"])
        beta1, beta2 = group["betas"]
        _multi_tensor_radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, beta1=beta1, beta2=beta2,
                            lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
                            decoupled_weight_decay=group["decoupled_weight_decay"], maximize=group["maximize"])


def _multi_tensor_radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps,
                        decoupled_weight_decay, maximize):
    """RAdam over lists of tensors, one `_foreach_*` call per line (torch/optim/radam.py `_multi_tensor_radam`;
    its capturable and complex branches are not here, as in the loop above)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, exp_avgs, exp_avg_sqs, state_steps])
    for (grouped_params, grouped_grads, grouped_exp_avgs, grouped_exp_avg_sqs, grouped_state_steps), _ in \
            grouped.values():
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(grouped_state_steps, 1)
        if maximize:
            grouped_grads = _foreach_neg(grouped_grads)

        # the length of the simple moving average that v approximates, in the limit and now (one per parameter)
        rho_inf = 2 / (1 - beta2) - 1
        steps = [step.item() for step in grouped_state_steps]
        rho_t_list = [rho_inf - 2 * step * (beta2 ** step) / (1 - beta2 ** step) for step in steps]

        if weight_decay != 0:
            if decoupled_weight_decay:
                _foreach_mul_(grouped_params, 1 - lr * weight_decay)
            elif maximize:    # grouped_grads is already a new list of tensors: reuse it
                _foreach_add_(grouped_grads, grouped_params, alpha=weight_decay)
            else:
                grouped_grads = _foreach_add(grouped_grads, grouped_params, alpha=weight_decay)

        # the running averages
        _foreach_lerp_(grouped_exp_avgs, grouped_grads, 1 - beta1)
        _foreach_mul_(grouped_exp_avg_sqs, beta2)
        _foreach_addcmul_(grouped_exp_avg_sqs, grouped_grads, grouped_grads, 1 - beta2)
        del grouped_grads

        # the rectification term r_t (0 while rho_t <= 5) and the two step sizes, one of which is 0
        rect = [((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                if rho_t > 5 else 0 for rho_t in rho_t_list]
        unrectified = [0 if r > 0 else 1.0 for r in rect]
        bias_correction1 = [1 - beta1 ** step for step in steps]
        unrect_step_size = [(lr * r / bc) * -1 for r, bc in zip(unrectified, bias_correction1)]
        bias_correction2 = [((1 - beta2 ** step) ** 0.5) * (lr * r / bc) * -1
                            for step, r, bc in zip(steps, rect, bias_correction1)]

        # buffer = sqrt(1 - beta2^t) * step_rect / (sqrt(v) + eps) + step_unrect, then theta <- theta + m * buffer
        buffer = _foreach_sqrt(grouped_exp_avg_sqs)
        _foreach_add_(buffer, eps)
        _foreach_div_(buffer, bias_correction2)
        _foreach_reciprocal_(buffer)
        _foreach_add_(buffer, unrect_step_size)
        _foreach_addcmul_(grouped_params, grouped_exp_avgs, buffer)
