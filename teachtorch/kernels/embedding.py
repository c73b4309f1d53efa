"""The kernels of `embedding` (look up rows of a table) and `embedding_dense_backward` (add each gradient
back into the row it came from).

`embedding(weight, indices)` is `weight[indices]`: row `weight[i]` for every id `i`, shaped
indices.shape + (embedding_dim,). Its backward is a scatter-add: an (num_weights, embedding_dim) table of
zeros into which each output gradient is added at its id, so a row looked up twice gets both gradients
(aten/src/ATen/native/Embedding.cpp, `embedding`, `embedding_dense_backward_cpu`), with two options:

* `padding_idx`: the row of that id gets no gradient (it stands for "no token", and stays as it is);
* `scale_grad_by_freq`: each gradient is divided by how often its id appears in `indices`, so frequent
  words do not take bigger steps than rare ones.
"""

from ..backends import differences, empty, wrap, xp_of


def embedding_kernel(ks, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of `weight` at `indices` (a fresh tensor: PyTorch's `index_select`, then a view)."""
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    shape = tuple(indices.shape) + (weight.shape[1],)
    if weight.device.type == "meta" or indices.device.type == "meta":
        return empty(shape, weight.dtype, weight.device)
    xp = xp_of(weight)
    ids = indices._data()
    if ids.size and (bool((ids < 0).any()) or bool((ids >= weight.shape[0]).any())):
        raise IndexError("index out of range in self")
    return wrap(xp.take(weight._data(), ids, axis=0), weight.dtype, weight.device)


def embedding_dense_backward_kernel(ks, grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    """grad_weight[i] = the sum of the output gradients at id i (divided by its count with
    scale_grad_by_freq), 0 for the row `padding_idx` and for ids never looked up."""
    dim = grad_output.shape[-1]
    if grad_output.device.type == "meta":
        return empty((num_weights, dim), grad_output.dtype, grad_output.device)
    xp = xp_of(grad_output)
    ids = indices._data().reshape(-1)
    # (accumulated in grad's own dtype, float16 included, as PyTorch's CPU kernel does: its `index_add_`)
    grad = grad_output._data().reshape(-1, dim)
    if scale_grad_by_freq:
        counts = xp.bincount(ids, minlength=num_weights)
        grad = grad / counts[ids][:, None].astype(grad.dtype)
    if padding_idx >= 0:
        keep = ids != padding_idx
        ids, grad = ids[keep], grad[keep]
    out = xp.zeros((num_weights, dim), dtype=grad.dtype)
    differences.ufunc_at(xp, "add", out, ids, grad)
    return wrap(out, grad_output.dtype, grad_output.device)
