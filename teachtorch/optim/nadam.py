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

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_nadam` below: one `_foreach_*` call per line over all the parameters of a group (PyTorch's
torch/optim/nadam.py `_multi_tensor_nadam`, its non-capturable branch, line by line). It divides by
sqrt(v) / sqrt(1 - beta2^t) where the loop takes sqrt(v / (1 - beta2^t)), as PyTorch's two paths do: the same
number, rounded differently.
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcdiv_, _foreach_addcmul_, _foreach_div_, _foreach_lerp_,
    _foreach_mul_, _foreach_neg, _foreach_sqrt, preserve_format, tensor, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

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

    def _init_state(self, param, state):
        """The state of a parameter on its first step: counters and zero moments shaped like it."""
        # all at once: Ctrl-C while the zeros are made leaves no half-made state
        state.update({"step": tensor(0.0, dtype=_scalar_dtype()),
                      "mu_product": tensor(1.0, dtype=_scalar_dtype()),
                      "exp_avg": zeros_like(param, memory_format=preserve_format),
                      "exp_avg_sq": zeros_like(param, memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One NAdam update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), None, group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            momentum_decay = group["momentum_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state)
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

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_nadam`)."""
        grads, exp_avgs, exp_avg_sqs, mu_products, state_steps = [], [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state)
            grads.append(param.grad)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
            state_steps.append(state["step"])
        beta1, beta2 = group["betas"]
        _multi_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1,
                            beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"],
                            momentum_decay=group["momentum_decay"], eps=group["eps"],
                            decoupled_weight_decay=group["decoupled_weight_decay"], maximize=group["maximize"])


def _multi_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                        weight_decay, momentum_decay, eps, decoupled_weight_decay, maximize):
    """NAdam over lists of tensors, one `_foreach_*` call per line (torch/optim/nadam.py `_multi_tensor_nadam`;
    its capturable and complex branches are not here, as in the loop above)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps])
    for (grouped_params, grouped_grads, grouped_exp_avgs, grouped_exp_avg_sqs, grouped_mu_products,
         grouped_state_steps), _ in grouped.values():
        if maximize:
            grouped_grads = _foreach_neg(grouped_grads)
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(grouped_state_steps, 1)

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
        exp_avg_sq_sqrt = _foreach_sqrt(grouped_exp_avg_sqs)

        # one Python number per parameter (each has its own step count): this step's mu and the next one's
        steps = [step.item() for step in grouped_state_steps]
        bias_correction_sqrt = [(1 - beta2 ** step) ** 0.5 for step in steps]
        mus = [beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay))) for step in steps]
        mu_nexts = [beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay))) for step in steps]

        # the products of all mu so far, in their float32 tensors (as PyTorch)
        _foreach_mul_(grouped_mu_products, mus)

        _foreach_div_(exp_avg_sq_sqrt, bias_correction_sqrt)
        _foreach_add_(exp_avg_sq_sqrt, eps)
        del bias_correction_sqrt

        mu_product_values = [mu_product.item() for mu_product in grouped_mu_products]
        step_size_grads = [(lr * (1.0 - mu) / (1.0 - mu_product)) * -1
                           for mu_product, mu in zip(mu_product_values, mus)]
        step_size_expavg = [(lr * mu_next / (1.0 - mu_product * mu_next)) * -1
                            for mu_product, mu_next in zip(mu_product_values, mu_nexts)]
        _foreach_addcdiv_(grouped_params, grouped_grads, exp_avg_sq_sqrt, step_size_grads)
        _foreach_addcdiv_(grouped_params, grouped_exp_avgs, exp_avg_sq_sqrt, step_size_expavg)
