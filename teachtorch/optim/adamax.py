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
"""

from ..autograd.grad_mode import no_grad
from ..ops import maximum, preserve_format, tensor, zeros_like
from .optimizer import Optimizer, _check_kernel_switches, _scalar_dtype

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

    @no_grad()
    def step(self, closure=None):
        """One Adamax update of every parameter that has a gradient; returns `closure()`'s loss if given."""
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
                                  "exp_inf": zeros_like(param, memory_format=preserve_format)})
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
