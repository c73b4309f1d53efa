"""A tensor's place in the graph: gradient edges, history, and the in-place checks.

PyTorch keeps these in `AutogradMeta` (torch/csrc/autograd/variable.{h,cpp}); teachtorch keeps them as
tensor attributes with class-level defaults, set only on tensors that take part in autograd:

    _requires_grad   True for a leaf the user marked, and for every output that has a grad_fn
    _grad_fn         the node that made this tensor (None for a leaf); see `grad_fn` for views
    _output_nr       which output of `_grad_fn` this tensor is
    _grad_accumulator  a weak reference to the leaf's AccumulateGrad node
    _base, _attr_version, _creation_meta   for views (views.py)

Functions here:

* `gradient_edge(t)`: where t's gradient must go: `(t.grad_fn, t.output_nr)`, or `(AccumulateGrad, 0)`
  for a leaf that requires grad, or None.
* `set_history(outputs, node)`: the outputs of a recorded op point at their node.
* `check_inplace(t)`: may `t` be changed in place? (not a leaf that requires grad, nor a view of one)
* `rebase_history(t, node)`: after an in-place op `t`'s history is the new node; if `t` is a view, its
  *base's* history is rewritten instead (a CopySlices node, views.py).
"""

import weakref

from .._tensor import Tensor
from .grad_mode import _GradMode
from .node import AccumulateGrad

# CreationMeta (torch/csrc/autograd/variable.h): how a view was made decides whether it may be written to.
# IN_CUSTOM_FUNCTION: returned by a custom Function (function.py), whose backward an in-place rebase would bypass.
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT_NODE, INFERENCE_MODE, IN_CUSTOM_FUNCTION = 0, 1, 2, 3, 4


def requires_grad(t):
    """Tensor.requires_grad: the flag, or (for a view) its base's (a view made in no_grad still does)."""
    return t._requires_grad or (t._base is not None and t._base._requires_grad)


def grad_accumulator(t):
    """The leaf's AccumulateGrad node, made on first use and cached weakly (the node holds the leaf)."""
    ref = t.__dict__.get("_grad_accumulator")
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_accumulator = weakref.ref(acc)
    return acc


def gradient_edge(t):
    """Where the gradient of `t` goes in backward: `(node, input_nr)` or None if it needs none."""
    fn = t._grad_fn if t._base is None else t.grad_fn      # (a view's grad_fn may need rebuilding)
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    # (a view made under no_grad of a base that requires grad: requires_grad is True through the base, but
    # it has neither history nor an accumulator of its own, so nothing flows to it, as in PyTorch)
    return None


def collect_next_edges(tensors):
    return [None if t is None or not isinstance(t, Tensor) else gradient_edge(t) for t in tensors]


def set_history(outputs, node):
    """Give each differentiable output its grad_fn; record what it looks like for the engine's checks."""
    metadata = node._input_metadata
    for i, t in enumerate(outputs):
        if t is None:
            metadata.append(None)
            continue
        metadata.append((t._sizes, t.dtype, t._storage.device))
        if t.dtype.is_floating_point:
            t._requires_grad = True
            t._grad_fn = node
            if i:
                t._output_nr = i
            if t._base is not None:
                t._attr_version = t._vc.value


def check_inplace(t, any_requires_grad):
    """PyTorch's `check_inplace` (VariableTypeUtils.h): refuse in-place writes that would break the graph."""
    if _GradMode.inference is False and t.__dict__.get("_is_inference"):
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
            "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
            "details.")
    if not (any_requires_grad and _GradMode.enabled):
        return
    if t._base is not None:
        handle_view_on_rebase(t)
        if requires_grad(t) and t._base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
    if t._requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def handle_view_on_rebase(view, indirect=False):
    """Views that may not be written to (PyTorch's `handle_view_on_rebase`): raise and say why."""
    meta = view.__dict__.get("_creation_meta", DEFAULT)
    if meta == DEFAULT:
        return
    from .saved_variable import _short_name
    fn = view._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta in (NO_GRAD_MODE, INFERENCE_MODE) or fn is None:
        prefix = (f"Output {view._output_nr} of {_short_name(fn.name())} is a view of a view which was created in"
                  if fn is not None else "A view was created in")
        if meta == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {view._output_nr} of {_short_name(fn.name())} is a view and {modified} modified inplace."
    if meta == MULTI_OUTPUT_NODE:
        msg += (" This view is the output of a function that returns multiple views. Such functions do not "
                "allow the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
    elif meta == IN_CUSTOM_FUNCTION:
        msg += (" This view was created inside a custom Function (or because an input was returned as-is) and "
                "the autograd logic to handle view+inplace would override the custom backward associated with "
                "the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
                "this by cloning the output of the custom Function.")
    else:
        block = "inference_mode" if meta == INFERENCE_MODE else "no_grad"
        msg += (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                f"code by moving both the view and the inplace either both inside the {block} block (if you "
                "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    raise RuntimeError(msg)


def rebase_history(t, node):
    """After an in-place op recorded by `node`: `t` now comes out of `node`.

    If `t` is a view, what changed is part of its base; so the base gets the new history, as a CopySlices
    node that runs `node`'s backward on the view's part of the base's gradient (views.py). The view's own
    grad_fn is rebuilt from the base the next time it is read.
    """
    if t._base is not None:
        from .views import CopySlices
        base = t._base
        copy_slices = CopySlices(base, t, node)
        old = base._grad_fn
        base._grad_fn = copy_slices
        base._requires_grad = True
        base.__dict__.pop("_output_nr", None)
        if old is not None:
            move_retains_grad(base, old, copy_slices)
        node._input_metadata.append((t._sizes, t.dtype, t._storage.device))
        t.grad_fn  # noqa: B018  (reading it rebuilds the view's grad_fn now, as PyTorch's rebase_history does)
        return
    old = t._grad_fn
    set_history([t], node)
    t.__dict__.pop("_output_nr", None)
    if old is not None:
        move_retains_grad(t, old, node)


def move_retains_grad(t, old_fn, new_fn):
    """`retain_grad()` follows the tensor to its new grad_fn (tensor hooks stay with the old one)."""
    hooks = old_fn._retains_grad_hooks
    if not hooks or 0 not in hooks:
        return
    hook = hooks.pop(t.__dict__.get("_output_nr", 0), None)
    if hook is not None:
        if new_fn._retains_grad_hooks is None:
            new_fn._retains_grad_hooks = {}
        new_fn._retains_grad_hooks[t.__dict__.get("_output_nr", 0)] = hook
