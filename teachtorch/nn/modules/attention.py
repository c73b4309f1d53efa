"""MultiheadAttention: attention with learned projections, split into several heads.

Each head attends with its own slice of the projected queries, keys and values, so different heads can
look for different things (one the previous token, one a matching bracket, ...); the heads' outputs are
joined and mixed by an output projection:

    q, k, v = query W_q^T + b_q,  key W_k^T + b_k,  value W_v^T + b_v       (each E features)
    head_h  = softmax(q_h k_h^T / sqrt(E / num_heads)) v_h                  (the h-th slice of E / num_heads)
    output  = concat(head_1, ..., head_H) W_out^T + b_out

The parameters have PyTorch's names, shapes and initialisation (torch/nn/modules/activation.py), so a
PyTorch state_dict loads as is: W_q, W_k, W_v are stacked in ONE `in_proj_weight` (3E, E) (self-attention
is then one matmul), initialised with `xavier_uniform_`; `in_proj_bias` (3E) and `out_proj.bias` start at
zero. When key or value have other sizes than E (`kdim`, `vdim`), the three weights are separate:
`q_proj_weight`, `k_proj_weight`, `v_proj_weight`.

The inputs are sequence-first, (L, N, E), unless `batch_first=True`, (N, L, E). The forward pass is
`F.multi_head_attention_forward`. PyTorch also has an inference "fast path" (one fused kernel) that gives
the same numbers; here there is just the one path.
"""

from ...ops import empty
from .. import init
from ..functional.attention import _canonical_mask, _none_or_dtype, multi_head_attention_forward
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention (see the file's docstring); `forward` returns (output, attention weights)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        options = dict(device=device, dtype=dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **options))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **options))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **options))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **options))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **options)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **options))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **options))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """query (L, N, E), key (S, N, kdim), value (S, N, vdim), or batch first, or unbatched (L, E).

        Masks: True (or -inf) = masked out. `key_padding_mask` (N, S) hides padding keys; `attn_mask` (L, S)
        or (N * num_heads, L, S). Returns (output (L, N, E), weights (N, L, S) averaged over the heads, or
        (N, num_heads, L, S), or None with `need_weights=False`).
        """
        is_batched = query.dim() == 3
        # bool masks become float masks of 0 and -inf here, as in PyTorch, which warns here (not in the
        # functional form) when one mask is bool and the other float
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # the functional form is sequence-first: swap the batch and sequence dims (views, no copies),
            # keeping self-attention's `query is key is value` (which lets it project with one matmul)
            if query is key and key is value:
                query = key = value = query.transpose(0, 1)
            elif key is value:
                query, key = query.transpose(0, 1), key.transpose(0, 1)
                value = key
            else:
                query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return output.transpose(0, 1), weights
        return output, weights
