"""Plausible wrong answers to lesson 12's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch as tt
import teachtorch.nn.functional as F


def _windows(x, kh, kw, stride):                      # a right window view, for the wrong answers to use
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    return x.as_strided((n, c, oh, ow, kh, kw), (sn, sc, sh * stride, sw * stride, sh, sw), x.storage_offset())


# ---- window_view ---------------------------------------------------------------------------------------------

def window_stride_forgotten(x, kh, kw, stride):       # windows one pixel apart whatever the stride
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    return x.as_strided((n, c, oh, ow, kh, kw), (sn, sc, sh, sw, sh, sw), x.storage_offset())


def window_assumes_contiguous(x, kh, kw, stride):     # computes the strides from the shape, not from x
    n, c, h, w = x.shape
    sn, sc, sh, sw = c * h * w, h * w, w, 1
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    return x.as_strided((n, c, oh, ow, kh, kw), (sn, sc, sh * stride, sw * stride, sh, sw), x.storage_offset())


def window_offset_zero(x, kh, kw, stride):            # starts at cell 0 of the storage, not at x's offset
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    return x.as_strided((n, c, oh, ow, kh, kw), (sn, sc, sh * stride, sw * stride, sh, sw), 0)


def window_copied(x, kh, kw, stride):                 # the right numbers, but in a fresh storage
    return _windows(x, kh, kw, stride).clone()


# ---- conv2d_as_strided ---------------------------------------------------------------------------------------

def _conv(x, weight, bias, stride, padding, windows=_windows, flip=False, forget_padding=False):
    if not forget_padding:
        x = F.pad(x, (padding,) * 4)
    w = weight.flip(-2, -1) if flip else weight
    out = tt.einsum("nchwij,ocij->nohw", windows(x, weight.shape[2], weight.shape[3], stride), w)
    return out if bias is None else out + bias.view(1, -1, 1, 1)


def conv_stride_forgotten(x, weight, bias, stride, padding):      # window strides not multiplied by the stride
    return _conv(x, weight, bias, stride, padding, windows=window_stride_forgotten)


def conv_kernel_flipped(x, weight, bias, stride, padding):        # a true convolution, not cross-correlation
    return _conv(x, weight, bias, stride, padding, flip=True)


def conv_padding_forgotten(x, weight, bias, stride, padding):
    return _conv(x, weight, bias, stride, padding, forget_padding=True)


def conv_channels_in_wrong_order(x, weight, bias, stride, padding):
    # im2col rows flattened as (C, kh, kw) but the weight flattened as (kh, kw, C)
    x = F.pad(x, (padding,) * 4)
    o, c, kh, kw = weight.shape
    win = _windows(x, kh, kw, stride)
    n, _, oh, ow = win.shape[:4]
    cols = win.permute(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = (cols @ weight.permute(0, 2, 3, 1).reshape(o, -1).T).reshape(n, oh, ow, o).permute(0, 3, 1, 2)
    return out if bias is None else out + bias.view(1, -1, 1, 1)


def conv_bias_forgotten(x, weight, bias, stride, padding):
    return _conv(x, weight, None, stride, padding)


# ---- confusion_matrix ----------------------------------------------------------------------------------------

def confusion_transposed(pred, target, n):            # rows the prediction, columns the truth
    counts = tt.zeros(n, n, dtype=tt.int64)
    counts.index_put_((pred, target), tt.ones(len(target), dtype=tt.int64), accumulate=True)
    return counts


def confusion_classes_seen(pred, target, n):          # as many rows as the largest class seen, not n
    k = int(max(pred.max().item(), target.max().item())) + 1
    counts = tt.zeros(k, k, dtype=tt.int64)
    counts.index_put_((target, pred), tt.ones(len(target), dtype=tt.int64), accumulate=True)
    return counts


def confusion_no_accumulate(pred, target, n):         # index_put_ without accumulate: repeats count once
    counts = tt.zeros(n, n, dtype=tt.int64)
    counts.index_put_((target, pred), tt.ones(len(target), dtype=tt.int64))
    return counts


def confusion_row_fractions(pred, target, n):         # each row divided by its total: rates, not counts
    counts = confusion_transposed(target, pred, n).double()
    return counts / counts.sum(1, keepdim=True).clamp(min=1)


WRONG = {
    "L12.window_view": [window_stride_forgotten, window_assumes_contiguous, window_offset_zero, window_copied],
    "L12.conv2d_as_strided": [conv_stride_forgotten, conv_kernel_flipped, conv_padding_forgotten,
                              conv_channels_in_wrong_order, conv_bias_forgotten],
    "L12.confusion_matrix": [confusion_transposed, confusion_classes_seen, confusion_no_accumulate,
                             confusion_row_fractions],
}
