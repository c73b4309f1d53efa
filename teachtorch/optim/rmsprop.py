"""RMSprop: divide each gradient by a running root-mean-square of its recent values (Hinton's lecture 6e).

The update, as PyTorch's torch/optim/rmsprop.py computes it (`_single_tensor_rmsprop`; gamma = lr,
alpha = the smoothing constant, lambda = weight_decay, mu = momentum):

    g <- -g                                       if maximize
    g <- g + lambda * theta                       if lambda != 0
    v <- alpha * v + (1 - alpha) * g * g          ('square_avg')
    if centered:                                  subtract the squared mean: divide by a standard deviation
        g_avg <- lerp(g_avg, g, 1 - alpha)        ('grad_avg')
        avg <- sqrt(v - g_avg * g_avg) + eps
    else:
        avg <- sqrt(v) + eps
    if mu > 0:
        b <- mu * b + g / avg                     ('momentum_buffer', starts at zero)
        theta <- theta - gamma * b
    else:
        theta <- theta - gamma * g / avg

Note that eps is added *after* the square root (TensorFlow adds it inside). The state also counts steps
(`'step'`, a scalar float32 tensor), though the update does not use it.
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcdiv_, _foreach_addcmul, _foreach_addcmul_, _foreach_lerp_,
    _foreach_mul_, _foreach_neg, _foreach_sqrt, _foreach_sqrt_, preserve_format, zeros, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: `RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False)`.

    PyTorch takes `capturable, foreach, maximize, differentiable` positionally after `centered`; teachtorch
    has only `maximize`, so it is keyword-only here (a positional call cannot then put a value in the wrong
    option)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}         # PyTorch's keys, in its order
        _check_kernel_switches(foreach, None, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, param, state, group):
        """The state of a parameter on its first step: a step counter and zero averages shaped like it."""
        new = {"step": zeros((), dtype=_scalar_dtype()),
               "square_avg": zeros_like(param, memory_format=preserve_format)}
        if group["momentum"] > 0:
            new["momentum_buffer"] = zeros_like(param, memory_format=preserve_format)
        if group["centered"]:
            new["grad_avg"] = zeros_like(param, memory_format=preserve_format)
        state.update(new)     # all at once: Ctrl-C while the zeros are made leaves no half-made state

    @no_grad()
    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), None, group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr = group["lr"]
            alpha = group["alpha"]
            weight_decay = group["weight_decay"]
            momentum = group["momentum"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state, group)
                square_avg = state["square_avg"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)

                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(group["eps"])

                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    param.add_(buf, alpha=-lr)
                else:
                    param.addcdiv_(grad, avg, value=-lr)
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group (PyTorch's `_init_group`, then `_multi_tensor_rmsprop`)."""
        grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps = [], [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state, group)
            grads.append(param.grad)
            square_avgs.append(state["square_avg"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])
            state_steps.append(state["step"])
        _multi_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps,
                              lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
                              weight_decay=group["weight_decay"], momentum=group["momentum"],
                              centered=group["centered"], maximize=group["maximize"])


def _multi_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha,
                          eps, weight_decay, momentum, centered, maximize):
    """RMSprop over lists of tensors, one `_foreach_*` call per line (torch/optim/rmsprop.py
    `_multi_tensor_rmsprop`)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, square_avgs, grad_avgs, momentum_buffer_list,
                                                  state_steps])
    for (device_params, device_grads, device_square_avgs, device_grad_avgs, device_momentum_buffer_list,
         device_state_steps), _ in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        _foreach_add_(device_state_steps, 1)
        if weight_decay != 0:
            if maximize:      # device_grads is already a new list of tensors: reuse it
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)

        _foreach_mul_(device_square_avgs, alpha)
        _foreach_addcmul_(device_square_avgs, device_grads, device_grads, 1 - alpha)
        if centered:
            _foreach_lerp_(device_grad_avgs, device_grads, 1 - alpha)
            avg = _foreach_addcmul(device_square_avgs, device_grad_avgs, device_grad_avgs, -1)
            _foreach_sqrt_(avg)
        else:
            avg = _foreach_sqrt(device_square_avgs)
        _foreach_add_(avg, eps)

        if momentum > 0:
            _foreach_mul_(device_momentum_buffer_list, momentum)
            _foreach_addcdiv_(device_momentum_buffer_list, device_grads, avg)
            _foreach_add_(device_params, device_momentum_buffer_list, alpha=-lr)
        else:
            _foreach_addcdiv_(device_params, device_grads, avg, -lr)
