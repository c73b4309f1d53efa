"""pad: grow (or, with negative amounts, crop) the last dims of a tensor.

`pad` lists amounts from the LAST dim backwards, two per dim: `(left, right)` pads the last dim,
`(left, right, top, bottom)` the last two, as in PyTorch. What fills the new border depends on `mode`:

    constant   a value (0 by default)                      [1 2 3] -> 0 0 [1 2 3] 0 0
    reflect    the mirror image, edge not repeated         [1 2 3] -> 3 2 [1 2 3] 2 1
    replicate  the edge element repeated                   [1 2 3] -> 1 1 [1 2 3] 3 3
    circular   wrap around, as if the dim were periodic    [1 2 3] -> 2 3 [1 2 3] 1 2

As PyTorch's `F.pad` (aten/src/ATen/native/PadNd.cpp `_pad_enum`), this function checks the arguments and
calls one op per mode (ops/padding.py, kernels in kernels/padding.py):

- constant: `constant_pad_nd` (ConstantPadNdBackward0): crop by negative amounts, fill the border;
- reflect / replicate: `reflection_pad{1,2,3}d` / `replication_pad{1,2,3}d` by the number of padded dims
  (ReflectionPad2DBackward0, ...): every output position reads ONE input position, a gather;
- circular: as PyTorch's `_pad_circular`, a composite: the source index of every output position is
  computed in Python and gathered with `index_select` (its backward adds the gradients of positions that
  read the same element).
"""

from ..._dtype import int64
from ...ops import tensor as _tensor
from ...ops.padding import PAD_OPS, constant_pad_nd_op

__all__ = ["pad"]

_NON_CONSTANT_HELP = ("Supported combinations for non-constant padding:\n"
                      "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                      "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                      "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims of `input`; negative amounts remove elements instead."""
    for i, p in enumerate(pad):
        if not isinstance(p, int):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of "
                            f"type {type(p).__name__} at pos {i}")
    if len(pad) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    # (dim, left, right) for each padded dim: pad[0], pad[1] belong to the last dim
    amounts = [(input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    if mode == "constant":
        return constant_pad_nd_op(input, list(pad), 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if (len(pad), input.dim()) not in ((2, 2), (2, 3), (4, 3), (4, 4), (6, 4), (6, 5)):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
                                  + _NON_CONSTANT_HELP)
    _check_non_constant(input, amounts, mode, len(pad))
    if mode != "circular":
        return PAD_OPS[mode, len(pad) // 2][0](input, list(pad))
    output = input
    for dim, left, right in amounts:
        n = input.size(dim)
        sources = [_source_index(j, n, mode, left, right) for j in range(-left, n + right)]
        output = output.index_select(dim, _tensor(sources, dtype=int64, device=input.device))
    return output


def _source_index(j, n, mode, left, right):
    """Which input position (0..n-1) output position j (counted from the input's first element) reads in
    circular mode: PyTorch first crops by the negative amounts, then wraps around what is left."""
    start, stop = max(-left, 0), n - max(-right, 0)
    return start + (j - start) % (stop - start)


def _check_non_constant(input, amounts, mode, pad_length):
    """PyTorch's checks on the sizes reflect, replicate and circular can handle."""
    spatial = pad_length // 2
    batch_dims = input.dim() - spatial          # the unpadded leading dims: (channels) or (batch, channels)
    if mode != "circular":
        # the padded dims and the channel dim must be non-empty (a batch of 0 is allowed)
        if any(s == 0 for s in input.shape[batch_dims - 1 if batch_dims > 1 else 0:]) or (
                batch_dims == 1 and input.size(0) == 0):
            kind = {2: "2D or 3D", 4: "3D or 4D", 6: "4D or 5D"}[pad_length]
            raise RuntimeError(f"Expected {kind} (batch mode) tensor with possibly 0 batch size and other "
                               f"non-zero dimensions for input, but got: {list(input.shape)}")
    for i, (dim, left, right) in enumerate(amounts):
        n = input.size(dim)
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        if mode == "circular" and (left > n or right > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and n + left + right <= 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out_shape = list(input.shape)
    for dim, left, right in amounts:
        out_shape[dim] += left + right
    for size in out_shape:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: {out_shape}")
