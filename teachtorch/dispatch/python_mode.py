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

_PYTHON = bit(DispatchKey.Python)
_ABOVE_BACKENDS = ((1 << len(DispatchKey)) - 1) & ~below(DispatchKey.Python)   # Python and everything above

# The mode stack lives with the include/exclude sets, as a tuple: pushing and popping are plain stores that
# Ctrl-C cannot split (see _grad_mode.py), and a handler that swaps the stack can put the old one back whole.
dispatcher.tls.modes = ()


class TorchDispatchMode:
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        tls = dispatcher.tls
        tls.modes, tls.include = tls.modes + (self,), tls.include | _PYTHON
        return self

    def __exit__(self, *exc):
        tls = dispatcher.tls
        modes = tls.modes
        if self in modes:
            i = len(modes) - 1 - modes[::-1].index(self)     # the innermost entry of this mode
            rest = modes[:i] + modes[i + 1:]
            tls.modes, tls.include = rest, tls.include if rest else tls.include & ~_PYTHON
        return False


def python_fallback(op, ks, *args):
    """The Python key's boxed fallback: hand the op to the innermost mode, which is switched off (with the
    keys at and above Python) while its handler runs, and put back however the handler ends."""
    tls = dispatcher.tls
    saved = tls.modes, tls.include, tls.exclude
    mode = saved[0][-1]
    tls.modes, tls.include, tls.exclude = saved[0][:-1], saved[1] & ~_PYTHON, saved[2] | _ABOVE_BACKENDS
    try:
        types = tuple({type(a) for a in args if hasattr(a, "_keys")})
        return mode.__torch_dispatch__(op, types, args, {})
    finally:
        tls.modes, tls.include, tls.exclude = saved


dispatcher.register_fallback(DispatchKey.Python, python_fallback)
