"""AdamW: Adam with *decoupled* weight decay (Loshchilov and Hutter, "Decoupled Weight Decay Regularization").

Adam with `weight_decay` adds lambda * theta to the gradient, so the decay then goes through the running
averages and is divided by sqrt(v): weights with large gradients are barely decayed. AdamW instead shrinks
the weights directly, before the Adam step, by the same factor for every weight:

    theta <- theta * (1 - lr * weight_decay)
    ... then the Adam update of adam.py, with the gradient left alone

As in PyTorch's torch/optim/adamw.py, AdamW is Adam with `decoupled_weight_decay=True` and a default
weight_decay of 1e-2 instead of 0; the state (`step`, `exp_avg`, `exp_avg_sq`, `max_exp_avg_sq`) is Adam's.
"""

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW: `AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False)`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict):
        """As Adam's; an AdamW stays AdamW even when loading an Adam state_dict (as in PyTorch)."""
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
