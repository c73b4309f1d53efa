"""The autograd layer's kernel for ops that have no derivative formula registered yet.

Every tensor carries an Autograd<Backend> key, so every op passes through this layer. An op's autograd
kernel (PyTorch's generated `VariableType::add_Tensor`) checks `requires_grad` and grad mode, records a
`grad_fn` node when needed, and redispatches below autograd. Until an op has such a kernel, this boxed
fallback just redispatches, like PyTorch's `autogradNotImplementedFallback` for ops that nothing requires
grad through.
"""

from .._dispatch_key import AFTER_AUTOGRAD, AUTOGRAD_KEYS
from ..dispatch import dispatcher
from ..dispatch.dispatcher import redispatch


def autograd_fallback(op, ks, *args):
    return redispatch(op, ks & AFTER_AUTOGRAD, args)


for _key in AUTOGRAD_KEYS:
    dispatcher.register_fallback(_key, autograd_fallback)
