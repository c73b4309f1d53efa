"""teachtorch.datasets: offline data for class. Shapes, dtypes, ranges, determinism, and agreement with the
sources (scikit-learn's digits and make_moons, Python's pydoc topics)."""

import sys

import numpy as np
import pytest
import sklearn.datasets

import teachtorch as tt
from teachtorch import datasets
from teachtorch.utils.data import DataLoader, TensorDataset


# ---- digits ------------------------------------------------------------------------------------------------


def test_load_digits_shapes_dtypes_ranges():
    images, labels = datasets.load_digits()
    assert images.shape == (1797, 1, 8, 8) and images.dtype is tt.float32 and images.is_contiguous()
    assert labels.shape == (1797,) and labels.dtype is tt.int64
    assert images.min().item() == 0.0 and images.max().item() == 1.0
    assert sorted(set(labels.tolist())) == list(range(10))
    ref = sklearn.datasets.load_digits()
    np.testing.assert_array_equal(images.numpy()[:, 0], (ref.images / 16).astype(np.float32))
    np.testing.assert_array_equal(labels.numpy(), ref.target)


def test_digits_split_is_a_fixed_80_20_split():
    train, test = datasets.digits_split(seed=0)
    assert isinstance(train, TensorDataset) and isinstance(test, TensorDataset)
    assert (len(train), len(test)) == (1437, 360)
    images, labels = datasets.load_digits()
    order = np.random.default_rng(0).permutation(1797)   # the documented recipe, the same on every machine
    np.testing.assert_array_equal(train.tensors[0].numpy(), images.numpy()[order[:1437]])
    np.testing.assert_array_equal(test.tensors[1].numpy(), labels.numpy()[order[1437:]])
    again, _ = datasets.digits_split(seed=0)
    other, _ = datasets.digits_split(seed=1)
    assert again.tensors[1].tolist() == train.tensors[1].tolist()
    assert other.tensors[1].tolist() != train.tensors[1].tolist()
    # train and test are disjoint and together are all the images (compare the images' bytes)
    rows = lambda t: {r.tobytes() + bytes([int(y)]) for r, y in zip(t.tensors[0].numpy(), t.tensors[1].numpy())}
    all_rows = {r.tobytes() + bytes([int(y)]) for r, y in zip(images.numpy(), labels.numpy())}
    assert rows(train) | rows(test) == all_rows


def test_digits_in_a_loader():
    train, _ = datasets.digits_split()
    x, y = next(iter(DataLoader(train, batch_size=32, shuffle=True, generator=tt.Generator().manual_seed(0))))
    assert x.shape == (32, 1, 8, 8) and x.dtype is tt.float32 and y.shape == (32,) and y.dtype is tt.int64


def test_digits_need_no_sklearn(monkeypatch):
    """The student install has no scikit-learn: the digits come from teachtorch's own copy of the file."""
    monkeypatch.setitem(sys.modules, "sklearn", None)               # makes `import sklearn` fail
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    images, labels = datasets.load_digits()
    assert images.shape == (1797, 1, 8, 8) and labels.shape == (1797,)


# ---- moons and spirals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 7, 200])
def test_moons_shapes_and_determinism(n):
    x, y = datasets.make_moons(n, noise=0.1, seed=3)
    assert x.shape == (n, 2) and x.dtype is tt.float32 and y.shape == (n,) and y.dtype is tt.int64
    assert sorted(y.tolist()) == [0] * (n // 2) + [1] * (n - n // 2)
    x2, y2 = datasets.make_moons(n, noise=0.1, seed=3)
    assert x2.tolist() == x.tolist() and y2.tolist() == y.tolist()
    if n > 2:
        assert datasets.make_moons(n, noise=0.1, seed=4)[0].tolist() != x.tolist()


def test_moons_without_noise_are_sklearns_moons():
    x, y = datasets.make_moons(101, noise=0.0, seed=0)
    ref_x, ref_y = sklearn.datasets.make_moons(101, noise=0.0, shuffle=False)
    ours = sorted(zip(y.tolist(), map(tuple, np.round(x.numpy(), 5).tolist())))
    theirs = sorted(zip(ref_y.tolist(), map(tuple, np.round(ref_x.astype(np.float32), 5).tolist())))
    assert ours == theirs


def test_moons_noise_scale():
    x, y = datasets.make_moons(4000, noise=0.2, seed=0)
    x0, _ = datasets.make_moons(4000, noise=0.0, seed=0)
    # the same seed shuffles the same way, so the difference is the noise alone
    assert abs(float((x - x0).std()) - 0.2) < 0.01


@pytest.mark.parametrize("n, classes", [(300, 3), (301, 3), (10, 4), (50, 2)])
def test_spirals(n, classes):
    x, y = datasets.make_spirals(n, classes, noise=0.0, seed=0)
    assert x.shape == (n, 2) and x.dtype is tt.float32 and y.dtype is tt.int64
    counts = np.bincount(y.numpy(), minlength=classes)
    assert counts.max() - counts.min() <= 1 and counts.sum() == n
    radius = np.sqrt((x.numpy().astype(np.float64) ** 2).sum(1))
    assert radius.min() == 0.0 and abs(radius.max() - 1.0) < 1e-6
    noisy = datasets.make_spirals(n, classes, noise=0.2, seed=0)
    assert noisy[0].tolist() == datasets.make_spirals(n, classes, noise=0.2, seed=0)[0].tolist()
    assert noisy[0].tolist() != datasets.make_spirals(n, classes, noise=0.2, seed=1)[0].tolist()
    # noise moves the angle only: the radii stay the same
    np.testing.assert_allclose(np.sort(np.sqrt((noisy[0].numpy().astype(np.float64) ** 2).sum(1))), np.sort(radius),
                               atol=1e-6)


# ---- the text corpus ---------------------------------------------------------------------------------------


def test_corpus_is_pythons_own_documentation():
    text = datasets.load_corpus()
    from pydoc_data.topics import topics
    assert isinstance(text, str) and len(text) > 100_000
    assert text == datasets.load_corpus()
    assert all(topics[name] in text for name in topics)
    assert text.startswith(topics[sorted(topics)[0]])


def test_char_vocab_round_trip():
    text = datasets.load_corpus()
    vocab = datasets.CharVocab(text)
    assert vocab.itos == sorted(set(text)) and len(vocab) == len(set(text))
    assert all(vocab.stoi[ch] == i for i, ch in enumerate(vocab.itos))
    ids = vocab.encode(text[:5000])
    assert ids.dtype is tt.int64 and ids.shape == (5000,)
    assert 0 <= ids.min().item() and ids.max().item() < len(vocab)
    assert vocab.decode(ids) == text[:5000]
    assert vocab.decode(ids.tolist()[:10]) == text[:10]
    with pytest.raises(KeyError):
        datasets.CharVocab("abc").encode("abd")


def test_split_corpus():
    text = datasets.load_corpus()
    train, val = datasets.split_corpus(text)
    assert train + val == text and len(val) == len(text) - int(len(text) * 0.9)
    train2, val2 = datasets.split_corpus(text, val_fraction=0.25)
    assert train2 + val2 == text and len(train2) == int(len(text) * 0.75)


def test_names_are_the_census_first_names():
    names = datasets.load_names()
    assert len(names) == len(set(names)) == 5163
    assert names == sorted(names)
    assert all(name.isascii() and name.isalpha() and name.islower() and 2 <= len(name) <= 11 for name in names)
    assert {"mary", "james", "emma", "zoe"} <= set(names)


def test_names_split_is_makemores_shuffle_and_cut():
    import random
    train, val, test = datasets.names_split(seed=42)
    assert (len(train), len(val), len(test)) == (4130, 516, 517)
    assert not (set(train) & set(val)) and not (set(train) & set(test)) and not (set(val) & set(test))
    words = datasets.load_names()
    state = random.getstate()
    random.seed(42)                    # makemore: random.seed(42); random.shuffle(words); 80% / 10% / 10%
    random.shuffle(words)
    random.setstate(state)
    assert train + val + test == words
    assert datasets.names_split(seed=42) == (train, val, test)
    assert datasets.names_split(seed=1)[0] != train


@pytest.mark.parametrize("fractions", [(0.8, 0.1), (0.8, 0.3, -0.1), (0.5, 0.1, 0.1)])
def test_names_split_rejects_bad_fractions(fractions):
    with pytest.raises(ValueError, match=r"names_split: fractions must be three non-negative numbers"):
        datasets.names_split(fractions=fractions)
