"""Lesson 14, a language model of names from a table of counts to an MLP (makemore parts 1-2): the exercises.

    L14.bigram_counts   bigram_counts(words, stoi) -> the (V, V) int64 table N: N[a, b] = how many times
                        character b follows character a in the words, each word read as '.' + word + '.'
    L14.nll             nll(P, words, stoi) -> the average negative log-likelihood (nats) of every bigram of
                        the words under the (V, V) table of probabilities P: mean over bigrams of -log P[a, b]
    L14.build_dataset   build_dataset(words, block_size, stoi) -> (X, Y): one row per character to predict,
                        X (n, block_size) int64 the block_size characters before it ('.' = 0 before the
                        start of a word), Y (n,) int64 the character itself, the closing '.' included

`stoi` maps the 27 tokens to numbers as makemore does: '.' (the start and end of a word) is 0, 'a' to 'z'
are 1 to 26 (`STOI` below; the checks use it, with lists of lowercase words).

How they are checked, on fixed cases worked out by hand and then 24 seeded random lists of words (NumPy):

* `bigram_counts`: exactly (values, shape and dtype int64) against counts made with NumPy's `np.add.at`
  over the bigrams of '.' + word + '.'. A float table, a transposed one, one without the start or the end
  bigrams, one that counts a repeated bigram once, all fail. PyTorch: `torch.bincount(a * V + b,
  minlength=V * V).view(V, V)` gives the same table (tests/test_lesson14.py checks it).
* `nll`: the answer (a number or a 0-d tensor) within rtol 1e-9 of NumPy's mean of -log P[a, b] over the
  bigrams of all the words (one mean over all bigrams, not a mean of each word's mean). P is random and
  not symmetric, so P[b, a] fails. PyTorch: `F.cross_entropy(P.log()[a], b)` (torch/nn/functional.py) is
  the same number: tests/test_lesson14.py checks it.
* `build_dataset`: (X, Y) exactly, shapes and dtype int64, against a NumPy loop; the random cases use block
  sizes 1 to 5 and several words, so a context that is not reset between words, a missing final '.', a
  context in reverse order or shifted by one, all fail. PyTorch has no such function (makemore writes this
  loop); tests/test_lesson14.py checks the reference against `torch.Tensor.unfold` of each padded word.
"""

import string

import numpy as np

from .._dtype import int64
from .._tensor import Tensor
from ..ops.tensor_new import from_numpy, tensor
from .core import Exercise

STOI = {ch: i + 1 for i, ch in enumerate(string.ascii_lowercase)}
STOI["."] = 0
ITOS = {i: ch for ch, i in STOI.items()}
V = len(STOI)                                       # 27


def bigram_pairs(words, stoi):
    """Two int64 arrays (a, b): every bigram of '.' + word + '.' for each word, in order."""
    a, b = [], []
    for w in words:
        ids = [stoi["."]] + [stoi[c] for c in w] + [stoi["."]]
        a += ids[:-1]
        b += ids[1:]
    return np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)


def count_table(words, stoi):
    """The bigram counts as an int64 tensor (the reference of L14.bigram_counts; the lesson uses it too)."""
    a, b = bigram_pairs(words, stoi)
    counts = np.zeros((len(stoi), len(stoi)), dtype=np.int64)
    np.add.at(counts, (a, b), 1)
    return from_numpy(counts)


def _nll_reference(P, words, stoi):
    a, b = bigram_pairs(words, stoi)
    return float(-np.log(P.numpy()[a, b]).mean())


def dataset_arrays(words, block_size, stoi):
    """(X, Y) as int64 tensors: the reference of L14.build_dataset (the lesson uses it too)."""
    xs, ys = [], []
    for w in words:
        context = [stoi["."]] * block_size
        for c in w + ".":
            xs.append(context)
            ys.append(stoi[c])
            context = context[1:] + [stoi[c]]
    x = np.array(xs, dtype=np.int64).reshape(len(xs), block_size)
    return from_numpy(x), from_numpy(np.array(ys, dtype=np.int64))


def _random_words(rng, count=None):
    count = int(rng.integers(1, 7)) if count is None else count
    letters = np.array(list("aaeeiioouybcdhjklmnrst" + string.ascii_lowercase))    # name-ish, every letter
    return ["".join(rng.choice(letters, size=int(rng.integers(1, 9)))) for _ in range(count)]


def _random_counts(rng):
    return _random_words(rng, int(rng.integers(1, 12))), STOI


def _random_table(rng):
    P = rng.random((V, V)) + 0.05                   # positive, not symmetric
    return from_numpy(P / P.sum(1, keepdims=True)), _random_words(rng), STOI


def _random_dataset(rng):
    return _random_words(rng), int(rng.integers(1, 6)), STOI


def _number_call(answer, args):
    got = answer(*args)
    if isinstance(got, Tensor) and got.numel() == 1:
        return float(got.item())
    return float(got) if isinstance(got, (int, float, np.floating)) else got


def _pair_call(answer, args):
    got = answer(*args)
    return tuple(got) if isinstance(got, list) else got


def _emma_counts():
    counts = np.zeros((V, V), dtype=np.int64)
    for a, b in [(0, 5), (5, 13), (13, 13), (13, 1), (1, 0)]:          # .e em mm ma a.
        counts[a, b] += 1
    return from_numpy(counts)


def _t(rows):
    return tensor(rows, dtype=int64)


_UNIFORM = from_numpy(np.full((V, V), 1.0 / V))

EXERCISES = [
    Exercise(
        name="L14.bigram_counts",
        title="bigram_counts(words, stoi) -> (27, 27) int64 N, N[a, b] = times b follows a in '.' + word + '.'",
        reference=count_table,
        known=[((["emma"], STOI), _emma_counts()),
               ((["ab", "ab"], STOI), count_table(["ab", "ab"], STOI))],
        random_args=_random_counts,
        hints=["Read each word as ['.'] + list(word) + ['.'] and walk over its pairs with "
               "zip(chars, chars[1:]): each pair (a, b) adds 1 to N[stoi[a], stoi[b]].",
               "Start from tt.zeros(27, 27, dtype=tt.int64): the default dtype is float32, and a count is a "
               "whole number. The row is the first character, the column the one that follows.",
               "N = tt.zeros(len(stoi), len(stoi), dtype=tt.int64); for w in words: chs = ['.'] + list(w) + "
               "['.']; for a, b in zip(chs, chs[1:]): N[stoi[a], stoi[b]] += 1"],
        solution='''import teachtorch as tt


def bigram_counts(words, stoi):
    N = tt.zeros(len(stoi), len(stoi), dtype=tt.int64)
    for w in words:
        chars = ["."] + list(w) + ["."]
        for a, b in zip(chars, chars[1:]):
            N[stoi[a], stoi[b]] += 1
    return N''',
    ),
    Exercise(
        name="L14.nll",
        title="nll(P, words, stoi) -> mean over every bigram (a, b) of the words of -log P[a, b], in nats",
        reference=_nll_reference,
        known=[((_UNIFORM, ["emma"], STOI), float(np.log(27.0))),
               ((_UNIFORM, ["ab", "anna", "x"], STOI), float(np.log(27.0)))],
        random_args=_random_table,
        call=_number_call,
        rtol=1e-9, atol=1e-12,
        hints=["Walk over the bigrams exactly as in bigram_counts, and add up -log P[a, b] (tt.log, or "
               "math.log of P[a, b].item()) and how many bigrams there were.",
               "One mean over ALL the bigrams of all the words: total / count, not a mean of each word's mean "
               "(a long word has more bigrams and weighs more). Do not forget the bigram that ends the word.",
               "total, n = 0.0, 0; for w in words: chs = ['.'] + list(w) + ['.']; for a, b in zip(chs, chs[1:]): "
               "total -= math.log(P[stoi[a], stoi[b]].item()); n += 1; return total / n"],
        solution='''import math


def nll(P, words, stoi):
    total, n = 0.0, 0
    for w in words:
        chars = ["."] + list(w) + ["."]
        for a, b in zip(chars, chars[1:]):
            total -= math.log(P[stoi[a], stoi[b]].item())
            n += 1
    return total / n''',
    ),
    Exercise(
        name="L14.build_dataset",
        title="build_dataset(words, block_size, stoi) -> (X (n, block_size) int64 contexts, Y (n,) int64 next chars)",
        reference=dataset_arrays,
        known=[((["emma"], 3, STOI), (_t([[0, 0, 0], [0, 0, 5], [0, 5, 13], [5, 13, 13], [13, 13, 1]]),
                                      _t([5, 13, 13, 1, 0]))),
               ((["ab", "c"], 2, STOI), (_t([[0, 0], [0, 1], [1, 2], [0, 0], [0, 3]]), _t([1, 2, 0, 3, 0])))],
        random_args=_random_dataset,
        call=_pair_call,
        hints=["For each word, start the context as [0] * block_size (block_size '.'s). For each character "
               "of word + '.': append the context to X and the character's number to Y, THEN slide the "
               "context: drop its first number and append the character's.",
               "The context starts again from all '.' at every word, the last target of each word is '.' (0), "
               "and the newest character is the last column of X.",
               "X, Y = [], []; for w in words: ctx = [0] * block_size; for ch in w + '.': ix = stoi[ch]; "
               "X.append(ctx); Y.append(ix); ctx = ctx[1:] + [ix]; then tt.tensor(X), tt.tensor(Y) (int64)."],
        solution='''import teachtorch as tt


def build_dataset(words, block_size, stoi):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return tt.tensor(X), tt.tensor(Y)''',
    ),
]
