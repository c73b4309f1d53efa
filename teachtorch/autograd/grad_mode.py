"""Grad mode: the thread-wide switch that says whether autograd records history.

In PyTorch `no_grad` does not change any dispatch keys: it flips a thread-local flag (`GradMode`), and the
autograd kernels check it at run time (c10/core/GradMode.h). `no_grad`, `enable_grad` and
`set_grad_enabled` work as context managers and as decorators.
"""

import functools


class _GradMode:
    enabled = True


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
