"""TransformerEncoderLayer: self-attention, then a small MLP on every position, each with a residual
connection and a LayerNorm.

    post-norm (norm_first=False, the original paper):   x = norm1(x + attention(x))
                                                          x = norm2(x + feedforward(x))
    pre-norm  (norm_first=True, easier to train deep):  x = x + attention(norm1(x))
                                                          x = x + feedforward(norm2(x))

    attention(x)   = dropout1(self_attn(x, x, x))
    feedforward(x) = dropout2(linear2(dropout(activation(linear1(x)))))

Attention mixes information ACROSS positions; the feedforward block (d_model -> dim_feedforward -> d_model)
works on each position on its own; the residual connections let the gradient flow straight through a
stack of layers. The submodules have PyTorch's names (self_attn, linear1, dropout, linear2, norm1, norm2,
dropout1, dropout2), so the state_dict keys are the same as in torch/nn/modules/transformer.py.

PyTorch also has an inference "fast path" here (one fused kernel, used in eval mode when no gradient is
needed); it computes the same thing, so teachtorch has only this readable path.
"""

from ..functional import activation as F
from .attention import MultiheadAttention
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer"]


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """One encoder layer: self-attention and a feedforward block, with residuals and LayerNorms."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        options = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **options)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        # a name ("relu", "gelu"), a function (F.gelu) or a module (nn.GELU(), then also a submodule)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """src (S, N, E), or (N, S, E) with batch_first, or unbatched (S, E). `src_mask` (S, S) and
        `src_key_padding_mask` (N, S): True (or -inf) = masked out."""
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)
