"""Attention against PyTorch: scaled_dot_product_attention (nn/functional/attention.py), MultiheadAttention
(nn/modules/attention.py) and TransformerEncoderLayer (nn/modules/transformer.py).

sdpa is fuzzed over batch shapes, sequence lengths, memory layouts and masks (none, causal, bool, float with
-inf, rows with every key masked out), comparing values and gradients; dropout is checked by its pattern
(every weight is either dropped or scaled by 1 / (1 - p)). The modules go through `check_module` (torch's
weights copied into ours; outputs, attention weights, input and parameter gradients compared in train and
eval mode, with dropout=0 in train mode since the random numbers differ from torch's), in every
configuration: bias, batch_first, kdim/vdim, add_bias_kv, add_zero_attn, need_weights, per-head weights,
key padding and attention masks, is_causal, unbatched inputs, pre- and post-norm, activations.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module
from parity import P, check, check_grad, inputs, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

FUZZ = settings(max_examples=25, deadline=None)


def F(lib):
    return lib.nn.functional


# ---- scaled_dot_product_attention ------------------------------------------------------------------------


@st.composite
def sdpa_case(draw):
    batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    L, S, E, Ev = (draw(st.integers(1, 4)) for _ in range(4))
    q = draw(inputs(shape=batch + (L, E)))
    k = draw(inputs(shape=batch + (S, E)))
    v = draw(inputs(shape=batch + (S, Ev)))
    kind = draw(st.sampled_from(["none", "causal", "bool", "float"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    mask = None
    if kind == "bool":
        mask = P(rng.random((L, S)) > 0.3)
        if draw(st.booleans()):
            mask.values[0] = False            # a query that may look at no key
    elif kind == "float":
        values = rng.standard_normal((L, S)).astype(np.float32)
        values[rng.random((L, S)) < 0.3] = -np.inf
        mask = P(values)
    scale = draw(st.sampled_from([None, None, 0.5]))
    return q, k, v, mask, kind == "causal", scale


@FUZZ
@given(case=sdpa_case())
def test_sdpa(case):
    q, k, v, mask, causal, scale = case
    fn = lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal,
                                                                       scale=scale)
    # (strides of size-1 dims are arbitrary, and torch's fused kernel picks others than ours: compare the
    # strides when no dim of the output has size 1)
    out_shape = q.values.shape[:-1] + v.values.shape[-1:]
    check(fn, q, k, v, mask, rtol=1e-5, atol=1e-5, strides=1 not in out_shape)
    # the mask is data, not a parameter (torch's fused CPU kernels give no gradient for it)
    # first derivatives only: torch's fused CPU kernel (used for 4-d inputs) has no second derivative.
    # check_grad_strides=False: on size-1 dims the layout of .grad is arbitrary and torch's fused kernel
    # picks another one than ours. test_sdpa_second_derivatives_and_layouts checks both.
    check_grad(fn, q, k, v, mask, name=False, nondiff=(3,), double=False, gradgradcheck=False, rtol=1e-4, atol=1e-5,
               check_grad_strides=False)


def test_sdpa_second_derivatives_and_layouts():
    q, k, v = rand(2, 3, 4, layout="permuted"), rand(2, 5, 4, layout="sliced", seed=1), rand(2, 5, 3, layout="offset",
                                                                                              seed=2)
    for kwargs in ({}, {"is_causal": True}):
        check_grad(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, **kwargs), q, k, v, name=False,
                   rtol=1e-4, atol=1e-5)
    mask = P(np.array([[True] * 5, [False] * 5, [True, False, True, False, True]]))
    check_grad(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, m), q, k, v, mask, name=False,
               nondiff=(3,), rtol=1e-4, atol=1e-5)


def test_sdpa_fully_masked_rows_give_zeros():
    q, k, v = rand(3, 4), rand(5, 4, seed=1), rand(5, 2, seed=2)
    mask = np.ones((3, 5), bool)
    mask[1] = False
    float_mask = np.where(mask, 0.0, -np.inf).astype(np.float32)
    for m in (P(mask), P(float_mask)):
        out = check(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, m), q, k, v, m)
        assert (out[1].cpu().numpy() == 0).all()


def test_sdpa_causal_mask_is_lower_triangular():
    # query i must not depend on keys and values after position i: change them, and rows 0..i stay the same
    q, k, v = tt.randn(5, 4), tt.randn(5, 4), tt.randn(5, 3)
    out = F(tt).scaled_dot_product_attention(q, k, v, is_causal=True)
    k2, v2 = k.clone(), v.clone()
    k2[3:] = 100.0
    v2[3:] = -7.0
    out2 = F(tt).scaled_dot_product_attention(q, k2, v2, is_causal=True)
    np.testing.assert_allclose(out[:3].cpu().numpy(), out2[:3].cpu().numpy(), rtol=1e-6)
    assert not np.allclose(out[3:].cpu().numpy(), out2[3:].cpu().numpy())
    # L != S: the mask is aligned at the top left, as torch's
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, is_causal=True),
          rand(2, 6, 4), rand(2, 3, 4, seed=1), rand(2, 3, 2, seed=2), atol=1e-5)


def test_sdpa_grouped_query_attention_and_broadcasting():
    q, k, v = rand(2, 4, 3, 8), rand(2, 2, 5, 8, seed=1), rand(2, 2, 5, 8, seed=2)
    # (first derivatives: torch's fused CPU kernel has no second derivative)
    check_grad(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v, enable_gqa=True), q, k, v,
               name=False, double=False, gradgradcheck=False, atol=1e-5)
    # key and value broadcast over the batch dims
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q, k, v), rand(2, 4, 3, 8),
          rand(1, 4, 5, 8, seed=1), rand(1, 4, 5, 8, seed=2), atol=1e-5)
    # a 4-d mask, one per batch entry and head
    check(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, m), rand(2, 4, 3, 8),
          rand(2, 4, 5, 8, seed=1), rand(2, 4, 5, 8, seed=2), rand(2, 4, 3, 5, seed=3), atol=1e-5)


def test_sdpa_dtypes():
    q, k, v = rand(2, 3, 4), rand(2, 5, 4, seed=1), rand(2, 5, 3, seed=2)
    check(lambda lib, q, k, v: F(lib).scaled_dot_product_attention(q.double(), k.double(), v.double()), q, k, v)
    # a float32 mask is allowed with a float64 query
    check(lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q.double(), k.double(), v.double(), m),
          q, k, v, rand(3, 5, seed=3))


def test_sdpa_dropout_pattern():
    # with v = identity the output IS the weights: each either dropped (0) or scaled by 1 / (1 - p)
    tt.manual_seed(0)
    q, k = tt.randn(4, 64, 8), tt.randn(4, 64, 8)
    v = tt.eye(64).expand(4, 64, 64)
    plain = F(tt).scaled_dot_product_attention(q, k, v)
    dropped = F(tt).scaled_dot_product_attention(q, k, v, dropout_p=0.25)
    kept = dropped.cpu().numpy() != 0
    np.testing.assert_allclose(dropped.cpu().numpy()[kept], plain.cpu().numpy()[kept] / 0.75, rtol=1e-5)
    assert abs((~kept).mean() - 0.25) < 0.03                 # 16384 draws: the rate is within 0.03 of p
    assert (F(tt).scaled_dot_product_attention(q, k, v, dropout_p=1.0).cpu().numpy() == 0).all()


Q = rand(2, 3, 4)
SDPA_ERRORS = {
    "mask and is_causal": lambda lib, q: F(lib).scaled_dot_product_attention(q, q, q, attn_mask=lib.ones(3, 3) > 0,
                                                                              is_causal=True),
    "dtypes differ": lambda lib, q: F(lib).scaled_dot_product_attention(q, q.double(), q),
    "1-d": lambda lib, q: F(lib).scaled_dot_product_attention(q[0, 0], q[0, 0], q[0, 0]),
    "integer mask": lambda lib, q: F(lib).scaled_dot_product_attention(q, q, q, attn_mask=lib.ones(3, 3, dtype=lib.long)),
    "float64 mask": lambda lib, q: F(lib).scaled_dot_product_attention(q, q, q, attn_mask=lib.ones(3, 3).double()),
    "dropout > 1": lambda lib, q: F(lib).scaled_dot_product_attention(q, q, q, dropout_p=1.5),
    "gqa heads": lambda lib, q: F(lib).scaled_dot_product_attention(lib.ones(2, 4, 3, 8), lib.ones(2, 3, 5, 8),
                                                                     lib.ones(2, 3, 5, 8), enable_gqa=True),
    "mask shape": lambda lib, q: F(lib).scaled_dot_product_attention(q, q, q, attn_mask=lib.ones(3, 2)),
    "batch mismatch": lambda lib, q: F(lib).scaled_dot_product_attention(q, lib.ones(3, 3, 4), lib.ones(3, 3, 4)),
}


@pytest.mark.parametrize("name", list(SDPA_ERRORS))
def test_sdpa_errors(name):
    with pytest.raises(Exception):
        SDPA_ERRORS[name](torch, Q.build(torch))
    check(SDPA_ERRORS[name], Q)


# ---- MultiheadAttention ----------------------------------------------------------------------------------


def mha_forward(**kwargs):
    """A `forward` for check_module: self-attention when called with one input, else (query, key, value)."""
    def call(module, *args):
        query, key, value = (args[0],) * 3 if len(args) == 1 else args[:3]
        return module(query, key, value, **kwargs)
    return call


def _mask(lib, values):
    return lib.tensor(values)


CAUSAL_BOOL = ~np.tril(np.ones((5, 5), bool))                 # True = masked out (MHA's convention)
PADDING = np.array([[False] * 5, [False, False, False, True, True], [False] * 4 + [True]])


@pytest.mark.parametrize("config", [
    dict(),
    dict(bias=False),
    dict(batch_first=True),
    dict(kdim=3, vdim=6),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(add_bias_kv=True, add_zero_attn=True, batch_first=True),
])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention(config, need_weights):
    x = rand(5, 3, 8, layout="permuted")
    if "kdim" in config:
        inputs_ = (x, rand(4, 3, 3, seed=1, layout="sliced"), rand(4, 3, 6, seed=2))
    else:
        inputs_ = (x,)
    check_module(lambda nn: nn.MultiheadAttention(8, 2, **config), *inputs_,
                 forward=mha_forward(need_weights=need_weights))


@pytest.mark.parametrize("masks", ["bool attn_mask", "float attn_mask", "3-d attn_mask", "key_padding_mask",
                                   "both", "causal"])
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_masks(masks, need_weights):
    rng = np.random.default_rng(0)
    kwargs = {}
    if masks in ("bool attn_mask", "both", "causal"):
        kwargs["attn_mask"] = CAUSAL_BOOL
    if masks == "float attn_mask":
        kwargs["attn_mask"] = np.where(rng.random((5, 5)) < 0.3, -np.inf, rng.standard_normal((5, 5))).astype(np.float32)
        kwargs["attn_mask"][:, 0] = 0.0                              # every query keeps one key
    if masks == "3-d attn_mask":
        kwargs["attn_mask"] = rng.random((3 * 2, 5, 5)) < 0.3
        kwargs["attn_mask"][:, :, 0] = False
    if masks in ("key_padding_mask", "both"):
        kwargs["key_padding_mask"] = PADDING
    is_causal = masks == "causal"

    def forward(module, x):
        lib = torch if isinstance(x, torch.Tensor) else tt
        masks_ = {name: lib.tensor(value) for name, value in kwargs.items()}
        return module(x, x, x, need_weights=need_weights, is_causal=is_causal, **masks_)

    check_module(lambda nn: nn.MultiheadAttention(8, 2), rand(5, 3, 8, layout="sliced"), forward=forward)


def test_multihead_attention_per_head_weights_and_unbatched():
    check_module(lambda nn: nn.MultiheadAttention(8, 4), rand(5, 3, 8), forward=mha_forward(average_attn_weights=False))
    for need_weights in (True, False):
        check_module(lambda nn: nn.MultiheadAttention(8, 2, batch_first=True), rand(5, 8, layout="permuted"),
                     forward=mha_forward(need_weights=need_weights))

    def forward(module, x):
        lib = torch if isinstance(x, torch.Tensor) else tt
        return module(x, x, x, key_padding_mask=lib.tensor(PADDING[1]))
    check_module(lambda nn: nn.MultiheadAttention(8, 2), rand(5, 8), forward=forward)


def test_multihead_attention_cross_attention():
    # query from one sequence, key and value from another (three separate projections of in_proj_weight)
    q, kv = rand(4, 2, 8), rand(6, 2, 8, seed=1, layout="permuted")
    check_module(lambda nn: nn.MultiheadAttention(8, 2), q, kv, kv, forward=mha_forward())


def test_multihead_attention_parameters_init_and_repr():
    for config in (dict(), dict(bias=False), dict(kdim=3, vdim=5), dict(add_bias_kv=True)):
        torch.manual_seed(0)
        theirs = torch.nn.MultiheadAttention(8, 2, **config)
        tt.manual_seed(0)
        ours = tt.nn.MultiheadAttention(8, 2, **config)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
               [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        for name in ("embed_dim", "kdim", "vdim", "num_heads", "head_dim", "dropout", "batch_first",
                     "_qkv_same_embed_dim", "add_zero_attn"):
            assert getattr(ours, name) == getattr(theirs, name), name
    ours = tt.nn.MultiheadAttention(64, 4)
    assert (ours.in_proj_bias.detach().cpu().numpy() == 0).all() and (ours.out_proj.bias.detach().cpu().numpy() == 0).all()
    bound = math.sqrt(6 / (64 + 3 * 64))                         # xavier_uniform_ of the (3E, E) in_proj_weight
    w = ours.in_proj_weight.detach().cpu().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert type(ours.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(ours.out_proj, tt.nn.Linear)


def test_multihead_attention_dropout():
    tt.manual_seed(0)
    mha = tt.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = tt.randn(6, 2, 8)
    mha.eval()
    a, wa = mha(x, x, x)
    b, wb = mha(x, x, x)
    np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())      # eval: no dropout
    mha.train()
    c, wc = mha(x, x, x, average_attn_weights=False)
    # train: each attention weight either dropped or scaled by 2
    plain = mha.eval()(x, x, x, average_attn_weights=False)[1].detach().cpu().numpy()
    kept = wc.detach().cpu().numpy() != 0
    assert 0 < kept.mean() < 1
    np.testing.assert_allclose(wc.detach().cpu().numpy()[kept], 2 * plain[kept], rtol=1e-5)


MHA_ERRORS = {
    "not divisible": lambda lib: lib.nn.MultiheadAttention(8, 3),
    "zero heads": lambda lib: lib.nn.MultiheadAttention(8, 0),
    "causal without mask": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 3, 8),
                                                                       lib.ones(5, 3, 8), is_causal=True),
    "2-d mask shape": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 3, 8),
                                                                  lib.ones(5, 3, 8), attn_mask=lib.ones(4, 5) > 0),
    "3-d mask shape": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 3, 8),
                                                                  lib.ones(5, 3, 8), attn_mask=lib.ones(3, 5, 5) > 0),
    "integer mask": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 3, 8),
                                                                lib.ones(5, 3, 8), attn_mask=lib.ones(5, 5).long()),
    "padding mask shape": lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8), key_padding_mask=lib.ones(3, 4) > 0),
    "embed dim": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 6), lib.ones(5, 3, 6), lib.ones(5, 3, 6)),
    "key and value shapes": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 3, 8),
                                                                        lib.ones(4, 3, 8)),
    "kdim key and value lengths": lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=3, vdim=3)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 3), lib.ones(4, 3, 3)),
    "key dims": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 8), lib.ones(5, 8)),
    "1-d query": lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(8), lib.ones(8), lib.ones(8)),
}


@pytest.mark.parametrize("name", list(MHA_ERRORS))
def test_multihead_attention_errors(name):
    with pytest.raises(Exception):
        MHA_ERRORS[name](torch)
    check(MHA_ERRORS[name])


# ---- TransformerEncoderLayer -----------------------------------------------------------------------------


def _gelu_module(nn):
    return nn.GELU()


@pytest.mark.parametrize("config", [
    dict(),
    dict(norm_first=True),
    dict(activation="gelu"),
    dict(activation="gelu_module"),
    dict(activation="tanh_function"),
    dict(batch_first=True, norm_first=True),
    dict(bias=False),
    dict(layer_norm_eps=1e-3),
])
def test_transformer_encoder_layer(config):
    def make(nn):
        options = dict(config)
        if options.get("activation") == "gelu_module":
            options["activation"] = nn.GELU()
        if options.get("activation") == "tanh_function":
            options["activation"] = torch.tanh if nn is torch.nn else tt.tanh
        return nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **options)
    check_module(make, rand(5, 3, 8, layout="permuted"))


@pytest.mark.parametrize("masks", ["src_mask", "src_key_padding_mask", "both", "causal"])
def test_transformer_encoder_layer_masks(masks):
    def forward(module, x):
        lib = torch if isinstance(x, torch.Tensor) else tt
        kwargs = {}
        if masks in ("src_mask", "both", "causal"):
            kwargs["src_mask"] = lib.tensor(CAUSAL_BOOL)
        if masks in ("src_key_padding_mask", "both"):
            kwargs["src_key_padding_mask"] = lib.tensor(PADDING)
        return module(x, is_causal=masks == "causal", **kwargs)
    check_module(lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True),
                 rand(3, 5, 8, layout="sliced"), forward=forward)


def test_transformer_encoder_layer_unbatched_and_eval_with_dropout():
    check_module(lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0), rand(5, 8))
    # in eval mode dropout is off: the same numbers as torch whatever p is
    check_module(lambda nn: nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.3), rand(5, 3, 8),
                 train=False)


def test_transformer_encoder_layer_state_dict_and_repr():
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation=torch.nn.GELU())
    ours = tt.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, activation=tt.nn.GELU())
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.norm_first is False and ours.self_attn.batch_first is False
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not swish"):
        tt.nn.TransformerEncoderLayer(8, 2, activation="swish")


def test_transformer_encoder_layer_dropout_in_training():
    tt.manual_seed(0)
    layer = tt.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.5)
    x = tt.randn(5, 3, 8)
    a, b = layer(x), layer(x)
    assert not np.allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy())      # random: two draws differ
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().cpu().numpy(), layer(x).detach().cpu().numpy())


# ---- the fused CPU kernel: _scaled_dot_product_flash_attention_for_cpu ----------------------------------
# PyTorch's CPU backend choice (sdp_utils_cpp.cpp `use_flash_attention_cpp`) runs the fused op for 4-d
# inputs without dropout, ...; everything else goes to the math path, whose grad_fn is its last piece.

def _grad_fn_name(lib, q, k, v, **kwargs):
    q, k, v = (lib.tensor(a, requires_grad=True) for a in (q, k, v))
    if isinstance(kwargs.get("attn_mask"), np.ndarray):
        kwargs["attn_mask"] = lib.tensor(kwargs["attn_mask"])
    return type(F(lib).scaled_dot_product_attention(q, k, v, **kwargs).grad_fn).__name__


_r = lambda *shape: np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
_bool_mask = np.random.default_rng(0).random((3, 5)) > 0.3
ROUTES = {    # name: (q, k, v, kwargs)
    "plain": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {}),
    "causal": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"is_causal": True}),
    "bool_mask_2d": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"attn_mask": _bool_mask}),
    "float_mask_4d": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"attn_mask": _r(2, 1, 3, 5)}),
    "float_mask_3d": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"attn_mask": _r(2, 3, 5)}),
    "scale": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"scale": 0.3}),
    "dropout": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"dropout_p": 0.5}),
    "3d": (_r(2, 3, 8), _r(2, 5, 8), _r(2, 5, 8), {}),
    "5d": (_r(2, 2, 2, 3, 8), _r(2, 2, 2, 5, 8), _r(2, 2, 2, 5, 8), {}),
    "value_dim_differs": (_r(2, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 6), {}),
    "batch_broadcast": (_r(1, 2, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {}),
    "heads_broadcast": (_r(2, 1, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {}),
    "gqa": (_r(2, 4, 3, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {"enable_gqa": True}),
    "empty_query": (_r(2, 2, 0, 8), _r(2, 2, 5, 8), _r(2, 2, 5, 8), {}),
    "float64": (_r(2, 2, 3, 8).astype(np.float64), _r(2, 2, 5, 8).astype(np.float64),
                _r(2, 2, 5, 8).astype(np.float64), {"attn_mask": _r(3, 5)}),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_sdpa_picks_the_kernel_pytorch_picks(route):
    q, k, v, kwargs = ROUTES[route]
    expected = _grad_fn_name(torch, q, k, v, **kwargs)
    got = _grad_fn_name(tt, q, k, v, **kwargs)
    if route == "empty_query":    # math path; torch's ends its empty result in an add (AddBackward0), ours not
        assert got != "ScaledDotProductFlashAttentionForCpuBackward0"
    elif tt.ones(1).device.type == "cuda":   # on a GPU the fused CPU op is never picked: the math path runs
        assert got != "ScaledDotProductFlashAttentionForCpuBackward0"
    else:
        assert got == expected
    fused = route not in ("dropout", "3d", "5d", "value_dim_differs", "batch_broadcast", "heads_broadcast",
                          "empty_query", "float_mask_3d")
    assert (expected == "ScaledDotProductFlashAttentionForCpuBackward0") == fused   # the table above is right


def test_sdpa_picks_the_math_path_for_a_last_dim_with_steps():
    q = P(_r(2, 2, 3, 16)[..., ::2].copy(), layout="sliced")      # stride(-1) == 2: not for the fused kernel
    k, v = rand(2, 2, 5, 8, seed=1), rand(2, 2, 5, 8, seed=2)
    names = {lib: type(F(lib).scaled_dot_product_attention(q.build(lib).requires_grad_(), k.build(lib),
                                                             v.build(lib)).grad_fn).__name__ for lib in (tt, torch)}
    assert names[tt] == names[torch] == "UnsafeViewBackward0"


FUSED_LAYOUTS = [("contiguous", "contiguous", "contiguous"), ("permuted", "offset", "contiguous"),
                 ("offset", "contiguous", "offset"), ("expanded", "offset", "permuted")]


@pytest.mark.parametrize("layouts", FUSED_LAYOUTS)
@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"scale": 0.5}, {"mask": "bool"}, {"mask": "float"}])
def test_sdpa_fused_values_gradients_and_strides(layouts, kwargs):
    # the permuted layout keeps stride(-1) == 1 only for some permutations: grad_fn names are compared too,
    # so the route is checked either way
    kwargs = dict(kwargs)
    mask = kwargs.pop("mask", None)
    q = P(_r(2, 3, 4, 8), layout=layouts[0], seed=3)
    k = P(_r(2, 3, 6, 8), layout=layouts[1], seed=4)
    v = P(_r(2, 3, 6, 8), layout=layouts[2], seed=5)
    m = {None: None, "bool": P(np.random.default_rng(1).random((4, 6)) > 0.4),
         "float": P(_r(2, 1, 4, 6))}[mask]
    fn = lambda lib, q, k, v, m: F(lib).scaled_dot_product_attention(q, k, v, attn_mask=m, **kwargs)
    check(fn, q, k, v, m, rtol=1e-5, atol=1e-5)
    on_cpu = tt.ones(1).device.type == "cpu"      # on a GPU the math path runs: its nodes are not torch cpu's
    check_grad(fn, q, k, v, m, nondiff=(3,), double=False, gradgradcheck=False, rtol=1e-4, atol=1e-5,
               name=on_cpu)


def test_flash_attention_op_outputs_and_strides():
    # output allocated like the query, logsumexp as (B, L, H) then transposed; as PyTorch's kernel
    for layout in ("contiguous", "permuted", "offset"):
        q, k, v = P(_r(2, 3, 4, 8), layout=layout), rand(2, 3, 6, 8, seed=1), rand(2, 3, 6, 8, seed=2)
        check(lambda lib, q, k, v: lib._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True),
              q, k, v, rtol=1e-5, atol=1e-5)
    # a row with every key masked out: output 0, logsumexp 0, gradient 0
    mask = np.zeros((4, 6), np.float32)
    mask[1] = -np.inf
    fn = lambda lib, q, k, v, m: lib._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=m)[0]
    check(lambda lib, *a: lib._scaled_dot_product_flash_attention_for_cpu(*a[:3], attn_mask=a[3]),
          rand(2, 3, 4, 8), rand(2, 3, 6, 8, seed=1), rand(2, 3, 6, 8, seed=2), P(mask), atol=1e-5)
    check_grad(fn, rand(2, 3, 4, 8), rand(2, 3, 6, 8, seed=1), rand(2, 3, 6, 8, seed=2), P(mask), nondiff=(3,),
               double=False, gradgradcheck=False, rtol=1e-4, atol=1e-5)


def test_flash_attention_has_no_second_derivative():
    if tt.ones(1).device.type == "cuda":     # the math path runs on a GPU, and it differentiates twice
        q = tt.tensor(_r(2, 2, 3, 8), requires_grad=True)
        (g,) = tt.autograd.grad(F(tt).scaled_dot_product_attention(q, q, q).sum(), q, create_graph=True)
        g.sum().backward()
        assert q.grad is not None and q.grad.shape == q.shape
        return
    messages = {}
    for lib in (tt, torch):
        q = lib.tensor(_r(2, 2, 3, 8), requires_grad=True)
        out = F(lib).scaled_dot_product_attention(q, q, q)
        (g,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        with pytest.raises(RuntimeError) as e:
            g.sum().backward()
        messages[lib] = str(e.value)
    assert messages[tt] == messages[torch]


@pytest.mark.parametrize("name", ["dropout", "3d", "head_size", "bool_mask"])
def test_flash_attention_op_errors(name):
    q, k, v = rand(2, 2, 3, 8), rand(2, 2, 5, 8, seed=1), rand(2, 2, 5, 8, seed=2)
    op = lambda lib: lib._scaled_dot_product_flash_attention_for_cpu
    if name == "dropout":
        e = check(lambda lib, q, k, v: op(lib)(q, k, v, 0.3), q, k, v)
    elif name == "3d":
        e = check(lambda lib, q, k, v: op(lib)(q[0], k[0], v[0]), q, k, v)
    elif name == "head_size":
        e = check(lambda lib, q, k, v: op(lib)(q, k, v[..., :4]), q, k, v)
    else:
        e = check(lambda lib, q, k, v, m: op(lib)(q, k, v, attn_mask=m), q, k, v, P(np.ones((3, 5), bool)))
    assert isinstance(e, RuntimeError)
