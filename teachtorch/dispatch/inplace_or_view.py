"""The ADInplaceOrView layer: version counters and view bookkeeping, for every op, from its schema.

PyTorch generates these kernels (tools/autograd/gen_inplace_or_view_type.py -> ADInplaceOrViewType_*.cpp):

* an op that mutates an argument (`Tensor(a!) self`) gets a kernel that redispatches below itself and then
  bumps the version counter of each mutated tensor (`increment_version`), exactly once per write;
* a view op (`Tensor(a) self -> Tensor(a)`) gets a kernel that redispatches and then calls `as_view`: the
  output shares the base's version counter and remembers its *root* base in `_base`;
* every other op falls through this key at no cost.

teachtorch does the same when an op is defined: `_kernel_for(op)` reads the schema's alias annotations.

While the layers below run, the autograd and ADInplaceOrView keys are excluded for the thread
(PyTorch's `AutoDispatchBelowADInplaceOrView` guard): if a kernel down there calls other ops, those must not
bump version counters or record views a second time; the op as a whole is bumped once, here.
"""

from .._dispatch_key import AFTER_AD_INPLACE_OR_VIEW, AUTOGRAD_BITS, DispatchKey, bit
from . import dispatcher

_ABOVE_BACKENDS = AUTOGRAD_BITS | bit(DispatchKey.ADInplaceOrView)


def redispatch_below_ad_inplace_or_view(op, ks, args):
    """Redispatch `op` to `ks` inside PyTorch's `at::AutoDispatchBelowADInplaceOrView` guard: the ops its
    kernels call in turn skip autograd and this layer. Both layers above the backends use it: the Autograd
    kernels (autograd/variable_type.py) and this layer's own kernels below. The guard is a plain save, store and restore, with no
    point between them where Ctrl-C could land (see _grad_mode.py)."""
    tls = dispatcher.tls
    saved = tls.exclude
    tls.exclude = saved | _ABOVE_BACKENDS
    try:
        return dispatcher.redispatch(op, ks, args)
    finally:
        tls.exclude = saved

# Views that share storage and version counter but are not differentiable views: `_base` stays None.
NON_DIFFERENTIABLE_VIEWS = {"detach", "alias_nondiff"}


def as_view(base, view, op_name):
    """Link `view` to `base`: shared version counter, and `_base` is the root base (chains collapse)."""
    view._vc = base._vc
    if base.__dict__.get("_is_inference"):   # a view of an inference tensor is one too (it has its base's keys)
        view._is_inference = True
    if op_name in NON_DIFFERENTIABLE_VIEWS:
        return
    view._base = base._base if base._base is not None else base
    view._attr_version = base._vc.value   # autograd: the version at which this view's grad_fn is right


def _kernel_for(op):
    schema = op.schema
    mutated = schema.mutable_positions
    if mutated:
        # Which written arguments are tensor lists (`Tensor(a!)[] self`, the in-place `_foreach_*` ops) is in
        # the schema: decided here once, not on every call
        lists = [i for i in mutated if schema.arguments[i].type.endswith("[]")]
        tensors = [i for i in mutated if i not in lists]

        def ADInplaceOrView_inplace(ks, *args):
            out = redispatch_below_ad_inplace_or_view(op, ks & AFTER_AD_INPLACE_OR_VIEW, args)
            for i in tensors:            # increment_version, as PyTorch's generated kernels call it
                args[i]._vc.value += 1
            for i in lists:
                for t in args[i]:
                    t._vc.value += 1
            return out
        return ADInplaceOrView_inplace
    if schema.is_view:
        base_pos = next(i for i, a in enumerate(schema.arguments) if a.alias)
        name = schema.name

        def ADInplaceOrView_view(ks, *args):
            out = redispatch_below_ad_inplace_or_view(op, ks & AFTER_AD_INPLACE_OR_VIEW, args)
            base = args[base_pos]
            for v in (out if isinstance(out, (tuple, list)) else (out,)):
                as_view(base, v, name)
            return out
        return ADInplaceOrView_view
    return None


def _register(op):
    kernel = _kernel_for(op)
    if kernel is not None:
        op.kernels[DispatchKey.ADInplaceOrView] = kernel
        op._compute_table()


dispatcher._define_hooks.append(_register)
dispatcher.register_fallback(DispatchKey.ADInplaceOrView, dispatcher.FALLTHROUGH)
