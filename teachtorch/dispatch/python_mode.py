"""TorchDispatchMode: your own Python code at the dispatcher's `Python` key.

    class PrintOps(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            print(func)
            return func(*args, **(kwargs or {}))

    with PrintOps():
        y = x.exp() + 1

PyTorch (torch/utils/_python_dispatch.py, aten/src/ATen/core/PythonFallbackKernel.cpp): entering a mode
adds the `Python` key to the thread's included keys, so every op reaches the Python key's fallback, which
calls the innermost mode's `__torch_dispatch__` with the op and its arguments. The Python key sits *below*
Autograd and ADInplaceOrView, so a mode sees the ops that actually reach the backends, backward ops too.
While the handler runs, the mode is switched off and the keys at and above Python are excluded, so calling
`func(*args)` inside it goes straight on to the backend.
"""

from .._dispatch_key import DispatchKey, bit, below
from . import dispatcher

_mode_stack = []
_ABOVE_BACKENDS = ((1 << len(DispatchKey)) - 1) & ~below(DispatchKey.Python)   # Python and everything above


class TorchDispatchMode:
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _mode_stack.append(self)
        dispatcher.tls.include |= bit(DispatchKey.Python)
        return self

    def __exit__(self, *exc):
        _mode_stack.remove(self)
        if not _mode_stack:
            dispatcher.tls.include &= ~bit(DispatchKey.Python)
        return False


def python_fallback(op, ks, *args):
    """The Python key's boxed fallback: hand the op to the innermost mode."""
    mode = _mode_stack.pop()
    saved_include, saved_exclude = dispatcher.tls.include, dispatcher.tls.exclude
    dispatcher.tls.include &= ~bit(DispatchKey.Python)
    dispatcher.tls.exclude |= _ABOVE_BACKENDS
    try:
        types = tuple({type(a) for a in args if hasattr(a, "_keys")})
        return mode.__torch_dispatch__(op, types, args, {})
    finally:
        dispatcher.tls.include, dispatcher.tls.exclude = saved_include, saved_exclude
        _mode_stack.append(mode)


dispatcher.register_fallback(DispatchKey.Python, python_fallback)
