"""Autograd for the `_foreach_*` ops (ops/foreach.py): recorded, but with no backward formula.

PyTorch generates derivatives for the foreach ops from the per-tensor ones (derivatives.yaml has
`_foreach_add.List` and its siblings, one node per output tensor). teachtorch's optimizers, the only callers
of these ops, run under `no_grad`, so no formula is written here: an op called while some input requires grad
records a `NotImplemented` node, and backward through it fails with "derivative for aten::_foreach_... is not
implemented" (PyTorch's autogradNotImplementedFallback). The default fallback (variable_type.py
`autograd_fallback`) reads one tensor per argument; a foreach op has lists, so it gets this kernel instead.
"""

from ..._dispatch_key import AFTER_AUTOGRAD, Autograd
from ...dispatch.dispatcher import OPERATORS, impl, redispatch
from ...dispatch.inplace_or_view import redispatch_below_ad_inplace_or_view
from .. import variable
from ..grad_mode import _GradMode
from ..node import NotImplementedNode
from ..variable_type import any_requires_grad


def _foreach_autograd_kernel(op):
    positions = op.tensor_args
    inplace = bool(op.schema.mutable_positions)
    message = f"derivative for {op.name} is not implemented"

    def autograd_foreach_kernel(ks, *args):
        needs_grad = _GradMode.enabled and any_requires_grad(args, positions)
        if inplace:
            for t in args[0]:
                variable.check_inplace(t, needs_grad)
        if not needs_grad:
            return redispatch(op, ks & AFTER_AUTOGRAD, args)
        out = redispatch_below_ad_inplace_or_view(op, ks & AFTER_AUTOGRAD, args)
        inputs = [t for i, is_list in positions for t in (args[i] if is_list else [args[i]])]
        if inplace:
            for t in args[0]:      # each written tensor now comes out of a node whose backward fails
                if t.dtype.is_floating_point:
                    variable.rebase_history(t, NotImplementedNode(message, variable.collect_next_edges(inputs)))
        else:
            outs = [t if t.dtype.is_floating_point else None for t in out]
            variable.set_history(outs, NotImplementedNode(message, variable.collect_next_edges(inputs)))
        return out
    return autograd_foreach_kernel


for _name, _op in list(OPERATORS.items()):
    if _name.startswith("aten::_foreach_"):
        impl(_op, Autograd, _foreach_autograd_kernel(_op))
