"""Grad mode: the thread-wide switch that says whether autograd records history.

In PyTorch `no_grad` does not change any dispatch keys: it flips a thread-local flag (`GradMode`), and the
autograd kernels check it at run time (c10/core/GradMode.h). `no_grad`, `enable_grad` and
`set_grad_enabled` work as context managers and as decorators.

`inference_mode` goes further (c10/core/InferenceMode.h): grad mode is off, and every tensor made inside is
an *inference tensor* that can never join autograd later: saving one for backward, or changing one in place
outside inference mode, raises. (PyTorch also drops the autograd and ADInplaceOrView dispatch keys from
inference tensors, so they skip version counting; teachtorch keeps one set of keys and marks them instead.)
"""

import functools


from .._grad_mode import GradMode as _GradMode


def is_grad_enabled():
    return _GradMode.enabled


class set_grad_enabled:
    def __init__(self, mode):
        self.prev = _GradMode.enabled
        _GradMode.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _GradMode.enabled = self.prev
        return False

    def __call__(self, fn):
        mode = _GradMode.enabled
        _GradMode.enabled = self.prev   # used as a decorator: restore at once, apply per call

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class _Mode:
    mode = True

    def __enter__(self):
        self.prev = _GradMode.enabled
        _GradMode.enabled = self.mode
        return self

    def __exit__(self, *exc):
        _GradMode.enabled = self.prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_Mode):
    mode = False


class enable_grad(_Mode):
    mode = True


def is_inference_mode_enabled():
    return _GradMode.inference


class inference_mode:
    """`with inference_mode():` or `@inference_mode()`; `inference_mode(False)` turns it off inside."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self.prev = (_GradMode.enabled, _GradMode.inference)
        # as in c10::InferenceMode: grad mode is the opposite of inference mode inside
        _GradMode.enabled, _GradMode.inference = not self.mode, self.mode
        return self

    def __exit__(self, *exc):
        _GradMode.enabled, _GradMode.inference = self.prev
        return False

    def __call__(self, fn):
        if isinstance(fn, bool):   # `inference_mode(mode)` used as a call on an instance: not a decorator
            return inference_mode(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self.mode):
                return fn(*args, **kwargs)
        return wrapper
