"""The kernels of PyTorch's fused CPU attention: `_scaled_dot_product_flash_attention_for_cpu` and its backward
(aten/src/ATen/native/cpu/FlashAttentionKernel.cpp, `cpu_flash_attention` / `cpu_flash_attention_backward`).

For query (B, H, L, E), key (B, Hk, S, E), value (B, Hk, S, E):

    scores = query @ key^T * scale               (B, H, L, S), scale = 1/sqrt(E) unless given
    scores += attn_mask;  -inf above the diagonal if is_causal (query i sees keys 0..i)
    lse    = logsumexp(scores, -1)               (B, H, L): the log of each row's softmax denominator
    output = exp(scores - lse) @ value           = softmax(scores) @ value

The forward returns `lse` with the output, so the backward recomputes the weights P = exp(scores - lse)
without a softmax (PyTorch's kernel goes through L and S in blocks and never keeps all of P; here NumPy holds
it whole, the arithmetic is the same). With dO the gradient of the output:

    dV = P^T @ dO
    dP = dO @ V^T,   D = rowsum(dO * O)          (= rowsum(P * dP))
    dS = P * (dP - D)                            (the softmax backward)
    dQ = dS @ K * scale,   dK = dS^T @ Q * scale

Grouped-query attention: key and value may have fewer heads (Hk divides H); each of their heads serves
H / Hk query heads, and its gradient sums over them. A row whose keys are all masked out gets output 0,
logsumexp 0 and gradient 0 (as PyTorch's kernel). float16 and bfloat16 are computed in float32 (`accum_t`),
and the logsumexp stays float32.
"""

import math

import numpy as np

from .._dtype import float32
from ..backends import empty, wrap_strided, xp_of
from .._strides import preserve_format_strides

_WHO = "scaled_dot_product_attention_flash_attention"


def _check_flash_inputs(query, key, value, dropout_p, attn_mask):
    """The TORCH_CHECKs of PyTorch's `_scaled_dot_product_flash_attention_cpu` (native/transformers/attention.cpp)."""
    if dropout_p > 0:
        raise RuntimeError(f"{_WHO}: Currently do not support dropout > 0")
    if not (query.dim() == 4 and key.dim() == 4 and value.dim() == 4):
        raise RuntimeError(f"{_WHO}: Accept only 4 dims inputs shape of {{B, H, T, K}}")
    if not (query.shape[3] == key.shape[3] == value.shape[3]):
        raise RuntimeError(f"{_WHO}: Q/K/V should have the same head size")
    if attn_mask is not None and attn_mask.dtype not in (float32, query.dtype):
        raise RuntimeError(f"{_WHO}: Attention mask is the same data type as query")


def _accum(t):
    """t's values in the accumulation dtype: float32 for the 16-bit floats, the own dtype otherwise."""
    a = t._data()
    return a.astype(np.float32) if a.dtype.itemsize == 2 else a


def _heads_of(xp, a, heads):
    """Grouped-query attention: repeat each key/value head for the query heads it serves."""
    return a if a.shape[1] == heads else xp.repeat(a, heads // a.shape[1], axis=1)


def _scores(xp, q, k, is_causal, attn_mask, scale):
    """q @ k^T * scale, plus the mask: (B, H, L, S) in the accumulation dtype."""
    scores = xp.matmul(q, xp.swapaxes(k, -1, -2)) * scale
    if attn_mask is not None:
        scores = scores + _accum(attn_mask)
    if is_causal:
        L, S = scores.shape[-2:]
        future = xp.triu(xp.ones((L, S), dtype=bool), 1)
        scores = xp.where(future, -xp.inf, scores)
    return scores


def _rows_seen(xp, scores):
    """(which rows have at least one key to look at, each row's max score)."""
    row_max = scores.max(-1) if scores.shape[-1] else xp.full(scores.shape[:-1], -xp.inf, scores.dtype)
    return row_max > -xp.inf, row_max


def _weights(xp, scores, lse):
    """P = exp(scores - lse): the softmax, from the saved logsumexp; 0 in a row that sees no key."""
    with np.errstate(invalid="ignore", over="ignore"):
        return xp.exp(scores - lse[..., None])


def _layouts(query):
    """The output is allocated like the query (`empty_like`); the logsumexp as (B, L, H), then transposed."""
    B, H, L, _ = query.shape
    return preserve_format_strides(query._sizes, query._strides), (L * H, 1, H)


def scaled_dot_product_flash_attention_for_cpu_kernel(ks, query, key, value, dropout_p=0.0, is_causal=False,
                                                      attn_mask=None, scale=None):
    """(output (B, H, L, E), logsumexp (B, H, L)): softmax(q @ k^T * scale + mask) @ v in one kernel."""
    _check_flash_inputs(query, key, value, dropout_p, attn_mask)
    B, H, L, E = query.shape
    out_strides, lse_strides = _layouts(query)
    lse_dtype = float32 if query.dtype.itemsize == 2 else query.dtype
    if query.device.type == "meta":
        return (empty(tuple(query.shape), query.dtype, query.device, out_strides),
                empty((B, H, L), lse_dtype, query.device, lse_strides))
    xp = xp_of(query)
    scale = 1 / math.sqrt(E) if scale is None else scale
    q, k, v = _accum(query), _heads_of(xp, _accum(key), H), _heads_of(xp, _accum(value), H)
    scores = _scores(xp, q, k, is_causal, attn_mask, scale)
    seen, row_max = _rows_seen(xp, scores)
    shift = xp.where(seen, row_max, 0)                         # the stable logsumexp: max + log(sum(exp(x - max)))
    with np.errstate(divide="ignore"):
        lse = xp.where(seen, xp.log(xp.exp(scores - shift[..., None]).sum(-1)) + shift, 0)
    weights = xp.where(seen[..., None], _weights(xp, scores, lse), 0)
    output = xp.matmul(weights, v)
    return (wrap_strided(output, query.dtype, query.device, out_strides),
            wrap_strided(lse.astype(lse_dtype.numpy), lse_dtype, query.device, lse_strides))


def scaled_dot_product_flash_attention_for_cpu_backward_kernel(ks, grad_out, query, key, value, out, logsumexp,
                                                               dropout_p, is_causal, attn_mask=None, scale=None):
    """(grad_query, grad_key, grad_value) from the saved output and logsumexp (the formulas at the top)."""
    _check_flash_inputs(query, key, value, dropout_p, attn_mask)
    if query.device.type == "meta":
        return tuple(empty(tuple(t.shape), t.dtype, t.device) for t in (query, key, value))
    xp = xp_of(query)
    B, H, L, E = query.shape
    Hk = key.shape[1]
    scale = 1 / math.sqrt(E) if scale is None else scale
    q, k, v = _accum(query), _heads_of(xp, _accum(key), H), _heads_of(xp, _accum(value), H)
    d_out, o, lse = _accum(grad_out), _accum(out), _accum(logsumexp)
    scores = _scores(xp, q, k, is_causal, attn_mask, scale)
    seen, _ = _rows_seen(xp, scores)
    p = xp.where(seen[..., None], _weights(xp, scores, lse), 0)
    d_v = xp.matmul(xp.swapaxes(p, -1, -2), d_out)
    d_p = xp.matmul(d_out, xp.swapaxes(v, -1, -2))
    d_s = p * (d_p - (d_out * o).sum(-1, keepdims=True))
    d_q = xp.matmul(d_s, k) * scale
    d_k = xp.matmul(xp.swapaxes(d_s, -1, -2), q) * scale
    if Hk != H:    # grouped-query attention: sum each key/value head's gradient over its query heads
        d_k = d_k.reshape(B, Hk, H // Hk, *d_k.shape[2:]).sum(2)
        d_v = d_v.reshape(B, Hk, H // Hk, *d_v.shape[2:]).sum(2)
    return tuple(wrap_strided(g, t.dtype, t.device, preserve_format_strides(t._sizes, t._strides))
                 for g, t in ((d_q, query), (d_k, key), (d_v, value)))
