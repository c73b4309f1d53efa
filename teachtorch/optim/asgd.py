"""ASGD: averaged stochastic gradient descent (Polyak and Juditsky, 1992).

Plain SGD with a slowly decaying step size eta_t, which also keeps a running average `'ax'` of the
parameter over the steps after `t0`: at the end of training that average is often a better model than the
last iterate (copy it into the parameters to use it). The update, as PyTorch's torch/optim/asgd.py computes
it (`_single_tensor_asgd`; lambda = weight_decay, lambd = the decay term):

    g <- -g                                        if maximize
    g <- g + lambda * theta                        if lambda != 0
    theta <- theta * (1 - lambd * eta) - eta * g
    ax <- ax + mu * (theta - ax)                   (ax <- theta while mu = 1)
    eta <- lr / (1 + lambd * lr * t) ^ alpha        ('eta')
    mu <- 1 / max(1, t - t0)                       ('mu')

`eta` and `mu` are scalar float32 tensors in the state, as `step`, so their rounding is PyTorch's.
"""

from ..autograd.grad_mode import no_grad
from ..ops import ones, preserve_format, tensor, zeros, zeros_like
from .optimizer import Optimizer, _check_kernel_switches, _scalar_dtype

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """ASGD: `ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0)`."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}                                      # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    # all at once: Ctrl-C while the tensors are made leaves no half-made state
                    state.update({"step": zeros((), dtype=_scalar_dtype()),
                                  "eta": tensor(float(lr), dtype=_scalar_dtype()),
                                  "mu": ones((), dtype=_scalar_dtype()),
                                  "ax": zeros_like(param, memory_format=preserve_format)})
                ax, eta, mu = state["ax"], state["eta"], state["mu"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)     # decay term
                param.add_(grad, alpha=-eta_value)     # the SGD step

                # averaging: until t0 steps have passed, mu is 1 and the average is the last iterate
                if mu.item() != 1:
                    ax.add_(param.sub(ax).mul_(mu.item()))     # (a number: mu may be on another device)
                else:
                    ax.copy_(param)

                step = state["step"].item()
                eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
                mu.fill_(1 / max(1, step - t0))
        return loss
