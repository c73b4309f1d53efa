"""`torch.compile`: here it returns the model or function unchanged in behaviour, run eagerly.

PyTorch's `torch.compile` (torch/__init__.py) traces a function with TorchDynamo into graphs and hands them to a
backend (Inductor by default) that fuses ops into generated kernels; the result computes the same values faster.
teachtorch has no compiler: every op is dispatched one at a time, which is what the lessons show. So `compile`
accepts PyTorch's arguments (and its two spellings, `torch.compile(model)` and `@torch.compile(mode=...)`),
checks them as PyTorch does where that is cheap, and gives back something that runs eagerly: for a Module, the
`OptimizedModule` that holds it as `_orig_mod` (so `state_dict` keys gain PyTorch's `_orig_mod.` prefix, and
attributes such as `compiled.fc` reach the original module), for a function, a wrapper that calls it.
"""

import functools

from .nn import Module   # teachtorch/__init__ imports this file after nn

__all__ = ["OptimizedModule", "compile"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            name=None, disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is None:
        # `@torch.compile(mode=...)`: the decorator with arguments returns the decorator proper
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           name=name, disable=disable)
        return decorator
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def run_eagerly(*args, **kwargs):
        return model(*args, **kwargs)
    return run_eagerly


class OptimizedModule(Module):
    """torch._dynamo.eval_frame.OptimizedModule: a Module around the original that forwards calls and attributes."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._orig_mod, name)   # what PyTorch's OptimizedModule.__getattr__ does
