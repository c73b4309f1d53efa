"""The autograd kernels: what runs at the Autograd<Backend> dispatch key (PyTorch's `VariableType`).

PyTorch generates one such kernel per op (torch/csrc/autograd/generated/VariableType_*.cpp). For
`mul.Tensor` it reads, simplified:

    Tensor mul_Tensor(DispatchKeySet ks, const Tensor& self, const Tensor& other) {
      auto _any_requires_grad = compute_requires_grad(self, other);     // and GradMode is on
      std::shared_ptr<MulBackward0> grad_fn;
      if (_any_requires_grad) {
        grad_fn = std::make_shared<MulBackward0>();
        grad_fn->set_next_edges(collect_next_edges(self, other));
        grad_fn->other_ = SavedVariable(other, false);
        grad_fn->self_ = SavedVariable(self, false);
      }
      auto result = at::redispatch::mul(ks & c10::after_autograd_keyset, self, other);
      if (grad_fn) set_history(result, grad_fn);
      return result;
    }

`record` below is that kernel, once, for every op, driven by the op's Formula (derivative.py). The fast
path, when nothing requires grad or grad mode is off, is a single redispatch: most ops in a training
loop's optimizer step and in every `no_grad` block pay nothing more.

In-place ops check that the write is allowed (variable.check_inplace) and *rebase* history instead of
setting it; view ops mark how their outputs were made (may they be written to later?); `out=` ops refuse
to record at all, as in PyTorch.
"""

from .._dispatch_key import AFTER_AUTOGRAD, Autograd
from .._tensor import Tensor
from ..dispatch import dispatcher
from ..dispatch.dispatcher import impl, redispatch
from ..dispatch.inplace_or_view import redispatch_below_ad_inplace_or_view
from . import variable
from .derivative import derived_value
from .grad_mode import _GradMode
from .node import NotImplementedNode
from .saved_variable import SavedVariable

_INFERENCE_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


def any_requires_grad(args, positions):
    """compute_requires_grad: does any tensor argument require grad?"""
    for i, is_list in positions:
        a = args[i]
        if is_list:
            for t in a:
                if isinstance(t, Tensor) and (t._requires_grad or (t._base is not None and t._base._requires_grad)):
                    return True
        elif isinstance(a, Tensor) and (a._requires_grad or (a._base is not None and a._base._requires_grad)):
            return True
    return False


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


# ---- the recording kernel ---------------------------------------------------------------------------------


def record(op, formula, ks, args, inplace):
    """The slow path: some input requires grad. The steps of PyTorch's kernel above, one line or helper each."""
    # 1. The differentiable inputs, each with the edge its gradient will follow (collect_next_edges).
    #    gradient_edge gives None for an input that does not require grad: its formula is never run.
    inputs, slots = _differentiable_inputs(formula, args)
    if inplace:
        variable.check_inplace(args[0], True)
    edges = [variable.gradient_edge(t) if isinstance(t, Tensor) and t.dtype.is_floating_point else None
             for t in inputs]
    # 2. Save what the formulas read, before the op runs (and before the node is made: the copy of `self`
    #    an in-place op saves is an op of its own, whose node comes first).
    wanted = _wanted_saves(formula, edges, slots)
    saved = _save_inputs(formula, args, wanted, inplace)
    # 3. Make the node.
    node = formula.make_node(edges, saved, slots)
    # 4. Run the op below autograd.
    out = redispatch_below_ad_inplace_or_view(op, ks & AFTER_AUTOGRAD, args)
    # 5. Link the outputs to the node (set_history); an in-place op's `self` is rebased onto it instead.
    if inplace:
        variable.rebase_history(args[0], node)
    else:
        variable.set_history(_differentiable_outputs(formula, out), node)
    # 6. Save the outputs the formulas read.
    if formula.save_outputs:
        _save_outputs(formula, out, wanted, node)
    return out


def _differentiable_inputs(formula, args):
    """Step 1: the arguments that get edges, in schema order, and `slots`: name -> (first edge, count)."""
    if not formula.has_list:
        return [args[pos] for _, pos, _ in formula.inputs], formula.slots
    inputs, slots = [], {}         # a Tensor[] argument (cat): its tensors take consecutive slots
    for name, pos, is_list in formula.inputs:
        a = args[pos]
        slots[name] = (len(inputs), len(a) if is_list else None)
        inputs.extend(a) if is_list else inputs.append(a)
    return inputs, slots


def _wanted_saves(formula, edges, slots):
    """Step 2: only what the formulas of inputs that need a gradient read is saved (PyTorch's codegen guards
    each save with should_compute_output): a tensor no needed formula reads may change in place later."""
    wanted = set()
    for names, _, params in formula.entries:
        for n in names:
            start, count = slots[n]
            if count is None:       # one tensor (the common case), or a Tensor[] argument taking `count` edges
                needed = edges[start] is not None
            else:
                needed = any(e is not None for e in edges[start:start + count])
            if needed:
                wanted.update(params)
                break
    return wanted


def _save_inputs(formula, args, wanted, inplace):
    """Step 2: the saved arguments, by the formulas' parameter names. An in-place op overwrites `self`, so it
    saves a copy of the old value (PyTorch's `original_self`)."""
    saved = {}
    for name, pos, kind in formula.save_args:
        if name not in wanted:
            continue
        v = args[pos]
        if kind is not None and kind != "tensor":
            saved[name] = derived_value(kind, v)
        elif kind == "tensor" and not isinstance(v, (Tensor, list, tuple)):
            saved[name] = SavedVariable(v)     # freed after backward, as PyTorch's wrapped number is
        elif isinstance(v, Tensor):
            if inplace and pos == 0:
                v = v.clone()
            saved[name] = _save(v)
        elif isinstance(v, (list, tuple)) and any(isinstance(t, Tensor) for t in v):
            saved[name] = [_save(t) if isinstance(t, Tensor) else SavedVariable(None) for t in v]   # Tensor?[]
        else:
            saved[name] = v
    return saved


def _save(t):
    if t.__dict__.get("_is_inference"):
        raise RuntimeError(_INFERENCE_ERROR)
    return SavedVariable(t)


def _differentiable_outputs(formula, out):
    """Step 5: the outputs that get the node as grad_fn, None for the others."""
    if isinstance(out, Tensor):
        return [out]                # one output (mul, add): PyTorch's set_history(result, grad_fn)
    outs = _outputs(out)
    if formula.first_output_only:
        # PyTorch's codegen (gen_differentiable_outputs): formulas that read `grad`, never `grads`, make
        # only the first output differentiable (`_ctc_loss`'s log_alpha is a plain tensor)
        outs = outs[:1] + [None] * (len(outs) - 1)
    return [t if isinstance(t, Tensor) else None for t in outs]


def _save_outputs(formula, out, wanted, node):
    """Step 6: into the node's saved values. An output whose grad_fn is this node is saved without its
    history (`is_output`): no node -> tensor -> node reference cycle."""
    outs = _outputs(out)
    for name, i in formula.save_outputs:
        if name not in wanted:
            continue
        t = outs[i]
        node._saved[name] = SavedVariable(t, is_output=t.grad_fn is node)


def _view_creation_meta(op, out, args):
    """A view remembers how it was made (CreationMeta), which decides whether it may be written in place:
    made while grad mode was off (NO_GRAD_MODE / INFERENCE_MODE), by an op returning several views
    (MULTI_OUTPUT_NODE), or a view of such a view, which inherits it (PyTorch's propagate_creation_meta)."""
    outs = _outputs(out)
    multi = op.schema.returns[0].type.endswith("[]")
    src = args[0] if args and isinstance(args[0], Tensor) and args[0]._base is not None else None
    inherited = variable.DEFAULT if src is None else src.__dict__.get("_creation_meta", variable.DEFAULT)
    if _GradMode.inference:
        new = variable.INFERENCE_MODE
    elif not _GradMode.enabled:
        new = variable.NO_GRAD_MODE
    elif multi:
        new = variable.MULTI_OUTPUT_NODE
    else:
        new = variable.DEFAULT
    # propagate_creation_meta: the new view's own reason wins, except over INFERENCE_MODE, the most restrictive
    meta = inherited if new == variable.DEFAULT or inherited == variable.INFERENCE_MODE else new
    if meta == variable.DEFAULT:
        return
    for t in outs:
        if isinstance(t, Tensor) and t._base is not None:
            t._creation_meta = meta


# ---- kernels per kind of op -----------------------------------------------------------------------------


def register_formula_kernels(op, formula):
    """The functional op, its in-place twin (`mul_.Tensor`) and its out= twin (`mul.out`) get kernels."""
    s = op.schema
    if s.mutable_positions == [0] and s.name.endswith("_"):     # an in-place op with its own entry (copy_)
        impl(op, Autograd, _inplace_kernel(op, formula))
        return
    impl(op, Autograd, _functional_kernel(op, formula))
    if not s.arguments or not s.arguments[0].is_tensor:
        return      # `pow.Scalar(Scalar self, ...)` has no in-place twin (`pow_.Scalar` is pow.Tensor_Scalar's)
    inplace = dispatcher.OPERATORS.get(f"{op.namespace}::{s.name}_" + (f".{s.overload}" if s.overload else ""))
    if inplace is None and s.overload.startswith("Tensor_"):
        # the in-place overload of `pow.Tensor_Scalar` is `pow_.Scalar`: its self is a Tensor anyway
        inplace = dispatcher.OPERATORS.get(f"{op.namespace}::{s.name}_.{s.overload[7:]}")
    if inplace is not None and inplace.schema.mutable_positions == [0]:
        impl(inplace, Autograd, _inplace_kernel(inplace, formula))


def _functional_kernel(op, formula):
    positions = op.tensor_args
    is_view = op.schema.is_view
    if not is_view and not any(is_list for _, is_list in positions):
        return _simple_kernel(op, formula, tuple(i for i, _ in positions))

    def autograd_view_or_list_kernel(ks, *args):
        if not _GradMode.enabled or not any_requires_grad(args, positions):
            out = redispatch(op, ks & AFTER_AUTOGRAD, args)
            if is_view:
                _view_creation_meta(op, out, args)
            return out
        out = record(op, formula, ks, args, inplace=False)
        if is_view:
            _view_creation_meta(op, out, args)
        return out
    return autograd_view_or_list_kernel


def _simple_kernel(op, formula, tensor_positions):
    """The same kernel for the common case (no view, no Tensor[] argument), with the check written out:
    this runs for every op in every forward pass, so it is kept as short as it can be."""
    def autograd_kernel(ks, *args):
        if _GradMode.enabled:
            for i in tensor_positions:
                t = args[i]
                if isinstance(t, Tensor):
                    if t._requires_grad or (t._base is not None and t._base._requires_grad):
                        return record(op, formula, ks, args, inplace=False)
        return redispatch(op, ks & AFTER_AUTOGRAD, args)
    return autograd_kernel


def _inplace_kernel(op, formula):
    positions = op.tensor_args

    def autograd_inplace_kernel(ks, *args):
        if not _GradMode.enabled or not any_requires_grad(args, positions):
            variable.check_inplace(args[0], False)
            return redispatch(op, ks & AFTER_AUTOGRAD, args)
        return record(op, formula, ks, args, inplace=True)
    return autograd_inplace_kernel


_NON_DIFFERENTIABLE = set()


def _is_out(schema):
    return any(a.kwarg_only and a.is_mutable for a in schema.arguments)


def register_non_differentiable(op):
    _NON_DIFFERENTIABLE.add(op.name)
    op._compute_table()


def autograd_fallback(op, ks, *args):
    """Ops with no formula (the backend fallback at the Autograd keys).

    `out=` ops refuse, as above. Ops whose outputs cannot carry gradients (integer or bool results, and
    factories like `zeros_like`) just run. Any other op that gets an input requiring grad records an error
    node: the forward works, and backward fails only if it actually reaches this op (PyTorch's
    `autogradNotImplementedFallback`: "the derivative for ... is not implemented").
    """
    schema = op.schema
    if _GradMode.enabled and any_requires_grad(args, op.tensor_args):
        if _is_out(schema):
            raise RuntimeError(f"{schema.name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        mutated = schema.mutable_positions
        if mutated:
            variable.check_inplace(args[mutated[0]], True)
        out = redispatch_below_ad_inplace_or_view(op, ks & AFTER_AUTOGRAD, args)
        if op.name in _NON_DIFFERENTIABLE:
            return out
        outs = [t for t in (_outputs(out) if not mutated else [args[mutated[0]]])]
        if not any(isinstance(t, Tensor) and t.dtype.is_floating_point for t in outs):
            return out
        tensors = [t for i, is_list in op.tensor_args for t in (args[i] if is_list else [args[i]])
                   if isinstance(t, Tensor)]
        node = NotImplementedNode(f"derivative for {op.name} is not implemented",
                                  variable.collect_next_edges(tensors))
        if mutated:
            variable.rebase_history(args[mutated[0]], node)
        else:
            variable.set_history([t if isinstance(t, Tensor) else None for t in outs], node)
        return out
    if schema.mutable_positions:
        variable.check_inplace(args[schema.mutable_positions[0]], False)
    out = redispatch(op, ks & AFTER_AUTOGRAD, args)
    if schema.is_view:
        _view_creation_meta(op, out, args)
    return out


def _register_fallback():
    from .._dispatch_key import AUTOGRAD_KEYS
    for key in AUTOGRAD_KEYS:
        dispatcher.register_fallback(key, autograd_fallback)


_register_fallback()
