"""`stack`'s backward: derivatives.yaml `stack: tensors: stack_tensors_backward(grad, dim,
tensors_args_scalartypes)`, the gradient unbound along the new dim, one slice per input (node StackBackward0),
each converted back to its input's dtype where stack promoted it (FunctionsManual.cpp)."""

from ..derivative import derivative


def stack_tensors_backward(grad, dim, dtypes):
    slices = grad.unbind(dim)
    return [g if g.dtype is dt or not dt.is_floating_point else g.to(dt) for g, dt in zip(slices, dtypes)]


derivative("stack", tensors=lambda grad, dim, tensors_args_scalartypes:
           stack_tensors_backward(grad, dim, tensors_args_scalartypes))
