"""Optimizer: the base class that owns the parameters, their groups and the per-parameter state.

An optimizer changes tensors *in place* so that a loss goes down. It knows nothing of modules: it is given
tensors (any leaf tensors; `nn.Parameter`s are the usual ones) and, at every `step()`, reads each one's
`.grad` and writes a new value into the tensor's own storage. Three pieces of bookkeeping are shared by
every optimizer, and live here as in PyTorch's `torch/optim/optimizer.py`:

* `param_groups`: a list of dicts. Each holds `'params'` (a list of tensors) and the options for them
  (`lr`, `momentum`, ...). Options missing from a group are filled from `defaults`, so one optimizer can
  train a backbone with a small lr and a head with a large one.
* `state`: a dict from a parameter tensor to its own dict of running tensors (Adam's `exp_avg`, SGD's
  `momentum_buffer`, the `step` count). It is filled lazily, on the first step that sees a gradient.
* `state_dict()` / `load_state_dict()`: the same information with tensors replaced by *indices* (the
  position of each parameter over all groups, in order), so that a checkpoint can be loaded into a fresh
  optimizer whose parameters are different tensor objects.

PyTorch's optimizers have two implementations of each algorithm: the readable single-tensor loop
(`_single_tensor_adam`: one op call per parameter per line of the algorithm) and the multi-tensor one
(`_multi_tensor_adam`, `foreach=True`: one `_foreach_*` op call per line, over all the parameters of a group at
once; ops/foreach.py). teachtorch has both, in each optimizer's file, side by side. `foreach=None` picks as
PyTorch does (`_default_to_fused_or_foreach` below): the multi-tensor path when every parameter is on a
device with foreach kernels (cuda), the single-tensor loop otherwise, so on the CPU the default is the loop,
as in PyTorch. `fused` (one kernel for the whole update), `capturable` and `differentiable` are not here.
"""

import warnings
from collections import defaultdict
from copy import deepcopy

from .._dtype import float32, float64, get_default_dtype
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad

__all__ = ["Optimizer"]


def _typename(obj):
    """The name PyTorch's error messages give an object (torch.typename): 'torch.FloatTensor', 'int', ..."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _scalar_dtype():
    """The dtype of the `step` counters: float32, or float64 when that is the default dtype (as PyTorch)."""
    return float64 if get_default_dtype() == float64 else float32


def _check_kernel_switches(foreach=None, fused=None, differentiable=False):
    """Check PyTorch's switches that pick *how* an update is computed, not what it computes.

    `foreach` (one kernel per op over all parameters) and `fused` (one kernel for the whole update) are
    PyTorch's faster implementations of the same arithmetic, and `capturable` keeps the step counter on the
    GPU for CUDA graphs. Each optimizer accepts them and keeps them in its defaults (so that state_dicts have
    PyTorch's keys); `foreach` picks the multi-tensor path where the optimizer has one (`_use_foreach`),
    `fused` and `capturable` are accepted and run the single-tensor loop: the numbers come out the same.
    `differentiable=True` (backpropagating *through* the update) is not supported."""
    if foreach and fused:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError("differentiable=True is not supported: teachtorch's optimizers update the "
                                  "parameters under no_grad")


# torch/optim/optimizer.py `_get_foreach_kernels_supported_devices`: cuda (and xpu, PyTorch's private backends)
_FOREACH_SUPPORTED_DEVICES = ("cuda",)


def _default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """(fused, foreach) when the user gave neither (torch/optim/optimizer.py): foreach when every parameter is
    on a device with foreach kernels and the update need not be differentiable. teachtorch has no fused
    kernels, so `fused` is always False here."""
    if differentiable:
        return False, False
    foreach = all(p is None or (isinstance(p, Tensor) and p.device.type in _FOREACH_SUPPORTED_DEVICES)
                  for p in params)
    return False, foreach


def _use_foreach(params, foreach, fused=None, differentiable=False):
    """Does this step take the multi-tensor path? PyTorch's rule, as `adam()` applies it: an explicit
    `foreach` wins; with neither `foreach` nor `fused` given, `_default_to_fused_or_foreach` decides."""
    if foreach is None and fused is None:
        _, foreach = _default_to_fused_or_foreach(params, differentiable, use_fused=False)
    return bool(foreach)


def _group_tensors_by_device_and_dtype(tensorlistlist):
    """Split parallel lists of tensors (params, grads, states, ...) by the device and dtype of the first list
    (torch/utils/_foreach_utils.py, `Optimizer._group_tensors_by_device_and_dtype`): each foreach call then
    gets tensors of one device and one dtype. Returns {(device, dtype): (lists, indices)}; an empty list
    (Adam's `max_exp_avg_sqs` without amsgrad) stays empty in every group."""
    groups = {}
    for i, p in enumerate(tensorlistlist[0]):
        key = (str(p.device), p.dtype)
        if key not in groups:
            groups[key] = ([[] for _ in tensorlistlist], [])
        lists, indices = groups[key]
        for dst, src in zip(lists, tensorlistlist):
            if len(src):
                dst.append(src[i])
        indices.append(i)
    return groups


class Optimizer:
    """Base class of all optimizers: holds `param_groups`, `defaults` and `state`; subclasses write `step`.

    `params` is an iterable of tensors, of `(name, tensor)` pairs, or of dicts that each describe a group
    (`{'params': [...], 'lr': 0.1}`); `defaults` gives each option's value for groups that do not set it.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be "
                            "an iterable of Tensors or dicts, but got " + _typename(params))
        # state[p] is p's own dict; defaultdict makes `self.state[p]` an empty dict the first time p is seen
        self.state = defaultdict(dict)
        self.param_groups = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]   # a plain list of tensors is one group
        for param_group in param_groups:
            self.add_param_group(param_group)

    def add_param_group(self, param_group):
        """Append a group: check its tensors, fill its missing options from `defaults`.

        Used by `__init__` for every group, and by users who unfreeze layers while training."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            # the state_dict refers to parameters by position, so their order must be the same every run
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)

        # `model.named_parameters()` gives (name, tensor) pairs: keep the names next to the tensors
        tensors = []
        names = []
        for param in params:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if len(names) != 0:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            # a non-leaf tensor is recomputed by every forward pass: writing into it would change nothing
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            param_group.setdefault(name, default)

        # tensors hash by identity, so sets of tensors find the same object twice
        if len(tensors) != len(set(tensors)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Forget the gradients before the next backward (which would otherwise add to them).

        `set_to_none=True` (the default) drops each `.grad`: no memory is written, and a parameter that gets
        no gradient next time is skipped by `step()` instead of being stepped with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    # a grad made with create_graph=True is part of a graph: cut it off before zeroing it
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Update every parameter that has a `.grad`. `closure` recomputes the loss (and its gradients) and
        returns it; `step` returns that loss. Each optimizer writes its own algorithm here."""
        raise NotImplementedError

    def _call_closure(self, closure):
        """Run `closure` with grad mode on (step itself runs under no_grad) and return its loss."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def state_dict(self):
        """The optimizer's state as plain data: `{'state': {i: {...}}, 'param_groups': [{..., 'params': [i, ...]}]}`.

        Parameters are numbered in order over all groups (0, 1, 2, ...). As in PyTorch, the state tensors
        are the live ones, not copies: save them (teachtorch.save) or deepcopy them to keep a snapshot."""
        index_of = {}            # id(tensor) -> its index
        param_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for p in group["params"]:
                if id(p) not in index_of:
                    index_of[id(p)] = len(index_of)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            param_groups.append(packed)
        state = {}
        for p, p_state in self.state.items():
            key = index_of[id(p)] if isinstance(p, Tensor) else p
            state[key] = p_state
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Load a `state_dict()`: the i-th saved parameter's state goes to this optimizer's i-th parameter.

        Groups must match in number and size. Saved state tensors are cast to their parameter's dtype and
        device, except the `step` counters, which keep theirs. Options (lr, ...) come from the saved groups."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])   # we write 'params' into them below
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for group, saved in zip(groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError("loaded state dict contains a parameter group "
                                 "that doesn't match the size of optimizer's group")

        # saved index -> our tensor, pairing the groups' lists position by position
        param_of = {}
        for group, saved in zip(groups, saved_groups):
            for index, p in zip(saved["params"], group["params"]):
                param_of[index] = p

        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = {name: _cast(param, v, name) for name, v in value.items()}
            else:
                state[key] = value    # state not tied to a parameter is kept as it is

        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups

    def __getstate__(self):
        """What copy.deepcopy and pickle keep: everything but the `step` wrapper an LR scheduler puts on the
        instance (lr_scheduler.py), which calls *this* object's step (a copy must not step the original) and,
        being a local function, cannot be pickled. PyTorch's __getstate__ drops it too."""
        state = dict(self.__dict__)
        state.pop("step", None)
        state.pop("_opt_called", None)
        return state

    def __repr__(self):
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n"
            text += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        text += ")"
        return text


def _cast(param, value, key=None):
    """A loaded state value, with its tensors moved to `param`'s device (and dtype, for floating params).

    `.to` returns the tensor itself when nothing changes, so, as in PyTorch, the loaded state may share
    tensors with the dict it was loaded from. `step` keeps its dtype: it counts steps, it is not a weight."""
    if isinstance(value, Tensor):
        if key == "step":
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value
