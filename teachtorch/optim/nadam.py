"""NAdam: Adam with Nesterov momentum (Dozat, "Incorporating Nesterov Momentum into Adam", 2016).

Nesterov momentum looks one step ahead: it applies the *next* step's momentum to the running average,
plus the current gradient's share. NAdam also warms the momentum up: mu_t = beta1 * (1 - 0.5 * 0.96^(t * psi))
grows from beta1 / 2 towards beta1 (psi = momentum_decay). The update, as PyTorch's torch/optim/nadam.py
computes it (`_single_tensor_nadam`; lambda = weight_decay):

    g <- -g                                        if maximize
    theta <- theta * (1 - lr * lambda)             if decoupled_weight_decay (NAdamW)
    g <- g + lambda * theta                        otherwise, if lambda != 0
    P <- P * mu_t                                  ('mu_product', the product of all mu so far)
    m <- lerp(m, g, 1 - beta1);  v <- beta2 * v + (1 - beta2) * g * g
    d <- sqrt(v / (1 - beta2^t)) + eps
    theta <- theta - lr * (1 - mu_t) / (1 - P) * g / d - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / d

`mu_product` is a scalar float32 tensor in the state (as `step`), so its rounding is PyTorch's.
"""

from ..autograd.grad_mode import no_grad
from ..ops import preserve_format, tensor, zeros_like
from .optimizer import Optimizer, _check_kernel_switches, _scalar_dtype

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam: `NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
    decoupled_weight_decay=False)`."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
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
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}                              # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            momentum_decay = group["momentum_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    # all at once: Ctrl-C while the zeros are made leaves no half-made state
                    state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                                  "mu_product": tensor(1.0, dtype=_scalar_dtype()),
                                  "exp_avg": zeros_like(param, memory_format=preserve_format),
                                  "exp_avg_sq": zeros_like(param, memory_format=preserve_format)})
                exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                step = state["step"].item()
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                # the momentum schedule: this step's mu and the next one's (the Nesterov look-ahead)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product.mul_(mu)          # in float32, as PyTorch's tensor

                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt()

                mu_product_value = mu_product.item()
                mu_product_next = mu_product_value * mu_next
                denom.add_(eps)
                param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product_value)))
                param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
