"""Plausible wrong answers to lesson 14's exercises: each check must reject every one (tests/test_exercises.py)."""

import math

import teachtorch as tt


def _pairs(w, start=True, end=True):
    chars = (["."] if start else []) + list(w) + (["."] if end else [])
    return zip(chars, chars[1:])


# ---- bigram_counts -------------------------------------------------------------------------------------------

def _counts(words, stoi, dtype=tt.int64, start=True, end=True, transpose=False):
    N = tt.zeros(len(stoi), len(stoi), dtype=dtype)
    for w in words:
        for a, b in _pairs(w, start, end):
            i, j = stoi[a], stoi[b]
            N[(j, i) if transpose else (i, j)] += 1
    return N


def counts_float(words, stoi):                  # tt.zeros(27, 27): float32 counts
    return _counts(words, stoi, dtype=tt.float32)


def counts_no_start(words, stoi):               # the word is read as word + '.': no '.' -> first letter
    return _counts(words, stoi, start=False)


def counts_no_end(words, stoi):                 # '.' + word: no last letter -> '.'
    return _counts(words, stoi, end=False)


def counts_transposed(words, stoi):             # N[b, a]: the row is the character that follows
    return _counts(words, stoi, transpose=True)


def counts_no_accumulate(words, stoi):          # vectorised with index_put_ but without accumulate=True
    a = [stoi[x] for w in words for x, _ in _pairs(w)]
    b = [stoi[y] for w in words for _, y in _pairs(w)]
    N = tt.zeros(len(stoi), len(stoi), dtype=tt.int64)
    N.index_put_((tt.tensor(a), tt.tensor(b)), tt.ones(len(a), dtype=tt.int64))
    return N


# ---- nll -----------------------------------------------------------------------------------------------------

def _nll(P, words, stoi, end=True, transpose=False):
    total, n = 0.0, 0
    for w in words:
        for a, b in _pairs(w, end=end):
            i, j = stoi[a], stoi[b]
            total -= math.log(P[(j, i) if transpose else (i, j)].item())
            n += 1
    return total, n


def nll_sum(P, words, stoi):                    # the total, not the mean
    return _nll(P, words, stoi)[0]


def nll_mean_of_word_means(P, words, stoi):     # each word's mean, then the mean of those
    return sum(_nll(P, [w], stoi)[0] / _nll(P, [w], stoi)[1] for w in words) / len(words)


def nll_no_end(P, words, stoi):                 # forgets the bigram that ends each word
    total, n = _nll(P, words, stoi, end=False)
    return total / n


def nll_transposed(P, words, stoi):             # P[b, a]
    total, n = _nll(P, words, stoi, transpose=True)
    return total / n


def nll_log_likelihood(P, words, stoi):         # the log-likelihood: the minus sign forgotten
    total, n = _nll(P, words, stoi)
    return -total / n


# ---- build_dataset -------------------------------------------------------------------------------------------

def _dataset(words, block_size, stoi, reset=True, end=True, reverse=False, shift_first=False):
    X, Y = [], []
    context = [0] * block_size
    for w in words:
        if reset:
            context = [0] * block_size
        for ch in w + ("." if end else ""):
            ix = stoi[ch]
            if shift_first:                     # slides the context before using it: X holds its own target
                context = context[1:] + [ix]
            X.append(context[::-1] if reverse else context)
            Y.append(ix)
            if not shift_first:
                context = context[1:] + [ix]
    return tt.tensor(X), tt.tensor(Y)


def dataset_no_reset(words, block_size, stoi):  # the context runs on from the previous word
    return _dataset(words, block_size, stoi, reset=False)


def dataset_no_end(words, block_size, stoi):    # never learns to stop: no final '.'
    return _dataset(words, block_size, stoi, end=False)


def dataset_reversed(words, block_size, stoi):  # newest character first
    return _dataset(words, block_size, stoi, reverse=True)


def dataset_shift_first(words, block_size, stoi):
    return _dataset(words, block_size, stoi, shift_first=True)


def dataset_as_float(words, block_size, stoi):  # float32 indices: nn.Embedding would refuse them
    X, Y = _dataset(words, block_size, stoi)
    return X.float(), Y.float()


WRONG = {
    "L14.bigram_counts": [counts_float, counts_no_start, counts_no_end, counts_transposed, counts_no_accumulate],
    "L14.nll": [nll_sum, nll_mean_of_word_means, nll_no_end, nll_transposed, nll_log_likelihood],
    "L14.build_dataset": [dataset_no_reset, dataset_no_end, dataset_reversed, dataset_shift_first, dataset_as_float],
}
