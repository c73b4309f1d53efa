"""Lesson 12, training on real offline data (the digits): the exercises.

    L12.window_view        window_view(x, kh, kw, stride) -> the (N, C, OH, OW, kh, kw) sliding windows of
                           x (N, C, H, W), as an `as_strided` VIEW of x: no copy
    L12.conv2d_as_strided  conv2d_as_strided(x, weight, bias, stride, padding) -> F.conv2d's output, made of
                           a padded input, its window view, and one matmul (or einsum): im2col
    L12.confusion_matrix   confusion_matrix(pred, target, n) -> an (n, n) table of counts, row = the true
                           class, column = the predicted one

How they are checked, on fixed cases worked out by hand and then seeded random shapes (float64):

* `window_view`: the answer's values (shape included) against the library's own window view (the same
  strides as the strided view in teachtorch/kernels/conv.py), AND whether the answer shares x's storage
  (`untyped_storage().data_ptr()`): a copy with the right numbers fails. Many random x are themselves views
  (a slice, with a storage offset, or a transpose of H and W), so the strides must be read from x, not
  assumed contiguous. PyTorch: `x.unfold(2, kh, stride).unfold(3, kw, stride)` gives the same view.
* `conv2d_as_strided`: against teachtorch's `nn.functional.conv2d` (teachtorch/nn/functional/conv.py, itself
  tested against PyTorch), with strides 1 and 2, paddings 0 to 2, several channels, square and oblong
  kernels, with and without a bias. PyTorch: `torch.nn.functional.conv2d` (aten/src/ATen/native/Convolution.cpp).
  The lesson also checks the answer against a plain loop over every output pixel.
* `confusion_matrix`: against counts made with NumPy, turned into an array whatever the answer returns (a
  tensor of any dtype, a NumPy array, nested lists). PyTorch has none in core; torchmetrics'
  `multiclass_confusion_matrix(preds, target, num_classes)` takes the same arguments, and scikit-learn's
  `confusion_matrix(y_true, y_pred)` draws the same table (rows true, columns predicted).
"""

import numpy as np

from .._tensor import Tensor
from ..nn import functional as F
from ..ops.tensor_new import from_numpy
from .core import Exercise


def _window_view(x, kh, kw, stride):
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    return x.as_strided((n, c, oh, ow, kh, kw), (sn, sc, sh * stride, sw * stride, sh, sw), x.storage_offset())


def _shares(a, b):
    return isinstance(a, Tensor) and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _window_call(answer, args):
    x, kh, kw, stride = args
    got = answer(x, kh, kw, stride)
    values = got.contiguous() if isinstance(got, Tensor) else got
    return values, _shares(got, x)


def _window_reference(x, kh, kw, stride):
    return _window_view(x, kh, kw, stride).contiguous(), True


def _randn(rng, *shape):
    return from_numpy(rng.standard_normal(shape))          # float64


def _random_window(rng):
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    kh, kw, stride = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
    h, w = kh + int(rng.integers(0, 5)), kw + int(rng.integers(0, 5))
    kind = rng.integers(0, 3)
    if kind == 0:                                           # fresh and contiguous
        x = _randn(rng, n, c, h, w)
    elif kind == 1:                                         # a slice: other strides, and an offset
        x = _randn(rng, n, c + 1, h + 2, w + 3)[:, 1:, 1:h + 1, 2:w + 2]
    else:                                                   # H and W swapped: strides (.., 1, W)
        x = _randn(rng, n, c, w, h).transpose(2, 3)
    return x, kh, kw, stride


def _conv_reference(x, weight, bias, stride, padding):
    return F.conv2d(x, weight, bias, stride=stride, padding=padding)


def _random_conv(rng):
    n, c, o = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    stride, padding = int(rng.integers(1, 3)), int(rng.integers(0, 3))
    h, w = max(kh - 2 * padding, 1) + int(rng.integers(0, 6)), max(kw - 2 * padding, 1) + int(rng.integers(0, 6))
    bias = _randn(rng, o) if rng.random() < 0.7 else None
    return _randn(rng, n, c, h, w), _randn(rng, o, c, kh, kw), bias, stride, padding


def _conv_call(answer, args):
    x, weight, bias, stride, padding = args
    return answer(x.clone(), weight.clone(), None if bias is None else bias.clone(), stride, padding)


def _counts(pred, target, n):
    p, t = np.asarray(pred.tolist(), dtype=np.int64), np.asarray(target.tolist(), dtype=np.int64)
    return np.bincount(t * n + p, minlength=n * n).reshape(n, n).astype(np.float64)


def _confusion_call(answer, args):
    got = answer(*(a.clone() if isinstance(a, Tensor) else a for a in args))
    if isinstance(got, Tensor):
        got = got.detach().cpu().numpy()
    try:
        return np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return got


def _random_confusion(rng):
    n = int(rng.integers(2, 11))
    size = int(rng.integers(1, 40))
    target = rng.integers(0, n, size=size)
    right = rng.random(size) < 0.6                          # mostly right, as a trained model
    pred = np.where(right, target, rng.integers(0, n, size=size))
    if rng.random() < 0.3:                                  # a class never seen: the table keeps its row
        target, pred = np.minimum(target, n - 2), np.minimum(pred, n - 2)
    return from_numpy(pred.astype(np.int64)), from_numpy(target.astype(np.int64)), n


def _t(values, **kw):
    return from_numpy(np.asarray(values, dtype=np.float64)) if "int" not in kw else \
        from_numpy(np.asarray(values, dtype=np.int64))


_X44 = _t(np.arange(16.).reshape(1, 1, 4, 4))
_ONES = _t(np.ones((1, 1, 2, 2)))

WINDOW_SOLUTION = '''def window_view(x, kh, kw, stride):
    N, C, H, W = x.shape
    sN, sC, sH, sW = x.stride()
    OH, OW = (H - kh) // stride + 1, (W - kw) // stride + 1
    return x.as_strided((N, C, OH, OW, kh, kw), (sN, sC, sH * stride, sW * stride, sH, sW), x.storage_offset())'''

EXERCISES = [
    Exercise(
        name="L12.window_view",
        title="window_view(x, kh, kw, stride) -> the (N, C, OH, OW, kh, kw) windows of x, an as_strided view",
        reference=_window_reference,
        known=[((_X44, 2, 2, 2), (_t([[[[[[0, 1], [4, 5]], [[2, 3], [6, 7]]],
                                         [[[8, 9], [12, 13]], [[10, 11], [14, 15]]]]]]), True)),
               ((_X44, 3, 3, 1), _window_reference(_X44, 3, 3, 1)),
               ((_X44[:, :, 1:, 1:], 2, 1, 1), _window_reference(_X44[:, :, 1:, 1:], 2, 1, 1))],
        random_args=_random_window,
        call=_window_call,
        hints=["Window (i, j) of x starts at pixel (i * stride, j * stride); element (a, b) inside it is pixel "
               "(i * stride + a, j * stride + b). Write its storage position with x.stride() (lesson 1).",
               "So one step along the output row i moves stride * sH cells, one step along a moves sH cells. "
               "The sizes: OH = (H - kh) // stride + 1, and the same for OW.",
               "sN, sC, sH, sW = x.stride(); x.as_strided((N, C, OH, OW, kh, kw), (sN, sC, sH * stride, "
               "sW * stride, sH, sW), x.storage_offset())"],
        solution=WINDOW_SOLUTION,
    ),
    Exercise(
        name="L12.conv2d_as_strided",
        title="conv2d_as_strided(x, weight, bias, stride, padding) -> F.conv2d(x, weight, bias, stride, padding)",
        reference=_conv_reference,
        known=[((_X44, _ONES, None, 1, 0), _t([[[[10, 14, 18], [26, 30, 34], [42, 46, 50]]]])),
               ((_X44, _t([[[[1, 0], [0, 0]]]]), _t([0.5]), 2, 0), _t([[[[0.5, 2.5], [8.5, 10.5]]]])),
               ((_X44, _ONES, None, 2, 1), _t([[[[0, 3, 3], [12, 30, 18], [12, 27, 15]]]]))],
        random_args=_random_conv,
        call=_conv_call,
        rtol=1e-7, atol=1e-9,
        hints=["Three steps: pad x (F.pad(x, (padding,) * 4)), take its windows (window_view), then multiply "
               "each window by each filter and add up over (channel, row, column) of the window.",
               "The windows are (N, C, OH, OW, kh, kw) and the weight (O, C, kh, kw): contract C, kh, kw. "
               "tt.einsum('nchwij,ocij->nohw', windows, weight) does it; or move C, kh, kw last, reshape to "
               "(N*OH*OW, C*kh*kw), and @ weight.reshape(O, -1).T.",
               "Do not flip the kernel: PyTorch's conv2d is a cross-correlation. Add the bias as "
               "bias.view(1, O, 1, 1)."],
        solution='''import teachtorch as tt
import teachtorch.nn.functional as F


def conv2d_as_strided(x, weight, bias, stride, padding):
    x = F.pad(x, (padding, padding, padding, padding))
    windows = window_view(x, weight.shape[2], weight.shape[3], stride)
    out = tt.einsum("nchwij,ocij->nohw", windows, weight)
    if bias is not None:
        out = out + bias.view(1, -1, 1, 1)
    return out


''' + WINDOW_SOLUTION,
    ),
    Exercise(
        name="L12.confusion_matrix",
        title="confusion_matrix(pred, target, n) -> (n, n) counts: [i, j] = how many of class i were predicted j",
        reference=lambda pred, target, n: _counts(pred, target, n),
        known=[((_t([0, 1, 1, 2], int=1), _t([0, 1, 2, 2], int=1), 3),
                np.array([[1., 0, 0], [0, 1, 0], [0, 1, 1]])),
               ((_t([2, 2], int=1), _t([0, 0], int=1), 4), np.array([[0., 0, 2, 0]] + [[0.] * 4] * 3))],
        random_args=_random_confusion,
        call=_confusion_call,
        hints=["Start from an (n, n) table of zeros and add 1 at [target[k], pred[k]] for every k: the row is the "
               "true class.",
               "In one go: counts.index_put_((target, pred), tt.ones(len(target), dtype=tt.int64), "
               "accumulate=True); a plain loop over zip(target.tolist(), pred.tolist()) is fine too.",
               "The table is n by n even when some class never appears; rows are targets, columns predictions."],
        solution='''import teachtorch as tt


def confusion_matrix(pred, target, n):
    counts = tt.zeros(n, n, dtype=tt.int64)
    counts.index_put_((target, pred), tt.ones(len(target), dtype=tt.int64), accumulate=True)
    return counts''',
    ),
]

