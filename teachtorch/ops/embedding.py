"""`embedding` and its backward op `embedding_dense_backward` (kernels in kernels/embedding.py).

PyTorch's `embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)` is one op
(CompositeExplicitAutograd: its kernel is `index_select` then a view, run below autograd) with one node,
EmbeddingBackward0, whose backward is `embedding_backward` -> `embedding_dense_backward` (derivatives.yaml;
aten/src/ATen/native/Embedding.cpp). `F.embedding` (nn/functional/sparse.py) checks its arguments and calls it.
"""

from ..kernels import embedding as K
from ._define import function, kernel_op

embedding_op = kernel_op("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
                         "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", K.embedding_kernel)
embedding_dense_backward_op = kernel_op(
    "embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, "
    "bool scale_grad_by_freq) -> Tensor", K.embedding_dense_backward_kernel)

embedding = function(embedding_op)

__all__ = ["embedding"]
