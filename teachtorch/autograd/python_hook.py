"""Python hooks and what they may return (PyTorch's torch/csrc/autograd/python_hook.cpp).

A hook returns None (keep the gradient) or a replacement. PyTorch does not hand a Python hook to the engine
as it is: it wraps it in a C++ hook object whose call checks the replacement before the engine sees it, so
that a hook returning `5` fails at the hook, naming it, instead of somewhere deep inside the next node.
teachtorch wraps each hook the same way when it is registered:

    wrapper              registered by                          called with              may return
    TensorPreHook        t.register_hook(fn)                    grad                     a tensor like grad
    PreHook              grad_fn.register_prehook(fn)           grad_outputs             a tuple as long
    PostHook             grad_fn.register_hook(fn)              grad_inputs, outputs     a tuple as long as
                                                                                         grad_inputs
    PostAccumulateGrad   t.register_post_accumulate_grad_hook   the leaf                 nothing

"Like grad" means the same dtype, device type and size; a replacement for a gradient that is None (an output
that got no gradient) is refused. Returning the very object that came in is no replacement and is not checked.
"""

from .._tensor import Tensor, typename


def hook_name(hook):
    """A hook's `__name__`, or "<unknown>" for callables without one (a functools.partial, an object)."""
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _type_string(t):
    """A tensor's type as PyTorch's `toString()` spells it: torch.FloatTensor, torch.cuda.FloatTensor,
    MetaFloatType."""
    name = t.type()
    if t.device.type in ("cpu", "cuda"):
        return name
    scalar = name.rsplit(".", 1)[1][:-len("Tensor")]     # "torch.meta.FloatTensor" -> "Float"
    return f"{t.device.type.capitalize()}{scalar}Type"


def check_single_result(original, result, hook):
    """One value a hook returned in place of `original` (PyTorch's `check_single_result`)."""
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{typename(result)}'")
    # check_variable_result: the same type (dtype and backend), then the same size
    if result.dtype is not original.dtype or result.device.type != original.device.type:
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the type of value (was {_type_string(original)} "
                           f"got {_type_string(result)})")
    if tuple(result._sizes) != tuple(original._sizes):
        raise RuntimeError(f"hook '{hook_name(hook)}' has changed the size of value")


def check_result(original, result, hook):
    """A tuple a hook returned in place of the tuple `original` (PyTorch's `check_result`)."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{typename(result)}'")
    if len(result) != len(original):
        raise RuntimeError(f"hook '{hook_name(hook)}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(original)})")
    for o, r in zip(original, result):
        check_single_result(o, r, hook)


class _PythonHook:
    """A user's hook and the check on what it returns; `fn` is the hook itself."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __repr__(self):
        return f"<{type(self).__name__} {self.fn!r}>"


class TensorPreHook(_PythonHook):
    """`t.register_hook(fn)`: `fn(grad)` runs before the node that receives t's gradient
    (`PyFunctionTensorPreHook`)."""

    __slots__ = ()

    def __call__(self, grad):
        result = self.fn(grad)
        if result is not grad:
            check_single_result(grad, result, self.fn)
        return result


class PreHook(_PythonHook):
    """`grad_fn.register_prehook(fn)`: `fn(grad_outputs)` before the node runs (`PyFunctionPreHook`)."""

    __slots__ = ()

    def __call__(self, grad_outputs):
        result = self.fn(grad_outputs)
        if result is not None and result is not grad_outputs:
            check_result(grad_outputs, result, self.fn)
        return result


class PostHook(_PythonHook):
    """`grad_fn.register_hook(fn)`: `fn(grad_inputs, grad_outputs)` after the node ran; a result replaces
    grad_inputs (`PyFunctionPostHook`)."""

    __slots__ = ()

    def __call__(self, grad_inputs, grad_outputs):
        result = self.fn(grad_inputs, grad_outputs)
        if result is not None and result is not grad_inputs:
            check_result(grad_inputs, result, self.fn)
        return result


class PostAccumulateGradHook(_PythonHook):
    """`t.register_post_accumulate_grad_hook(fn)`: `fn(t)` once t.grad is updated; it must return None
    (`PyFunctionTensorPostAccGradHooks`). A returned value is checked like a gradient first, as PyTorch's
    shared `_call_hooks` does, and refused even if it passes."""

    __slots__ = ()

    def __call__(self, tensor):
        result = self.fn(tensor)
        if result is not None and result is not tensor:
            check_single_result(tensor, result, self.fn)
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return None
