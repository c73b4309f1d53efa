"""Recurrent layers against PyTorch: RNN, LSTM, GRU and their cells (nn/modules/rnn.py), and the sequence
helpers pad_sequence, pack_padded_sequence, pad_packed_sequence, PackedSequence (nn/utils/rnn.py).

The modules go through `check_module` (torch's weights copied into ours, so state_dict keys and parameter
order must match; outputs, h_n / c_n, input, initial-state and parameter gradients compared in train and
eval mode) in every configuration: each mode, num_layers, bidirectional, batch_first, bias, proj_size,
initial states given or not, unbatched input, and inputs in every memory layout. Dropout between layers is
checked with dropout=0 in train mode (the random numbers differ from torch's), in eval mode with dropout
on, and by its effect in train mode. Packed sequences are compared field by field (data, batch_sizes,
sorted_indices, unsorted_indices), sorted or not, and run through every layer. Error types and messages are
torch's.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module
from parity import LAYOUTS, P, check, inputs, rand

# torch's cpu LSTM says it falls back from oneDNN for proj_size: a note about its kernels, not about results
pytestmark = [pytest.mark.device_generic,
              pytest.mark.filterwarnings("ignore:LSTM with projections is not supported with oneDNN")]
FUZZ = settings(max_examples=20, deadline=None)


def lib_of(module):
    return torch if isinstance(module, torch.nn.Module) else tt


def U(lib):
    return lib.nn.utils.rnn


# ---- RNN, LSTM, GRU on padded batches -----------------------------------------------------------------------

CONFIGS = [dict(num_layers=1), dict(num_layers=2), dict(bidirectional=True), dict(num_layers=2, bidirectional=True),
           dict(batch_first=True), dict(bias=False), dict(num_layers=2, bidirectional=True, batch_first=True)]
MODES = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]


def make_layer(name, extra, **kwargs):
    return lambda nn: getattr(nn, name)(4, 3, **extra, **kwargs)


@pytest.mark.parametrize("name,extra", MODES, ids=["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_layer_matches_torch(name, extra, config):
    shape = (2, 5, 4) if config.get("batch_first") else (5, 2, 4)
    check_module(make_layer(name, extra, **config), rand(*shape, low=-1, high=1, layout="permuted"))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_layer_every_input_layout(name, layout):
    check_module(make_layer(name, {}, num_layers=2), rand(4, 3, 4, low=-1, high=1, layout=layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["RNN", "GRU"])
def test_initial_hidden_state_and_its_gradient(name, layout):
    x = rand(4, 3, 4, low=-1, high=1, layout="sliced")
    h0 = rand(4, 3, 3, low=-1, high=1, layout=layout, seed=1)
    check_module(make_layer(name, {}, num_layers=2, bidirectional=True), x, h0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_lstm_initial_states_and_their_gradients(layout):
    x = rand(3, 4, 4, low=-1, high=1, layout="offset")
    h0 = rand(2, 3, 3, low=-1, high=1, layout=layout, seed=1)
    c0 = rand(2, 3, 3, low=-1, high=1, layout=layout, seed=2)
    check_module(make_layer("LSTM", {}, num_layers=2, batch_first=True), x, h0, c0,
                 forward=lambda m, x, h, c: m(x, (h, c)))


@pytest.mark.parametrize("config", [dict(), dict(num_layers=2, bidirectional=True), dict(batch_first=True, bias=False)])
def test_lstm_proj_size(config):
    shape = (2, 4, 4) if config.get("batch_first") else (4, 2, 4)
    check_module(lambda nn: nn.LSTM(4, 5, proj_size=2, **config), rand(*shape, low=-1, high=1, layout="permuted"))
    directions = 2 if config.get("bidirectional") else 1
    layers = config.get("num_layers", 1)
    h0 = rand(layers * directions, 2, 2, low=-1, high=1, seed=1)
    c0 = rand(layers * directions, 2, 5, low=-1, high=1, seed=2, layout="permuted")
    check_module(lambda nn: nn.LSTM(4, 5, proj_size=2, **config), rand(*shape, low=-1, high=1), h0, c0,
                 forward=lambda m, x, h, c: m(x, (h, c)))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(name, batch_first):
    make = make_layer(name, {}, num_layers=2, bidirectional=True, batch_first=batch_first)
    check_module(make, rand(5, 4, low=-1, high=1, layout="permuted"))
    h0 = rand(4, 3, low=-1, high=1, seed=1, layout="sliced")
    if name == "LSTM":
        c0 = rand(4, 3, low=-1, high=1, seed=2)
        check_module(make, rand(5, 4, low=-1, high=1), h0, c0, forward=lambda m, x, h, c: m(x, (h, c)))
    else:
        check_module(make, rand(5, 4, low=-1, high=1), h0)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers(name):
    x = rand(4, 2, 4, low=-1, high=1, layout="permuted")
    # eval mode: dropout is off, the outputs match torch's exactly
    check_module(make_layer(name, {}, num_layers=3, dropout=0.5), x, train=False)
    # train mode: dropout changes the output of a stacked layer (but never the first layer's h_n)
    tt.manual_seed(0)
    layer = getattr(tt.nn, name)(4, 3, num_layers=3, dropout=0.5)
    inp = x.build(tt)
    out_train, h_train = layer(inp)
    layer.eval()
    out_eval, h_eval = layer(inp)
    if name == "LSTM":
        h_train, h_eval = h_train[0], h_eval[0]
    assert out_train.shape == out_eval.shape and h_train.shape == h_eval.shape
    assert not np.allclose(out_train.detach().cpu().numpy(), out_eval.detach().cpu().numpy())
    np.testing.assert_allclose(h_train[0].detach().cpu().numpy(), h_eval[0].detach().cpu().numpy(), rtol=1e-6)


def test_dropout_one_layer_warns_like_torch():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        torch.nn.GRU(4, 3, dropout=0.2)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                         "dropout=0.2 and num_layers=1"):
        tt.nn.GRU(4, 3, dropout=0.2)


def test_double_precision_layer():
    check_module(lambda nn: nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=torch.float64 if nn is torch.nn
                                    else tt.float64),
                 P(np.random.default_rng(0).standard_normal((3, 2, 3)), "permuted"), rtol=1e-9, atol=1e-10)


@st.composite
def layer_case(draw):
    name = draw(st.sampled_from(["RNN", "LSTM", "GRU"]))
    kwargs = dict(num_layers=draw(st.integers(1, 3)), bidirectional=draw(st.booleans()),
                  batch_first=draw(st.booleans()), bias=draw(st.booleans()))
    if name == "RNN":
        kwargs["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    hidden = draw(st.integers(1, 4))
    if name == "LSTM" and hidden > 1 and draw(st.booleans()):
        kwargs["proj_size"] = draw(st.integers(1, hidden - 1))
    T, N, I = draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    batched = draw(st.booleans())
    shape = ((N, T) if kwargs["batch_first"] else (T, N)) if batched else (T,)
    x = draw(inputs(shape=shape + (I,), low=-1, high=1))
    return name, I, hidden, kwargs, x


@FUZZ
@given(layer_case())
def test_layer_fuzz(case):
    name, I, hidden, kwargs, x = case
    check_module(lambda nn: getattr(nn, name)(I, hidden, **kwargs), x)


@FUZZ
@given(st.sampled_from(["RNN", "LSTM", "GRU"]), st.lists(st.integers(1, 4), min_size=1, max_size=4), st.booleans(),
       st.booleans(), st.data())
def test_packed_fuzz(name, lengths, bidirectional, batch_first, data):
    T, N = max(lengths), len(lengths)
    x = data.draw(inputs(shape=(N, T, 3) if batch_first else (T, N, 3), low=-1, high=1))
    make = lambda nn: getattr(nn, name)(3, 2, num_layers=2, bidirectional=bidirectional,  # noqa: E731
                                        batch_first=batch_first)
    check_module(make, x, forward=_packed_forward(lengths, batch_first))


# ---- parameters: names, shapes, init, repr --------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda nn: nn.RNN(4, 3), lambda nn: nn.RNN(4, 3, 3, "relu", False, True, 0.0, True),
    lambda nn: nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=2),
    lambda nn: nn.LSTM(4, 6, num_layers=2, proj_size=2, bias=False),
    lambda nn: nn.GRU(4, 3, num_layers=3, bidirectional=True, batch_first=True, dropout=0.25),
    lambda nn: nn.RNNCell(4, 3), lambda nn: nn.RNNCell(4, 3, bias=False, nonlinearity="relu"),
    lambda nn: nn.LSTMCell(4, 3), lambda nn: nn.GRUCell(4, 3, bias=False),
])
def test_parameters_repr_and_init(make):
    theirs, ours = make(torch.nn), make(tt.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    bound = 1 / math.sqrt(ours.hidden_size)       # U(-1/sqrt(hidden), 1/sqrt(hidden)) for every parameter
    drawn = []
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n1 == n2 and tuple(p1.shape) == tuple(p2.shape)
        assert isinstance(p1, tt.nn.Parameter)
        values = p1.detach().cpu().numpy()
        assert values.min() >= -bound and values.max() <= bound, n1
        drawn.append(values.ravel())
    assert np.concatenate(drawn).std() > bound / 3    # a uniform draw's std is bound / sqrt(3)
    if hasattr(theirs, "all_weights"):
        assert [[tuple(p.shape) for p in group] for group in ours.all_weights] == \
               [[tuple(p.shape) for p in group] for group in theirs.all_weights]
        assert all(p is getattr(ours, n) for group, names in zip(ours.all_weights, ours._all_weights)
                   for p, n in zip(group, names))
        assert ours._flat_weights_names == theirs._flat_weights_names
        ours.flatten_parameters()              # a no-op here, as for torch on the cpu
    for attr in ("input_size", "hidden_size", "bias", "num_layers", "batch_first", "dropout", "bidirectional",
                 "proj_size", "mode", "nonlinearity"):
        assert getattr(ours, attr, None) == getattr(theirs, attr, None), attr


def test_reset_parameters_is_seeded_like_the_module():
    tt.manual_seed(3)
    a = tt.nn.GRU(4, 3, num_layers=2)
    tt.manual_seed(3)
    b = tt.nn.GRU(4, 3, num_layers=2)
    for p, q in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(p.detach().cpu().numpy(), q.detach().cpu().numpy())


def test_load_state_dict_from_torch_and_to():
    theirs = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    ours = tt.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    out, _ = ours.double()(tt.tensor(x).double())
    np.testing.assert_allclose(out.detach().cpu().numpy(), theirs(torch.tensor(x))[0].detach().cpu().numpy(), rtol=1e-5,
                               atol=1e-6)
    assert ours.all_weights[0][0].dtype == tt.float64       # all_weights follows the converted parameters


# ---- cells --------------------------------------------------------------------------------------------


CELLS = [lambda nn: nn.RNNCell(4, 3), lambda nn: nn.RNNCell(4, 3, nonlinearity="relu"),
         lambda nn: nn.RNNCell(4, 3, bias=False), lambda nn: nn.GRUCell(4, 3), lambda nn: nn.GRUCell(4, 3, False)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("make", CELLS, ids=["rnn", "rnn_relu", "rnn_nobias", "gru", "gru_nobias"])
def test_cell(make, layout):
    x = rand(5, 4, low=-1, high=1, layout=layout)
    check_module(make, x)
    check_module(make, x, rand(5, 3, low=-1, high=1, seed=1, layout="permuted"))
    check_module(make, rand(4, low=-1, high=1, layout=layout), rand(3, low=-1, high=1, seed=1))   # unbatched
    check_module(make, rand(4, low=-1, high=1))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell(bias, layout):
    make = lambda nn: nn.LSTMCell(4, 3, bias=bias)  # noqa: E731
    run = lambda m, x, h, c: m(x, (h, c))  # noqa: E731
    x = rand(5, 4, low=-1, high=1, layout=layout)
    check_module(make, x)
    check_module(make, x, rand(5, 3, seed=1, layout="sliced"), rand(5, 3, seed=2, layout=layout), forward=run)
    check_module(make, rand(4, low=-1, high=1, layout=layout), rand(3, seed=1), rand(3, seed=2), forward=run)
    check_module(make, rand(4, low=-1, high=1))


# ---- errors ---------------------------------------------------------------------------------------------


def _x(lib, *shape, dtype=None):
    return lib.ones(*shape, dtype=dtype)


@pytest.mark.parametrize("fn", [
    # constructor arguments
    lambda lib: lib.nn.RNN(4, 3, dropout=1.5), lambda lib: lib.nn.RNN(4, 3, dropout=True),
    lambda lib: lib.nn.LSTM(4, 3, bias=1), lambda lib: lib.nn.LSTM(4, 3, batch_first=None),
    lambda lib: lib.nn.GRU(4.0, 3), lambda lib: lib.nn.GRU(0, 3), lambda lib: lib.nn.GRU(4, "3"),
    lambda lib: lib.nn.GRU(4, 0), lambda lib: lib.nn.RNN(4, 3, 0), lambda lib: lib.nn.LSTM(4, 3, proj_size=-1),
    lambda lib: lib.nn.LSTM(4, 3, proj_size=3), lambda lib: lib.nn.GRU(4, 3, proj_size=2),
    lambda lib: lib.nn.RNN(4, 3, proj_size=2), lambda lib: lib.nn.RNN(4, 3, nonlinearity="sigmoid"),
    lambda lib: lib.nn.RNN(4, 3, 1, "gelu"),
    # wrong input sizes
    lambda lib: lib.nn.RNN(4, 3)(_x(lib, 3)), lambda lib: lib.nn.GRU(4, 3)(_x(lib, 1, 2, 3, 4)),
    lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 3)), lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 2, 5, 5)),
    lambda lib: lib.nn.GRU(4, 3)(_x(lib, 5, 3)), lambda lib: lib.nn.RNN(4, 3)(_x(lib, 2, 3, 4, dtype=lib.float64)),
    # wrong hidden shapes
    lambda lib: lib.nn.GRU(4, 3)(_x(lib, 3, 2, 4), _x(lib, 2, 2, 3)),
    lambda lib: lib.nn.RNN(4, 3, bidirectional=True)(_x(lib, 3, 2, 4), _x(lib, 1, 2, 3)),
    lambda lib: lib.nn.RNN(4, 3, batch_first=True)(_x(lib, 3, 2, 4), _x(lib, 1, 2, 3)),
    lambda lib: lib.nn.GRU(4, 3)(_x(lib, 3, 2, 4), _x(lib, 2, 3)),
    lambda lib: lib.nn.GRU(4, 3)(_x(lib, 3, 4), _x(lib, 1, 1, 3)),
    lambda lib: lib.nn.RNN(4, 3)(_x(lib, 3, 4), _x(lib, 1, 4)),
    lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 3, 2, 4), (_x(lib, 1, 2, 3), _x(lib, 1, 3, 3))),
    lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 3, 2, 4), (_x(lib, 1, 2, 2), _x(lib, 1, 2, 3))),
    lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 3, 2, 4), (_x(lib, 1, 2, 3), _x(lib, 2, 3))),
    lambda lib: lib.nn.LSTM(4, 3)(_x(lib, 3, 4), (_x(lib, 1, 2, 3), _x(lib, 1, 3))),
    lambda lib: lib.nn.LSTM(4, 5, proj_size=2)(_x(lib, 3, 2, 4), (_x(lib, 1, 2, 5), _x(lib, 1, 2, 5))),
    # cells
    lambda lib: lib.nn.RNNCell(4, 3)(_x(lib, 2, 5)), lambda lib: lib.nn.RNNCell(4, 3)(_x(lib, 2, 4), _x(lib, 3, 3)),
    lambda lib: lib.nn.RNNCell(4, 3)(_x(lib, 2, 4), _x(lib, 2, 5)),
    lambda lib: lib.nn.RNNCell(4, 3)(_x(lib, 1, 2, 4)), lambda lib: lib.nn.RNNCell(4, 3)(_x(lib, 4), _x(lib, 1, 1, 3)),
    lambda lib: lib.nn.RNNCell(4, 3, nonlinearity="sig")(_x(lib, 4)),
    lambda lib: lib.nn.GRUCell(4, 3)(_x(lib, 2, 4), _x(lib, 1, 3)),
    lambda lib: lib.nn.GRUCell(4, 3)(_x(lib, 2, 2, 4)),
    lambda lib: lib.nn.LSTMCell(4, 3)(_x(lib, 2, 4), (_x(lib, 2, 3), _x(lib, 2, 5))),
    lambda lib: lib.nn.LSTMCell(4, 3)(_x(lib, 2, 4), (_x(lib, 1, 3), _x(lib, 2, 3))),
    lambda lib: lib.nn.LSTMCell(4, 3)(_x(lib, 2, 4), (_x(lib, 2, 3), _x(lib, 1, 2, 3))),
    lambda lib: lib.nn.LSTMCell(4, 3)(_x(lib, 3)),
])
def test_errors_match_torch(fn):
    check(fn)


# ---- pad_sequence ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pad_sequence(layout, batch_first, padding_side):
    seqs = [rand(3, 2, layout=layout), rand(1, 2, seed=1, layout="permuted"), rand(4, 2, seed=2, layout="sliced")]
    for a in seqs:
        a.requires_grad = True
    check(lambda lib, *s: U(lib).pad_sequence(list(s), batch_first, -2.5, padding_side), *seqs)
    check(lambda lib, *s: U(lib).pad_sequence(s, batch_first=batch_first, padding_side=padding_side), *seqs)
    check(lambda lib, a: U(lib).pad_sequence([a], batch_first), rand(3, layout=layout))


def test_pad_sequence_gradient():
    results = {}
    for lib in (tt, torch):
        seqs = [lib.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2), requires_grad=True) for n in (2, 4, 1)]
        out = U(lib).pad_sequence(seqs, batch_first=True, padding_side="left")
        (out * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
        results[lib] = [s.grad.cpu().numpy() for s in seqs]
    for a, b in zip(results[tt], results[torch]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fn", [
    lambda lib: U(lib).pad_sequence([]),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3)], padding_side="middle"),
    lambda lib: U(lib).pad_sequence(3),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3), lib.ones(3, 4)]),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3), lib.ones(3, 3, 1)]),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3, 1), lib.ones(3, 3)]),
    # a sequence is copied into its slot, so it may broadcast, and takes the first one's dtype
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3), lib.arange(3.0).reshape(3, 1)], padding_value=-1),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3), lib.arange(3.0)], batch_first=True),
    lambda lib: U(lib).pad_sequence([lib.ones(2, 3), lib.arange(6).reshape(2, 3)]),
])
def test_pad_sequence_errors_and_broadcasting(fn):
    check(fn)


# ---- pack_padded_sequence, pad_packed_sequence, PackedSequence ---------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", [[4, 3, 3, 1], [1, 4, 3, 4]])
def test_pack_and_pad_round_trip(lengths, batch_first, layout):
    shape = (4, 4, 2) if batch_first else (4, 4, 2)
    x = rand(*shape, layout=layout)
    sorted_ = lengths == sorted(lengths, reverse=True)

    def packed(lib, x, as_tensor=False):
        lens = lib.tensor(lengths) if as_tensor else lengths
        return U(lib).pack_padded_sequence(x, lens, batch_first=batch_first, enforce_sorted=sorted_)

    check(packed, x, share=False)
    check(lambda lib, x: packed(lib, x, as_tensor=True), x, share=False)
    for total in (None, 6):
        check(lambda lib, x: U(lib).pad_packed_sequence(packed(lib, x), batch_first=batch_first, padding_value=-1.0,
                                                         total_length=total), x, share=False)
    check(lambda lib, x: U(lib).unpack_sequence(packed(lib, x)), x, share=False)


def test_pack_pad_gradient():
    x = rand(4, 3, 2, layout="permuted")
    results = {}
    for lib in (tt, torch):
        inp = x.build(lib).requires_grad_(True)
        p = U(lib).pack_padded_sequence(inp, [2, 4, 1], enforce_sorted=False)
        out, lengths = U(lib).pad_packed_sequence(p, batch_first=True, padding_value=9.0)
        (out * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
        results[lib] = (out.detach().cpu().numpy(), lengths.cpu().numpy(), inp.grad.cpu().numpy())
    for a, b in zip(results[tt], results[torch]):
        np.testing.assert_array_equal(a, b)


def test_pack_sequence_and_unpad():
    seqs = [rand(3, 2), rand(5, 2, seed=1, layout="permuted"), rand(1, 2, seed=2)]
    check(lambda lib, *s: U(lib).pack_sequence(list(s), enforce_sorted=False), *seqs, share=False)
    check(lambda lib, *s: U(lib).pack_sequence([s[1], s[0], s[2]]), *seqs, share=False)
    check(lambda lib, x: U(lib).unpad_sequence(x, lib.tensor([3, 1, 2])), rand(3, 3, 2, layout="sliced"),
          share=False)
    check(lambda lib, x: U(lib).unpad_sequence(x, [3, 1, 2]), rand(3, 3, 2), share=False)   # lengths: a tensor
    check(lambda lib, x: U(lib).unpad_sequence(x, lib.tensor([3, 1]), batch_first=True), rand(2, 3, 2),
          share=False)


def test_packed_sequence_class():
    p = U(tt).pack_padded_sequence(tt.ones(3, 2), [3, 1], enforce_sorted=False)
    assert isinstance(p, tuple) and p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert batch_sizes.dtype == tt.int64 and batch_sizes.device.type == "cpu"
    assert p.to(tt.float64).data.dtype == tt.float64 and p.double().batch_sizes is p.batch_sizes
    assert p.to(tt.float32) is p
    q = U(tt).PackedSequence(data, batch_sizes, tt.tensor([1, 2, 0]))         # unsorted_indices derived
    assert q.unsorted_indices.tolist() == [2, 0, 1]
    assert U(tt).invert_permutation(None) is None
    check(lambda lib: U(lib).PackedSequence(lib.ones(2), None))


@pytest.mark.parametrize("fn", [
    lambda lib: U(lib).pack_padded_sequence(lib.ones(3, 2), [2, 3]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(3, 2), [3, 0]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(3, 2), [3]),
    lambda lib: U(lib).pack_padded_sequence(lib.ones(0, 2), [1, 1]),
    lambda lib: U(lib).pad_packed_sequence(U(lib).pack_padded_sequence(lib.ones(3, 2), [3, 1]), total_length=2),
])
def test_pack_errors(fn):
    check(fn)


# ---- layers on packed sequences ------------------------------------------------------------------------


def _packed_forward(lengths, batch_first=False, with_hidden=None):
    def forward(module, x, *states):
        lib = lib_of(module)
        packed = U(lib).pack_padded_sequence(x, lengths, batch_first=batch_first,
                                             enforce_sorted=lengths == sorted(lengths, reverse=True))
        hx = None if not states else (states[0] if len(states) == 1 else tuple(states))
        out, hidden = module(packed, hx)
        padded, _ = U(lib).pad_packed_sequence(out, batch_first=batch_first)
        return out.data, padded, out.batch_sizes, hidden
    return forward


@pytest.mark.parametrize("lengths", [[5, 3, 3, 1], [2, 5, 1, 5]])
@pytest.mark.parametrize("config", [dict(), dict(num_layers=2, bidirectional=True), dict(batch_first=True)])
@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_layer_on_packed_sequence(name, config, lengths):
    shape = (4, 5, 4) if config.get("batch_first") else (5, 4, 4)
    forward = _packed_forward(lengths, config.get("batch_first", False))
    check_module(make_layer(name, {}, **config), rand(*shape, low=-1, high=1, layout="permuted"), forward=forward)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_layer_on_packed_sequence_with_initial_state(name):
    lengths = [2, 5, 1, 5]
    states = [rand(4, 4, 3, low=-1, high=1, seed=1, layout="sliced")]
    if name == "LSTM":
        states.append(rand(4, 4, 3, low=-1, high=1, seed=2, layout="permuted"))
    check_module(make_layer(name, {}, num_layers=2, bidirectional=True), rand(5, 4, 4, low=-1, high=1), *states,
                 forward=_packed_forward(lengths))


def test_lstm_proj_on_packed_sequence():
    check_module(lambda nn: nn.LSTM(4, 5, proj_size=3, bidirectional=True), rand(5, 3, 4, low=-1, high=1),
                 rand(2, 3, 3, seed=1), rand(2, 3, 5, seed=2), forward=_packed_forward([3, 5, 2]))


def test_packed_hidden_size_error():
    def run(lib):
        p = U(lib).pack_padded_sequence(lib.ones(3, 2, 4), [3, 1])
        return lib.nn.GRU(4, 3)(p, lib.ones(1, 3, 3))
    check(run)


@pytest.mark.parametrize("states", [((1, 3, 3), (1, 2, 3)), ((1, 2, 3), (1, 2, 2))])
def test_packed_lstm_state_size_errors(states):
    def run(lib):
        p = U(lib).pack_padded_sequence(lib.ones(3, 2, 4), [3, 1])
        return lib.nn.LSTM(4, 3)(p, tuple(lib.ones(*s) for s in states))
    # torch fails inside its kernel with an unhelpful message; ours names the bad state (as for padded input)
    error = check(run, msg=False)
    assert isinstance(error, RuntimeError)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[[01]\] size \(1, 2, 3\)"):
        run(tt)
