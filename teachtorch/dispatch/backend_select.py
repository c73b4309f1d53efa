"""The BackendSelect layer: how `zeros(3, device="cuda")` finds the CUDA kernel.

A factory function has no tensor argument, so no tensor contributes a backend key to the call's key set.
PyTorch keeps BackendSelect in every thread's included keys; for factories it registers a kernel
(generated into RegisterBackendSelect.cpp) that reads the `device=` argument, adds that backend's key and
redispatches. For every other op BackendSelect falls through.
"""

from .._device import as_device
from .._dispatch_key import DispatchKey, below, bit
from . import dispatcher

_BACKEND_KEY = {"cpu": DispatchKey.CPU, "cuda": DispatchKey.CUDA, "meta": DispatchKey.Meta}


def backend_select_kernel(op):
    """A BackendSelect kernel for a factory op whose schema has a `Device? device` argument."""
    pos = next(i for i, a in enumerate(op.schema.arguments) if a.name == "device")

    def BackendSelect_factory(ks, *args):
        key = _BACKEND_KEY[as_device(args[pos]).type]
        return dispatcher.redispatch(op, (ks & below(DispatchKey.BackendSelect)) | bit(key), args)

    return BackendSelect_factory


dispatcher.register_fallback(DispatchKey.BackendSelect, dispatcher.FALLTHROUGH)
