"""Convolution and pooling: F.conv1d, F.conv2d, F.max_pool2d, F.avg_pool2d, F.adaptive_avg_pool2d and their
modules, against PyTorch: values, strides, gradients of input, weight and bias (and second derivatives),
on every memory layout; the errors; and the lesson itself (the im2col windows are a view, not a copy)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

import teachtorch as tt
from nn_parity import check_module
from parity import LAYOUTS, Draws, P, check, check_grad, rand

pytestmark = pytest.mark.device_generic   # each test runs [cpu] and [cuda] (conftest.py)

F = tt.nn.functional


def conv_case(fn_name, x, w, b, grad_strides=True, **kwargs):
    """Parity of F.<fn_name>(x, w, b, **kwargs): values, the grad_fn name (ConvolutionBackward0, or
    SqueezeBackward1 for an unbatched input), gradients of input, weight and bias, first and second order."""
    check_grad(lambda lib, x, w, b: getattr(lib.nn.functional, fn_name)(x, w, b, **kwargs), x, w, b,
               gradcheck=False, gradgradcheck=False, rtol=1e-4, atol=1e-5, check_grad_strides=grad_strides)


def pool_case(fn, x):
    """Parity of a pooling `fn(lib, x)`: values, grad_fn name, first and second derivatives (the backward ops
    are differentiable: MaxPool2DWithIndicesBackwardBackward0, AvgPool2DBackwardBackward0)."""
    check_grad(fn, x, gradcheck=False, gradgradcheck=False)


# ---- conv2d -------------------------------------------------------------------------------------------------

CONV2D_GRID = [
    # (in_channels, out_channels, kernel, stride, padding, dilation, groups)
    (3, 4, 3, 1, 0, 1, 1),
    (3, 4, 3, 1, 1, 1, 1),
    (3, 4, (3, 2), (2, 1), (1, 0), 1, 1),
    (3, 4, 2, 2, 0, 2, 1),
    (4, 6, 3, 1, 1, (2, 1), 2),
    (4, 4, 3, 2, 2, 1, 4),            # depthwise
    (2, 3, 1, 1, 0, 1, 1),            # 1x1
    (3, 2, 5, 1, 2, 1, 1),            # kernel as big as the input once padded
]


@pytest.mark.parametrize("case", CONV2D_GRID)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_conv2d_grid(case, layout):
    cin, cout, k, stride, padding, dilation, groups = case
    kh, kw = (k, k) if isinstance(k, int) else k
    x = rand(2, cin, 5, 6, layout=layout, seed=1)
    w = rand(cout, cin // groups, kh, kw, seed=2, layout="permuted" if layout == "sliced" else "contiguous")
    b = rand(cout, seed=3)
    conv_case("conv2d", x, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups)


def test_conv2d_without_bias_and_unbatched():
    check_grad(lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding=1), rand(2, 3, 4, 4, layout="offset"),
               rand(5, 3, 3, 3, seed=1), name=False, gradcheck=False, gradgradcheck=False)
    # a (C, H, W) input is one unbatched image
    conv_case("conv2d", rand(3, 5, 6, layout="permuted"), rand(4, 3, 2, 3, seed=1), rand(4, seed=2), stride=2)


@pytest.mark.parametrize("padding", ["same", "valid"])
@pytest.mark.parametrize("kernel,dilation", [(3, 1), (4, 1), ((2, 3), (2, 1)), (5, 2)])
def test_conv2d_padding_strings(padding, kernel, dilation):
    kh, kw = (kernel, kernel) if isinstance(kernel, int) else kernel
    conv_case("conv2d", rand(2, 3, 9, 8, layout="sliced"), rand(4, 3, kh, kw, seed=1), rand(4, seed=2),
              padding=padding, dilation=dilation)


def test_conv2d_gradcheck_float64():
    # numerical vs analytical Jacobians, first and second order, through pad + as_strided + matmul
    check_grad(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, stride=2, padding=1, groups=2),
               rand(1, 2, 4, 3, layout="permuted"), rand(2, 1, 2, 2, seed=1), rand(2, seed=2), name=False)


def test_conv2d_channels_last_input_gives_channels_last_output():
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype("float32")
    for lib in (tt, torch):
        t = lib.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
        w = lib.ones(4, 3, 3, 3)
        out = lib.nn.functional.conv2d(t, w, padding=1)
        assert out.stride() == (120, 1, 24, 4)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_conv2d_hypothesis(data):
    groups = data.draw(st.sampled_from([1, 1, 2, 3]))
    cin = groups * data.draw(st.integers(1, 2))
    cout = groups * data.draw(st.integers(1, 2))
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    stride = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    dilation = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    padding = (data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2)))
    # the input must hold at least one dilated window once padded
    h = data.draw(st.integers(max(1, dilation[0] * (kh - 1) + 1 - 2 * padding[0]), 7))
    w = data.draw(st.integers(max(1, dilation[1] * (kw - 1) + 1 - 2 * padding[1]), 7))
    n = data.draw(st.integers(1, 3))
    layout = data.draw(st.sampled_from(LAYOUTS))
    x = rand(n, cin, h, w, layout=layout, seed=data.draw(st.integers(0, 1000)))
    # (.grad strides are not compared here: where a dim has size 1 its stride is arbitrary, and PyTorch's
    # hand-written convolution backward picks other ones than our chain of view backwards; the values are
    # compared, and the grid above compares strides on shapes without that ambiguity)
    conv_case("conv2d", x, rand(cout, cin // groups, kh, kw, seed=1), rand(cout, seed=2), grad_strides=False,
              stride=stride, padding=padding, dilation=dilation, groups=groups)


# ---- conv1d -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [(3, 4, 3, 1, 0, 1, 1), (3, 4, 3, 2, 1, 1, 1), (4, 6, 2, 1, 2, 3, 2),
                                  (2, 2, 3, 3, 1, 1, 2), (3, 4, 4, 1, "same", 2, 1), (3, 4, 3, 1, "valid", 1, 1)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_conv1d_grid(case, layout):
    cin, cout, k, stride, padding, dilation, groups = case
    conv_case("conv1d", rand(2, cin, 9, layout=layout, seed=1), rand(cout, cin // groups, k, seed=2),
              rand(cout, seed=3), stride=stride, padding=padding, dilation=dilation, groups=groups)


def test_conv1d_unbatched():
    conv_case("conv1d", rand(3, 8, layout="sliced"), rand(4, 3, 3, seed=1), rand(4, seed=2), padding=1)


# ---- conv3d and the transposed convolutions (the same op, `convolution`) ------------------------------------

@pytest.mark.parametrize("case", [(2, 3, 3, 1, 0, 1, 1), (2, 4, 2, 2, 1, 1, 2), (4, 2, (1, 2, 2), 1, (0, 1, 1), 2, 2)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_conv3d_grid(case, layout):
    cin, cout, k, stride, padding, dilation, groups = case
    kd, kh, kw = (k, k, k) if isinstance(k, int) else k
    conv_case("conv3d", rand(2, cin, 5, 4, 6, layout=layout, seed=1), rand(cout, cin // groups, kd, kh, kw, seed=2),
              rand(cout, seed=3), stride=stride, padding=padding, dilation=dilation, groups=groups)


CONV_TRANSPOSE_GRID = [
    # (in_channels, out_channels, kernel, stride, padding, output_padding, groups, dilation)
    (3, 4, 3, 1, 0, 0, 1, 1),
    (3, 4, 3, 2, 1, 1, 1, 1),
    (4, 6, (2, 3), (2, 1), (0, 1), 0, 2, 1),
    (2, 2, 3, 2, 2, (1, 0), 1, 2),
]


@pytest.mark.parametrize("case", CONV_TRANSPOSE_GRID)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_conv_transpose2d_grid(case, layout):
    cin, cout, k, stride, padding, output_padding, groups, dilation = case
    kh, kw = (k, k) if isinstance(k, int) else k
    conv_case("conv_transpose2d", rand(2, cin, 4, 5, layout=layout, seed=1),
              rand(cin, cout // groups, kh, kw, seed=2), rand(cout, seed=3), stride=stride, padding=padding,
              output_padding=output_padding, groups=groups, dilation=dilation)


def test_conv_transpose1d_and_3d():
    conv_case("conv_transpose1d", rand(2, 3, 6, layout="permuted"), rand(3, 2, 3, seed=1), rand(2, seed=2),
              stride=2, padding=1, output_padding=1)
    conv_case("conv_transpose1d", rand(3, 6, layout="sliced"), rand(3, 2, 3, seed=1), rand(2, seed=2))   # unbatched
    conv_case("conv_transpose3d", rand(1, 2, 3, 4, 3, layout="permuted"), rand(2, 3, 2, 2, 3, seed=1),
              rand(3, seed=2), stride=(1, 2, 1), padding=(0, 1, 1))


def test_conv_transpose_is_the_gradient_of_conv():
    # conv_transpose2d(g, w) is the input gradient of conv2d(x, w) for the output gradient g
    x, w = tt.randn(2, 3, 7, 6, requires_grad=True), tt.randn(4, 3, 3, 3)
    y = F.conv2d(x, w, stride=2, padding=1)
    g = tt.randn(*y.shape)
    (gx,) = tt.autograd.grad(y, x, g)
    np.testing.assert_allclose(F.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1)).cpu().numpy(),
                               gx.cpu().numpy(), rtol=1e-5, atol=1e-5)


def test_conv2d_gradgradcheck_through_convolution_backward():
    # ConvolutionBackwardBackward0 is made of ops: third derivatives work as well
    for fn in (lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, stride=2, padding=1, dilation=(1, 2)),
               lambda lib, x, w, b: lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1)):
        check_grad(fn, rand(1, 2, 5, 4, layout="sliced"), rand(2, 2, 2, 3, seed=1), rand(2, seed=2))
    x = tt.randn(1, 2, 5, 5, dtype=tt.float64, requires_grad=True)
    w = tt.randn(3, 2, 3, 3, dtype=tt.float64, requires_grad=True)
    (gx,) = tt.autograd.grad(F.conv2d(x, w).pow(2).sum(), x, create_graph=True)
    assert type(gx.grad_fn).__name__ == "ConvolutionBackwardBackward0"
    (gw,) = tt.autograd.grad(gx.pow(2).sum(), w, create_graph=True)
    assert gw.requires_grad and gw.grad_fn is not None


def _channels_last(lib, values):
    """A tensor laid out NHWC in memory, seen as NCHW."""
    return lib.tensor(np.ascontiguousarray(values.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)


@pytest.mark.parametrize("fn", [
    lambda F, x, w: F.conv2d(x, w, padding=1),
    lambda F, x, w: F.conv2d(x, w, stride=2, groups=3),
    lambda F, x, w: F.conv_transpose2d(x, w.transpose(0, 1), stride=2),
    lambda F, x, w: F.max_pool2d(x + w.sum(), 2, ceil_mode=True),
    lambda F, x, w: F.avg_pool2d(x + w.sum(), 3, padding=1),
    lambda F, x, w: F.adaptive_avg_pool2d(x + w.sum(), (2, 3)),
])
@pytest.mark.parametrize("weight_channels_last", [False, True])
def test_channels_last_inputs(fn, weight_channels_last):
    """Values and strides of the result and of both gradients for an NHWC input (and weight)."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((2, 3, 7, 6)).astype("float32")
    ws = rng.standard_normal((3, 3, 3, 3)).astype("float32")
    results = []
    for lib in (tt, torch):
        x = _channels_last(lib, xs).requires_grad_(True)
        w = (_channels_last(lib, ws) if weight_channels_last else lib.tensor(ws)).requires_grad_(True)
        try:
            y = fn(lib.nn.functional, x, w)
        except RuntimeError as e:      # (a grouped conv refuses this weight; both libraries must agree)
            results.append(type(e).__name__)
            continue
        gx, gw = lib.autograd.grad(y, (x, w), lib.ones_like(y) * 0.5)
        results.append([(t.detach().cpu().numpy().round(4).tolist(), t.stride()) for t in (y, gx, gw)])
    assert results[0] == results[1]


# ---- errors ---------------------------------------------------------------------------------------------------

CONV_ERRORS = [
    ("conv2d", (2, 3), (8, 3, 3, 3), None, {}),
    ("conv2d", (1, 2, 3, 5, 5), (8, 3, 3, 3), None, {}),
    ("conv2d", (2, 4, 5, 5), (8, 3, 3, 3), None, {}),                   # channel mismatch
    ("conv2d", (2, 3, 2, 2), (8, 3, 3, 3), None, {}),                   # kernel bigger than the input
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(stride=2, padding="same")),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(padding="foo")),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(padding=-1)),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(stride=0)),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(dilation=0)),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(groups=0)),
    ("conv2d", (2, 6, 5, 5), (7, 3, 3, 3), None, dict(groups=2)),       # groups must divide out_channels
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), (7,), {}),                   # bias of the wrong size
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), (8, 1), {}),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(stride=(1, 1, 1))),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3), None, dict(padding=(1, 2, 3))),
    ("conv2d", (2, 3, 5, 5), (8, 3, 3, 3, 3), None, {}),
    ("conv2d", (3, 2, 5), (8, 3, 3, 3), None, {}),                      # unbatched, wrong channels
    ("conv1d", (2, 3, 5, 5), (4, 3, 3), None, {}),
    ("conv1d", (2, 4, 5), (4, 3, 3), None, {}),
    ("conv1d", (2, 3, 2), (4, 3, 3), None, {}),
]


@pytest.mark.parametrize("fn,xs,ws,bs,kwargs", CONV_ERRORS)
def test_conv_errors(fn, xs, ws, bs, kwargs):
    b = rand(*bs, seed=2) if bs else None
    err = check(lambda lib, x, w, b: getattr(lib.nn.functional, fn)(x, w, b, **kwargs), rand(*xs),
                rand(*ws, seed=1), b)
    assert isinstance(err, Exception)


def test_conv_dtype_mismatch_errors():
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w), rand(2, 3, 5, 5), rand(2, 3, 3, 3, dtype="float64"))
    check(lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b), rand(1, 3, 4, 4), rand(2, 3, 3, 3),
          rand(2, dtype="float64"))


# ---- the lesson: the windows are a view ---------------------------------------------------------------------

def test_im2col_windows_are_a_view_of_the_padded_input():
    from teachtorch.kernels.conv import pad_array, window_view
    padded = pad_array(np, np.random.default_rng(0).standard_normal((2, 3, 5, 6)), [(1, 1), (2, 2)])
    windows = window_view(np, padded, (3, 2), (2, 1), (1, 2), (3, 8))
    # same memory, nothing copied: the view's strides step through the padded image
    assert np.shares_memory(windows, padded)
    sN, sC, sH, sW = padded.strides
    assert windows.strides == (sN, sC, sH * 2, sW * 1, sH * 1, sW * 2)
    # and it shows the windows: windows[n, c, i, j, ki, kj] = padded[n, c, 2i + ki, j + 2kj]
    for (n, c, i, j, ki, kj) in [(0, 0, 0, 0, 0, 0), (1, 2, 2, 7, 2, 1), (1, 1, 1, 3, 1, 0)]:
        assert windows[n, c, i, j, ki, kj] == padded[n, c, 2 * i + ki, j + 2 * kj]
    # writing into the padded image shows in every window that sees that pixel
    padded[0, 0, 2, 2] = 100.0
    assert windows[0, 0, 1, 2, 0, 0] == 100.0 and windows[0, 0, 0, 0, 2, 1] == 100.0


def test_col2im_adds_every_window_back_onto_its_pixels():
    # add_windows_back is the adjoint of window_view: <window_view(x), w> == <x, add_windows_back(w)>
    from teachtorch.kernels.conv import add_windows_back, window_view
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 8))
    stride, dilation, kernel, out = (2, 1), (1, 2), (3, 2), (4, 6)
    w = rng.standard_normal((2, 3, *out, *kernel))
    back = add_windows_back(np, w, x.shape[2:], stride, dilation)
    np.testing.assert_allclose((window_view(np, x, kernel, stride, dilation, out) * w).sum(), (x * back).sum())


def test_conv2d_is_one_convolution_op_and_one_backward_op():
    x, w, b = (tt.randn(2, 3, 5, 5, requires_grad=True), tt.randn(4, 3, 3, 3, requires_grad=True),
               tt.randn(4, requires_grad=True))
    with tt.dispatch.trace() as t:
        y = F.conv2d(x, w, b, stride=2, padding=1)
        y.sum().backward()
    names = [e.aten_name for e in t.ops()]
    assert names.count("aten.convolution.default") == 1
    assert names.count("aten.convolution_backward.default") == 1
    assert not {"aten.as_strided.default", "aten.matmul.default", "aten.full.default"} & set(names)


@pytest.mark.cpu_only
def test_conv2d_window_view_of_unpadded_sliced_input_shares_storage():
    # without padding, the window view is taken over the caller's own array, whatever its strides
    from teachtorch.kernels.conv import window_view
    base = tt.randn(2, 3, 10, 12)
    x = base[:, :, 1::2, ::3]
    windows = window_view(np, x._data(), (2, 2), (1, 1), (1, 1), (4, 3))
    assert np.shares_memory(windows, base._data())
    np.testing.assert_array_equal(windows[:, :, 1, 2], x.cpu().numpy()[:, :, 1:3, 2:4])


# ---- the modules --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(stride=2, padding=1),
    dict(padding="same", dilation=2, bias=False),
    dict(groups=2, padding=(1, 2)),
    dict(padding=1, padding_mode="reflect"),
    dict(padding=(2, 1), padding_mode="replicate"),
    dict(padding=1, padding_mode="circular", stride=2),
    dict(padding="same", padding_mode="reflect", kernel_size=4),
])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_conv2d_module(kwargs, layout):
    kwargs = dict(kwargs)
    k = kwargs.pop("kernel_size", 3)
    check_module(lambda nn: nn.Conv2d(4, 6, k, **kwargs), rand(2, 4, 6, 7, layout=layout))


@pytest.mark.parametrize("kwargs", [dict(), dict(stride=2, padding=1, dilation=2), dict(groups=3, bias=False),
                                    dict(padding="same", padding_mode="circular")])
def test_conv1d_module(kwargs):
    check_module(lambda nn: nn.Conv1d(3, 6, 3, **kwargs), rand(2, 3, 10, layout="permuted"))
    check_module(lambda nn: nn.Conv1d(3, 6, 3, **kwargs), rand(3, 10, layout="offset"))     # unbatched


def test_conv_module_init_follows_pytorch():
    # kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)); the bias uses the same bound
    conv = tt.nn.Conv2d(8, 64, (3, 2), groups=2)
    bound = 1 / math.sqrt(4 * 3 * 2)
    for p in (conv.weight, conv.bias):
        v = p.detach().cpu().numpy()
        assert v.min() >= -bound and v.max() <= bound
        assert v.max() > 0.8 * bound and v.min() < -0.8 * bound      # spread over the whole range
    assert abs(conv.weight.detach().cpu().numpy().mean()) < 0.1 * bound
    assert tuple(conv.weight.shape) == (64, 4, 3, 2) and conv.weight.requires_grad
    assert tt.nn.Conv1d(2, 3, 4).weight.shape == (3, 2, 4)


def test_conv_module_repr_and_errors():
    for make in (lambda nn: nn.Conv2d(3, 8, 3, padding=1),
                 lambda nn: nn.Conv2d(3, 8, (3, 5), stride=2, dilation=(1, 2), groups=1, bias=False),
                 lambda nn: nn.Conv2d(4, 8, 3, padding="same", groups=4, padding_mode="reflect"),
                 lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding="valid")):
        assert repr(make(tt.nn)) == repr(make(torch.nn))
    for args, kwargs in [((3, 4, 3), dict(groups=2)), ((4, 6, 3), dict(groups=4)), ((4, 4, 3), dict(groups=0)),
                         ((4, 4, 3), dict(padding="same", stride=2)), ((4, 4, 3), dict(padding="foo")),
                         ((4, 4, 3), dict(padding_mode="foo"))]:
        with pytest.raises(ValueError) as theirs:
            torch.nn.Conv2d(*args, **kwargs)
        with pytest.raises(ValueError) as ours:
            tt.nn.Conv2d(*args, **kwargs)
        assert _set_order_free(str(ours.value)) == _set_order_free(str(theirs.value))


def _set_order_free(message):
    """A message with the items of a printed Python set sorted (a set's printing order changes between runs:
    it depends on the string hash seed, which differs between the process that compiled torch and this one)."""
    if "{" not in message:
        return message
    head, rest = message.split("{", 1)
    items, tail = rest.split("}", 1)
    return head + "{" + ", ".join(sorted(items.split(", "))) + "}" + tail


# ---- max_pool2d -----------------------------------------------------------------------------------------------

MAX_POOL_GRID = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=1, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 2), ceil_mode=True),
    dict(kernel_size=2, stride=3, ceil_mode=True),
    dict(kernel_size=(1, 3), stride=(1, 2), padding=(0, 1), dilation=(1, 2)),
]


@pytest.mark.parametrize("kwargs", MAX_POOL_GRID)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_max_pool2d_grid(kwargs, layout):
    x = rand(2, 3, 7, 6, layout=layout)
    pool_case(lambda lib, x: lib.nn.functional.max_pool2d(x, **kwargs), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kwargs), x, share=False)


def _tied(shape, layout, seed=0):
    """Values with many ties: a ReLU's zeros, and small integers."""
    rng = np.random.default_rng(seed)
    values = np.maximum(rng.integers(-2, 3, size=shape), 0).astype("float32")
    return P(values, layout, seed=seed)


@pytest.mark.parametrize("kwargs", MAX_POOL_GRID)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "expanded"])
def test_max_pool2d_ties_send_the_gradient_to_the_first_maximum(kwargs, layout):
    x = _tied((2, 3, 7, 6), layout)
    pool_case(lambda lib, x: lib.nn.functional.max_pool2d(x, **kwargs), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kwargs), x, share=False)


def test_max_pool2d_all_zero_window_routes_to_one_element():
    x = tt.zeros(1, 1, 2, 2, requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [[[[1.0, 0.0], [0.0, 0.0]]]])


def test_max_pool2d_after_relu_matches_torch_gradients():
    # the situation of a real CNN: conv -> relu -> pool, where dead units tie at zero
    check_grad(lambda lib, x, w: lib.nn.functional.max_pool2d(lib.relu(lib.nn.functional.conv2d(x, w)), 2),
               rand(2, 2, 7, 7), rand(3, 2, 2, 2, seed=5), name=False, gradcheck=False, gradgradcheck=False,
               double=False)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
# (0525b51, a random-seed finding) a 1x1 pool of a permuted (2, 2, 1, 1) input: PyTorch's backward writes .grad
# contiguous, (2, 1, 1, 1); the as_strided backward that returned a view with the input's strides gave (2, 1, 4, 1).
# Draws: kernel (1, 1), stride (1, 1), dilation (1, 1), padding (0, 0), ceil_mode, h, w, layout, tied, seed
@example(data=Draws(1, 1, 1, 1, 1, 1, 0, 0, False, 1, 1, "permuted", False, 0))
def test_max_pool2d_hypothesis(data):
    k = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    stride = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)))
    dilation = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    padding = tuple(data.draw(st.integers(0, k[d] // 2)) for d in range(2))
    ceil_mode = data.draw(st.booleans())
    # (inputs at least one dilated window wide: when every tap of a window falls in the padding, PyTorch's
    # kernel reports an index outside the input and sends the gradient there, into a neighbouring channel)
    h = data.draw(st.integers(dilation[0] * (k[0] - 1) + 1, 7))
    w = data.draw(st.integers(dilation[1] * (k[1] - 1) + 1, 7))
    layout = data.draw(st.sampled_from(LAYOUTS))
    x = _tied((2, 2, h, w), layout, seed=data.draw(st.integers(0, 1000))) if data.draw(st.booleans()) else \
        rand(2, 2, h, w, layout=layout, seed=data.draw(st.integers(0, 1000)))
    kwargs = dict(kernel_size=k, stride=stride, padding=padding, dilation=dilation, ceil_mode=ceil_mode)
    pool_case(lambda lib, x: lib.nn.functional.max_pool2d(x, **kwargs), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kwargs), x, share=False)


def test_max_pool2d_unbatched_and_integer():
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, return_indices=True), rand(3, 5, 4, layout="sliced"),
          share=False)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, padding=1), rand(2, 2, 5, 4, dtype="int64"))


def test_max_pool2d_indices_equal_pytorchs():
    for kwargs in MAX_POOL_GRID:
        check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kwargs)[1],
              rand(2, 3, 7, 6, layout="permuted"))
    check(lambda lib, x: lib.nn.MaxPool2d(3, 2, 1, return_indices=True)(x)[1], rand(3, 7, 6, layout="sliced"))


def test_max_pool2d_windows_of_the_lowest_value_point_inside_the_input():
    # an all -inf window ties with its padding: PyTorch's index is the window's first element inside the input
    x = P(np.full((1, 2, 5, 4), -np.inf, dtype=np.float32))
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 2, 1, return_indices=True), x, share=False)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 1, 1, dilation=2, return_indices=True), x, share=False)
    low = P(np.full((1, 1, 4, 4), np.iinfo(np.int32).min, dtype=np.int32))
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, 1, 1, return_indices=True), low, share=False)


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                    dict(kernel_size=2, stride=1, dilation=2)], ids=str)
def test_max_pool2d_nan_windows_like_pytorch(kwargs):
    """PyTorch's loop moves on to a larger value or a NaN: a NaN wins its window, and of several NaNs the
    last one's index is returned (also after a larger number, and with -inf and ties around)."""
    x = np.array([[np.nan, 1.0, np.nan, 5.0, 2.0], [3.0, np.nan, 7.0, np.nan, -np.inf],
                  [np.inf, 2.0, 2.0, np.nan, 2.0], [np.nan, -np.inf, 0.0, 0.0, np.nan]], dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, return_indices=True, **kwargs), P(x[None, None]),
          share=False)
    pool_case(lambda lib, x: lib.nn.functional.max_pool2d(x, **kwargs), P(x[None, None]))


def test_max_pool2d_with_indices_op_and_its_backward_op():
    x = tt.randn(2, 3, 6, 6, requires_grad=True)
    with tt.dispatch.trace() as t:
        F.max_pool2d(x, 2).sum().backward()
    names = [e.aten_name for e in t.ops()]
    assert names.count("aten.max_pool2d_with_indices.default") == 1
    assert names.count("aten.max_pool2d_with_indices_backward.default") == 1


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                    dict(kernel_size=3, stride=1, padding=1, dilation=2)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_max_pool1d(kwargs, layout):
    pool_case(lambda lib, x: lib.nn.functional.max_pool1d(x, **kwargs), rand(2, 3, 9, layout=layout))
    check(lambda lib, x: lib.nn.functional.max_pool1d(x, return_indices=True, **kwargs), rand(3, 9, layout=layout),
          share=False)


@pytest.mark.parametrize("kwargs", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_avg_pool1d(kwargs, layout):
    pool_case(lambda lib, x: lib.nn.functional.avg_pool1d(x, **kwargs), rand(2, 3, 9, layout=layout))
    pool_case(lambda lib, x: lib.nn.functional.avg_pool1d(x, **kwargs), rand(3, 9, layout=layout))


GRAD_FN_CASES = [
    # (name, input shape, fn)
    ("conv1d", (2, 3, 6), lambda F, x: F.conv1d(x, x.new_ones(2, 3, 2))),
    ("conv2d", (2, 3, 4, 6), lambda F, x: F.conv2d(x, x.new_ones(2, 3, 2, 2), padding=1)),
    ("conv2d same", (2, 3, 4, 6), lambda F, x: F.conv2d(x, x.new_ones(2, 3, 2, 2), padding="same")),
    ("conv2d unbatched", (3, 4, 6), lambda F, x: F.conv2d(x, x.new_ones(2, 3, 2, 2))),
    ("conv3d", (2, 3, 2, 4, 6), lambda F, x: F.conv3d(x, x.new_ones(2, 3, 1, 2, 2))),
    ("conv_transpose1d", (2, 3, 6), lambda F, x: F.conv_transpose1d(x, x.new_ones(3, 2, 2))),
    ("conv_transpose2d", (2, 3, 4, 6), lambda F, x: F.conv_transpose2d(x, x.new_ones(3, 2, 2, 2), stride=2)),
    ("conv_transpose3d", (2, 3, 2, 4, 6), lambda F, x: F.conv_transpose3d(x, x.new_ones(3, 2, 1, 2, 2))),
    ("max_pool1d", (2, 3, 6), lambda F, x: F.max_pool1d(x, 2)),
    ("max_pool2d", (2, 3, 4, 6), lambda F, x: F.max_pool2d(x, 2)),
    ("max_pool2d indices", (2, 3, 4, 6), lambda F, x: F.max_pool2d(x, 2, return_indices=True)[0]),
    ("avg_pool1d", (2, 3, 6), lambda F, x: F.avg_pool1d(x, 2)),
    ("avg_pool2d", (2, 3, 4, 6), lambda F, x: F.avg_pool2d(x, 2)),
    ("adaptive_avg_pool2d", (2, 3, 4, 6), lambda F, x: F.adaptive_avg_pool2d(x, (2, 3))),
    ("adaptive_avg_pool2d 1", (2, 3, 4, 6), lambda F, x: F.adaptive_avg_pool2d(x, 1)),
    ("Conv2d module", (2, 3, 4, 6), lambda F, x: F.conv2d(x, x.new_ones(2, 3, 3, 3), x.new_ones(2), 2, 1)),
]


@pytest.mark.parametrize("name,shape,fn", GRAD_FN_CASES, ids=[c[0] for c in GRAD_FN_CASES])
def test_grad_fn_names_are_pytorchs(name, shape, fn):
    """The nodes each function records (through an unbatched squeeze), and the node its gradient records
    under create_graph (the double backward: ConvolutionBackwardBackward0, ...)."""
    def nodes(lib, x):
        x = x.requires_grad_(True)
        y = fn(lib.nn.functional, x)
        (g,) = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        chain = [type(y.grad_fn).__name__]
        node = y.grad_fn
        while chain[-1].startswith("SqueezeBackward"):
            node = node.next_functions[0][0]            # the node under the squeeze of an unbatched input
            chain.append(type(node).__name__)
        return chain, g.grad_fn is not None and type(g.grad_fn).__name__
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    assert nodes(tt, tt.tensor(x)) == nodes(torch, torch.tensor(x))


# ---- avg_pool2d -----------------------------------------------------------------------------------------------

AVG_POOL_GRID = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(3, 2), padding=(1, 1), ceil_mode=True),
    dict(kernel_size=3, stride=3, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=1, padding=1, divisor_override=4),
    dict(kernel_size=2, stride=2, ceil_mode=True, divisor_override=3),
]


@pytest.mark.parametrize("kwargs", AVG_POOL_GRID)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_avg_pool2d_grid(kwargs, layout):
    pool_case(lambda lib, x: lib.nn.functional.avg_pool2d(x, **kwargs), rand(2, 3, 7, 8, layout=layout))


def test_integer_inputs():
    # an integer average rounds toward zero; adaptive pooling refuses integers, as PyTorch's
    for kwargs in (dict(kernel_size=3, stride=1, padding=1), dict(kernel_size=2, ceil_mode=True),
                   dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)):
        check(lambda lib, x: lib.nn.functional.avg_pool2d(x, **kwargs), rand(2, 2, 5, 5, dtype="int64", low=-9,
                                                                          high=9, layout="permuted"))
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 2), rand(1, 2, 4, 4, dtype="int64"))
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w, padding=1), rand(1, 2, 4, 4, dtype="int64"),
          rand(3, 2, 3, 3, dtype="int64", seed=1))


def test_avg_pool2d_unbatched():
    pool_case(lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, ceil_mode=True), rand(3, 5, 5, layout="sliced"))


# ---- adaptive_avg_pool2d ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("output_size", [1, 2, (3, 4), (None, 5), (5, None), (7, 8), (10, 3), (4, 1)])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_adaptive_avg_pool2d_grid(output_size, layout):
    pool_case(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, output_size),
               rand(2, 3, 7, 8, layout=layout))


def test_adaptive_avg_pool2d_unbatched_uneven_bins():
    # 5 rows into 3 bins: rows {0,1}, {1,2,3}, {3,4}: the bins overlap and differ in size
    pool_case(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 3), rand(2, 5, 5, layout="permuted"))


def test_pooling_gradcheck_float64():
    check_grad(lambda lib, x: lib.nn.functional.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False),
               rand(1, 2, 3, 3), name=False, double=False)
    check_grad(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (2, 3)), rand(1, 1, 3, 4), name=False,
               double=False)


POOL_ERRORS = [
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=3, padding=2)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=3, stride=0)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=0)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=2, padding=-1)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=2, dilation=0)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=0, stride=1)),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=2, stride=-1)),
    ("max_pool2d", (2, 3, 9, 9), dict(kernel_size=3, padding=2, dilation=2)),   # pad > kernel/2
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=(2, 2, 2))),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=2, stride=(1, 1, 1))),
    ("max_pool2d", (2, 3, 5, 5), dict(kernel_size=2, padding=(1, 1, 1))),
    ("max_pool2d", (2, 3), dict(kernel_size=2)),
    ("max_pool2d", (2, 3, 1, 1), dict(kernel_size=2)),
    ("max_pool2d", (2, 0, 4, 4), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=3, padding=2)),
    ("avg_pool2d", (2, 3), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 1, 1), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=2, divisor_override=0)),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=0)),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=(2, 2, 2))),
    ("avg_pool2d", (2, 3, 5, 5), dict(kernel_size=2, padding=-1)),
    ("adaptive_avg_pool2d", (2, 3), dict(output_size=2)),
    ("adaptive_avg_pool2d", (2, 3, 5, 5), dict(output_size=(2,))),
    ("adaptive_avg_pool2d", (2, 3, 0, 4), dict(output_size=2)),
]


@pytest.mark.parametrize("fn,xs,kwargs", POOL_ERRORS)
def test_pool_errors(fn, xs, kwargs):
    err = check(lambda lib, x: getattr(lib.nn.functional, fn)(x, **kwargs), rand(*xs))
    assert isinstance(err, Exception)


# ---- F.pad: constant_pad_nd, reflection_pad*d, replication_pad*d -------------------------------------------

PAD_CASES = [
    # (mode, input shape, pad)
    ("constant", (2, 3, 5), (1, 2)),
    ("constant", (2, 3, 4, 5), (-1, 2, 0, 1)),
    ("constant", (2, 3, 4, 5), (1, 1, 2, 0, 1, 1, 0, 1)),
    ("reflect", (2, 3, 5), (2, 1)),
    ("reflect", (3, 5), (-1, 3)),
    ("reflect", (2, 3, 4, 5), (1, 2, 3, 0)),
    ("reflect", (2, 2, 3, 4, 5), (1, 1, 2, 1, 1, 2)),
    ("replicate", (2, 3, 5), (3, 1)),
    ("replicate", (2, 3, 4, 5), (1, -2, 2, 1)),
    ("replicate", (2, 3, 4, 5), (1, 2, 1, 1, 1, 0)),
]


@pytest.mark.parametrize("mode,shape,pad", PAD_CASES)
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced", "expanded"])
def test_pad_ops(mode, shape, pad, layout):
    """Values, grad_fn (ConstantPadNdBackward0, ReflectionPad2DBackward0, ...), first and second derivatives."""
    check_grad(lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode), rand(*shape, layout=layout),
               gradcheck=False, gradgradcheck=False)


@pytest.mark.parametrize("mode,shape,pad", [c for c in PAD_CASES if len(c[1]) == 4])
def test_pad_channels_last_and_value(mode, shape, pad):
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    out = [lib.nn.functional.pad(_channels_last(lib, x), pad, mode=mode) for lib in (tt, torch)]
    assert out[0].stride() == out[1].stride()
    np.testing.assert_array_equal(out[0].cpu().numpy(), out[1].numpy())
    check(lambda lib, x: lib.nn.functional.pad(x, (1, 2), value=-1.5), rand(2, 3, layout="permuted"))
    check(lambda lib, x: lib.constant_pad_nd(x, (1, 1, -1, 0), 2), rand(2, 3, 4, dtype="int64"))
    check(lambda lib, x: lib.constant_pad_nd(x, (1,)), rand(2, 3))                        # odd length
    check(lambda lib, x: lib.constant_pad_nd(x, (-2, -2)), rand(2, 3))                    # cropped away


def test_pad_is_one_op_and_one_backward_op():
    x = tt.randn(2, 3, 4, 5, requires_grad=True)
    with tt.dispatch.trace() as t:
        tt.nn.functional.pad(x, (1, 1, 2, 2), mode="reflect").sum().backward()
    names = [e.aten_name for e in t.ops()]
    assert names.count("aten.reflection_pad2d.default") == 1
    assert names.count("aten.reflection_pad2d_backward.default") == 1


# ---- pooling modules -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda nn: nn.MaxPool2d(2),
    lambda nn: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
    lambda nn: nn.MaxPool2d((2, 3), dilation=(2, 1), return_indices=True),
    lambda nn: nn.AvgPool2d(2),
    lambda nn: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    lambda nn: nn.AvgPool2d(2, divisor_override=3),
    lambda nn: nn.AdaptiveAvgPool2d(1),
    lambda nn: nn.AdaptiveAvgPool2d((3, None)),
])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "expanded"])
def test_pool_modules(make, layout):
    check_module(make, rand(2, 3, 7, 6, layout=layout))
    assert repr(make(tt.nn)) == repr(make(torch.nn))
    assert list(make(tt.nn).state_dict()) == [] and list(make(tt.nn).parameters()) == []


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Conv3d(2, 3, (1, 2, 2), padding=1, groups=1), (2, 2, 3, 4, 5)),
    (lambda nn: nn.Conv3d(4, 2, 2, stride=2, groups=2, bias=False), (1, 4, 4, 4, 4)),
    (lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1, groups=2), (2, 2, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 4, 5)),
    (lambda nn: nn.ConvTranspose2d(2, 2, (2, 3), dilation=(1, 2), bias=False), (2, 2, 4, 5)),
    (lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=(1, 2, 1)), (1, 2, 2, 3, 3)),
    (lambda nn: nn.MaxPool1d(3, 2, 1, ceil_mode=True), (2, 3, 9)),
    (lambda nn: nn.MaxPool1d(2, return_indices=True), (2, 3, 9)),
    (lambda nn: nn.AvgPool1d(3, 2, 1, count_include_pad=False), (2, 3, 9)),
    (lambda nn: nn.ZeroPad2d((1, 2, 0, 1)), (2, 3, 4, 5)),
    (lambda nn: nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    (lambda nn: nn.ConstantPad3d((1, 0, 0, 1, 1, 1), -1.0), (2, 3, 2, 2, 2)),
    (lambda nn: nn.ReflectionPad1d((2, 1)), (2, 3, 4)),
    (lambda nn: nn.ReflectionPad2d(1), (2, 3, 4, 5)),
    (lambda nn: nn.ReflectionPad3d(1), (1, 2, 2, 3, 4)),
    (lambda nn: nn.ReplicationPad1d(2), (3, 4)),
    (lambda nn: nn.ReplicationPad2d((1, 2, 2, 0)), (2, 3, 4, 5)),
    (lambda nn: nn.ReplicationPad3d(1), (1, 2, 2, 3, 4)),
])
def test_new_conv_pool_pad_modules(make, shape):
    check_module(make, rand(*shape, layout="permuted"))
    assert repr(make(tt.nn)) == repr(make(torch.nn))
    assert list(make(tt.nn).state_dict()) == list(make(torch.nn).state_dict())


@pytest.mark.parametrize("make,shape,output_size", [
    (lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=3, groups=2), (2, 2, 5), [17]),          # the largest size
    (lambda nn: nn.ConvTranspose1d(2, 4, 3, stride=3, groups=2), (2, 2, 5), (2, 4, 16)),    # with N and C
    (lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1), (2, 3, 4, 5), [8, 9]),
    (lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1), (3, 4, 5), [7, 10]),      # unbatched
    (lambda nn: nn.ConvTranspose2d(2, 2, 2, stride=(2, 3), dilation=2), (1, 2, 3, 3), (1, 2, 7, 9)),
    (lambda nn: nn.ConvTranspose3d(2, 3, 2, stride=(1, 2, 2)), (1, 2, 2, 3, 3), [3, 7, 6]),
])
def test_conv_transpose_output_size_picks_the_output_padding(make, shape, output_size):
    """`forward(x, output_size=...)`: the size names one of the `stride` sizes the layer can give."""
    check_module(make, rand(*shape), forward=lambda m, x: m(x, output_size=output_size))


@pytest.mark.parametrize("output_size", [[6, 9], [8, 11], [8], [1, 2, 3], (2, 4, 8, 9, 1)], ids=str)
def test_conv_transpose_output_size_errors(output_size):
    """Out of range (below the smallest or above the largest size), or the wrong number of sizes: ValueError
    with PyTorch's message, which lists the sizes that would do."""
    def run(lib):
        lib.manual_seed(0)
        return lib.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)(lib.ones(2, 3, 4, 5), output_size=output_size)
    check(run)


def test_conv_transpose_module_refuses_other_padding_modes():
    check(lambda lib: lib.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"))


def test_small_cnn_module_stack():
    # conv -> batchnorm -> relu -> maxpool -> conv -> adaptive pool, as in the class CNN
    def make(nn):
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    check_module(make, rand(4, 1, 8, 8, layout="sliced"))


# ---- dtypes of input, weight and bias (issue 14) ------------------------------------------------------------

_CONV_DTYPES = [
    # (input, weight, bias)
    ("float64", "float32", "float32"),    # the bias is checked first, by every backend
    ("float64", "float32", "float64"),
    ("float64", "float32", None),         # then the weight: the slow kernel's "expected scalar type"
    ("float64", "float16", None),
    ("float16", "float32", "float16"),
    ("float32", "float64", None),         # float32: oneDNN's message where PyTorch would pick oneDNN
    ("float32", "float64", "float32"),
    ("float32", "float32", "float64"),
    ("float32", "float16", "float16"),
]


@pytest.mark.cpu_only
@pytest.mark.parametrize("dtypes", _CONV_DTYPES, ids=lambda d: "-".join(map(str, d)))
@pytest.mark.parametrize("case", [
    # (dims, input shape, weight shape, groups): each side of `use_mkldnn`'s size heuristic
    (1, (1, 2, 7), (3, 2, 2), 1),            # batch 1, small: the slow kernel
    (1, (2, 2, 7), (3, 2, 2), 1),            # batch > 1: oneDNN
    (1, (3, 7), (3, 3, 2), 1),               # unbatched: seen as a batch of 1
    (2, (1, 2, 6, 6), (4, 2, 2, 3), 1),
    (2, (1, 2, 6, 6), (4, 1, 2, 2), 2),      # groups > 1: oneDNN
    (2, (1, 2, 6, 6), (3, 2, 4, 4), 1),      # a kernel over 3x3 in both dims: oneDNN
    (2, (1, 1, 150, 150), (2, 1, 2, 2), 1),  # more than 20480 input elements: oneDNN
    (2, (3, 2, 5, 5), (4, 2, 3, 3), 1),
])
@pytest.mark.parametrize("layout", ["contiguous", "permuted", "sliced"])
def test_conv_mixed_dtypes_refused_like_pytorch(case, dtypes, layout):
    dims, x_shape, w_shape, groups = case
    x_dtype, w_dtype, b_dtype = dtypes

    def fn(lib, x, w):
        conv = getattr(lib.nn.functional, f"conv{dims}d")
        bias = None if b_dtype is None else lib.ones(w_shape[0], dtype=getattr(lib, b_dtype))
        return conv(x.to(getattr(lib, x_dtype)), w.to(getattr(lib, w_dtype)), bias, groups=groups)

    err = check(fn, rand(*x_shape, layout=layout), rand(*w_shape, layout=layout, seed=1))
    assert isinstance(err, RuntimeError)       # (every combination above is refused by PyTorch)


@pytest.mark.cpu_only
@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.Conv1d(3, 2, 2), (4, 3, 5)),
    (lambda nn: nn.Conv1d(3, 2, 2, bias=False), (1, 3, 5)),
    (lambda nn: nn.Conv2d(3, 2, 2), (2, 3, 5, 5)),
    (lambda nn: nn.Conv2d(3, 2, 2, bias=False), (1, 3, 5, 5)),
])
def test_conv_module_refuses_float64_input_with_float32_weight(make, shape):
    def run(lib, x, double):
        m = make(lib.nn)
        with lib.no_grad():                   # the same weights in both libraries
            for p in m.parameters():
                p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape))
        return (m.double() if double else m)(x)

    check(lambda lib, x: run(lib, x, False), rand(*shape, dtype="float64", layout="permuted"))
    check(lambda lib, x: run(lib, x, True), rand(*shape, dtype="float64", layout="permuted"), strides=False)
