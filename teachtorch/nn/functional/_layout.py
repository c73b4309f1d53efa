"""The layout PyTorch gives the results of its hand-written layer kernels (conv, pooling, norms, nll_loss).

Our layers are compositions of core ops, and each op picks its result's strides by TensorIterator's rule.
PyTorch's dedicated kernels instead allocate their result fresh, contiguous or channels-last. The two agree
on every dim of size > 1 in the usual cases and differ on channels-last inputs and on the strides of size-1
dims (which never change which element is where, but are part of what PyTorch returns). `_pytorch_layout`
copies a result into PyTorch's layout when, and only when, they differ.
"""

import teachtorch as tt
from ..._strides import channels_last_strides, contiguous_strides, preserve_format_strides
from ...kernels.shape import suggest_memory_format


def _pytorch_layout(out, like=None):
    """`out` with the strides PyTorch gives these results: it allocates them with
    `empty(sizes, memory_format=like.suggest_memory_format())`, i.e. contiguous strides, or channels-last
    strides when `like` (the input) is laid out channels-last (NHWC in memory). Our ops give the right strides
    except for a channels-last input and on dims of size 1 (whose strides never matter for addressing, but
    are part of what PyTorch returns); then we copy into the right layout."""
    if like is not None and out.dim() == 4 and suggest_memory_format(like) == "channels_last":
        strides = channels_last_strides(tuple(out.shape))
    else:
        strides = contiguous_strides(tuple(out.shape))
    if out.stride() != strides:
        out = tt.empty_strided(out.shape, strides, dtype=out.dtype, device=out.device).copy_(out)
    return out


def _layout_of_empty_like(out, like):
    """`out` with the strides of `empty_like(like)` (like's own layout made dense), which is how PyTorch
    allocates the result of a kernel such as binary_cross_entropy's: `at::empty_like(input)`."""
    strides = preserve_format_strides(tuple(like.shape), like.stride())
    if out.stride() != strides:
        out = tt.empty_strided(out.shape, strides, dtype=out.dtype, device=out.device).copy_(out)
    return out
