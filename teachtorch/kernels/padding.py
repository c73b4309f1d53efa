"""The padding kernels: constant_pad_nd, reflection_pad{1,2,3}d, replication_pad{1,2,3}d and their backward.

`pad` lists amounts from the LAST dim backwards, two per dim: `(left, right)` pads the last dim,
`(left, right, top, bottom)` the last two, as in PyTorch. What fills the new border depends on the op:

    constant_pad_nd     a value (0 by default)                  [1 2 3] -> 0 0 [1 2 3] 0 0
    reflection_pad      the mirror image, edge not repeated     [1 2 3] -> 3 2 [1 2 3] 2 1
    replication_pad     the edge element repeated               [1 2 3] -> 1 1 [1 2 3] 3 3

* constant: negative amounts first crop the input (a slice), positive ones grow it (`xp.pad` with the
  value), as aten/src/ATen/native/PadNd.cpp `constant_pad_nd` (narrow, then a filled result with the input
  copied into its middle). Its gradient is the same op with the amounts negated: the middle of the gradient.
* reflect / replicate: every output position along a dim reads ONE input position, so compute that list of
  source indices and gather with `take` along each padded dim. The backward scatters back with `add.at`:
  positions that read the same element (the reflected and repeated edges) add up, as
  ReflectionPad.cpp / ReplicationPadding.cpp's backward kernels do.

Results keep a channels-last input channels-last (PyTorch allocates them with `suggest_memory_format()`).
"""

from .._strides import channels_last_strides, preserve_format_strides
from ..backends import empty, wrap, wrap_strided
from ..backends.differences import ufunc_at
from .indexing import is_meta, xp_for
from .shape import suggest_memory_format


def _result(array, like):
    if suggest_memory_format(like) == "channels_last":
        return wrap_strided(array, like.dtype, like.device, channels_last_strides(array.shape))
    return wrap(array, like.dtype, like.device)


def _empty(sizes, like):
    strides = channels_last_strides(sizes) if suggest_memory_format(like) == "channels_last" else None
    return empty(sizes, like.dtype, like.device, strides)


def _amounts(ndim, pad):
    """(dim, left, right) for each padded dim: pad[0], pad[1] belong to the last dim."""
    return [(ndim - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


def constant_pad_nd_kernel(ks, self, pad, value=0):
    """PadNd.cpp `constant_pad_nd`: crop by the negative amounts, then grow by the positive ones."""
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > self.dim():
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {self.dim()} dimensions.")
    amounts = _amounts(self.dim(), pad)
    sizes = list(self.shape)
    for dim, left, right in amounts:
        if self.shape[dim] + min(left, 0) + min(right, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        sizes[dim] += left + right
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {sizes}")
    if is_meta(self):
        return _empty(tuple(sizes), self)
    xp = xp_for(self)
    x = self._data()
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for dim, left, right in amounts:
        crop[dim] = slice(max(-left, 0), x.shape[dim] - max(-right, 0))
        widths[dim] = (max(left, 0), max(right, 0))
    if all(left <= 0 and right <= 0 for _, left, right in amounts):
        # only cropping: PyTorch returns `narrowed.clone()`, laid out like the narrowed input
        strides = preserve_format_strides(tuple(sizes), tuple(self.stride()))
        return wrap_strided(x[tuple(crop)].copy(), self.dtype, self.device, strides)
    out = xp.pad(x[tuple(crop)], widths, constant_values=value)
    return _result(out, self)


def source_indices(xp, n, left, right, mode):
    """Which input position (0..n-1) each output position along one dim reads (a reflection without the
    edge, or the edge repeated)."""
    j = xp.arange(-left, n + right)
    if mode == "reflect":
        j = xp.abs(j)                                   # -1 -> 1, -2 -> 2: mirror at the first element
        return xp.where(j < n, j, 2 * (n - 1) - j)     # n -> n-2: mirror at the last element
    return xp.clip(j, 0, n - 1)


def reflection_pad_kernel(ks, self, padding):
    """reflection_pad{1,2,3}d: gather the mirrored positions along each padded dim."""
    return _gather(self, padding, "reflect")


def replication_pad_kernel(ks, self, padding):
    """replication_pad{1,2,3}d: gather the clamped positions along each padded dim."""
    return _gather(self, padding, "replicate")


def _gather(self, padding, mode):
    amounts = _amounts(self.dim(), padding)
    sizes = list(self.shape)
    for dim, left, right in amounts:
        sizes[dim] += left + right
    if is_meta(self):
        return _empty(tuple(sizes), self)
    xp = xp_for(self)
    out = self._data()
    for dim, left, right in amounts:
        out = xp.take(out, source_indices(xp, out.shape[dim], left, right, mode), axis=dim)
    return _result(out, self)


def reflection_pad_backward_kernel(ks, grad_output, self, padding):
    """reflection_pad{1,2,3}d_backward: every output gradient added back to the position it read."""
    return _scatter(grad_output, self, padding, "reflect")


def replication_pad_backward_kernel(ks, grad_output, self, padding):
    """replication_pad{1,2,3}d_backward: every output gradient added back to the position it read."""
    return _scatter(grad_output, self, padding, "replicate")


def _scatter(grad_output, self, padding, mode):
    if is_meta(grad_output, self):
        return _empty(tuple(self.shape), self)
    xp = xp_for(grad_output)
    grad = grad_output._data()
    for dim, left, right in _amounts(self.dim(), padding):
        n = self.shape[dim]
        sizes = list(grad.shape)
        sizes[dim] = n
        back = xp.zeros(sizes, dtype=grad.dtype)
        where = (slice(None),) * dim + (source_indices(xp, n, left, right, mode),)
        ufunc_at(xp, "add", back, where, grad)      # (repeated positions add up; CuPy: scatter_add)
        grad = back
    return _result(grad, self)
