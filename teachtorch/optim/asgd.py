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

`eta` and `mu` are scalar float32 tensors in the state, as `step`, so their rounding is PyTorch's. As in
PyTorch, the three live on the parameter's device.

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_asgd` below: one `_foreach_*` call per line over all the parameters of a group (PyTorch's
torch/optim/asgd.py `_multi_tensor_asgd`, its non-capturable branch, line by line). It writes the first line
as theta <- theta - eta * (g + lambd * theta), and always averages (ax + 1 * (theta - ax) is theta): the same
numbers as the loop, rounded differently.
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcmul_, _foreach_copy_, _foreach_neg, _foreach_sub, as_tensor, ones,
    preserve_format, tensor, zeros, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

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

    def _init_state(self, param, state, lr):
        """The state of a parameter on its first step: counters on the parameter's device, a zero average."""
        # all at once: Ctrl-C while the tensors are made leaves no half-made state
        state.update({"step": zeros((), dtype=_scalar_dtype(), device=param.device),
                      "eta": tensor(float(lr), dtype=_scalar_dtype(), device=param.device),
                      "mu": ones((), dtype=_scalar_dtype(), device=param.device),
                      "ax": zeros_like(param, memory_format=preserve_format)})

    @no_grad()
    def step(self, closure=None):
        """One ASGD update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), None, group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state, lr)
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
                    ax.add_(param.sub(ax).mul_(mu))
                else:
                    ax.copy_(param)

                step = state["step"].item()
                eta.fill_(lr / ((1 + lambd * lr * step) ** alpha))
                mu.fill_(1 / max(1, step - t0))
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_asgd`)."""
        grads, axs, mus, etas, state_steps = [], [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state, group["lr"])
            grads.append(param.grad)
            axs.append(state["ax"])
            mus.append(state["mu"])
            etas.append(state["eta"])
            state_steps.append(state["step"])
        _multi_tensor_asgd(params, grads, axs, mus, etas, state_steps, lambd=group["lambd"], lr=group["lr"],
                           t0=group["t0"], alpha=group["alpha"], weight_decay=group["weight_decay"],
                           maximize=group["maximize"])


def _multi_tensor_asgd(params, grads, axs, mus, etas, state_steps, *, lambd, lr, t0, alpha, weight_decay, maximize):
    """ASGD over lists of tensors, one `_foreach_*` call per line (torch/optim/asgd.py `_multi_tensor_asgd`;
    its capturable and complex branches are not here, as in the loop above)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, axs, mus, etas, state_steps])
    for (device, _), ((grouped_params, grouped_grads, grouped_axs, grouped_mus, grouped_etas,
                       grouped_state_steps), _) in grouped.items():
        if maximize:
            grouped_grads = _foreach_neg(grouped_grads)
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(grouped_state_steps, 1)

        # intermediate = g + lambd * theta (plus the weight decay)
        if weight_decay != 0:
            if maximize:      # grouped_grads is already a new list of tensors: reuse it
                _foreach_add_(grouped_grads, grouped_params, alpha=weight_decay)
                intermediate = grouped_grads
            else:
                intermediate = _foreach_add(grouped_grads, grouped_params, alpha=weight_decay)
            _foreach_add_(intermediate, grouped_params, alpha=lambd)
        else:
            intermediate = _foreach_add(grouped_grads, grouped_params, alpha=lambd)

        # theta * (1 - lambd * eta) - eta * g  =  theta - eta * intermediate  (eta: a 0-dim tensor per parameter)
        _foreach_addcmul_(grouped_params, intermediate, grouped_etas, value=-1)
        del intermediate

        # the average, ax <- ax + mu * (theta - ax); PyTorch does not use lerp here: its weight would have to
        # have the parameters' dtype, and mu is float32
        intermediate = _foreach_sub(grouped_params, grouped_axs)
        _foreach_addcmul_(grouped_axs, intermediate, grouped_mus)
        del intermediate

        # the next eta and mu: eta from the step tensor (float32 arithmetic, as PyTorch), mu from its value
        new_etas = [as_tensor(lr / ((1 + lambd * lr * step) ** alpha), device=device) for step in grouped_state_steps]
        new_mus = [as_tensor(1 / max(1, step.item() - t0), device=device) for step in grouped_state_steps]
        _foreach_copy_(grouped_etas, new_etas)
        _foreach_copy_(grouped_mus, new_mus)
