"""The Transformer (Vaswani et al., "Attention Is All You Need"): an encoder stack and a decoder stack built
of attention and small per-position MLPs, as in torch/nn/modules/transformer.py.

TransformerEncoderLayer: self-attention, then a small MLP on every position, each with a residual
connection and a LayerNorm.

    post-norm (norm_first=False, the original paper):   x = norm1(x + attention(x))
                                                          x = norm2(x + feedforward(x))
    pre-norm  (norm_first=True, easier to train deep):  x = x + attention(norm1(x))
                                                          x = x + feedforward(norm2(x))

    attention(x)   = dropout1(self_attn(x, x, x))
    feedforward(x) = dropout2(linear2(dropout(activation(linear1(x)))))

TransformerDecoderLayer: the same with a second attention between them, "cross-attention", whose queries
come from the target sequence and whose keys and values come from the encoder's output (`memory`):

    post-norm:  x = norm1(x + self_attention(x));  x = norm2(x + cross_attention(x, memory));
                x = norm3(x + feedforward(x))

TransformerEncoder / TransformerDecoder: `num_layers` deep copies of one layer (in a ModuleList named
`layers`), then an optional final `norm`. Transformer: an encoder of the source, a decoder of the target
that reads the encoder's output; `generate_square_subsequent_mask` makes the causal mask a decoder uses so
that position i never sees the positions after it.

Attention mixes information ACROSS positions; the feedforward block (d_model -> dim_feedforward -> d_model)
works on each position on its own; the residual connections let the gradient flow straight through a
stack of layers. The submodules have PyTorch's names (self_attn, multihead_attn, linear1, dropout, linear2,
norm1..3, dropout1..3, layers.0..., encoder, decoder), so the state_dict keys are PyTorch's.

Masks follow MultiheadAttention's convention: True (or -inf) = masked out. PyTorch also has an inference
"fast path" here (one fused kernel, used in eval mode when no gradient is needed); it computes the same
thing, so teachtorch has only this readable path, except for the one place where the fast path's result
can be seen: see `TransformerEncoder.forward`.
"""

import copy
import math
import warnings

from ...ops import full, triu
from ...autograd.grad_mode import is_grad_enabled
from ..functional import activation as F
from ..functional.attention import _canonical_mask, _none_or_dtype
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .. import init

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The causal mask: -inf above the diagonal (query i may not see key j > i), 0 on and below it."""
    return triu(full((sz, sz), -math.inf, dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """`is_causal` as given, or (when None) whether `mask` is exactly the causal mask of that size.

    The answer is only a hint: attention then uses its own causal mask instead of reading `mask`.
    """
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        # only a mask of exactly this size can be the causal one
        if tuple(mask.shape) == tuple(causal.shape):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


def _get_clones(module, N):
    # every layer starts from the same weights: deep copies of the layer passed in
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class Transformer(Module):
    """The whole encoder-decoder model: `encoder` reads `src`, `decoder` reads `tgt` and the encoder's output.

    The encoder and decoder each end with a LayerNorm (`encoder.norm`, `decoder.norm`). Every weight matrix
    (every parameter with more than one dim) is then drawn again with `xavier_uniform_`, as in PyTorch.
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        options = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **options)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **options)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        """src (S, N, E) and tgt (T, N, E), or batch first, or unbatched (S, E) and (T, E) -> (T, N, E).

        `src_mask` (S, S), `tgt_mask` (T, T), `memory_mask` (T, S); the key padding masks (N, S), (N, T),
        (N, S). `*_is_causal=None`: find out whether the mask is the causal one.
        """
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The (sz, sz) causal mask: float -inf above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


class TransformerEncoder(Module):
    """`num_layers` copies of an encoder layer, run one after the other, then an optional final `norm`."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        # PyTorch's inference fast path packs the batch into a "nested tensor" without the padding; it only
        # works for some layers, and PyTorch says so when it is asked for but cannot be used
        why_not = _why_not_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """src (S, N, E), or batch first, or unbatched (S, E); `mask` (S, S), `src_key_padding_mask` (N, S)."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first_layer = self.layers[0]
        batch_first = first_layer.self_attn.batch_first
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if self._packs_padding(src, mask, src_key_padding_mask):
            # PyTorch's fast path drops the padded positions (a nested tensor) and pads the result with 0
            # again: the real positions are what this path computed, the padded ones come out 0
            output = output.masked_fill((src_key_padding_mask != 0).unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _packs_padding(self, src, mask, src_key_padding_mask):
        """Would PyTorch take its nested-tensor fast path here (torch's `why_not_sparsity_fast_path` is "")?"""
        layer = self.layers[0]
        if not self.use_nested_tensor or layer.training or src.dim() != 3 or src_key_padding_mask is None:
            return False
        if mask is not None:
            return False
        keep = src_key_padding_mask == 0
        if self.mask_check and not _left_aligned(keep):
            return False
        weights = (layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias, layer.self_attn.out_proj.weight,
                   layer.self_attn.out_proj.bias, layer.norm1.weight, layer.norm1.bias, layer.norm2.weight,
                   layer.norm2.bias, layer.linear1.weight, layer.linear1.bias, layer.linear2.weight,
                   layer.linear2.bias)
        return not (is_grad_enabled() and any(t.requires_grad for t in (src,) + weights))


def _left_aligned(keep):
    """Is every row of `keep` (N, S) some True values followed only by False values (padding at the end)?"""
    # a row is left aligned when it never goes from False back to True
    return not bool((~keep[:, :-1] & keep[:, 1:]).any())


def _why_not_nested_tensor(layer):
    """Why PyTorch's nested-tensor fast path cannot be used with this encoder layer ("" when it can)."""
    if not isinstance(layer, TransformerEncoderLayer):
        return "encoder_layer was not TransformerEncoderLayer"
    if layer.norm_first:
        return "encoder_layer.norm_first was True"
    if not layer.self_attn.batch_first:
        return "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return "encoder_layer.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return "encoder_layer.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return "encoder_layer.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return "encoder_layer.self_attn.num_heads is odd"
    return ""


class TransformerDecoder(Module):
    """`num_layers` copies of a decoder layer, each reading the same `memory`, then an optional final `norm`."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """tgt (T, N, E) and memory (S, N, E), or batch first, or unbatched; `tgt_mask` (T, T), `memory_mask`
        (T, S), `tgt_key_padding_mask` (N, T), `memory_key_padding_mask` (N, S)."""
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                           memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


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
        # which activation PyTorch's fused kernel could run (1 relu, 2 gelu, 0 neither)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        # (copy.deepcopy and unpickling land here) models pickled before `activation` existed used relu
        self.__dict__.update(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """src (S, N, E), or (N, S, E) with batch_first, or unbatched (S, E). `src_mask` (S, S) and
        `src_key_padding_mask` (N, S): True (or -inf) = masked out."""
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
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


class TransformerDecoderLayer(Module):
    """One decoder layer: self-attention over the target, cross-attention to `memory`, a feedforward block."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        options = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **options)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **options)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **options)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **options)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **options)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def __setstate__(self, state):
        # (copy.deepcopy and unpickling land here) models pickled before `activation` existed used relu.
        # PyTorch's version, kept as is: it looks in the instance dict only, where an activation MODULE
        # (nn.GELU()) is not (it is in state["_modules"]), so a copy of this layer, and so every layer of a
        # TransformerDecoder or Transformer (the layers are deep copies), runs relu instead of that module.
        # Only a string or a function given as `activation` reaches those layers.
        if "activation" not in state:
            state["activation"] = F.relu
        self.__dict__.update(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """tgt (T, N, E) and memory (S, N, E), or batch first, or unbatched. Masks: True (or -inf) = masked
        out; `tgt_mask` (T, T) for the self-attention, `memory_mask` (T, S) for the cross-attention."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        # queries from the target, keys and values from the encoder's output
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)
