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
"""

from ..autograd.grad_mode import no_grad
from ..ops import preserve_format, tensor, zeros_like
from .optimizer import Optimizer, _check_kernel_switches, _scalar_dtype

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

    @no_grad()
    def step(self, closure=None):
        """One RAdam update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    # all at once: Ctrl-C while the zeros are made leaves no half-made state
                    state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                                  "exp_avg": zeros_like(param, memory_format=preserve_format),
                                  "exp_avg_sq": zeros_like(param, memory_format=preserve_format)})
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
