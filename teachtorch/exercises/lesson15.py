"""Lesson 15, language model II (attention and a tiny transformer): the exercises.

    L15.causal_mask   causal_mask(T) -> a (T, T) bool tensor, True where query position i may look at key
                      position j, that is j <= i (the lower triangle, diagonal included)
    L15.attention     attention(q, k, v, mask=None) -> softmax(q @ k^T / sqrt(d) with -inf where mask is
                      False) @ v, for q (..., Tq, d), k (..., Tk, d), v (..., Tk, dv): (..., Tq, dv)

How they are checked, on fixed cases worked out by hand and then seeded random ones:

* `causal_mask`: exactly (dtype bool, shape (T, T), every value) against `ones(T, T, dtype=bool).tril()`,
  for T from 1 to 16. That is the convention of PyTorch's `F.scaled_dot_product_attention` for a bool
  `attn_mask`: True = the pair takes part (torch/nn/functional.py documents it; its `is_causal=True` is the
  same lower triangle). Mind that `nn.MultiheadAttention` and `nn.Transformer` masks use the opposite one
  (True = masked out; `nn.Transformer.generate_square_subsequent_mask` is a float mask of 0 and -inf).
* `attention`: its output (float64) against teachtorch's `nn.functional.scaled_dot_product_attention`
  (teachtorch/nn/functional/attention.py, itself tested against PyTorch's), called with `attn_mask=mask`,
  or with `is_causal=True` where the case's mask is the causal one, on random shapes: no, one or two batch
  dims (batch, heads), 1 to 6 positions, head sizes 1 to 6, a value size that differs from the key size,
  Tq != Tk when there is no mask, and masks that are causal or random (with at least one True per row: a row
  with none is 0/0 in plain softmax, and PyTorch gives zeros there). Then by `teachtorch.autograd.gradcheck`
  (finite differences in float64, teachtorch/autograd/gradcheck.py) on the fixed cases and the smaller random
  ones: the answer must be written with differentiable teachtorch ops, since the transformer trains through
  it. Where gradcheck fails, the call returns what failed ("gradcheck: the gradient for q is wrong (or
  missing)") in place of the output, so the check fails and says why.
  PyTorch: `torch.nn.functional.scaled_dot_product_attention`, whose "math" path is
  `_scaled_dot_product_attention_math` in aten/src/ATen/native/transformers/attention.cpp.
"""

import math

import numpy as np

from .. import autograd
from .._tensor import Tensor
from ..nn import functional as F
from ..ops.tensor_new import from_numpy
from .core import Case, Exercise

GRADCHECK_MAX = 150           # gradcheck a case only when q, k and v have at most this many numbers together
PASSES = "gradcheck: passes"


def _causal(T):
    return from_numpy(np.tril(np.ones((T, T), dtype=bool)))


def _random_causal(rng):
    return (int(rng.integers(1, 17)),)


def _mask_call(answer, args):
    got = answer(*args)
    return got.detach() if isinstance(got, Tensor) else got


def _small(case):
    return sum(t.numel() for t in (case.q, case.k, case.v)) <= GRADCHECK_MAX


def _gradcheck_line(answer, case):
    leaves = tuple(t.detach().clone().requires_grad_(True) for t in (case.q, case.k, case.v))
    mask = None if case.mask is None else case.mask.clone()
    try:
        ok = autograd.gradcheck(lambda q, k, v: answer(q, k, v, mask), leaves, raise_exception=False)
    except NotImplementedError:
        raise
    except Exception as e:                   # e.g. backward through a NumPy detour raises
        return f"gradcheck: raised {type(e).__name__}: {str(e)[:80]}"
    if ok:
        return PASSES
    # which input is wrong: gradcheck one at a time, the others held fixed
    for name, k in zip("qkv", range(3)):
        def only(x, k=k):
            args = [t.detach() for t in leaves]
            args[k] = x
            return answer(*args, mask)
        if not autograd.gradcheck(only, (leaves[k],), raise_exception=False):
            return f"gradcheck: the gradient for {name} is wrong (or missing)"
    return "gradcheck: fails"


def _attention_call(answer, args):
    """The answer's output; or, where gradcheck runs and fails, what failed (a string: the check fails)."""
    (case,) = args
    mask = None if case.mask is None else case.mask.clone()
    out = answer(case.q.clone(), case.k.clone(), case.v.clone(), mask)
    out = out.detach() if isinstance(out, Tensor) else out
    line = _gradcheck_line(answer, case) if _small(case) else PASSES
    return out if line == PASSES else line


def _attention_reference(case):
    if case.causal:
        return F.scaled_dot_product_attention(case.q, case.k, case.v, is_causal=True)
    return F.scaled_dot_product_attention(case.q, case.k, case.v, attn_mask=case.mask)


def _random_attention(rng):
    batch = [(), (2,), (2, 3), (1, 2)][int(rng.integers(0, 4))]
    tq, d, dv = int(rng.integers(1, 7)), int(rng.integers(1, 7)), int(rng.integers(1, 7))
    kind = ("none", "causal", "random")[int(rng.integers(0, 3))]
    tk = int(rng.integers(1, 7)) if kind == "none" else tq
    mask = None
    if kind == "causal":
        mask = _causal(tq)
    elif kind == "random":                          # any pattern, but every query keeps at least one key
        m = rng.random((tq, tk)) < 0.6
        m[np.arange(tq), rng.integers(0, tk, size=tq)] = True
        mask = from_numpy(m)
    scale = float(rng.choice([0.5, 1.0, 3.0]))      # larger scores: the softmax is far from uniform
    return (Case(q=scale * rng.standard_normal(batch + (tq, d)), k=rng.standard_normal(batch + (tk, d)),
                 v=rng.standard_normal(batch + (tk, dv)), mask=mask, causal=kind == "causal"),)


def _known(q, k, v, mask=None, causal=False):
    return Case(q=np.asarray(q, float), k=np.asarray(k, float), v=np.asarray(v, float), mask=mask, causal=causal)


_V3 = [[1., 0.], [2., 0.], [3., 6.]]
_ZERO3 = np.zeros((3, 2))
_SHARP = _known([[4., 0.], [0., 4.]], [[1., 0.], [0., 1.]], [[1., 10.], [100., 1000.]])   # scores 4/sqrt(2)
_E = math.exp(4 / math.sqrt(2))

EXERCISES = [
    Exercise(
        name="L15.causal_mask",
        title="causal_mask(T) -> (T, T) bool, True where position i may look at position j (j <= i)",
        reference=_causal,
        known=[((1,), _causal(1)),
               ((3,), from_numpy(np.array([[True, False, False], [True, True, False], [True, True, True]])))],
        random_args=_random_causal,
        call=_mask_call,
        hints=["Row i is the query position, column j the key position; position i may read positions 0..i, "
               "itself included: True on and below the diagonal.",
               "The lower triangle: tt.tril, or tt.ones(T, T).tril() turned into bool, or compare "
               "tt.arange(T) as a column with tt.arange(T) as a row.",
               "tt.ones(T, T, dtype=tt.bool).tril()  (a float mask of ones and zeros is another thing: "
               "PyTorch ADDS a float mask to the scores)"],
        solution='''import teachtorch as tt


def causal_mask(T):
    return tt.ones(T, T, dtype=tt.bool).tril()''',
    ),
    Exercise(
        name="L15.attention",
        title="attention(q, k, v, mask=None) -> softmax(q k^T / sqrt(d), -inf where mask is False) v",
        reference=_attention_reference,
        known=[((_known(_ZERO3, _ZERO3, _V3),), from_numpy(np.array([[2., 2.]] * 3))),
               ((_known(_ZERO3, _ZERO3, _V3, _causal(3), True),),
                from_numpy(np.array([[1., 0.], [1.5, 0.], [2., 2.]]))),    # the running means of v
               ((_SHARP,), from_numpy(np.array([[(_E + 100) / (_E + 1), (10 * _E + 1000) / (_E + 1)],
                                                [(1 + 100 * _E) / (1 + _E), (10 + 1000 * _E) / (1 + _E)]])))],
        random_args=_random_attention,
        call=_attention_call,
        rtol=1e-6, atol=1e-9,
        hints=["Three steps: scores = q @ k.transpose(-2, -1) / sqrt(d) with d = q.shape[-1] (the key size, not "
               "the value size); where mask is False put -inf; weights = softmax over the KEYS (the last dim); "
               "return weights @ v.",
               "scores.masked_fill(~mask, float('-inf')) before the softmax: exp(-inf) = 0, so a masked key gets "
               "weight 0 and the others still add up to 1. Masking after the softmax breaks the sum; a 0 in the "
               "scores is not 'no weight' (exp(0) = 1).",
               "Write it with teachtorch ops (@, masked_fill, softmax, transpose) only, no .numpy(): the check "
               "runs gradcheck, and the model trains through your function."],
        solution='''import math

import teachtorch as tt


def attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(dim=-1) @ v''',
    ),
]
