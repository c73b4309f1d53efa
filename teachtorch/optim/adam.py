"""Adam: gradient descent with running averages of the gradient and of its square.

Adam keeps two running averages per parameter, m (the first moment, `'exp_avg'`) and v (the second moment,
`'exp_avg_sq'`), and moves each weight by m / sqrt(v): large, steady gradients and small, noisy ones give
steps of similar size. The update at step t, as PyTorch's torch/optim/adam.py computes it
(`_single_tensor_adam`; gamma = lr, lambda = weight_decay):

    g <- -g                                      if maximize
    theta <- theta * (1 - gamma * lambda)        if decoupled_weight_decay (AdamW)
    g <- g + lambda * theta                      otherwise, if lambda != 0 (L2 penalty in the gradient)
    m <- lerp(m, g, 1 - beta1)     = beta1 * m + (1 - beta1) * g
    v <- beta2 * v + (1 - beta2) * g * g
    v_max <- max(v_max, v)                       if amsgrad ('max_exp_avg_sq'), then v_max replaces v below
    theta <- theta - gamma / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)

m and v start at zero, so early on they are too small; dividing by 1 - beta^t (the *bias correction*)
undoes that. The step count t is the state `'step'`, a scalar float32 tensor as in PyTorch 2.x.

With `foreach=True` (the default when every parameter is on cuda, as in PyTorch) the same update runs as
`_multi_tensor_adam` below: each line above is one `_foreach_*` call over all the parameters of a group
(PyTorch's torch/optim/adam.py `_multi_tensor_adam`, its non-capturable branch, line by line).

The state tensors are made with `zeros_like(param, memory_format=preserve_format)`, so they have the
parameter's strides. A transposed parameter (`w.t().clone()`) gives transposed state, and every in-place op
below (`lerp_`, `mul_`, `addcmul_`, `addcdiv_`) then writes into a non-contiguous tensor. That is the case
that froze Adam on Apple's MPS backend in 2024: addcmul_/addcdiv_ did not write back into non-contiguous
outputs, so the weights silently never moved (pytorch#118115). teachtorch's single write path
(backends.write) lands every in-place result in the storage, whatever the strides.
"""

from ..autograd.grad_mode import no_grad
from ..ops import (
    _foreach_add, _foreach_add_, _foreach_addcdiv_, _foreach_addcmul_, _foreach_div_, _foreach_lerp_,
    _foreach_maximum_, _foreach_mul_, _foreach_neg, _foreach_sqrt, maximum, preserve_format, zeros, zeros_like,
)
from .optimizer import (
    Optimizer, _check_kernel_switches, _group_tensors_by_device_and_dtype, _scalar_dtype, _use_foreach,
)

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam: `Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False)`.

    `decoupled_weight_decay=True` makes it AdamW (see adamw.py)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
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
        # PyTorch also takes betas as two scalar tensors; teachtorch takes Python floats only
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}                # PyTorch's keys, in its order
        _check_kernel_switches(foreach, fused, differentiable)
        super().__init__(params, defaults)

    def _init_state(self, param, state, amsgrad):
        """The state of a parameter on its first step: a step counter and zero moments shaped like it."""
        # the counter stays on the CPU whatever the parameter's device: it is read back with .item() each step
        new = {"step": zeros((), dtype=_scalar_dtype()),
               "exp_avg": zeros_like(param, memory_format=preserve_format),
               "exp_avg_sq": zeros_like(param, memory_format=preserve_format)}
        if amsgrad:
            new["max_exp_avg_sq"] = zeros_like(param, memory_format=preserve_format)
        state.update(new)     # all at once: Ctrl-C while the zeros are made leaves no half-made state

    @no_grad()
    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient; returns `closure()`'s loss if given."""
        loss = self._call_closure(closure)
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if _use_foreach(params, group.get("foreach"), group.get("fused"), group.get("differentiable", False)):
                self._multi_tensor_step(group, params)
                continue
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            for param in group["params"]:
                if param.grad is None:
                    continue
                state = self.state[param]
                if len(state) == 0:
                    self._init_state(param, state, amsgrad)
                exp_avg = state["exp_avg"]
                exp_avg_sq = state["exp_avg_sq"]

                grad = param.grad if not group["maximize"] else -param.grad
                state["step"].add_(1)
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)

                # the running averages, both updated in place
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)

                # the bias corrections are plain Python numbers: one .item() instead of tensor ops
                step = state["step"].item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5

                if amsgrad:
                    max_exp_avg_sq = state["max_exp_avg_sq"]
                    maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
                    denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)

                param.addcdiv_(exp_avg, denom, value=-step_size)
        return loss

    def _multi_tensor_step(self, group, params):
        """The foreach path of `step` for one group: gather the lists (PyTorch's `_init_group`), then update."""
        grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], []
        for param in params:
            state = self.state[param]
            if len(state) == 0:
                self._init_state(param, state, group["amsgrad"])
            grads.append(param.grad)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])
        beta1, beta2 = group["betas"]
        _multi_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
                           amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                           weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                           decoupled_weight_decay=group["decoupled_weight_decay"])


def _multi_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                       beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    """Adam over lists of tensors, one `_foreach_*` call per line (torch/optim/adam.py `_multi_tensor_adam`)."""
    if len(params) == 0:
        return
    grouped = _group_tensors_by_device_and_dtype([params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                                  state_steps])
    for (device_params, device_grads, device_exp_avgs, device_exp_avg_sqs, device_max_exp_avg_sqs,
         device_state_steps), _ in grouped.values():
        if maximize:
            device_grads = _foreach_neg(device_grads)
        # PyTorch adds a cpu tensor(1.0) to cpu steps (cheaper in C++ than wrapping the number each time);
        # the number 1 gives the same counts
        _foreach_add_(device_state_steps, 1)

        if weight_decay != 0:
            if decoupled_weight_decay:
                _foreach_mul_(device_params, 1 - lr * weight_decay)
            elif maximize:     # device_grads is already a new list of tensors: reuse it
                _foreach_add_(device_grads, device_params, alpha=weight_decay)
            else:
                device_grads = _foreach_add(device_grads, device_params, alpha=weight_decay)

        # the running averages
        _foreach_lerp_(device_exp_avgs, device_grads, 1 - beta1)
        _foreach_mul_(device_exp_avg_sqs, beta2)
        _foreach_addcmul_(device_exp_avg_sqs, device_grads, device_grads, 1 - beta2)
        del device_grads

        # one Python number per parameter (each has its own step count)
        bias_correction1 = [1 - beta1 ** step.item() for step in device_state_steps]
        bias_correction2 = [1 - beta2 ** step.item() for step in device_state_steps]
        step_size = [(lr / bc) * -1 for bc in bias_correction1]
        bias_correction2_sqrt = [bc ** 0.5 for bc in bias_correction2]

        if amsgrad:
            _foreach_maximum_(device_max_exp_avg_sqs, device_exp_avg_sqs)
            exp_avg_sq_sqrt = _foreach_sqrt(device_max_exp_avg_sqs)
        else:
            exp_avg_sq_sqrt = _foreach_sqrt(device_exp_avg_sqs)
        _foreach_div_(exp_avg_sq_sqrt, bias_correction2_sqrt)
        _foreach_add_(exp_avg_sq_sqrt, eps)
        _foreach_addcdiv_(device_params, device_exp_avgs, exp_avg_sq_sqrt, step_size)
