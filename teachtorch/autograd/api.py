"""`autograd.backward` and `autograd.grad`: check the arguments, then hand the graph to the engine.

PyTorch: torch/autograd/__init__.py (`backward`, `grad`, `_make_grads`) and
torch/csrc/autograd/python_engine.cpp (`THPEngine_run_backward`).

    loss.backward()                         -> every leaf that requires grad gets `.grad` (accumulated)
    autograd.grad(loss, [w])                -> returns d loss / d w, touches no `.grad`
"""

from .._tensor import Tensor
from ..dispatch import dispatcher
from . import engine
from .variable import gradient_edge, requires_grad


def _tensor_list(x, what):
    if isinstance(x, Tensor):
        return [x]
    if x is None:
        return []
    return list(x)


def _make_grads(outputs, grads, is_grads_batched=False):
    """The initial gradient of each output: `ones_like(out)` for a scalar, else the one given."""
    new = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out.requires_grad:
                if out.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not out.dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                       f"{out.dtype}")
                g = _seed(out)                 # PyTorch's _make_grads: ones_like(out, preserve_format)
            new.append(g)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        # (batched: the first dim of each grad_output is the batch, the rest must be the output's shape)
        sizes = tuple(g[0]._sizes) if is_grads_batched else tuple(g._sizes)   # (g[0]: PyTorch's errors)
        if sizes != tuple(out._sizes):
            # (PyTorch's message drops the batch dim twice, grad_output[0].shape[1:]: copied as is)
            shown = sizes[1:] if is_grads_batched else sizes
            grad_shape = f"torch.Size([{', '.join(map(str, shown))}])"
            out_shape = f"torch.Size([{', '.join(map(str, out._sizes))}])"
            if is_grads_batched:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
                    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                    f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                    f"{grad_shape} and output[{i}] has a shape of {out_shape}. If you only want some tensors in "
                    "`grad_output` to be considered batched, consider using vmap.")
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {grad_shape} and output[{i}] "
                               f"has a shape of {out_shape}.")
        # Only complex against real is refused here; another real dtype (float64, int64 for a float32
        # output) is cast to the output's dtype by the engine (`validate_outputs`), as in PyTorch.
        if out.dtype.is_complex != g.dtype.is_complex:
            raise RuntimeError(
                f"For complex Tensors, both grad_output and output are required to have the same dtype. "
                f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype of "
                f"{out.dtype}.")
        new.append(g)
    return new


def _seed(out):
    """`ones_like(out)`, the gradient backward starts from. A dispatch trace that is watching files it under
    backward, for the node it is handed to (the output's grad_fn), as it files the engine's own ops."""
    from ..ops.factories import ones_like_op   # (the ops are defined above autograd)
    trace = dispatcher._active_trace
    if trace is None:
        return ones_like_op(out)
    saved = trace.backward_node
    trace.backward_node = gradient_edge(out)[0]
    try:
        return ones_like_op(out)
    finally:
        trace.backward_node = saved


def _root_edges(outputs):
    edges = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge)
    return edges


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate d(tensors)/d(leaf) into `.grad` of every leaf (or only of `inputs`)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _tensor_list(tensors, "tensors")
    if inputs is not None:
        inputs = _tensor_list(inputs, "inputs")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _tensor_list(grad_tensors, "grad_tensors") if grad_tensors is not None else [None] * len(tensors)
    user_grads = [g for g in grads if g is not None]
    grads = _make_grads(tensors, grads)
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(tensors)
    input_edges = None
    if inputs is not None:
        input_edges = [_input_edge(t, i) for i, t in enumerate(inputs)]
    captured = engine.execute(edges, grads, retain_graph, create_graph, input_edges, accumulate_grad=True,
                              user_grads=user_grads)
    if inputs is not None:
        # Non-leaf inputs were captured, not accumulated: give them `.grad` now (leaves got theirs).
        for t, g in zip(inputs, captured):
            if g is not None and t.grad_fn is not None:
                t.grad = g if t.grad is None else t.grad + g


def _input_edge(t, i):
    if not isinstance(t, Tensor):
        raise TypeError(f"all inputs have to be Tensors, but got {type(t).__name__}")
    edge = gradient_edge(t)
    if edge is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge


def _batched_grad(edges, grads, retain_graph, create_graph, input_edges, user_grads):
    """`is_grads_batched=True`: one vector-Jacobian product per row of the grad_outputs, stacked.

    PyTorch vmaps the backward pass over the first dim of every grad_output (one pass over batched
    tensors); teachtorch has no vmap, so it runs the backward once per row, keeping the graph alive for
    all but the last, and stacks the results: the same numbers, row by row. As under vmap, every
    grad_output is batched, a scalar output's implicit ones too (which vmap refuses: it has no dim 0)."""
    from ..ops.shape_ops import stack
    if any(g.dim() == 0 for g in grads):
        raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that input is a "
                         "Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.")
    sizes = [g._sizes[0] for g in grads]
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    given = {id(g) for g in user_grads}
    rows = []
    for b in range(sizes[0]):
        row = [g[b] for g in grads]
        row_given = [r for r, g in zip(row, grads) if id(g) in given]   # the caller's: never stolen
        rows.append(engine.execute(edges, row, retain_graph or b < sizes[0] - 1, create_graph, input_edges,
                                   accumulate_grad=False, user_grads=row_given))
    return [None if rows[0][i] is None else stack([r[i] for r in rows]) for i in range(len(input_edges))]


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; `.grad` fields are left alone."""
    outputs = _tensor_list(outputs, "outputs")
    inputs = _tensor_list(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"all inputs have to be Tensors, but got {type(t).__name__}")
    grads = (_tensor_list(grad_outputs, "grad_outputs") if grad_outputs is not None
             else [None] * len(outputs))
    user_grads = [g for g in grads if g is not None]
    grads = _make_grads(outputs, grads, is_grads_batched)
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(outputs)
    input_edges = []
    for t in inputs:
        if not requires_grad(t):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        input_edges.append(gradient_edge(t))
    if is_grads_batched:
        result = _batched_grad(edges, grads, retain_graph, create_graph, input_edges, user_grads)
    else:
        result = engine.execute(edges, grads, retain_graph, create_graph, input_edges, accumulate_grad=False,
                                user_grads=user_grads)
    out = []
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if materialize_grads:
                from ..ops.factories import zeros_like
                g = zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        out.append(g)
    return tuple(out)
