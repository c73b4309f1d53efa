"""The Transformer family against PyTorch (nn/modules/transformer.py): TransformerDecoderLayer,
TransformerEncoder, TransformerDecoder, Transformer and generate_square_subsequent_mask
(TransformerEncoderLayer and MultiheadAttention are in test_nn_attention.py).

The modules go through `check_module`: torch's weights are copied into ours (so the state_dict keys must be
torch's), then outputs and the gradients of the inputs and of every parameter are compared, in train mode
(dropout=0, as the random numbers differ from torch's) and eval mode, on non-contiguous inputs, with
batch_first and norm_first both ways, bool and float masks, key padding masks and the causal hints. Also:
PyTorch's warnings (mismatched mask types, the nested-tensor fast path it cannot use), its errors, and the
one place where its inference fast path shows (padded positions of a TransformerEncoder come out 0).
"""

import warnings

import numpy as np
import pytest
import torch

import teachtorch as tt
from nn_parity import check_module, copy_weights
from parity import P, check, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

SMALL = dict(dim_feedforward=16, dropout=0.0)

CAUSAL4 = ~np.tril(np.ones((4, 4), bool))                     # True = masked out
CAUSAL5 = ~np.tril(np.ones((5, 5), bool))
TGT_PADDING = np.array([[False] * 4, [False, False, True, True], [False, False, False, True]])
SRC_PADDING = np.array([[False] * 5, [False, False, False, True, True], [False] * 4 + [True]])


def lib_of(x):
    return torch if isinstance(x, torch.Tensor) else tt


def float_mask(values):
    """A float mask: 0 where kept, -inf where masked out (True in the bool mask)."""
    return np.where(values, -np.inf, 0.0).astype(np.float32)


def quiet(make):
    """`make`, without the enable_nested_tensor warning both libraries give for most encoders."""
    def build(nn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(nn)
    return build


# ---- TransformerDecoderLayer -----------------------------------------------------------------------------


@pytest.mark.parametrize("config", [
    dict(),
    dict(norm_first=True),
    dict(batch_first=True),
    dict(batch_first=True, norm_first=True),
    dict(activation="gelu"),
    dict(activation="gelu_module"),
    dict(activation="tanh_function"),
    dict(bias=False),
    dict(layer_norm_eps=1e-3),
])
def test_transformer_decoder_layer(config):
    def make(nn):
        options = dict(config)
        if options.get("activation") == "gelu_module":
            options["activation"] = nn.GELU()
        if options.get("activation") == "tanh_function":
            options["activation"] = torch.tanh if nn is torch.nn else tt.tanh
        return nn.TransformerDecoderLayer(8, 2, **SMALL, **options)
    if config.get("batch_first"):
        tgt, memory = rand(3, 4, 8, layout="permuted"), rand(3, 5, 8, seed=1, layout="sliced")
    else:
        tgt, memory = rand(4, 3, 8, layout="offset"), rand(5, 3, 8, seed=1, layout="permuted")
    check_module(make, tgt, memory)


@pytest.mark.parametrize("masks", ["bool tgt_mask", "float tgt_mask", "tgt_is_causal", "tgt_key_padding_mask",
                                   "memory_mask", "memory_key_padding_mask", "all", "all float"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_decoder_layer_masks(masks, norm_first):
    as_float = masks == "all float"

    def forward(module, tgt, memory):
        lib = lib_of(tgt)
        convert = (lambda m: lib.tensor(float_mask(m))) if (as_float or masks == "float tgt_mask") else lib.tensor
        kwargs = {}
        if masks in ("bool tgt_mask", "float tgt_mask", "tgt_is_causal", "all", "all float"):
            kwargs["tgt_mask"] = convert(CAUSAL4)
        if masks in ("tgt_key_padding_mask", "all", "all float"):
            kwargs["tgt_key_padding_mask"] = convert(TGT_PADDING)
        if masks in ("memory_mask", "all", "all float"):
            kwargs["memory_mask"] = convert(np.arange(5)[None, :] > np.arange(4)[:, None] + 1)
        if masks in ("memory_key_padding_mask", "all", "all float"):
            kwargs["memory_key_padding_mask"] = convert(SRC_PADDING)
        return module(tgt, memory, tgt_is_causal=masks == "tgt_is_causal", **kwargs)
    check_module(lambda nn: nn.TransformerDecoderLayer(8, 2, **SMALL, batch_first=True, norm_first=norm_first),
                 rand(3, 4, 8, layout="sliced"), rand(3, 5, 8, seed=1, layout="permuted"), forward=forward)


def test_transformer_decoder_layer_unbatched_and_eval_with_dropout():
    check_module(lambda nn: nn.TransformerDecoderLayer(8, 2, **SMALL), rand(4, 8, layout="permuted"),
                 rand(5, 8, seed=1))
    # in eval mode dropout is off: the same numbers as torch whatever p is
    check_module(lambda nn: nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.3), rand(4, 3, 8),
                 rand(5, 3, 8, seed=1), train=False)


def test_transformer_decoder_layer_dropout_in_training():
    tt.manual_seed(0)
    layer = tt.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.5)
    tgt, memory = tt.randn(4, 3, 8), tt.randn(5, 3, 8)
    assert not np.allclose(layer(tgt, memory).detach().cpu().numpy(), layer(tgt, memory).detach().cpu().numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(tgt, memory).detach().cpu().numpy(),
                                  layer(tgt, memory).detach().cpu().numpy())


# ---- TransformerEncoder and TransformerDecoder ------------------------------------------------------------


@pytest.mark.parametrize("config", [
    dict(),
    dict(norm=True),
    dict(norm=True, norm_first=True),
    dict(norm=True, batch_first=True),
    dict(num_layers=1, batch_first=True, norm_first=True),
])
def test_transformer_encoder(config):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, **SMALL, batch_first=config.get("batch_first", False),
                                           norm_first=config.get("norm_first", False))
        norm = nn.LayerNorm(8) if config.get("norm") else None
        return nn.TransformerEncoder(layer, config.get("num_layers", 2), norm, enable_nested_tensor=False)
    shape = (3, 5, 8) if config.get("batch_first") else (5, 3, 8)
    check_module(make, rand(*shape, layout="permuted"))


@pytest.mark.parametrize("masks", ["bool mask", "float mask", "causal mask detected", "is_causal", "padding",
                                   "float padding", "both"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_masks(masks, batch_first):
    def forward(module, x, mask, padding):
        lib = lib_of(x)
        kwargs = {}
        if masks == "bool mask" or masks == "both":
            kwargs["mask"] = mask                                       # a non-contiguous bool mask
        if masks == "float mask":
            kwargs["mask"] = lib.tensor(float_mask(CAUSAL5)) + lib.tensor(np.float32(0.5))
        if masks in ("causal mask detected", "is_causal"):
            kwargs["mask"] = lib.nn.Transformer.generate_square_subsequent_mask(5)
        if masks in ("padding", "both"):
            kwargs["src_key_padding_mask"] = padding
        if masks == "float padding":
            kwargs["src_key_padding_mask"] = lib.tensor(float_mask(SRC_PADDING))
        return module(x, is_causal=True if masks == "is_causal" else None, **kwargs)

    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, **SMALL, batch_first=batch_first)
        return nn.TransformerEncoder(layer, 2, nn.LayerNorm(8), enable_nested_tensor=False)
    x = rand(3, 5, 8, layout="sliced") if batch_first else rand(5, 3, 8, layout="offset")
    check_module(make, x, P(CAUSAL5, "permuted"), P(SRC_PADDING, "sliced"), forward=forward)


@pytest.mark.parametrize("config", [dict(), dict(norm=True, batch_first=True), dict(norm=True, norm_first=True)])
@pytest.mark.parametrize("masks", ["none", "causal mask detected", "tgt_is_causal", "all"])
def test_transformer_decoder(config, masks):
    batch_first = config.get("batch_first", False)

    def forward(module, tgt, memory):
        lib = lib_of(tgt)
        kwargs = {}
        if masks in ("causal mask detected", "tgt_is_causal", "all"):
            kwargs["tgt_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(4)
        if masks == "all":
            kwargs.update(tgt_key_padding_mask=lib.tensor(TGT_PADDING), memory_key_padding_mask=lib.tensor(SRC_PADDING),
                          memory_mask=lib.tensor(np.arange(5)[None, :] > np.arange(4)[:, None] + 1))
        return module(tgt, memory, tgt_is_causal=True if masks == "tgt_is_causal" else None, **kwargs)

    def make(nn):
        layer = nn.TransformerDecoderLayer(8, 2, **SMALL, batch_first=batch_first,
                                           norm_first=config.get("norm_first", False))
        return nn.TransformerDecoder(layer, 2, nn.LayerNorm(8) if config.get("norm") else None)
    if batch_first:
        tgt, memory = rand(3, 4, 8, layout="permuted"), rand(3, 5, 8, seed=1, layout="expanded")
    else:
        # (not an expanded tgt: rows that are constant along the features make LayerNorm divide rounding noise
        # by sqrt(eps))
        tgt, memory = rand(4, 3, 8, layout="sliced"), rand(5, 3, 8, seed=1, layout="expanded")
    check_module(make, tgt, memory, forward=forward, atol=1e-4)


def test_transformer_encoder_padded_positions_in_inference():
    """In eval mode without autograd PyTorch packs the batch into a nested tensor (no padding), runs it, and
    pads the result with zeros: the padded positions come out 0 (before the final norm). With a gradient, or
    a mask too, or padding that is not all at the end, the padded positions are computed like the others."""
    x = np.random.default_rng(0).standard_normal((3, 5, 8)).astype(np.float32)
    left_aligned = SRC_PADDING
    not_left_aligned = np.array([[False] * 5, [False, True, False, False, False], [False] * 4 + [True]])
    for padding in (left_aligned, not_left_aligned):
        for grad in (False, True):
            for mask in (None, CAUSAL5):
                for norm in (False, True):
                    torch.manual_seed(0)
                    theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                                         2, torch.nn.LayerNorm(8) if norm else None)
                    if norm:
                        with torch.no_grad():           # a final norm with a bias: padded rows come out as it
                            theirs.norm.bias.copy_(torch.arange(8.0))
                    ours = tt.nn.TransformerEncoder(tt.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2,
                                                    tt.nn.LayerNorm(8) if norm else None)
                    copy_weights(ours, theirs)
                    results = []
                    for lib, module in ((torch, theirs), (tt, ours)):
                        module.eval()
                        kwargs = dict(src_key_padding_mask=lib.tensor(padding))
                        if mask is not None:
                            kwargs["mask"] = lib.tensor(mask)
                        if grad:
                            out = module(lib.tensor(x), **kwargs)
                        else:
                            with lib.no_grad():
                                out = module(lib.tensor(x), **kwargs)
                        results.append(out.detach().cpu().numpy())
                    np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-5)
                    packed = padding is left_aligned and not grad and mask is None
                    assert (results[1][1, 3:] == (np.arange(8.0) if norm else 0)).all() == packed
    # the check is not vacuous: with a gradient the padded positions are not 0
    assert np.abs(results[0][1, 4]).max() > 0.1


# ---- Transformer ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [
    dict(),
    dict(batch_first=True),
    dict(norm_first=True),
    dict(batch_first=True, norm_first=True, activation="gelu"),
    dict(activation="gelu_module", layer_norm_eps=1e-3),
    dict(bias=False),
    dict(num_encoder_layers=1, num_decoder_layers=3),
])
def test_transformer(config):
    def make(nn):
        options = dict(config)
        if options.get("activation") == "gelu_module":
            options["activation"] = nn.GELU()
        options.setdefault("num_encoder_layers", 2)
        options.setdefault("num_decoder_layers", 2)
        return nn.Transformer(8, 2, **SMALL, **options)
    if config.get("batch_first"):
        src, tgt = rand(3, 5, 8, layout="permuted"), rand(3, 4, 8, seed=1, layout="sliced")
    else:
        src, tgt = rand(5, 3, 8, layout="sliced"), rand(4, 3, 8, seed=1, layout="permuted")
    check_module(quiet(make), src, tgt)


@pytest.mark.parametrize("masks", ["causal", "tgt_is_causal", "padding", "all bool", "all float"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_masks(masks, batch_first):
    def forward(module, src, tgt):
        lib = lib_of(src)
        convert = (lambda m: lib.tensor(float_mask(m))) if masks == "all float" else lib.tensor
        kwargs = {}
        if masks in ("causal", "tgt_is_causal"):
            kwargs["tgt_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(4)
        if masks == "tgt_is_causal":
            kwargs["tgt_is_causal"] = True
        if masks in ("padding", "all bool", "all float"):
            kwargs.update(src_key_padding_mask=convert(SRC_PADDING), tgt_key_padding_mask=convert(TGT_PADDING),
                          memory_key_padding_mask=convert(SRC_PADDING))
        if masks in ("all bool", "all float"):
            kwargs.update(src_mask=convert(CAUSAL5), tgt_mask=convert(CAUSAL4),
                          memory_mask=convert(np.arange(5)[None, :] > np.arange(4)[:, None] + 1))
        return module(src, tgt, **kwargs)
    if batch_first:
        src, tgt = rand(3, 5, 8, layout="offset"), rand(3, 4, 8, seed=1, layout="permuted")
    else:
        src, tgt = rand(5, 3, 8, layout="permuted"), rand(4, 3, 8, seed=1, layout="sliced")
    check_module(quiet(lambda nn: nn.Transformer(8, 2, 2, 2, **SMALL, batch_first=batch_first)), src, tgt,
                 forward=forward)


def test_transformer_unbatched_and_eval_with_dropout():
    check_module(quiet(lambda nn: nn.Transformer(8, 2, 1, 1, **SMALL)), rand(5, 8, layout="permuted"),
                 rand(4, 8, seed=1))
    check_module(quiet(lambda nn: nn.Transformer(8, 2, 2, 2, dim_feedforward=16, dropout=0.3, batch_first=True)),
                 rand(3, 5, 8), rand(3, 4, 8, seed=1, layout="sliced"), train=False)


def test_decoder_layer_copies_lose_an_activation_module():
    """PyTorch's TransformerDecoderLayer.__setstate__ (which copy.deepcopy calls) looks for `activation` in
    the instance dict, where a module is not: a COPY of a decoder layer built with nn.GELU() runs relu, and
    so do all the layers of a TransformerDecoder. teachtorch keeps this, so the same program gives the same
    numbers (test_transformer checks the whole model with a GELU module)."""
    import copy
    for lib in (tt, torch):
        layer = lib.nn.TransformerDecoderLayer(8, 2, 16, activation=lib.nn.GELU())
        assert isinstance(layer.activation, lib.nn.GELU)
        assert copy.deepcopy(layer).activation is lib.nn.functional.relu
        decoder = lib.nn.TransformerDecoder(layer, 2)
        assert all(d.activation is lib.nn.functional.relu for d in decoder.layers)
        # the encoder layer's __setstate__ asks hasattr, which finds the module
        encoder_layer = lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.GELU())
        assert isinstance(copy.deepcopy(encoder_layer).activation, lib.nn.GELU)
    check_module(lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, **SMALL, activation=nn.GELU()), 2),
                 rand(4, 3, 8), rand(5, 3, 8, seed=1, layout="permuted"))


def test_transformer_custom_encoder_and_decoder():
    def make(nn):
        encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, **SMALL, norm_first=True), 1,
                                        enable_nested_tensor=False)
        decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, **SMALL), 2, nn.LayerNorm(8))
        return nn.Transformer(8, 2, custom_encoder=encoder, custom_decoder=decoder)
    check_module(make, rand(5, 3, 8, layout="permuted"), rand(4, 3, 8, seed=1))
    ours = make(tt.nn)
    assert len(ours.encoder.layers) == 1 and ours.encoder.norm is None and len(ours.decoder.layers) == 2


def test_transformer_state_dict_repr_and_attributes():
    for make in (lambda nn: nn.Transformer(8, 2, 2, 1, 16),
                 lambda nn: nn.Transformer(8, 2, 1, 2, 16, bias=False, batch_first=True, norm_first=True),
                 lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, activation="gelu"), 3),
                 lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8))):
        theirs, ours = quiet(make)(torch.nn), quiet(make)(tt.nn)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
               [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        # a torch state_dict loads as is
        ours.load_state_dict({k: tt.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
        for key, value in theirs.state_dict().items():
            np.testing.assert_array_equal(ours.state_dict()[key].cpu().numpy(), value.numpy())
    theirs, ours = quiet(lambda nn: nn.Transformer(8, 2, 2, 2, 16, batch_first=True))(torch.nn), \
        quiet(lambda nn: nn.Transformer(8, 2, 2, 2, 16, batch_first=True))(tt.nn)
    for name in ("d_model", "nhead", "batch_first"):
        assert getattr(ours, name) == getattr(theirs, name)
    for name in ("num_layers", "enable_nested_tensor", "use_nested_tensor", "mask_check"):
        assert getattr(ours.encoder, name) == getattr(theirs.encoder, name), name
    assert ours.decoder.num_layers == theirs.decoder.num_layers == 2
    for a, b in ((ours.encoder.layers[0], theirs.encoder.layers[0]),):
        assert a.activation_relu_or_gelu == b.activation_relu_or_gelu
    # the layers are copies: separate parameters that start equal
    layers = ours.encoder.layers
    assert layers[0].linear1.weight is not layers[1].linear1.weight
    np.testing.assert_array_equal(layers[0].linear1.bias.detach().cpu().numpy(),
                                  layers[1].linear1.bias.detach().cpu().numpy())


def test_transformer_init():
    """Every weight matrix is drawn again with xavier_uniform_ (each layer its own values); vectors keep the
    init of their layer (LayerNorm ones and zeros, MultiheadAttention's zero biases)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = tt.nn.Transformer(64, 4, 2, 2, 128)
    for name, p in model.named_parameters():
        values = p.detach().cpu().numpy()
        if p.dim() > 1:
            bound = np.sqrt(6 / (p.shape[0] + p.shape[1]))
            assert np.abs(values).max() <= bound and np.abs(values).max() > 0.9 * bound, name
    w0, w1 = (model.encoder.layers[i].linear1.weight.detach().cpu().numpy() for i in range(2))
    assert not np.array_equal(w0, w1)
    assert (model.decoder.norm.weight.detach().cpu().numpy() == 1).all()
    assert (model.encoder.layers[0].self_attn.in_proj_bias.detach().cpu().numpy() == 0).all()


@pytest.mark.parametrize("args", [dict(sz=4), dict(sz=1), dict(sz=3, dtype="float64"), dict(sz=0)])
def test_generate_square_subsequent_mask(args):
    def fn(lib):
        kwargs = dict(args)
        if "dtype" in kwargs:
            kwargs["dtype"] = getattr(lib, kwargs["dtype"])
        return lib.nn.Transformer.generate_square_subsequent_mask(**kwargs)
    check(fn)
    mask = tt.nn.Transformer.generate_square_subsequent_mask(3, device="cpu")
    assert mask.device.type == "cpu"
    np.testing.assert_array_equal(mask.numpy(), float_mask(~np.tril(np.ones((3, 3), bool))))


# ---- warnings and errors ----------------------------------------------------------------------------------


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


MISMATCHED = {
    "MultiheadAttention": lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8), key_padding_mask=lib.tensor(SRC_PADDING),
        attn_mask=lib.tensor(float_mask(CAUSAL5))),
    "MultiheadAttention float padding": lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8), key_padding_mask=lib.tensor(float_mask(SRC_PADDING)),
        attn_mask=lib.tensor(CAUSAL5)),
    "MultiheadAttention same types": lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8), key_padding_mask=lib.tensor(SRC_PADDING),
        attn_mask=lib.tensor(CAUSAL5)),
    "TransformerEncoderLayer": lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(
        lib.ones(5, 3, 8), src_mask=lib.tensor(float_mask(CAUSAL5)), src_key_padding_mask=lib.tensor(SRC_PADDING)),
    "TransformerEncoder": lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False)(
        lib.ones(5, 3, 8), mask=lib.tensor(CAUSAL5), src_key_padding_mask=lib.tensor(float_mask(SRC_PADDING))),
    "TransformerDecoderLayer": lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16)(
        lib.ones(4, 3, 8), lib.ones(5, 3, 8), tgt_mask=lib.tensor(float_mask(CAUSAL4)),
        tgt_key_padding_mask=lib.tensor(TGT_PADDING)),
    "Transformer": lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(
        lib.ones(3, 5, 8), lib.ones(3, 4, 8), src_mask=lib.tensor(float_mask(CAUSAL5)),
        src_key_padding_mask=lib.tensor(SRC_PADDING), memory_key_padding_mask=lib.tensor(SRC_PADDING),
        memory_mask=lib.tensor(float_mask(np.zeros((4, 5), bool)))),
}


@pytest.mark.parametrize("name", list(MISMATCHED))
def test_mismatched_mask_types_warn(name):
    ours, theirs = _warnings(lambda: MISMATCHED[name](tt)), _warnings(lambda: MISMATCHED[name](torch))
    assert ours == theirs
    if name != "MultiheadAttention same types":
        assert any("Support for mismatched" in message for _, message in ours)


NESTED_WARNINGS = {
    "sequence first": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2),
    "batch first": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2),
    "disabled": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False),
    "norm_first": lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True), 1),
    "bias": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False), 1),
    "activation": lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.Tanh()), 1),
    "gelu": lambda nn: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation="gelu"), 1),
    "odd heads": lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(9, 3, 16, batch_first=True), 1),
    "not a TransformerEncoderLayer": lambda nn: nn.TransformerEncoder(nn.Linear(8, 8), 1),
    "Transformer": lambda nn: nn.Transformer(8, 2, 1, 1, 16),
}


@pytest.mark.parametrize("name", list(NESTED_WARNINGS))
def test_enable_nested_tensor_warning(name):
    ours = _warnings(lambda: NESTED_WARNINGS[name](tt.nn))
    theirs = _warnings(lambda: NESTED_WARNINGS[name](torch.nn))
    assert ours == theirs
    assert bool(ours) == (name not in ("batch first", "disabled", "gelu"))
    encoders = [quiet(NESTED_WARNINGS[name])(nn) for nn in (tt.nn, torch.nn)]
    encoders = [e.encoder if name == "Transformer" else e for e in encoders]
    assert encoders[0].use_nested_tensor == encoders[1].use_nested_tensor


def _model(lib, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.nn.Transformer(8, 2, 1, 1, 16, **kwargs)


ERRORS = {
    "batch mismatch": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 2, 8)),
    "batch mismatch, batch first": lambda lib: _model(lib, batch_first=True)(lib.ones(3, 5, 8), lib.ones(2, 4, 8)),
    "src d_model": lambda lib: _model(lib)(lib.ones(5, 3, 6), lib.ones(4, 3, 8)),
    "tgt d_model": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 3, 6)),
    "unbatched d_model": lambda lib: _model(lib)(lib.ones(5, 8), lib.ones(4, 6)),
    "is_causal without a mask": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 3, 8), tgt_is_causal=True),
    "memory_is_causal without a mask": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 3, 8),
                                                               memory_is_causal=True),
    "encoder is_causal without a mask": lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)(lib.ones(5, 3, 8), is_causal=True),
    "integer mask": lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)(lib.ones(5, 3, 8),
                                                                                 mask=lib.ones(5, 5).long()),
    "tgt_mask shape": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 3, 8),
                                              tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(5)),
    "padding mask batch": lambda lib: _model(lib)(lib.ones(5, 3, 8), lib.ones(4, 3, 8),
                                                  src_key_padding_mask=lib.zeros(2, 5) > 0),
    "decoder layer d_model": lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16)(lib.ones(4, 3, 6), lib.ones(5, 3, 8)),
    "activation name": lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, activation="swish"),
    "heads": lambda lib: lib.nn.Transformer(8, 3),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_transformer_errors(name):
    with pytest.raises(Exception):
        ERRORS[name](torch)
    check(ERRORS[name])


def test_multihead_attention_from_activation_module():
    """PyTorch defines MultiheadAttention in torch/nn/modules/activation.py; programs import it from there."""
    from teachtorch.nn.modules.activation import MultiheadAttention
    from torch.nn.modules.activation import MultiheadAttention as TorchMultiheadAttention
    assert MultiheadAttention is tt.nn.MultiheadAttention
    assert TorchMultiheadAttention is torch.nn.MultiheadAttention


@pytest.mark.parametrize("padding", ["src_key_padding_mask", "also memory_key_padding_mask", "none"])
def test_transformer_inference_without_autograd(padding):
    """eval mode under no_grad, where PyTorch runs its fused fast paths (and packs the padded encoder batch
    into a nested tensor): the same numbers, padded positions included."""
    rng = np.random.default_rng(0)
    src, tgt = rng.standard_normal((3, 5, 8)).astype(np.float32), rng.standard_normal((3, 4, 8)).astype(np.float32)
    torch.manual_seed(0)
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, batch_first=True).eval()
    ours = quiet(lambda nn: nn.Transformer(8, 2, 2, 2, 16, batch_first=True))(tt.nn).eval()
    copy_weights(ours, theirs)
    results = []
    for lib, module in ((torch, theirs), (tt, ours)):
        kwargs = dict(tgt_mask=lib.nn.Transformer.generate_square_subsequent_mask(4))
        if padding != "none":
            kwargs["src_key_padding_mask"] = lib.tensor(SRC_PADDING)
        if padding == "also memory_key_padding_mask":
            kwargs["memory_key_padding_mask"] = lib.tensor(SRC_PADDING)
        with lib.no_grad():
            results.append(module(lib.tensor(src), lib.tensor(tgt), **kwargs).cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-4, atol=1e-5)
