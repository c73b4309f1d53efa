"""Dispatch keys: the layers an op call passes through, highest priority first.

PyTorch (c10/core/DispatchKey.h, DispatchKeySet.h) gives every tensor a *key set*, a 64-bit mask with one bit
per key. To run an op, the dispatcher ORs the key sets of all tensor arguments, adds the thread's included
keys, removes its excluded keys, and runs the kernel of the **highest set bit**. That kernel does its part
(record autograd history, bump a version counter, ...) and *redispatches* with its own bit and every bit above
it masked off, so the next lower layer runs.

teachtorch keeps the keys that teach the idea, in PyTorch's order (higher value = higher priority):

    AutogradCPU / AutogradCUDA / AutogradMeta   record the graph for backward (autograd issue)
    ADInplaceOrView                             bump version counters of mutated tensors; link views to bases
    Python                                      a TorchDispatchMode sees the op here (below autograd, as in PyTorch)
    BackendSelect                               factories with no tensor argument pick a backend from `device=`
    Meta / CUDA / CPU                           the backends: they compute (Meta only computes shapes)

Alias keys (`CompositeImplicitAutograd`, `CompositeExplicitAutograd`, `Autograd`) exist only at registration
time: registering to one fills several runtime slots (see `dispatch/dispatcher.py`).
"""

from enum import IntEnum


class DispatchKey(IntEnum):
    CPU = 0
    CUDA = 1
    Meta = 2
    BackendSelect = 3
    Python = 4
    ADInplaceOrView = 5
    AutogradCPU = 6
    AutogradCUDA = 7
    AutogradMeta = 8


NUM_KEYS = len(DispatchKey)

# Registration-only aliases, as in PyTorch.
CompositeExplicitAutograd = "CompositeExplicitAutograd"
CompositeImplicitAutograd = "CompositeImplicitAutograd"
Autograd = "Autograd"
ALIAS_KEYS = (CompositeExplicitAutograd, CompositeImplicitAutograd, Autograd)

BACKEND_KEYS = (DispatchKey.CPU, DispatchKey.CUDA, DispatchKey.Meta)
AUTOGRAD_KEYS = (DispatchKey.AutogradCPU, DispatchKey.AutogradCUDA, DispatchKey.AutogradMeta)
BACKEND_OF_AUTOGRAD_KEY = dict(zip(AUTOGRAD_KEYS, BACKEND_KEYS))


def bit(key):
    return 1 << key


def below(key):
    """The mask a kernel at `key` redispatches with: every key of lower priority."""
    return (1 << key) - 1


AUTOGRAD_BITS = sum(bit(k) for k in AUTOGRAD_KEYS)
AFTER_AUTOGRAD = below(DispatchKey.ADInplaceOrView + 1)       # everything below the autograd keys
AFTER_AD_INPLACE_OR_VIEW = below(DispatchKey.ADInplaceOrView)

# What a tensor carries, by device type. Like PyTorch, autograd keys are on *every* tensor; whether it
# requires grad is checked inside the autograd kernel, not by the key set.
KEYS_OF_DEVICE = {
    "cpu": bit(DispatchKey.CPU) | bit(DispatchKey.ADInplaceOrView) | bit(DispatchKey.AutogradCPU),
    "cuda": bit(DispatchKey.CUDA) | bit(DispatchKey.ADInplaceOrView) | bit(DispatchKey.AutogradCUDA),
    "meta": bit(DispatchKey.Meta) | bit(DispatchKey.ADInplaceOrView) | bit(DispatchKey.AutogradMeta),
}


def keyset_names(ks):
    """The keys in a key set, highest priority first: `keyset_names(0b1000100001)`."""
    names = _KEYSET_NAMES.get(ks)
    if names is None:           # remembered: a dispatch trace asks on every hop, with a handful of key sets
        names = _KEYSET_NAMES[ks] = tuple(k.name for k in reversed(DispatchKey) if ks >> k & 1)
    return list(names)


_KEYSET_NAMES = {}
