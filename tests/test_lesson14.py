"""Lesson 14's references agree with PyTorch, its checks catch what they say they do, and the lesson's
claims about the names corpus hold (the numbers it quotes, the exact equality of the net and the table)."""

import re
import sys
from pathlib import Path

import numpy as np
import torch

import teachtorch as tt
import teachtorch.nn.functional as F
from teachtorch.datasets import names_split
from teachtorch.exercises import EXERCISES, check, course
from teachtorch.exercises.lesson14 import STOI, bigram_pairs, count_table, dataset_arrays

sys.path.insert(0, str(Path(__file__).parent))
from wrong_answers import lesson14 as wrong  # noqa: E402

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "14_names.py"


def test_the_lesson_checks_three_exercises():
    source = LESSON.read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == [
        "L14.bigram_counts", "L14.nll", "L14.build_dataset"]
    assert len(course.solution_blocks(source)) == 3


def test_the_counts_are_torchs_bincount():
    for _, (words, stoi), expected in EXERCISES["L14.bigram_counts"].cases():
        a, b = (torch.from_numpy(v) for v in bigram_pairs(words, stoi))
        want = torch.bincount(a * 27 + b, minlength=27 * 27).view(27, 27)
        assert expected.dtype == tt.int64 and np.array_equal(expected.numpy(), want.numpy())


def test_the_nll_is_torchs_cross_entropy_of_log_p():
    for _, (P, words, stoi), expected in EXERCISES["L14.nll"].cases():
        a, b = (torch.from_numpy(v) for v in bigram_pairs(words, stoi))
        logits = torch.from_numpy(P.numpy()).log()[a]
        want = torch.nn.functional.cross_entropy(logits, b).item()
        assert abs(expected - want) < 1e-12 * max(1.0, abs(want))


def test_the_dataset_is_an_unfold_of_each_padded_word():
    for _, (words, block_size, stoi), (X, Y) in EXERCISES["L14.build_dataset"].cases():
        xs, ys = [], []
        for w in words:
            ids = torch.tensor([0] * block_size + [stoi[c] for c in w] + [0])
            xs.append(ids[:-1].unfold(0, block_size, 1))
            ys.append(ids[block_size:])
        assert np.array_equal(X.numpy(), torch.cat(xs).numpy()) and np.array_equal(Y.numpy(), torch.cat(ys).numpy())
        assert X.dtype == Y.dtype == tt.int64


def test_an_embedding_is_a_one_hot_matmul_in_torch_too():
    X, _ = dataset_arrays(["emma", "olivia"], 3, STOI)
    C = torch.randn(27, 2, dtype=torch.float64)
    Xt = torch.from_numpy(X.numpy())
    by_lookup = torch.nn.functional.embedding(Xt, C)
    assert torch.equal(by_lookup, C[Xt])
    assert torch.allclose(torch.nn.functional.one_hot(Xt, 27).double() @ C, by_lookup, rtol=0, atol=1e-15)


def test_the_bigram_numbers_the_lesson_quotes():
    train, val, _ = names_split(42)
    N = count_table(train, STOI)
    P = (N + 1).double() / (N + 1).sum(1, keepdim=True)
    a, b = bigram_pairs(train, STOI)
    table = -np.log(P.numpy()[a, b]).mean()
    assert round(table, 4) == 2.3448
    logits = F.one_hot(tt.from_numpy(a), 27).double() @ tt.log((N + 1).double())
    net = F.cross_entropy(logits, tt.from_numpy(b)).item()
    assert abs(net - table) < 1e-12                       # the net with W = log(N + 1) IS the table
    va, vb = bigram_pairs(val, STOI)
    assert round(-np.log(P.numpy()[va, vb]).mean(), 4) == 2.3400
    assert (N.numpy()[va, vb] == 0).sum() == 3            # unseen validation bigrams: infinite loss unsmoothed


def test_the_wrong_answers_fail_where_they_should():
    assert "dtype" in check("L14.bigram_counts", wrong.counts_float).report()
    assert check("L14.build_dataset", wrong.dataset_no_reset).case.startswith("known case 2")
    assert check("L14.nll", wrong.nll_mean_of_word_means).case.startswith("random")
