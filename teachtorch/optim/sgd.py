"""SGD: stochastic gradient descent, with optional momentum, Nesterov momentum and weight decay.

The update for a parameter theta with gradient g, written as PyTorch's torch/optim/sgd.py computes it
(`_single_tensor_sgd`; mu = momentum, tau = dampening, lambda = weight_decay, gamma = lr):

    g <- -g                            if maximize
    g <- g + lambda * theta            if lambda != 0      (L2 penalty, folded into the gradient)
    if mu != 0:
        b <- g                         on the first step   (not scaled by 1 - tau)
        b <- mu * b + (1 - tau) * g    afterwards
        g <- g + mu * b                if nesterov
        g <- b                         otherwise
    theta <- theta - gamma * g

The momentum buffer `b` is the state `'momentum_buffer'`. Every write into theta and b is in place: the
parameter keeps its storage and strides (a transposed parameter stays transposed), so a module that holds
it sees the new values.
"""

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, _check_kernel_switches

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum): `SGD(params, lr=1e-3, momentum=0, ...)`."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}   # PyTorch's keys, in its order
        _check_kernel_switches(foreach, fused, differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One SGD update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            lr = group["lr"]
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)   # a new tensor: p.grad itself is left alone

                if momentum != 0:
                    state = self.state[param]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = grad.detach().clone()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    if group["nesterov"]:
                        grad = grad.add(buf, alpha=momentum)
                    else:
                        grad = buf

                param.add_(grad, alpha=-lr)
        return loss
