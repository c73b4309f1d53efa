"""`autograd.Function`: write your own op with its own backward (PyTorch's torch/autograd/function.py).

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)         # y.grad_fn is an ExpBackward node, and that node *is* the ctx

What `apply` does (python_function.cpp, `THPFunction_apply`):
1. make the backward node (the `ctx`) and collect the next edges of the tensor arguments;
2. run `forward` with grad mode off, so the ops inside record nothing: the graph gets one node, yours;
3. link the outputs to the node: outputs marked dirty (changed in place) have their history rebased, an
   input returned as it is becomes a view of itself (so the input keeps its own history), outputs marked
   non-differentiable get none;
4. turn `save_for_backward` tensors into SavedVariables (version-checked, freed after backward).
"""

import functools
import warnings

from .._tensor import Tensor
from . import variable
from .._grad_mode import run_with_grad_mode
from .grad_mode import _GradMode, no_grad
from .node import Node
from .saved_variable import SavedVariable


class FunctionCtx:
    """What `forward` and `backward` can use on `ctx`."""

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function; `_forward_cls` is the Function it belongs to."""

    _forward_cls = None
    materialize_grads = True
    to_save = ()
    dirty_tensors = ()
    non_differentiable = ()
    _saved = None

    def apply(self, grads):
        cls = self._forward_cls
        if self.materialize_grads:
            from ..ops.factories import zeros
            grads = [g if g is not None or self._input_metadata[i] is None
                     else zeros(self._input_metadata[i][0], dtype=self._input_metadata[i][1])
                     for i, g in enumerate(grads)]
        result = cls.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._is_tensor_input)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n_args}, got {len(result)})")
        out = []
        for i, (r, is_tensor) in enumerate(zip(result, self._is_tensor_input)):
            if is_tensor:
                out.append(r)
            elif r is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                   f"{i + 1}, but the corresponding forward input was not a Variable")
        return out

    @property
    def saved_tensors(self):
        if self._saved is None:
            return ()
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    saved_variables = saved_tensors

    def release_variables(self):
        for s in self._saved or ():
            if s is not None:
                s.release()

    def _saved_tensor_infos(self):
        return [(f"saved_tensors[{i}]", s) for i, s in enumerate(self._saved or ()) if s is not None]


class FunctionMeta(type):
    """Gives each Function subclass its backward node class, `<Name>Backward`."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        is_tensor = [isinstance(a, Tensor) for a in args]
        ctx._is_tensor_input = is_tensor
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = _GradMode.enabled and any(variable.requires_grad(t) for t in tensors)
        ctx.needs_input_grad = tuple(record and isinstance(a, Tensor) and variable.requires_grad(a) for a in args)
        ctx.next_edges = [variable.gradient_edge(t) if record else None for t in tensors]

        # 2. forward with grad mode off
        uses_setup_context = cls.setup_context is not Function.setup_context
        forward_args = args if uses_setup_context else (ctx, *args)
        outputs = run_with_grad_mode(False, _GradMode.inference, cls.forward, *forward_args, **kwargs)
        if uses_setup_context:
            cls.setup_context(ctx, args, outputs)

        # 3. link the outputs
        single = not isinstance(outputs, tuple)
        outs = list((outputs,) if single else outputs)
        if any(all(d is not o for o in outs) for d in ctx.dirty_tensors):
            raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                               "The inputs that are modified inplace must all be outputs of the Function.")
        if record:
            outs = _link_outputs(ctx, tensors, outs)
            ctx._saved = [None if t is None else SavedVariable(t, is_output=any(t is o for o in outs))
                          for t in ctx.to_save]
        else:
            for t in ctx.dirty_tensors:
                t._vc.value += 1
            ctx._saved = [None if t is None else SavedVariable(t) for t in ctx.to_save]
        _mark_views(ctx, tensors, outs, record)
        return outs[0] if single else tuple(outs)


def _mark_views(ctx, inputs, outs, record):
    """A view among the outputs may not be written in place (custom_function.cpp `_wrap_outputs`): the
    in-place logic would rebuild its grad_fn from its base and so skip the custom backward. Inputs marked
    dirty are exempt (as is an input returned unrecorded: PyTorch returns an alias of it, we the input
    itself, whose rules must not change); with several differentiable outputs every view gets the
    multi-output rule instead."""
    diff = 0
    for o in outs:
        if not isinstance(o, Tensor):
            continue
        if o._base is not None and all(o is not t for t in inputs):
            o._creation_meta = variable.IN_CUSTOM_FUNCTION
        if record and o.dtype.is_floating_point and all(o is not n for n in ctx.non_differentiable):
            diff += 1
    if diff > 1:
        for o in outs:
            if isinstance(o, Tensor) and o._base is not None:
                o._creation_meta = variable.MULTI_OUTPUT_NODE


def _link_outputs(ctx, inputs, outs):
    dirty = ctx.dirty_tensors
    non_diff = ctx.non_differentiable
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            ctx._input_metadata.append(None)
            continue
        is_input = any(o is t for t in inputs)
        if any(o is d for d in dirty):
            if not is_input:
                warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
                              "have been mutated should be passed to ctx.mark_dirty().", stacklevel=3)
            # changed in place by forward: like an in-place op, its history now goes through this node
            if o.grad_fn is None and o._requires_grad:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
            variable.check_inplace(o, True)
            o._vc.value += 1
            if o._base is not None:
                variable.rebase_history(o, ctx)
            else:
                _set(o, ctx, i)
            continue
        if is_input:
            with no_grad():
                o = o.view_as(o)      # an input returned as is: a view of it gets the new history
            outs[i] = o
        if any(o is n for n in non_diff) or not o.dtype.is_floating_point:
            ctx._input_metadata.append((o._sizes, o.dtype, o._storage.device))
            continue
        _set(o, ctx, i)
    return outs


def _set(o, ctx, i):
    ctx._input_metadata.append((o._sizes, o.dtype, o._storage.device))
    o._requires_grad = True
    o._grad_fn = ctx
    o._output_nr = i
    if o._base is not None:
        o._attr_version = o._vc.value


def once_differentiable(fn):
    """Mark a backward as not differentiable itself: its result then has no history (double backward fails)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        outputs = run_with_grad_mode(False, _GradMode.inference, fn, ctx, *args)
        if not _GradMode.enabled:
            return outputs
        requires = any(isinstance(a, Tensor) and a.requires_grad for a in args)
        if not requires:
            return outputs
        from .node import Error
        tup = outputs if isinstance(outputs, tuple) else (outputs,)
        err = Error("trying to differentiate twice a function that was marked with @once_differentiable",
                    variable.collect_next_edges([a for a in args if isinstance(a, Tensor)]))
        res = []
        for j, o in enumerate(tup):
            if isinstance(o, Tensor):
                o = o.detach()
                o._requires_grad = True
                o._grad_fn = err
                o._output_nr = j
                err._input_metadata.append((o._sizes, o.dtype, o._storage.device))
            res.append(o)
        return tuple(res) if isinstance(outputs, tuple) else res[0]
    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
