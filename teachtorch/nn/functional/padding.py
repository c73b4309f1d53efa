"""pad: grow (or, with negative amounts, crop) the last dims of a tensor.

`pad` lists amounts from the LAST dim backwards, two per dim: `(left, right)` pads the last dim,
`(left, right, top, bottom)` the last two, as in PyTorch. What fills the new border depends on `mode`:

    constant   a value (0 by default)                      [1 2 3] -> 0 0 [1 2 3] 0 0
    reflect    the mirror image, edge not repeated         [1 2 3] -> 3 2 [1 2 3] 2 1
    replicate  the edge element repeated                   [1 2 3] -> 1 1 [1 2 3] 3 3
    circular   wrap around, as if the dim were periodic    [1 2 3] -> 2 3 [1 2 3] 1 2

PyTorch has a kernel per mode and per number of dims (aten/src/ATen/native/ReflectionPad.cpp, ...). Here
two ideas cover them all, built from core ops so autograd needs nothing new:

- constant: make the output filled with the value, then write the input into the middle of it (a slice
  assignment; its backward takes the same slice of the gradient);
- the other modes: every output position along a dim reads ONE input position, so compute that list of
  source indices in Python and gather with `index_select` (its backward adds the gradients of positions
  that read the same element: the reflected and repeated edges).
"""

from ..._dtype import int64
from ...ops import tensor as _tensor

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
        return _constant_pad(input, amounts, 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if (len(pad), input.dim()) not in ((2, 2), (2, 3), (4, 3), (4, 4), (6, 4), (6, 5)):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
                                  + _NON_CONSTANT_HELP)
    _check_non_constant(input, amounts, mode, len(pad))
    output = input
    for dim, left, right in amounts:
        n = input.size(dim)
        sources = [_source_index(j, n, mode, left, right) for j in range(-left, n + right)]
        output = output.index_select(dim, _tensor(sources, dtype=int64, device=input.device))
    return output


def _source_index(j, n, mode, left, right):
    """Which input position (0..n-1) output position j (counted from the input's first element) reads."""
    if mode == "reflect":
        j = abs(j)                    # -1 -> 1, -2 -> 2: mirror at the first element
        return j if j < n else 2 * (n - 1) - j     # n -> n-2: mirror at the last element
    if mode == "replicate":
        return min(max(j, 0), n - 1)
    # circular: PyTorch first crops by the negative amounts, then wraps around what is left
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


def _constant_pad(input, amounts, value):
    # negative amounts first crop the input ...
    cropped = input
    for dim, left, right in amounts:
        start, stop = max(-left, 0), input.size(dim) - max(-right, 0)
        if stop < start:
            raise RuntimeError("narrow(): length must be non-negative.")
        cropped = cropped.narrow(dim, start, stop - start)
    if all(left <= 0 and right <= 0 for _, left, right in amounts):
        return cropped.clone()        # only cropping: a copy laid out like the input, as PyTorch returns
    # ... then positive amounts grow the output around it
    out_shape = list(input.shape)
    window = [slice(None)] * input.dim()
    for dim, left, right in amounts:
        out_shape[dim] = cropped.size(dim) + max(left, 0) + max(right, 0)
        window[dim] = slice(max(left, 0), max(left, 0) + cropped.size(dim))
    output = input.new_full(out_shape, value)
    output[tuple(window)] = cropped
    return output
