"""AccumulateGrad's work: add a gradient into `leaf.grad` (torch/csrc/autograd/functions/accumulate_grad.h).

    leaf.grad is None   -> leaf.grad = the gradient itself when nothing else holds it and its strides are
                           the leaf's (the "gradient layout contract": `.grad` is laid out like the
                           parameter, so an optimizer can walk both together); otherwise a copy laid out
                           like the leaf
    leaf.grad exists    -> leaf.grad += gradient, in place, so `.grad` keeps its identity across steps; but
                           out of place when grad mode is on (create_graph=True), so that the old `.grad` is
                           not overwritten while a graph that uses it is being built

Then the leaf's post-accumulate-grad hooks run (an optimizer can step each parameter as soon as its
gradient is ready).
"""

from .._strides import is_contiguous, is_non_overlapping_and_dense
from . import graph
from .grad_mode import _GradMode


def obeys_layout_contract(grad, variable):
    """May `grad` be the `.grad` of `variable` as it is? (PyTorch's `obeys_layout_contract`)

    For a dense parameter: the same strides on every dim longer than 1 (and no stride-0 dim, which would be
    a broadcast view). For any other parameter (sliced, expanded): `grad` must be plain contiguous.
    """
    if not is_non_overlapping_and_dense(variable._sizes, variable._strides):
        return is_contiguous(grad._sizes, grad._strides)
    for n, sg, sv in zip(grad._sizes, grad._strides, variable._strides):
        if (n != 1 and sg != sv) or (n == 1 and sg == 0):
            return False
    return True


def clone_obey_contract(grad, variable):
    """A copy of `grad` with the leaf's strides (PyTorch's `utils::clone_obey_contract`)."""
    if is_non_overlapping_and_dense(variable._sizes, variable._strides):
        out = grad.new_empty_strided(variable._sizes, variable._strides)
        return out.copy_(grad)
    return grad.clone(memory_format="contiguous_format")


def accumulate_grad(variable, new_grad, owned):
    if variable._grad_fn is not None:
        raise RuntimeError("leaf variable has been moved into the graph interior")
    if new_grad is None:
        return
    old = variable.__dict__.get("_grad")
    if old is None:
        if owned and not _GradMode.enabled and obeys_layout_contract(new_grad, variable):
            grad = new_grad                            # steal it: no one else can see it
            if grad.requires_grad:                     # (a tensor hook's replacement may carry history: PyTorch
                grad = grad.detach()                   # stores `new_grad.detach()`)
        else:
            grad = clone_obey_contract(new_grad, variable)
    elif _GradMode.enabled:
        grad = old + new_grad                          # out of place: the old .grad may be in a graph
    else:
        old += new_grad
        grad = old
    variable.__dict__["_grad"] = grad                  # (the checks of the `.grad` setter are not needed)
    if graph.listening():
        graph.emit("accumulated", node=variable.__dict__["_grad_accumulator"](), tensor=variable, grad=grad)
    hooks = variable.__dict__.get("_post_accumulate_grad_hooks")
    if hooks:
        for hook in list(hooks.values()):
            hook(variable)
