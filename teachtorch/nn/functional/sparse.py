"""embedding and one_hot: integer ids in, vectors out.

`embedding(input, weight)` looks up row `weight[i]` for every id `i` in `input`: an (N, L) tensor of token
ids becomes an (N, L, embedding_dim) tensor of their vectors. It is the same as multiplying a one-hot
matrix by `weight`, without building the one-hot matrix. As in PyTorch it is one op, `aten::embedding`
(ops/embedding.py, kernels/embedding.py), with one node, EmbeddingBackward0, whose backward is one op,
`embedding_dense_backward`: each output gradient added into the row it came from, so a row that appears
twice gets both gradients.

`padding_idx` names a row that stands for "no token" (padding in a batch of unequal sentences): the backward
gives that row no gradient, so it stays what it was (zeros, as `nn.Embedding` sets it).
`scale_grad_by_freq=True` divides each row's gradient by how often its id appears in this batch, so that
frequent words do not take bigger steps than rare ones.

`max_norm` rescales, in place and without autograd, each looked-up row whose norm exceeds max_norm, as
PyTorch's `embedding_renorm_` does.

`one_hot(t, num_classes)` is the explicit version: int64 zeros with a 1 at each class index.
"""

from ...autograd.grad_mode import no_grad
from ...linalg import vector_norm
from ..._dtype import int32, int64
from ...ops import empty, unique, where, zeros
from ...ops.embedding import embedding_op

__all__ = ["embedding", "one_hot"]


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of `weight` at the integer ids in `input`, shaped input.shape + (embedding_dim,)."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if sparse:
        raise NotImplementedError("teachtorch's embedding has no sparse gradients")
    if input.dtype is not int64 and input.dtype is not int32:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for embedding)")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return embedding_op(weight, input, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scale each row of `weight` that `input` looks up and whose norm is above max_norm down to max_norm."""
    with no_grad():
        ids = unique(input)
        selected = weight.index_select(0, ids)
        norms = vector_norm(selected, norm_type, dim=1, keepdim=True)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[ids] = selected * scale


def one_hot(tensor, num_classes=-1):
    """int64 tensor of shape tensor.shape + (num_classes,) with a 1 at each class index; -1 infers
    num_classes as max + 1."""
    if tensor.dtype is not int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return empty(tuple(tensor.shape) + (num_classes,), dtype=int64, device=tensor.device)
    if tensor.min().item() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = tensor.max().item() + 1
    elif tensor.max().item() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    result = zeros(tuple(tensor.shape) + (num_classes,), dtype=int64, device=tensor.device)
    return result.scatter_(-1, tensor.unsqueeze(-1), 1)
