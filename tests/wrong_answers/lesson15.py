"""Plausible wrong answers to lesson 15's exercises: each check must reject every one (tests/test_exercises.py)."""

import math

import teachtorch as tt

# ---- causal_mask ---------------------------------------------------------------------------------------------


def mask_upper_triangle(T):                      # triu: each position looks at the future instead
    return tt.ones(T, T, dtype=tt.bool).triu()


def mask_without_diagonal(T):                    # a position may not look at itself
    return tt.ones(T, T, dtype=tt.bool).tril(-1)


def mask_as_floats(T):                           # ones and zeros: PyTorch would ADD this to the scores
    return tt.ones(T, T).tril()


def mask_inverted(T):                            # True = masked out (nn.MultiheadAttention's convention)
    return tt.ones(T, T, dtype=tt.bool).triu(1)


# ---- attention -----------------------------------------------------------------------------------------------

def _scores(q, k, scale):
    return q @ k.transpose(-2, -1) * scale


def _masked(scores, mask, fill=float("-inf")):
    return scores if mask is None else scores.masked_fill(~mask, fill)


def attention_unscaled(q, k, v, mask=None):      # forgets the 1/sqrt(d)
    return _masked(_scores(q, k, 1.0), mask).softmax(-1) @ v


def attention_scaled_by_d(q, k, v, mask=None):   # 1/d instead of 1/sqrt(d)
    return _masked(_scores(q, k, 1 / q.shape[-1]), mask).softmax(-1) @ v


def attention_scaled_by_value_size(q, k, v, mask=None):   # sqrt of v's size, not of the key size
    return _masked(_scores(q, k, 1 / math.sqrt(v.shape[-1])), mask).softmax(-1) @ v


def attention_softmax_over_queries(q, k, v, mask=None):  # softmax over dim -2: columns sum to 1, not rows
    return _masked(_scores(q, k, 1 / math.sqrt(q.shape[-1])), mask).softmax(-2).nan_to_num(0.0) @ v


def attention_mask_after_softmax(q, k, v, mask=None):    # zeroes the weights, so the rows no longer sum to 1
    weights = _scores(q, k, 1 / math.sqrt(q.shape[-1])).softmax(-1)
    return (weights if mask is None else weights * mask) @ v


def attention_mask_with_zero(q, k, v, mask=None):        # a score of 0 still gets weight exp(0) = 1
    return _masked(_scores(q, k, 1 / math.sqrt(q.shape[-1])), mask, fill=0.0).softmax(-1) @ v


def attention_through_numpy(q, k, v, mask=None):         # right numbers, but no gradient reaches q and k
    scores = _masked(_scores(q, k, 1 / math.sqrt(q.shape[-1])), mask).detach().numpy()
    weights = tt.from_numpy(tt.softmax(tt.from_numpy(scores), -1).numpy())
    return weights @ v


WRONG = {
    "L15.causal_mask": [mask_upper_triangle, mask_without_diagonal, mask_as_floats, mask_inverted],
    "L15.attention": [attention_unscaled, attention_scaled_by_d, attention_scaled_by_value_size,
                      attention_softmax_over_queries, attention_mask_after_softmax, attention_mask_with_zero,
                      attention_through_numpy],
}
