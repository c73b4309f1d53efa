"""teachtorch.utils.data against torch.utils.data: datasets, samplers, collation, the DataLoader.

Random orders cannot match PyTorch's (another generator), so shuffling is tested for what it promises:
a permutation every epoch, a new one each epoch, the same ones again with the same seed.
"""

import collections
import math
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from parity import P, assert_same, inputs
from teachtorch.utils import data as ttd


def same_batch(a, b, path="batch"):
    """A teachtorch batch `a` has torch's batch `b`'s structure, types, dtypes, shapes and values."""
    if isinstance(b, torch.Tensor):
        assert_same(a, b, path=path)
    elif isinstance(b, dict):
        assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in b:
            same_batch(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(b, (list, tuple)):
        assert type(a).__name__ == type(b).__name__, f"{path}: {type(a).__name__} != {type(b).__name__}"
        assert len(a) == len(b), f"{path}: length"
        for i, (x, y) in enumerate(zip(a, b)):
            same_batch(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} != {b!r}"


def both_collate(make_batch):
    """Collate the same Python data (built by `make_batch(lib)`) with both libraries and compare."""
    ours = ttd.default_collate(make_batch(tt))
    theirs = tud.default_collate(make_batch(torch))
    same_batch(ours, theirs)
    return ours


def errors_alike(fn_tt, fn_torch):
    with pytest.raises(Exception) as theirs:
        fn_torch()
    with pytest.raises(type(theirs.value)) as ours:
        fn_tt()
    assert str(ours.value) == str(theirs.value)


# ---- datasets ------------------------------------------------------------------------------------------------


def test_tensor_dataset_items_and_len():
    x, y = tt.arange(12.).reshape(4, 3), tt.tensor([3, 1, 4, 1])
    ds = ttd.TensorDataset(x, y)
    assert len(ds) == 4
    xi, yi = ds[2]
    assert xi.tolist() == [6., 7., 8.] and yi.item() == 4
    assert ds[-1][1].item() == 1


def test_tensor_dataset_size_mismatch_like_torch():
    errors_alike(lambda: ttd.TensorDataset(tt.zeros(2), tt.zeros(3)),
                 lambda: tud.TensorDataset(torch.zeros(2), torch.zeros(3)))


def test_subset_and_concat():
    base = list(range(10, 20))
    sub = ttd.Subset(base, [3, 0, 7])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [13, 10, 17]
    assert sub.__getitems__([2, 0]) == tud.Subset(base, [3, 0, 7]).__getitems__([2, 0])
    cat = ttd.ConcatDataset([[1, 2], [3], [4, 5, 6]])
    ref = tud.ConcatDataset([[1, 2], [3], [4, 5, 6]])
    assert len(cat) == len(ref) and cat.cumulative_sizes == ref.cumulative_sizes
    assert [cat[i] for i in range(-6, 6)] == [ref[i] for i in range(-6, 6)]
    errors_alike(lambda: cat[-7], lambda: ref[-7])
    errors_alike(lambda: ttd.ConcatDataset([]), lambda: tud.ConcatDataset([]))
    added = ttd.TensorDataset(tt.zeros(2)) + ttd.TensorDataset(tt.ones(3))
    assert isinstance(added, ttd.ConcatDataset) and len(added) == 5 and added[4][0].item() == 1


def test_iterable_dataset_batches():
    class Stream(ttd.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    batches = list(ttd.DataLoader(Stream(), batch_size=3))
    assert [b.tolist() for b in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(ttd.DataLoader(Stream(), batch_size=3)) == 3
    assert len(ttd.DataLoader(Stream(), batch_size=3, drop_last=True)) == 2
    assert len(list(ttd.DataLoader(Stream(), batch_size=3, drop_last=True))) == 2
    errors_alike(lambda: ttd.DataLoader(Stream(), shuffle=True),
                 lambda: tud.DataLoader(type("S", (tud.IterableDataset,), {"__iter__": lambda s: iter([])})(),
                                        shuffle=True))


@pytest.mark.parametrize("n, lengths", [
    (10, [3, 7]), (10, [0.3, 0.3, 0.4]), (11, [0.33, 0.33, 0.34]), (30, [0.5, 0.5]), (7, [0.1, 0.9]),
    (5, [1.0]), (1797, [0.8, 0.2]), (3, [0.2, 0.2, 0.2, 0.2, 0.2]),
])
def test_random_split_lengths_like_torch(n, lengths):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # zero-length splits warn in both
        ours = ttd.random_split(range(n), lengths, generator=tt.Generator().manual_seed(0))
        theirs = tud.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    items = [s[i] for s in ours for i in range(len(s))]
    assert sorted(items) == list(range(n))        # disjoint, and covering everything


def test_random_split_seeded_and_errors():
    a = ttd.random_split(range(20), [5, 15], generator=tt.Generator().manual_seed(3))
    b = ttd.random_split(range(20), [5, 15], generator=tt.Generator().manual_seed(3))
    c = ttd.random_split(range(20), [5, 15], generator=tt.Generator().manual_seed(4))
    assert a[0].indices == b[0].indices and a[1].indices == b[1].indices
    assert a[0].indices + a[1].indices != c[0].indices + c[1].indices
    errors_alike(lambda: ttd.random_split(range(10), [3, 3]), lambda: tud.random_split(range(10), [3, 3]))
    errors_alike(lambda: ttd.random_split(range(10), [0.5, 0.6]), lambda: tud.random_split(range(10), [0.5, 0.6]))
    errors_alike(lambda: ttd.random_split(range(10), [1.5, -0.5]), lambda: tud.random_split(range(10), [1.5, -0.5]))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        ttd.random_split(range(2), [0.9, 0.1])


# ---- collation -----------------------------------------------------------------------------------------------


def test_collate_numbers_dtypes_like_torch():
    both_collate(lambda lib: [1, 2, 3])                 # int64
    both_collate(lambda lib: [1.5, 2.0])                # float64, not the default dtype
    both_collate(lambda lib: [True, False])             # bool
    both_collate(lambda lib: [np.float32(1), np.float32(2)])
    both_collate(lambda lib: [np.int32(1), np.int32(5)])
    both_collate(lambda lib: [np.float64(0.5)])
    both_collate(lambda lib: [np.bool_(True), np.bool_(False)])
    assert both_collate(lambda lib: ["a", "bc"]) == ["a", "bc"]


def test_collate_numpy_arrays_like_torch():
    both_collate(lambda lib: [np.arange(3), np.arange(3, 6)])
    both_collate(lambda lib: [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)])
    both_collate(lambda lib: [np.array(1.5), np.array(2.5)])
    both_collate(lambda lib: [np.arange(6, dtype=np.uint8).reshape(2, 3)[:, ::2]] * 2)


def test_collate_structures_like_torch():
    both_collate(lambda lib: [(lib.ones(2), 1), (lib.zeros(2), 0)])                 # tuples -> list
    both_collate(lambda lib: [[1, 2.5, "x"], [3, 4.5, "y"]])                          # lists transposed
    both_collate(lambda lib: [{"a": 1, "b": [lib.ones(1), 2.0]}, {"a": 2, "b": [lib.zeros(1), 3.0]}])
    both_collate(lambda lib: [collections.OrderedDict(x=1, y=2.0)] * 3)
    Point = collections.namedtuple("Point", "x y")
    out = both_collate(lambda lib: [Point(1, lib.ones(3)), Point(2, lib.zeros(3))])
    assert isinstance(out, Point)


def test_collate_errors_like_torch():
    errors_alike(lambda: ttd.default_collate([[1, 2], [1]]), lambda: tud.default_collate([[1, 2], [1]]))
    errors_alike(lambda: ttd.default_collate([object()]), lambda: tud.default_collate([object()]))
    errors_alike(lambda: ttd.default_collate([np.array(["a"])]), lambda: tud.default_collate([np.array(["a"])]))
    errors_alike(lambda: ttd.default_collate([tt.zeros(2), tt.zeros(3)]),
                 lambda: tud.default_collate([torch.zeros(2), torch.zeros(3)]))


@settings(max_examples=30, deadline=None)
@given(inputs(dtype="float32"), inputs(dtype="int64"))
def test_collate_tensors_any_layout(a, b):
    """Stacking samples of any memory layout gives torch's batch (values, dtype, shape, strides)."""
    ours = ttd.default_collate([(a.build(tt), b.build(tt))] * 3)
    theirs = tud.default_collate([(a.build(torch), b.build(torch))] * 3)
    same_batch(ours, theirs)


def test_default_convert_like_torch():
    for data in [np.arange(3), np.float32(2), {"a": np.ones(2)}, (np.zeros(1), "s"), [1, np.int8(3)], "text", 5]:
        same_batch(ttd.default_convert(data), tud.default_convert(data))


# ---- samplers ------------------------------------------------------------------------------------------------


def test_sequential_and_batch_sampler_like_torch():
    assert list(ttd.SequentialSampler(range(5))) == list(tud.SequentialSampler(range(5)))
    for n in range(0, 9):
        for bs in (1, 3, 4):
            for drop in (False, True):
                ours = ttd.BatchSampler(range(n), bs, drop)
                theirs = tud.BatchSampler(range(n), bs, drop)
                assert list(ours) == list(theirs) and len(ours) == len(theirs)
    for bad in [(0, False), (2.0, False), (True, False), (2, 1)]:
        errors_alike(lambda: ttd.BatchSampler(range(3), *bad), lambda: tud.BatchSampler(range(3), *bad))


def test_random_sampler_permutations_and_seed():
    g = tt.Generator().manual_seed(0)
    sampler = ttd.RandomSampler(range(50), generator=g)
    epochs = [list(sampler) for _ in range(3)]
    assert all(sorted(e) == list(range(50)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    again = ttd.RandomSampler(range(50), generator=tt.Generator().manual_seed(0))
    assert [list(again) for _ in range(3)] == epochs
    # without a generator, the default generator's seed fixes the order (as torch.manual_seed does)
    tt.manual_seed(7)
    first = list(ttd.RandomSampler(range(20)))
    tt.manual_seed(7)
    assert list(ttd.RandomSampler(range(20))) == first


def test_random_sampler_num_samples_and_replacement():
    s = ttd.RandomSampler(range(4), num_samples=10, generator=tt.Generator().manual_seed(1))
    out = list(s)
    assert len(out) == len(s) == 10 and sorted(out[:8]) == [0, 0, 1, 1, 2, 2, 3, 3]
    r = list(ttd.RandomSampler(range(3), replacement=True, num_samples=100, generator=tt.Generator().manual_seed(1)))
    assert len(r) == 100 and set(r) == {0, 1, 2}
    errors_alike(lambda: ttd.RandomSampler(range(3), replacement=1), lambda: tud.RandomSampler(range(3), replacement=1))
    errors_alike(lambda: ttd.RandomSampler(range(3), num_samples=0), lambda: tud.RandomSampler(range(3), num_samples=0))
    errors_alike(lambda: ttd.RandomSampler([]), lambda: tud.RandomSampler([]))


def test_subset_random_sampler():
    idx = [5, 9, 2, 7]
    s = ttd.SubsetRandomSampler(idx, generator=tt.Generator().manual_seed(0))
    assert sorted(s) == sorted(idx) and len(s) == 4


def record_draws(monkeypatch, lib):
    """Record the random draws a sampler makes: (function, size or n, replacement) per call."""
    calls = []
    module = ttd.sampler if lib is tt else torch
    for name in ("randint", "randperm", "multinomial"):
        real = getattr(module, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            out = _real(*args, **kwargs)
            calls.append((_name, tuple(out.shape), kwargs.get("dtype") is not None, args[2:] if _name == "multinomial"
                          else ()))
            return out
        monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize("make", [
    lambda lib, g: lib.utils.data.RandomSampler(range(5), generator=g),
    lambda lib, g: lib.utils.data.RandomSampler(range(5), num_samples=13, generator=g),
    lambda lib, g: lib.utils.data.RandomSampler(range(5), num_samples=3, generator=g),
    lambda lib, g: lib.utils.data.RandomSampler(range(7), replacement=True, generator=g),
    lambda lib, g: lib.utils.data.RandomSampler(range(7), replacement=True, num_samples=100, generator=g),
    lambda lib, g: lib.utils.data.RandomSampler(range(7), replacement=True, num_samples=64, generator=g),
    lambda lib, g: lib.utils.data.SubsetRandomSampler([3, 1, 4, 1, 5], generator=g),
    lambda lib, g: lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0], 12, generator=g),
    lambda lib, g: lib.utils.data.WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0], 4, replacement=False, generator=g),
])
def test_samplers_draw_like_torch(monkeypatch, make):
    """The same draws as torch's samplers, call for call (randint 32 at a time, randperm per pass, one
    multinomial), hence the same index stream wherever the two generators agree; the generators themselves
    differ (NumPy's PCG64 vs torch's mt19937), so the values are compared with teachtorch's own draws."""
    ours_calls, theirs_calls = record_draws(monkeypatch, tt), record_draws(monkeypatch, torch)
    ours = make(tt, tt.Generator().manual_seed(3))
    theirs = make(torch, torch.Generator().manual_seed(3))
    for _ in range(2):                                             # two epochs
        a, b = list(ours), list(theirs)
        assert len(a) == len(b) == len(ours) == len(theirs)
        assert all(type(i) is int for i in a)
    assert ours_calls == theirs_calls and ours_calls
    # the stream is exactly those draws, concatenated (the remainder pass cut to num_samples)
    g = tt.Generator().manual_seed(3)
    replay = ours_calls[:len(ours_calls) // 2]
    expected = []
    for name, shape, _, extra in replay:
        if name == "randint":
            expected += tt.randint(high=len(ours.data_source), size=shape, dtype=tt.int64, generator=g).tolist()
        elif name == "randperm":
            expected += tt.randperm(shape[0], generator=g).tolist()
        else:
            expected += tt.multinomial(ours.weights, shape[0], *extra, generator=g).tolist()
    a = list(make(tt, tt.Generator().manual_seed(3)))
    if isinstance(ours, ttd.SubsetRandomSampler):
        expected = [ours.indices[i] for i in expected]
    assert a == expected[:len(a)]


def test_random_sampler_with_replacement_is_lazy():
    """`num_samples=10**10` would be 80 GB of indices at once; the first 100 are drawn 32 at a time."""
    import itertools
    import tracemalloc
    for lib in (tt, torch):
        sampler = lib.utils.data.RandomSampler(range(10), replacement=True, num_samples=10 ** 10,
                                               generator=lib.Generator().manual_seed(0))
        assert len(sampler) == 10 ** 10
        tracemalloc.start()
        try:
            first = list(itertools.islice(iter(sampler), 100))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert len(first) == 100 and set(first) <= set(range(10))
        assert peak < 1_000_000, f"{lib.__name__}: {peak} bytes"
        # batches stream too: a BatchSampler (and a DataLoader) over it reads only what it yields
        batches = lib.utils.data.BatchSampler(sampler, batch_size=16, drop_last=True)
        assert len(batches) == 10 ** 10 // 16
        assert [len(b) for b in itertools.islice(iter(batches), 3)] == [16, 16, 16]
        loader = lib.utils.data.DataLoader(range(10), sampler=sampler, batch_size=8)
        assert next(iter(loader)).shape == (8,)


def test_batch_sampler_reads_the_sampler_lazily_like_torch():
    for lib in (tt, torch):
        read = []

        def source():
            for i in range(10):
                read.append(i)
                yield i
        batches = iter(lib.utils.data.BatchSampler(source(), 3, drop_last=False))
        assert next(batches) == [0, 1, 2] and read == [0, 1, 2]
        assert list(batches) == [[3, 4, 5], [6, 7, 8], [9]]


def test_weighted_random_sampler_like_torch():
    weights = [0.0, 2.0, 0.0, 1.0, 0.5]
    for replacement in (True, False):
        s = ttd.WeightedRandomSampler(weights, 3, replacement, generator=tt.Generator().manual_seed(0))
        out = list(s)
        assert len(out) == len(s) == 3 and set(out) <= {1, 3, 4}
        if not replacement:
            assert sorted(out) == [1, 3, 4]
        assert s.weights.dtype == tt.float64 and s.weights.tolist() == weights
    # never an index of weight 0, and the frequencies follow the weights
    counts = collections.Counter(ttd.WeightedRandomSampler(weights, 7000, generator=tt.Generator().manual_seed(1)))
    assert set(counts) == {1, 3, 4} and abs(counts[1] / 7000 - 2 / 3.5) < 0.03
    # the weights may be a tensor in any layout, or a NumPy array
    for layout in ("permuted", "sliced", "expanded"):
        w = P(np.array([[1.0, 2.0, 3.0]]), layout).build(tt).reshape(-1)
        assert sorted(ttd.WeightedRandomSampler(w, 3, False)) == [0, 1, 2]
    assert len(list(ttd.WeightedRandomSampler(np.array([1, 2]), 5))) == 5


@pytest.mark.parametrize("args", [
    ([1.0, 2.0], 0), ([1.0, 2.0], -1), ([1.0, 2.0], 2.0), ([1.0, 2.0], True), ([1.0, 2.0], None),
    ([1.0, 2.0], 2, 1), ([1.0, 2.0], 2, None), ([[1.0, 2.0]], 2), (3.0, 2), ([[1.0], [2.0, 3.0]], 2),
])
def test_weighted_random_sampler_argument_errors_like_torch(args):
    errors_alike(lambda: ttd.WeightedRandomSampler(*args), lambda: tud.WeightedRandomSampler(*args))


@pytest.mark.parametrize("weights, n, replacement", [
    ([1.0, 2.0], 3, False), ([-1.0, 2.0], 1, True), ([0.0, 0.0], 1, True), ([1.0, float("nan")], 1, True),
    ([1.0, float("inf")], 1, True),
])
def test_weighted_random_sampler_draw_errors_like_torch(weights, n, replacement):
    # multinomial's own errors, raised when the sampler is iterated (not when it is built)
    ours = ttd.WeightedRandomSampler(weights, n, replacement)
    theirs = tud.WeightedRandomSampler(weights, n, replacement)
    errors_alike(lambda: list(ours), lambda: list(theirs))


def test_sequential_sampler_len_follows_the_data_like_torch():
    data = [1, 2, 3]
    for lib in (tt, torch):
        s, r = lib.utils.data.SequentialSampler(data), lib.utils.data.RandomSampler(data)
        data.append(4)                       # num_samples is read from the data at each use
        assert len(s) == 4 and list(s) == [0, 1, 2, 3] and len(r) == r.num_samples == 4
        data.pop()
    errors_alike(lambda: len(ttd.SequentialSampler(iter([1]))), lambda: len(tud.SequentialSampler(iter([1]))))
    errors_alike(lambda: len(ttd.BatchSampler(iter([1]), 2, False)), lambda: len(tud.BatchSampler(iter([1]), 2, False)))
    errors_alike(lambda: iter(ttd.Sampler()).__next__(), lambda: iter(tud.Sampler()).__next__())
    for bad in (2.5, -4, "3"):
        errors_alike(lambda: ttd.RandomSampler(range(3), num_samples=bad),
                     lambda: tud.RandomSampler(range(3), num_samples=bad))


@pytest.mark.parametrize("n", [0, 1, 5, 8, 11])
@pytest.mark.parametrize("replicas", [1, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_like_torch(n, replicas, drop_last):
    for rank in range(replicas):
        ours = ttd.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = tud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert (ours.num_samples, ours.total_size, len(ours)) == (theirs.num_samples, theirs.total_size, len(theirs))
        if n == 0 and not drop_last and ours.total_size:
            errors_alike(lambda: list(ours), lambda: list(theirs))
        else:
            assert list(ours) == list(theirs)
    # shuffled: every rank draws the same permutation (seed + epoch) and takes its share, as in torch
    shares = [list(ttd.DistributedSampler(range(n), replicas, r, seed=5)) for r in range(replicas)]
    g = tt.Generator().manual_seed(5)
    perm = tt.randperm(n, generator=g).tolist() if n else []
    if n and not drop_last:
        padded = (perm * (replicas + 1))[:len(shares[0]) * replicas]
        assert shares == [padded[r::replicas] for r in range(replicas)]
    s = ttd.DistributedSampler(range(n), replicas, 0, seed=5)
    s.set_epoch(3)
    assert s.epoch == 3 and list(s) == list(ttd.DistributedSampler(range(n), replicas, 0, seed=8))


def test_distributed_sampler_errors():
    for bad in [(3, 3), (3, -1), (1, 1)]:
        errors_alike(lambda: ttd.DistributedSampler(range(4), *bad), lambda: tud.DistributedSampler(range(4), *bad))
    # no process group to ask: PyTorch's error when none was initialised
    errors_alike(lambda: ttd.DistributedSampler(range(4)), lambda: tud.DistributedSampler(range(4)))
    errors_alike(lambda: ttd.DistributedSampler(range(4), num_replicas=2),
                 lambda: tud.DistributedSampler(range(4), num_replicas=2))


def test_samplers_importable_like_torch():
    from teachtorch.utils.data.distributed import DistributedSampler as D
    assert D is ttd.DistributedSampler and issubclass(D, ttd.Sampler)
    for name in ("BatchSampler", "DistributedSampler", "RandomSampler", "Sampler", "SequentialSampler",
                 "SubsetRandomSampler", "WeightedRandomSampler"):
        assert name in tud.__all__ and name in ttd.__all__


# ---- the DataLoader ------------------------------------------------------------------------------------------


def test_loader_batches_tensor_dataset_like_torch():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10) % 3
    for bs in (1, 3, 4, 10, 12):
        for drop in (False, True):
            ours = ttd.DataLoader(ttd.TensorDataset(tt.tensor(x), tt.tensor(y)), batch_size=bs, drop_last=drop)
            theirs = tud.DataLoader(tud.TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size=bs,
                                    drop_last=drop)
            assert len(ours) == len(theirs) == (10 // bs if drop else math.ceil(10 / bs))
            got, want = list(ours), list(theirs)
            assert len(got) == len(want)
            for a, b in zip(got, want):
                same_batch(a, b)


def test_loader_tensor_dataset_on_views_like_torch():
    """Samples from non-contiguous tensors batch to torch's batches (the gather shortcut included)."""
    for layout in ("permuted", "sliced", "offset", "expanded"):
        px, py = P(np.arange(24, dtype=np.float32).reshape(6, 4), layout), P(np.arange(6), layout)
        ours = ttd.DataLoader(ttd.TensorDataset(px.build(tt), py.build(tt)), batch_size=4)
        theirs = tud.DataLoader(tud.TensorDataset(px.build(torch), py.build(torch)), batch_size=4)
        for a, b in zip(ours, theirs):
            same_batch(a, b)
        # a custom collate_fn sees the samples themselves
        seen = []
        list(ttd.DataLoader(ttd.TensorDataset(px.build(tt)), batch_size=4, collate_fn=seen.append))
        assert [len(b) for b in seen] == [4, 2] and all(isinstance(s, tuple) for s in seen[0])


def test_loader_tuples_and_dicts_like_torch():
    def samples(lib):
        return [{"x": lib.full((2,), float(i)), "label": i, "name": f"s{i}", "pair": (i, i * 0.5)} for i in range(5)]
    ours = list(ttd.DataLoader(samples(tt), batch_size=2))
    theirs = list(tud.DataLoader(samples(torch), batch_size=2))
    same_batch(ours, theirs)
    ours = list(ttd.DataLoader([(i, float(i)) for i in range(5)], batch_size=3))
    theirs = list(tud.DataLoader([(i, float(i)) for i in range(5)], batch_size=3))
    same_batch(ours, theirs)


def test_loader_without_batching_like_torch():
    data = [np.float32(i) for i in range(4)]
    same_batch(list(ttd.DataLoader(data, batch_size=None)), list(tud.DataLoader(data, batch_size=None)))
    assert len(ttd.DataLoader(data, batch_size=None)) == 4
    assert list(ttd.DataLoader(range(3), batch_size=None)) == [0, 1, 2]


def test_loader_custom_collate_and_batch_sampler():
    loader = ttd.DataLoader(range(7), batch_size=3, collate_fn=lambda b: sum(b))
    assert list(loader) == [3, 12, 6]
    bs = ttd.BatchSampler(ttd.SequentialSampler(range(5)), 2, False)
    assert [b.tolist() for b in ttd.DataLoader(range(5), batch_sampler=bs)] == [[0, 1], [2, 3], [4]]
    sampler = [4, 3, 2, 1, 0]
    assert [b.tolist() for b in ttd.DataLoader(range(5), batch_size=2, sampler=sampler)] == [[4, 3], [2, 1], [0]]


def test_loader_shuffle_reshuffles_every_epoch_and_is_seeded():
    def epochs(seed, n_epochs=3):
        ds = ttd.TensorDataset(tt.arange(40))
        loader = ttd.DataLoader(ds, batch_size=8, shuffle=True, generator=tt.Generator().manual_seed(seed))
        return [tt.cat([b[0] for b in loader]).tolist() for _ in range(n_epochs)]

    first = epochs(0)
    assert all(sorted(e) == list(range(40)) for e in first)      # each epoch: every sample once
    assert first[0] != first[1] and first[1] != first[2]         # a new order each epoch
    assert first[0] != list(range(40))
    assert epochs(0) == first                                    # the same seed: the same orders
    assert epochs(1) != first


def test_loader_argument_errors_like_torch():
    cases = [
        dict(num_workers=-1), dict(shuffle=True, sampler=[0, 1]), dict(batch_size=None, drop_last=True),
        dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True), dict(timeout=-1),
        dict(batch_size=0),
    ]
    for kwargs in cases:
        errors_alike(lambda: ttd.DataLoader(range(3), **kwargs), lambda: tud.DataLoader(range(3), **kwargs))


def test_loader_num_workers_warns_and_loads_in_process():
    with pytest.warns(UserWarning, match="main process"):
        loader = ttd.DataLoader(range(5), batch_size=2, num_workers=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 3], [4]]


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 30), bs=st.integers(1, 8), drop=st.booleans(), shuffle=st.booleans())
def test_loader_lengths_fuzz(n, bs, drop, shuffle):
    if n == 0 and shuffle:       # a RandomSampler over nothing is refused, in both
        errors_alike(lambda: ttd.DataLoader([], batch_size=bs, shuffle=True), lambda: tud.DataLoader([], shuffle=True))
        return
    ours = ttd.DataLoader(list(range(n)), batch_size=bs, drop_last=drop, shuffle=shuffle,
                          generator=tt.Generator().manual_seed(n))
    theirs = tud.DataLoader(list(range(n)), batch_size=bs, drop_last=drop, shuffle=shuffle)
    batches = list(ours)
    assert len(ours) == len(theirs) == len(batches)
    assert [len(b) for b in batches] == [len(b) for b in theirs]
    flat = [i for b in batches for i in b.tolist()]
    assert len(set(flat)) == len(flat) and set(flat) <= set(range(n))


def test_loader_honours_a_tensor_dataset_subclass_getitem():
    class Doubled(ttd.TensorDataset):
        def __getitem__(self, i):
            x, = super().__getitem__(i)
            return (x * 2,)

    batches = list(ttd.DataLoader(Doubled(tt.arange(5.)), batch_size=2))
    assert [b[0].tolist() for b in batches] == [[0., 2.], [4., 6.], [8.]]
