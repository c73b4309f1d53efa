# Over 600 lines: Module is one class (parameters, buffers, submodules, hooks, state_dict), as
# torch/nn/modules/module.py (2900 lines) is.
"""Module: the base class every layer derives from (parameters, buffers, submodules, hooks, state_dict).

A Module is a Python object that owns three kinds of state, each in its own dict, and does a computation
(`forward`) with them:

    _parameters   name -> Parameter   the tensors an optimizer trains (Linear's weight and bias)
    _buffers      name -> Tensor      state that is saved but not trained (BatchNorm's running_mean)
    _modules      name -> Module      its children: a model is a tree of modules

You never touch these dicts yourself: `self.weight = Parameter(...)` goes through `__setattr__`, which looks
at the *type* of the value and files it in the right dict; `self.weight` later goes through `__getattr__`
(Python calls it only when normal lookup fails), which finds it there again. Everything else
(`parameters()`, `state_dict()`, `to()`, `train()`, the repr) is a walk over that tree of dicts.

`module(x)` calls `__call__`, which runs the forward pre-hooks, then `forward(x)`, then the forward hooks;
full backward hooks wrap the inputs and outputs in identity Functions whose nodes they hook (_backward_hook.py).

This follows PyTorch's torch/nn/modules/module.py closely, with the same names, the same order of keys,
the same error messages; what is left out is the machinery PyTorch needs for TorchScript, FX, torch.compile,
DataParallel, global hooks, the old (non-full) `register_backward_hook` and state_dict hooks.
"""

import warnings
from collections import OrderedDict, namedtuple

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.node import RemovableHandle
from ...ops.conversions import _parse_to
from ..parameter import Buffer, Parameter

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys the module expected but did not get, and the reverse."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, num_spaces):
    """Indent every line but the first (a child's repr nested inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    lines = [(num_spaces * " ") + line if line.strip() else "" for line in lines]
    return first + "\n" + "\n".join(lines)


def _typename(obj):
    """`torch.typename`: 'torch.FloatTensor' for a tensor, the qualified class name for anything else."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    if cls.__module__ in ("", "builtins"):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


class _ModuleHookHandle(RemovableHandle):
    """A hook's handle; `remove()` also forgets the hook's flags (with_kwargs, always_call) kept in the
    `extra` dicts (PyTorch's RemovableHandle(extra_dict=...))."""

    def __init__(self, hooks, *extra):
        super().__init__(hooks)
        self.extra = extra

    def remove(self):
        super().remove()
        for flags in self.extra:
            flags.pop(self.id, None)


def _add_hook(hooks, hook, prepend, flags=()):
    """Store `hook` under a fresh id (first in line if `prepend`); `flags` pairs each flag dict with
    whether this hook sets it."""
    handle = _ModuleHookHandle(hooks, *(d for d, _ in flags))
    hooks[handle.id] = hook
    for d, on in flags:
        if on:
            d[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


class Module:
    """Base class for all neural network modules. Subclasses call `super().__init__()` first, then assign
    their parameters, buffers and submodules as attributes, and define `forward`."""

    _version = 1          # saved in state_dict()._metadata, as PyTorch does (a module bumps it when its format changes)
    training: bool

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__, because our own __setattr__ reads these dicts
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", {})
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", {})
        object.__setattr__(self, "_forward_hooks_always_called", {})
        object.__setattr__(self, "_backward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)
        object.__setattr__(self, "_modules", {})

    def forward(self, *input):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ---- registration -----------------------------------------------------------------------------------

    def register_buffer(self, name, tensor, persistent=True):
        """Add a buffer: state saved in the state_dict (unless `persistent=False`) but not trained."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('buffer name can\'t contain "."')
        elif name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (or None: a slot that `parameters()` and `state_dict()` skip, like bias=False)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('parameter name can\'t contain "."')
        elif name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        elif param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method.")
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (`self.name = module` does the same)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path `target` ("encoder.layers.0"); "" is the module itself."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target):
        """The parameter at the dotted path `target` ("0.weight")."""
        module_path, _, param_name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, param_name):
            raise AttributeError(module._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(module, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path `target` ("bn.running_mean")."""
        module_path, _, buffer_name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, buffer_name):
            raise AttributeError(module._get_name() + " has no attribute `" + buffer_name + "`")
        if buffer_name not in module._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return getattr(module, buffer_name)

    # ---- attribute access: where the registration happens ----------------------------------------------

    def __getattr__(self, name):
        # Python calls this only when normal lookup (the instance __dict__, then the class) fails: the
        # parameters, buffers and submodules live in their own dicts, not in __dict__.
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_name(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            # a name that holds a parameter takes only a Parameter or None: a plain tensor would silently
            # stop being trained
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._remove_name(name, self.__dict__, self._parameters, self._buffers)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)   # an ordinary attribute

    def _remove_name(self, name, *dicts):
        """Forget `name` wherever it was registered before (it is about to be registered as something else)."""
        for d in dicts:
            d.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(key for key in keys if not key[0].isdigit())   # Sequential's "0", "1" are not names

    # ---- walking the tree -------------------------------------------------------------------------------

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(dotted name, module) for this module and every descendant, depth first; a module reachable by
        two paths is yielded once unless `remove_duplicate=False`."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    def modules(self, remove_duplicate=True):
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self):
        """(name, module) for the direct children, each module once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, members_of, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, tensor) from `members_of(module)` over the tree; a shared tensor (tied weights)
        is yielded once, under the first name that reaches it."""
        seen = set()   # ids: tensors compare elementwise, so they are kept out of sets by value
        if recurse:
            modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            modules = [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members_of(module).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda module: module._parameters, prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda module: module._buffers, prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn):
        """Call `fn(module)` on every child (recursively) and then on self; used to initialise weights."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes and gradients ----------------------------------------------------------------------------

    def train(self, mode=True):
        """Set training mode here and in every descendant (Dropout and BatchNorm read `self.training`)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of every parameter (set them to None, or fill them with zeros)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ---- converting every tensor: to(), float(), ... ------------------------------------------------------

    def _apply(self, fn):
        """Replace every parameter's and buffer's contents by `fn(tensor)`, children first.

        A parameter keeps its identity: its `.data` is re-pointed at the converted tensor, so an optimizer
        built before `model.to(float64)` still holds the model's parameters (PyTorch's `param.data = ...`
        path). Buffers are simply replaced."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param.data = fn(param)
            if param.grad is not None:
                with no_grad():
                    param.grad.data = fn(param.grad)
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """`to(dtype)`, `to(device)`, `to(device, dtype)`, `to(tensor)`: floating tensors take the dtype,
        integer buffers (BatchNorm's num_batches_tracked) keep theirs; all take the device."""
        device, dtype, _, _, _ = _parse_to(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    # ---- calling: hooks around forward --------------------------------------------------------------------

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` before forward; it may return new args (a tuple, or one value). With
        `with_kwargs=True`: `hook(module, args, kwargs)` returning None or (args, kwargs)."""
        return _add_hook(self._forward_pre_hooks, hook, prepend,
                         [(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` after forward; it may return a replacement output. With
        `with_kwargs=True`: `hook(module, args, kwargs, output)`. With `always_call=True` it also runs when
        forward (or an earlier hook) raised, before the error goes on (with output None, if none was made)."""
        return _add_hook(self._forward_hooks, hook, prepend,
                         [(self._forward_hooks_with_kwargs, with_kwargs),
                          (self._forward_hooks_always_called, always_call)])

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` when the gradients of the module's outputs are known; it may return a
        replacement grad_output tuple (of the same length). See _backward_hook.py for how."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` once the gradients of the module's inputs are computed; it
        may return a replacement grad_input tuple. Non-tensor arguments appear as None."""
        if self._is_full_backward_hook is False:     # (set by the old `register_backward_hook`)
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                               "Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return _add_hook(self._backward_hooks, hook, prepend)

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)     # the common case: no hooks, no extra work
        # `called` collects the always_call hooks that ran, so that a failure does not run them twice
        state = {"args": args, "kwargs": kwargs, "result": None, "called": set()}
        try:
            return self._call_with_hooks(state)
        except Exception:
            self._run_always_called_hooks(state)
            raise

    def _call_with_hooks(self, state):
        """PyTorch's `_call_impl`: forward pre-hooks, the backward hooks' input identity, forward, forward
        hooks, the backward hooks' output identity."""
        args, kwargs = state["args"], state["kwargs"]
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
            state["args"], state["kwargs"] = args, kwargs
        bw_hook = None
        full_backward_hooks = list(self._backward_hooks.values()) if self._is_full_backward_hook else []
        if full_backward_hooks or self._backward_pre_hooks:
            from ._backward_hook import BackwardHook
            bw_hook = BackwardHook(self, full_backward_hooks, list(self._backward_pre_hooks.values()))
            args = bw_hook.setup_input_hook(args)
            state["args"] = args
        output = self.forward(*args, **kwargs)
        state["result"] = output
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called:
                state["called"].add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
                state["result"] = output
        if bw_hook is not None:
            if not isinstance(output, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                              f"Tensors but received {type(output)}", stacklevel=3)
            output = bw_hook.setup_output_hook(output)
        return output

    def _run_always_called_hooks(self, state):
        """After a failure: the always_call forward hooks not yet run; their own errors become warnings."""
        args, kwargs, result = state["args"], state["kwargs"], state["result"]
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id not in self._forward_hooks_always_called or hook_id in state["called"]:
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            except Exception as e:
                warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                              f"silenced as another error was raised in forward: {str(e)}", stacklevel=3)

    # ---- state_dict: saving and loading --------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own parameters, then its persistent buffers (children are saved by state_dict)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """An ordered dict from dotted names to tensors: parameters and persistent buffers of every module,
        each module's own entries before its children's. The tensors are detached aliases (no copy)."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = dict(version=self._version)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries from `state_dict` into its tensors, noting what is missing,
        unexpected or the wrong shape."""
        local_state = {name: p for name, p in self._parameters.items() if p is not None}
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                local_state[name] = buf
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]   # old checkpoints saved scalars as shape [1]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                  f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)    # in place: the optimizer keeps the same tensors
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model '
                                  f"are {param.size()} and whose dimensions in the checkpoint are "
                                  f"{input_param.size()}, an exception occurred : {ex.args}.")
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:           # "child.weight": fine if the child exists
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the tensors of `state_dict` into this module's parameters and buffers. With `strict`,
        missing or unexpected keys are an error; either way they are returned as (missing_keys,
        unexpected_keys). A wrong shape is always an error."""
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            # strict=True here on purpose (as PyTorch): the keys are always collected; `strict` below only
            # decides whether they are an error
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---- printing ---------------------------------------------------------------------------------------------

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr (its constructor arguments); override it."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]            # Linear(in_features=2, out_features=3, bias=True)
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"
