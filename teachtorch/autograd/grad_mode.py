"""Grad mode: the thread-wide switch that says whether autograd records history.

In PyTorch `no_grad` does not change any dispatch keys: it flips a thread-local flag (`GradMode`), and the
autograd kernels check it at run time (c10/core/GradMode.h). `no_grad`, `enable_grad` and
`set_grad_enabled` work as context managers and as decorators (torch/autograd/grad_mode.py); decorating a
generator function covers the generator's body each time it runs, not the moment it is created
(torch/utils/_contextlib.py, `_wrap_generator`).

`inference_mode` goes further (c10/core/InferenceMode.h): grad mode is off, and every tensor made inside is
an *inference tensor* that can never join autograd later: saving one for backward, or changing one in place
outside inference mode, raises. (PyTorch also drops the autograd and ADInplaceOrView dispatch keys from
inference tensors, so they skip version counting; teachtorch keeps one set of keys and marks them instead.)

Ctrl-C. A KeyboardInterrupt can only land where Python checks for signals: at the start of a Python
function, on a loop's jump back, and right after a call returns. So every switch here changes the flags with
plain assignments and nothing else, and restores them the same way (see `_grad_mode.py`). The decorators
use `run_with_grad_mode`, whose change and `try` have no such point between them: the flags are always
restored. A `with` block calls the Python method `__exit__`, and an interrupt can land as it starts, before
its first line runs (the same is true of PyTorch's Python-level `torch.no_grad`); library code therefore
uses `run_with_grad_mode` rather than `with` on its hot paths.
"""

import functools
import inspect

from .._grad_mode import GradMode as _GradMode, run_with_grad_mode


def is_grad_enabled():
    return _GradMode.enabled


def _wrap_generator(fn, enabled, inference):
    """A generator function under a grad mode: the mode is on while the generator's body runs, and the
    caller's mode is back whenever it yields (PyTorch's `_wrap_generator`)."""

    @functools.wraps(fn)
    def generator_context(*args, **kwargs):
        gen = run_with_grad_mode(enabled, inference, fn, *args, **kwargs)
        try:
            response = run_with_grad_mode(enabled, inference, gen.send, None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    run_with_grad_mode(enabled, inference, gen.close)
                    raise
                except BaseException as e:
                    response = run_with_grad_mode(enabled, inference, gen.throw, e)
                else:
                    response = run_with_grad_mode(enabled, inference, gen.send, request)
        except StopIteration as e:
            return e.value
    return generator_context


def _decorate(fn, enabled, inference):
    """`@no_grad()` and friends: each call of `fn` runs under the mode."""
    if inspect.isgeneratorfunction(fn):
        return _wrap_generator(fn, enabled, inference)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return run_with_grad_mode(enabled, inference, fn, *args, **kwargs)
    return wrapper


class _GradModeSwitch:
    """What `no_grad`, `enable_grad`, `set_grad_enabled` and `inference_mode` share: a target
    `(enabled, inference)` pair, entered as a context manager or applied as a decorator."""

    def _target(self):
        raise NotImplementedError

    def __enter__(self):
        enabled, inference = self._target()
        self.prev = (_GradMode.enabled, _GradMode.inference)
        _GradMode.enabled, _GradMode.inference = enabled, inference   # plain stores: no interrupt between
        return self

    def __exit__(self, *exc):
        _GradMode.enabled, _GradMode.inference = self.prev            # first thing done: see the docstring
        return False

    def __call__(self, fn):
        return _decorate(fn, *self._target())


class _NoParamSwitch(_GradModeSwitch):
    """`@no_grad` works without parentheses too, as in PyTorch (`_NoParamDecoratorContextManager`)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamSwitch):
    """`with no_grad():` or `@no_grad()`: ops inside record no graph."""

    def _target(self):
        return False, _GradMode.inference


class enable_grad(_NoParamSwitch):
    """`with enable_grad():` turns recording back on inside `no_grad` (not inside inference_mode's tensors)."""

    def _target(self):
        return True, _GradMode.inference


class set_grad_enabled(_GradModeSwitch):
    """`set_grad_enabled(mode)` sets the mode at once, as a function call; as a context manager it restores
    the previous mode on exit; as a decorator it leaves the mode alone and applies `mode` per call."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.mode = mode
        self.prev = (_GradMode.enabled, _GradMode.inference)
        _GradMode.enabled = mode

    def _target(self):
        return self.mode, _GradMode.inference

    def __enter__(self):
        return self      # __init__ already switched

    def __call__(self, fn):
        _GradMode.enabled = self.prev[0]   # used as a decorator: restore at once, apply per call
        return _decorate(fn, self.mode, _GradMode.inference)


def is_inference_mode_enabled():
    return _GradMode.inference


class inference_mode(_GradModeSwitch):
    """`with inference_mode():` or `@inference_mode()`; `inference_mode(False)` turns it off inside."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)           # `@inference_mode` without parentheses: `mode` is the function

    def __init__(self, mode=True):
        self.mode = mode

    def _target(self):
        # as in c10::InferenceMode: grad mode is the opposite of inference mode inside
        return not self.mode, self.mode

    def __call__(self, fn):
        if isinstance(fn, bool):   # `inference_mode(mode)` used as a call on an instance: not a decorator
            return inference_mode(fn)
        return super().__call__(fn)
