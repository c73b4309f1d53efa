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
from ..ops import _foreach_add, _foreach_add_, _foreach_mul_, _foreach_neg
from .optimizer import Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _use_foreach

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
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), group.get("fused"), group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
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

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_sgd`)."""
        grads = [p.grad for p in params]
        momentum_buffer_list = [self.state[p].get("momentum_buffer") for p in params] if group["momentum"] else []
        _multi_tensor_sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"],
                          momentum=group["momentum"], lr=group["lr"], dampening=group["dampening"],
                          nesterov=group["nesterov"], maximize=group["maximize"])
        if group["momentum"] != 0:     # the buffers made on the first step go into the state
            for param, buf in zip(params, momentum_buffer_list):
                self.state[param]["momentum_buffer"] = buf


def _multi_tensor_sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
                      maximize):
    """SGD over lists of tensors, one `_foreach_*` call per line (torch/optim/sgd.py `_multi_tensor_sgd`).

    As in PyTorch, with nesterov (and no maximize or weight decay) the momentum term is added into the
    gradients themselves: `p.grad` changes."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, momentum_buffer_list])
    for (device_params, device_grads, device_momentum_buffer_list), indices in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        if weight_decay != 0:
            if maximize:      # device_grads is already a new list of tensors: reuse it
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)

        if momentum != 0:
            if all(buf is not None for buf in device_momentum_buffer_list):
                bufs = device_momentum_buffer_list
                _foreach_mul_(bufs, momentum)
                _foreach_add_(bufs, device_grads, alpha=1 - dampening)
            else:             # the first step: each buffer starts as a copy of its gradient
                bufs = []
                for i, buf in enumerate(device_momentum_buffer_list):
                    if buf is None:
                        buf = momentum_buffer_list[indices[i]] = device_grads[i].detach().clone()
                    else:
                        buf.mul_(momentum).add_(device_grads[i], alpha=1 - dampening)
                    bufs.append(buf)
            if nesterov:
                _foreach_add_(device_grads, bufs, alpha=momentum)
            else:
                device_grads = bufs

        _foreach_add_(device_params, device_grads, alpha=-lr)
