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
"""

from ..autograd.grad_mode import no_grad
from ..ops import preserve_format, zeros, zeros_like
from .optimizer import Optimizer, _check_kernel_switches, _scalar_dtype

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

    @no_grad()
    def step(self, closure=None):
        """One Adadelta update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    # all at once: Ctrl-C while the zeros are made leaves no half-made state
                    state.update({"step": zeros((), dtype=_scalar_dtype()),
                                  "square_avg": zeros_like(param, memory_format=preserve_format),
                                  "acc_delta": zeros_like(param, memory_format=preserve_format)})
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
