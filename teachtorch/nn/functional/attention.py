"""Attention: every query position takes a weighted average of the values, weighted by how well its query
matches each key.

    scores  = q @ k^T * scale                 (..., L, S): query i against key j; scale = 1/sqrt(E)
    scores += mask                            -inf where query i must not look at key j
    weights = softmax(scores, dim=-1)         each row sums to 1
    output  = weights @ v                     (..., L, Ev)

`scaled_dot_product_attention` is exactly this, in PyTorch's "math" reference form (the formula in its
docs; aten/src/ATen/native/transformers/attention.cpp `_scaled_dot_product_attention_math`). PyTorch picks
a fused kernel when it can (FlashAttention, memory-efficient attention: the same numbers without ever
storing the (L, S) weights). On the CPU that is `_scaled_dot_product_flash_attention_for_cpu` (ops/attention.py,
one node ScaledDotProductFlashAttentionForCpuBackward0) whenever `_use_flash_attention_cpp` says PyTorch's
backend choice takes it (4-d inputs, no dropout, ...); otherwise autograd differentiates the four ops above.

Masks: a bool `attn_mask` says which pairs TAKE PART (True = query i may look at key j); a float mask is
added to the scores. `is_causal=True` lets query i see keys 0..i only (a lower-triangular mask), as in a
language model that must not peek at the next token. A query whose keys are ALL masked out gets zeros
(PyTorch's `_safe_softmax`), not the nan that softmax of a row of -inf would give.

`multi_head_attention_forward` is what `nn.MultiheadAttention` calls: project the inputs to q, k, v, split
the embedding into `num_heads` heads of head_dim = embed_dim / num_heads, attend in every head at once (the
heads are a batch dim), join the heads and project the result (torch/nn/functional.py). Note that its
masks follow the opposite convention: a True in `attn_mask` or `key_padding_mask` masks the pair OUT.
"""

import math
import warnings

import teachtorch as tt
from ..._dtype import TYPEMETA_NAMES
from ...ops.attention import _scaled_dot_product_flash_attention_for_cpu
from .dropout import dropout
from .linear import linear

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal):
    """The input checks of PyTorch's sdpa (aten/src/ATen/native/transformers/sdp_utils_cpp.h)."""
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{TYPEMETA_NAMES[query.dtype.name]} key.dtype: {TYPEMETA_NAMES[key.dtype.name]} and "
                           f"value.dtype: {TYPEMETA_NAMES[value.dtype.name]} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None and attn_mask.dtype not in (tt.bool, tt.float32, query.dtype):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {TYPEMETA_NAMES[attn_mask.dtype.name]} and  query.dtype: "
                           f"{TYPEMETA_NAMES[query.dtype.name]} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if dropout_p < 0 or dropout_p > 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _use_flash_attention_cpp(query, key, value, attn_mask, dropout_p, enable_gqa):
    """Does PyTorch's CPU backend choice pick the fused kernel? The gates of `use_flash_attention_cpp`
    (aten/src/ATen/native/transformers/sdp_utils_cpp.cpp, checks in sdp_utils_cpp.h); else the math path.
    Only on the cpu: on a GPU PyTorch picks its CUDA kernels (flash, memory-efficient, cuDNN), whose nodes
    teachtorch does not have, so cuda tensors take the math path."""
    if query.device.type != "cpu":
        return False
    if dropout_p > 0.0:                                                   # check_for_dropout
        return False
    if not (query.dim() == key.dim() == value.dim() == 4):                # check_tensor_shapes
        return False
    if not (query.shape[0] == key.shape[0] == value.shape[0]):            # check_batch_size_and_num_heads_dense:
        return False                                                      # no broadcasting of the batch
    heads_q, heads_k, heads_v = query.shape[1], key.shape[1], value.shape[1]
    if not (heads_q == heads_k == heads_v or                              # ... equal heads, or grouped-query
            (enable_gqa and heads_k == heads_v and heads_q % heads_k == 0)):
        return False
    if attn_mask is not None and attn_mask.dim() not in (2, 4):           # check_attn_mask_shape
        return False
    if not (query.shape[-1] == key.shape[-1] == value.shape[-1]):         # check_head_dim_size_cpp
        return False
    if query.shape[-2] == 0 or key.shape[-2] == 0:                        # check_nonzero_sequence_lengths_dense
        return False
    if any(t.shape[-1] != 1 and t.stride(-1) != 1 for t in (query, key, value)):   # check_last_dim_stride_...
        return False
    return query.dtype.is_floating_point                                  # check_tensor_dtype


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); the leading dims broadcast.
    `attn_mask` (broadcastable to (..., L, S)): bool (True = take part) or float (added to the scores).
    `enable_gqa`: grouped-query attention, where key and value have fewer heads (dim -3) than query and each
    of their heads serves a group of query heads.
    """
    _check_sdpa(query, key, value, attn_mask, dropout_p, is_causal)
    if _use_flash_attention_cpp(query, key, value, attn_mask, dropout_p, enable_gqa):
        if attn_mask is not None and attn_mask.dtype == tt.bool:
            # `convert_boolean_attn_mask`: True (take part) -> 0, False -> -inf, in the query's dtype
            attn_mask = tt.zeros(attn_mask.shape, dtype=query.dtype, device=query.device).masked_fill(
                attn_mask.logical_not(), -math.inf)
        return _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p, is_causal,
                                                           attn_mask=attn_mask, scale=scale)[0]
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        if query.shape[-3] % key.shape[-3] != 0 or query.shape[-3] % value.shape[-3] != 0:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        key = key.repeat_interleave(query.shape[-3] // key.shape[-3], -3)
        value = value.repeat_interleave(query.shape[-3] // value.shape[-3], -3)
    L, S = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale

    scores = tt.matmul(query, key.transpose(-2, -1)) * scale
    masked_rows = None      # the queries that may look at no key at all
    if is_causal:
        # query i sees keys 0..i: mask out the strict upper triangle, the "future" (row 0 always keeps
        # key 0, so no row is empty)
        future = tt.ones((L, S), dtype=tt.bool, device=query.device).triu(1)
        scores = scores.masked_fill(future, -math.inf)
    elif attn_mask is not None and attn_mask.dtype == tt.bool:
        scores = tt.where(attn_mask, scores, -math.inf)
        masked_rows = ~attn_mask.any(-1, keepdim=True)
    elif attn_mask is not None:
        # (a float32 mask on a float64 query: added in the query's dtype, as PyTorch adds it in place)
        scores = scores + (attn_mask if attn_mask.dtype == scores.dtype else attn_mask.to(scores.dtype))
        masked_rows = (attn_mask == -math.inf).all(-1, keepdim=True)
    if masked_rows is not None and bool(masked_rows.any()):
        # softmax of a row of -inf is 0/0 = nan; PyTorch's _safe_softmax gives those rows zeros instead.
        # (softmax of a row of zeros, then zeroed: the gradient of those rows is 0, not nan)
        weights = tt.where(masked_rows, 0.0, tt.softmax(tt.where(masked_rows, 0.0, scores), -1))
    else:
        weights = tt.softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p)
    return tt.matmul(weights, value)


# ---- multi-head attention --------------------------------------------------------------------------------


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask (True = masked out) as a float mask of 0 and -inf (torch/nn/functional.py).

    `other_type` is the dtype of the other mask given with this one (or None): PyTorch warns when one is bool
    and the other float, a combination it still accepts but has deprecated.
    """
    if mask is None:
        return None
    if mask.dtype != tt.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      f"instead.", stacklevel=2)
    if mask.dtype == tt.bool:
        mask = tt.zeros_like(mask, dtype=target_type).masked_fill(mask, -math.inf)
    return mask


def _none_or_dtype(input):
    """The dtype of an optional mask, for `_canonical_mask`'s `other_type`."""
    if input is None:
        return None
    if isinstance(input, tt.Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _in_projection(query, key, value, w, b):
    """q, k, v = the three input projections with the packed (3E, E) weight (`_in_projection_packed`).

    In self-attention (query is key is value) it is ONE linear to 3E features, then split.
    """
    if query is key and key is value:
        projected = linear(query, w, b)
        return projected.chunk(3, -1)
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)


def _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Is the input batched (3-d) or not (2-d)? The shape checks of torch's `_mha_shape_check`."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 f"but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention of query (L, N, E) over key (S, N, Ek) and value (S, N, Ev) (sequence first;
    unbatched (L, E) also works). Returns (output (L, N, E), attention weights or None).

    The weights are (N, L, S) averaged over the heads, (N, num_heads, L, S) with
    `average_attn_weights=False`, None with `need_weights=False`. Masks: True (or -inf) = masked out;
    `key_padding_mask` (N, S) hides padding keys, `attn_mask` (L, S) or (N * num_heads, L, S).
    """
    # Over 60 lines: kept step for step with torch/nn/functional.py's, so the two can be read side by side.
    if static_k is not None or static_v is not None:
        raise NotImplementedError("static_k and static_v are not supported by teachtorch")
    is_batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # a batch of one: dim 1 is the batch dim
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # sdpa builds the causal mask itself
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False        # the merged mask below is no longer the causal one
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")

    if use_separate_proj_weight and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
    if not use_separate_proj_weight and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    # the input projections: q (L, N, E), k and v (S, N, E)
    if not use_separate_proj_weight:
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias)
    else:
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, b_q), linear(key, k_proj_weight, b_k), linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # optional learned extra key/value (one more "position" every query can attend to)
    if bias_k is not None and bias_v is not None:
        k = tt.cat([k, bias_k.expand(1, bsz, embed_dim)])
        v = tt.cat([v, bias_v.expand(1, bsz, embed_dim)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)

    # split the heads: (L, N, E) -> (N * num_heads, L, head_dim); the heads become batch entries
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)

    if add_zero_attn:
        # one more key and value of zeros
        zeros = tt.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = tt.cat([k, zeros], 1)
        v = tt.cat([v, zeros], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[1]

    # merge the key padding mask into the attention mask: (N, S) -> (N * num_heads, 1, S)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        # written out (not sdpa), because the weights are returned too
        scores = tt.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = tt.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        output = tt.matmul(weights, v)                                  # (N * num_heads, L, head_dim)
        # join the heads: -> (L, N, E), then the output projection
        output = output.transpose(0, 1).reshape(tgt_len, bsz, embed_dim)
        output = linear(output, out_proj_weight, out_proj_bias)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights

    # without the weights: sdpa over (N, num_heads, L, head_dim)
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(tgt_len, bsz, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    if not is_batched:
        output = output.squeeze(1)
    return output, None


def _pad_last(mask):
    """One more column of 0 (= not masked) at the end of a float mask's last dim."""
    if mask is None:
        return None
    zeros = tt.zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)
    return tt.cat([mask, zeros], -1)
