# Over 600 lines: every stride rule PyTorch has, read top to bottom in lesson 1; the rules call each other (view
# strides, output strides, overlap), and c10's and TensorIterator's are as long.
"""Sizes, strides, and the rules PyTorch uses to reason about them.

The concept
-----------
A tensor's elements live in one flat block of memory, its *storage*.  The
tensor itself is just a recipe for finding element ``[i0, i1, ..., ik]`` in
that block::

    address = storage_offset + i0 * stride[0] + i1 * stride[1] + ... + ik * stride[k]

``sizes`` say how many steps each index can take; ``strides`` say how far (in
elements, not bytes) one step along that dimension moves through memory.  A
freshly allocated ``(2, 3, 4)`` tensor has strides ``(12, 4, 1)``: moving one
step along the last dimension moves to the next element, one step along the
first dimension skips a whole ``3 * 4`` block.

Because the recipe is separate from the memory, many operations can be done
*without copying anything*, just by writing a new recipe: ``transpose`` swaps
two strides, slicing with a step multiplies a stride, ``expand`` sets a stride
to 0 so the same element is seen many times.  Everything in this file is pure
arithmetic on those two tuples of ints; no data is touched.

How PyTorch does it
-------------------
Each function below is a port of one piece of PyTorch's C++ core, kept as close
to the original as readability allows:

* ``contiguous_strides``        -- ``c10/util/strides.h`` (``c10::contiguous_strides``)
                                   and ``TensorImpl::empty_tensor_restride`` in
                                   ``c10/core/TensorImpl.h``.
* ``channels_last_strides``     -- ``get_channels_last_strides_2d`` in
                                   ``c10/core/MemoryFormat.h``.
* ``check_size_nonnegative``, ``compute_storage_nbytes_contiguous``,
  ``compute_storage_nbytes``    -- what ``torch.empty`` and ``torch.empty_strided``
                                   check before allocating (``as_strided`` too,
                                   before making a view): the functions of the
                                   same names in ``aten/src/ATen/EmptyTensor.cpp``.
* ``check_numel``               -- ``TensorImpl::safe_compute_numel`` in
                                   ``c10/core/TensorImpl.h``.
* ``checked_contiguous_strides`` -- the overflow check of
                                   ``TensorImpl::empty_tensor_restride``, same file.
* ``stored_strides``            -- what ``TensorImpl::set_sizes_and_strides`` makes
                                   of negative strides, same file.
* ``is_contiguous``             -- ``_compute_contiguous`` in ``c10/core/Contiguity.h``.
* ``is_channels_last_contiguous`` -- ``_compute_channels_last_contiguous_2d``,
                                   same file.
* ``is_non_overlapping_and_dense`` -- ``_compute_non_overlapping_and_dense``,
                                   same file, combined the way
                                   ``TensorImpl::_refresh_contiguous`` does.
* ``has_internal_overlap``      -- ``has_internal_overlap`` in
                                   ``aten/src/ATen/MemoryOverlap.cpp``.
* ``broadcast_shapes``          -- ``infer_size_impl`` in
                                   ``aten/src/ATen/ExpandUtils.cpp``.
* ``infer_size``                -- ``infer_size_impl`` in ``aten/src/ATen/InferSize.h``.
* ``compute_view_strides``      -- ``computeStride_impl`` in
                                   ``aten/src/ATen/TensorUtils.cpp``.
* ``normalize_dim``             -- ``maybe_wrap_dim`` in ``c10/core/WrapDimMinimal.h``
                                   (message text from ``aten/src/ATen/WrapDimUtils.h``).
* ``pointwise_output_strides``  -- ``TensorIteratorBase::build`` in
                                   ``aten/src/ATen/TensorIterator.cpp``
                                   (``compute_fast_setup_type``, ``fast_set_up``,
                                   ``compute_strides``, ``reorder_dimensions``,
                                   ``allocate_or_resize_outputs``).

Error messages are copied character for character from PyTorch (checked
against torch 2.13), so a learner who hits one here will recognise it there.
"""

__all__ = [
    "contiguous_strides",
    "channels_last_strides",
    "INT64_MIN",
    "INT64_MAX",
    "check_size_nonnegative",
    "compute_storage_nbytes_contiguous",
    "compute_storage_nbytes",
    "check_numel",
    "checked_contiguous_strides",
    "stored_strides",
    "is_contiguous",
    "is_channels_last_contiguous",
    "is_non_overlapping_and_dense",
    "has_internal_overlap",
    "broadcast_shapes",
    "infer_size",
    "compute_view_strides",
    "normalize_dim",
    "pointwise_output_strides",
    "preserve_format_strides",
]


def _numel(sizes):
    """Number of elements: the product of the sizes (1 for a 0-d tensor)."""
    n = 1
    for s in sizes:
        n *= s
    return n


def _format_shape(shape):
    """Print a shape the way c10 prints an IntArrayRef: ``[2, 5]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------------------
# Laying out fresh memory
# ---------------------------------------------------------------------------


def contiguous_strides(sizes):
    """Row-major ("C order") strides for a freshly allocated tensor.

    The last dimension moves fastest (stride 1); each earlier dimension skips
    over one full block of everything to its right.

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)

    A size-0 dimension is treated as if it had size 1 when computing the
    strides of the dimensions to its left, so strides are never 0 in a fresh
    tensor (``torch.empty(2, 0, 3).stride() == (3, 3, 1)``).  The strides of an
    empty tensor are never used to find an element, so any value would be
    "correct"; PyTorch picks non-zero ones so that an empty tensor never looks
    like an ``expand``-ed one.
    """
    strides = [1] * len(sizes)
    running = 1  # how many elements one step of the current dim skips
    for d in reversed(range(len(sizes))):
        strides[d] = running
        running *= max(sizes[d], 1)
    return tuple(strides)


def channels_last_strides(sizes):
    """Strides of a fresh 4-d ``(N, C, H, W)`` tensor in channels-last layout.

    Channels-last ("NHWC") keeps the dimensions in NCHW order -- only the
    memory order changes: C is fastest, then W, then H, then N.

    >>> channels_last_strides((2, 3, 4, 5))
    (60, 1, 15, 3)

    Unlike ``contiguous_strides`` this uses the sizes as they are, zeros
    included, exactly like ``get_channels_last_strides_2d`` in PyTorch, so
    ``torch.empty(2, 0, 4, 5, memory_format=torch.channels_last).stride()``
    is ``(0, 1, 0, 0)``.
    """
    if len(sizes) != 4:
        raise RuntimeError("required rank 4 tensor to use channels_last format")
    n, c, h, w = sizes
    return (c * w * h, 1, c * w, c)


# ---------------------------------------------------------------------------
# How big a tensor may be: sizes, strides and bytes in int64
# ---------------------------------------------------------------------------

# In PyTorch every size, stride, offset and element count is a C++ int64_t,
# so nothing may go past these (a Python int has no limit at all).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _unsigned(n):
    """An int64 read as a uint64, as C++ converts it: -1 becomes 2**64 - 1."""
    return n % 2**64


def _multiply_u64(sizes):
    """The product of ``sizes`` as ``c10::safe_multiplies_u64`` computes it, or
    None if it overflowed.

    The product is kept in a uint64, so a negative size counts as a huge
    number, and an overflow is remembered even when a later size is 0:
    ``(2**40, 2**40, 0)`` overflows, ``(0, 2**40, 2**40)`` is 0.
    """
    product = 1
    for size in sizes:
        product *= _unsigned(size)
        if product >= 2**64:
            return None
    return product


def check_size_nonnegative(sizes):
    """No size may be negative in a tensor that gets fresh memory.

    ``check_size_nonnegative`` in ``aten/src/ATen/EmptyTensor.cpp``, the
    first thing ``torch.empty`` and ``torch.empty_strided`` check.
    """
    for size in sizes:
        if size < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {size}: "
                f"{_format_shape(sizes)}"
            )


def compute_storage_nbytes_contiguous(sizes, itemsize):
    """Bytes of storage a fresh contiguous tensor needs: numel * itemsize.

    ``computeStorageNbytesContiguous`` in ``aten/src/ATen/EmptyTensor.cpp``:
    the product is taken in uint64 with overflow checks, and the result must
    fit in an int64 (``storage_max``).  So ``torch.zeros(2**40, 2**40)`` is
    refused before a byte is allocated.
    """
    numel = _multiply_u64(sizes)
    if numel is None or numel * itemsize > INT64_MAX:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={_format_shape(sizes)}"
        )
    return numel * itemsize


def compute_storage_nbytes(sizes, strides, itemsize, offset=0):
    """Bytes from the start of the storage to just past the last element.

    ``computeStorageNbytes`` in ``aten/src/ATen/EmptyTensor.cpp``, used by
    ``torch.empty_strided`` to size its storage and by ``as_strided`` /
    ``set_`` to check that a view stays inside its storage
    (``checkInBoundsForStorage``).  The last element sits at
    ``offset + sum(stride * (size - 1))``.

    * 0 when some size is 0: a tensor without elements fits any storage.
    * PyTorch adds up in uint64, reading each stride and ``size - 1`` as
      unsigned, and fails when a step overflows or the total passes the
      int64 maximum.  So a negative stride fails (it is a huge unsigned
      number) unless its dimension has size 1, and a negative size fails
      unless its stride is 0.
    """
    if len(sizes) != len(strides):
        raise RuntimeError(
            f"dimensionality of sizes ({len(sizes)}) must match dimensionality "
            f"of strides ({len(strides)})"
        )
    if 0 in sizes:
        return 0
    last = offset + sum(
        _unsigned(stride) * _unsigned(size - 1) for size, stride in zip(sizes, strides)
    )
    nbytes = (last + 1) * itemsize
    if nbytes > INT64_MAX:  # every term is >= 0: any overflow ends up here
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={_format_shape(sizes)} "
            f"and strides={_format_shape(strides)}"
        )
    return nbytes


def check_numel(sizes):
    """The number of elements must fit in an int64.

    ``TensorImpl::safe_compute_numel`` in ``c10/core/TensorImpl.h``, run
    whenever a tensor's sizes are set.  It matters where the storage does not
    grow with the element count: ``empty_strided((2**40, 2**40), (0, 0))``
    and ``expand`` need a single element of storage for 2**80 elements.
    """
    numel = _multiply_u64(sizes)
    if numel is None or numel > INT64_MAX:
        raise RuntimeError("numel: integer multiplication overflow")


def stored_strides(sizes, strides):
    """The strides a tensor keeps when it is given ``strides``: a negative one is replaced.

    ``TensorImpl::set_sizes_and_strides`` in ``c10/core/TensorImpl.h`` keeps
    strides "monotonically increasing to match NumPy": a negative stride
    becomes 1 in the last dimension, else the stride of the next dimension
    times its size (at least 1), computed in int64 with overflow checks.
    ``compute_storage_nbytes`` lets a negative stride through only where it
    is never used (a dimension of size 1, or a tensor without elements), so
    ``torch.empty_strided((1, 2), (-5, 1)).stride()`` is ``(2, 1)``.
    """
    if all(stride >= 0 for stride in strides):
        return tuple(strides)  # the usual case: kept as they are
    strides = list(strides)
    for d in reversed(range(len(sizes))):
        if strides[d] < 0:
            strides[d] = 1 if d == len(sizes) - 1 else strides[d + 1] * max(sizes[d + 1], 1)
    if any(stride > INT64_MAX for stride in strides):
        raise RuntimeError("Stride calculation overflowed")
    return tuple(strides)


def checked_contiguous_strides(sizes):
    """``contiguous_strides``, refusing strides that do not fit in an int64.

    ``TensorImpl::empty_tensor_restride`` in ``c10/core/TensorImpl.h``
    computes them in int64 with overflow checks.  With a size-0 dimension
    first, ``torch.empty(0, 2**40, 2**40)`` needs no storage at all, but its
    first stride would be 2**80.
    """
    strides = contiguous_strides(sizes)
    if strides and strides[0] > INT64_MAX:  # the first stride is the largest
        raise RuntimeError("Stride calculation overflowed")
    return strides


# ---------------------------------------------------------------------------
# Asking questions about a layout
# ---------------------------------------------------------------------------


def is_contiguous(sizes, strides):
    """Is this layout exactly what ``contiguous_strides`` would produce?

    Walk from the last dimension to the first, checking that each stride is
    the number of elements in everything to its right.  Two relaxations make
    the answer about *memory*, not about the exact numbers:

    * size-1 dimensions are skipped: you can never take a step along them, so
      their stride is never used and can be anything;
    * a tensor with no elements is always contiguous, whatever its strides.
    """
    if _numel(sizes) == 0:
        return True
    expected = 1
    for d in reversed(range(len(sizes))):
        if sizes[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def is_channels_last_contiguous(sizes, strides):
    """Is this 4-d layout exactly a fresh channels-last (NHWC) layout?

    Same walk as ``is_contiguous``, but visiting the dimensions in memory
    order C, W, H, N (indices 1, 3, 2, 0).  Only 4-d tensors can be
    channels-last.  Note PyTorch has *no* "empty is always true" shortcut
    here; it does not need one, because the contiguous check is always made
    first.
    """
    if len(sizes) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if sizes[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def is_non_overlapping_and_dense(sizes, strides):
    """Does the tensor cover a gap-free block of memory, each element once?

    This is "contiguous up to a permutation of the dimensions": a transposed
    matrix is not contiguous, but its elements still tile one dense block, so
    an elementwise op can run over the raw memory as a flat array.

    The check: sort the dimensions from smallest stride to largest (the order
    in memory), putting size-0 and size-1 dimensions last because their
    strides do not matter.  Then the fastest dimension must have stride 1,
    and each next one must step over exactly the block built so far.

    PyTorch's tensor flag (set in ``TensorImpl::_refresh_contiguous``) is
    "``is_contiguous`` or this check"; the ``is_contiguous`` part only changes
    the answer for empty tensors, which are contiguous, hence always dense.
    (Channels-last contiguous is also OR-ed in there, but a non-empty
    channels-last-contiguous tensor always passes the sort check anyway.)
    """
    if is_contiguous(sizes, strides):
        return True
    ndim = len(sizes)
    if ndim == 1:
        return sizes[0] < 2 or strides[0] == 1
    # Memory order: real dims (size >= 2) by increasing stride, then the rest.
    # Ties between real dims do not need a rule: two size>=2 dims with the same
    # stride overlap, and the loop below rejects them in either order.
    order = sorted(range(ndim), key=lambda d: (sizes[d] < 2, strides[d]))
    required = 1
    for d in order:
        if sizes[d] < 2:
            return True  # only "don't care" dims remain
        if strides[d] != required:
            return False
        required *= sizes[d]
    return True


def has_internal_overlap(sizes, strides):
    """Could two different indices of this tensor name the same memory?

    Writing into such a tensor in place (``x.add_(1)`` on an expanded ``x``)
    would update one memory cell several times, so PyTorch refuses.

    Deciding overlap exactly for arbitrary strides is a hard number-theory
    problem, so PyTorch (``has_internal_overlap`` in MemoryOverlap.cpp) only
    answers the easy cases and returns one of three values:

    * ``No``      -- the tensor is non-overlapping and dense;
    * ``Yes``     -- some dimension of size > 1 has stride 0 (an ``expand``);
    * ``TooHard`` -- anything else, e.g. ``as_strided((3, 3), (1, 1))``.

    Callers such as ``assert_no_internal_overlap`` only raise on ``Yes``, so
    ``TooHard`` is treated as "assume it is fine".  This function returns a
    bool with the same meaning: True only for the definite ``Yes``.
    """
    if is_non_overlapping_and_dense(sizes, strides):
        return False
    for size, stride in zip(sizes, strides):
        if size > 1 and stride == 0:
            return True
    return False  # TooHard: PyTorch does not raise, so neither do we


# ---------------------------------------------------------------------------
# Shapes: broadcasting, -1 in reshape, negative dims
# ---------------------------------------------------------------------------


def _broadcast_pair(a, b):
    """Broadcast two shapes (PyTorch's two-argument ``infer_size``)."""
    ndim = max(len(a), len(b))
    result = [0] * ndim
    # Walk from the right; a missing leading dim behaves like size 1.
    for i in reversed(range(ndim)):
        offset = ndim - 1 - i
        dim_a = len(a) - 1 - offset
        dim_b = len(b) - 1 - offset
        size_a = a[dim_a] if dim_a >= 0 else 1
        size_b = b[dim_b] if dim_b >= 0 else 1
        if not (size_a == size_b or size_a == 1 or size_b == 1):
            # i counts dimensions of the *result*, not of a or b.
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of "
                f"tensor b ({size_b}) at non-singleton dimension {i}"
            )
        # A 1 takes the other size -- even 0: (1,) with (0,) gives (0,).
        result[i] = size_b if size_a == 1 else size_a
    return tuple(result)


def broadcast_shapes(*shapes):
    """The shape that elementwise ops produce from inputs of these shapes.

    Line the shapes up on the right; in every column the sizes must agree,
    except that a size of 1 (or a missing dimension) stretches to match.

    >>> broadcast_shapes((2, 1, 4), (3, 1))
    (2, 3, 4)

    With more than two shapes PyTorch folds from the left (``expand_outplace``
    and ``TensorIterator::compute_shape`` both do this), so in an error
    message "tensor a" is the broadcast of all the shapes seen so far.

    (``torch.broadcast_shapes`` itself is written in Python and raises a
    different message; this follows the C++ one that ``torch.add`` or
    ``torch.broadcast_tensors`` raise.)
    """
    result = ()
    for shape in shapes:
        result = _broadcast_pair(result, tuple(shape))
    return result


def infer_size(shape, numel):
    """Fill in the one ``-1`` of a ``view``/``reshape`` shape.

    ``x.view(2, -1)`` on 12 elements means ``x.view(2, 6)``: the -1 is
    whatever makes the element counts match.

    >>> infer_size((2, -1), 12)
    (2, 6)

    Errors, with PyTorch's exact messages:

    * two -1s, or a negative size other than -1;
    * element counts that cannot match;
    * a -1 next to a 0 on an empty tensor: ``(0, -1)`` on 0 elements could be
      ``(0, 5)`` or ``(0, 7)``; NumPy refuses to guess, and so does PyTorch.
    """
    shape = tuple(shape)
    known_product = 1  # product of all sizes except the -1
    infer_dim = None
    for dim, size in enumerate(shape):
        if size == -1:
            if infer_dim is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer_dim = dim
        elif size >= 0:
            known_product *= size
        else:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {dim} "
                f"of shape {_format_shape(shape)}"
            )

    if infer_dim is None:
        if numel != known_product:
            raise RuntimeError(
                f"shape '{_format_shape(shape)}' is invalid for input of size {numel}"
            )
        return shape

    # The -1 must be a whole number: numel divisible by the known part.
    # (numel == known_product also passes, so that the 0-element case below
    # gets its own, clearer message instead of this one.)
    if not ((known_product > 0 and numel % known_product == 0) or numel == known_product):
        raise RuntimeError(
            f"shape '{_format_shape(shape)}' is invalid for input of size {numel}"
        )
    if known_product == 0:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape {_format_shape(shape)} "
            "because the unspecified dimension size -1 can be any value and is ambiguous"
        )
    result = list(shape)
    result[infer_dim] = numel // known_product
    return tuple(result)


def normalize_dim(dim, ndim):
    """Turn a possibly-negative dim into an index in ``range(ndim)``.

    ``dim=-1`` means the last dimension, as in Python lists.  A 0-d tensor
    is treated as having one dimension for this purpose, so
    ``torch.tensor(1.).sum(0)`` and ``.sum(-1)`` both work, while ``.sum(1)``
    raises with the range ``[-1, 0]``.  PyTorch raises ``IndexError``.
    """
    if ndim <= 0:
        ndim = 1  # "wrap_scalar": scalars accept dims -1 and 0
    lowest, highest = -ndim, ndim - 1
    if dim < lowest or dim > highest:
        raise IndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{lowest}, {highest}], but got {dim})"
        )
    return dim + ndim if dim < 0 else dim


# ---------------------------------------------------------------------------
# view: new sizes over the same memory
# ---------------------------------------------------------------------------


def compute_view_strides(old_sizes, old_strides, new_sizes):
    """Strides that let ``new_sizes`` read the same memory, or None.

    ``x.view(new_sizes)`` never copies: it must find strides such that the
    new tensor visits exactly the same memory cells, in the same row-major
    order, as ``x``.  Sometimes that is impossible; then ``view`` fails and
    ``reshape`` falls back to copying.

    The chunk idea
    --------------
    Split the old dimensions into *chunks*: runs of neighbouring dimensions
    that together behave like one contiguous dimension.  Dimension ``d-1``
    joins ``d``'s chunk when stepping once along ``d-1`` lands exactly where
    running off the end of the chunk so far would land::

        old_strides[d-1] == (product of sizes in the chunk) * (stride of the chunk's last dim)

    Inside a chunk memory is evenly spaced, so it can be re-split into any
    sizes whose product is the chunk's element count.  Between chunks there
    is a jump, so no new dimension may straddle two chunks.  The algorithm
    walks old dims and new dims together from the right: each time a chunk
    ends, it hands out new dims until they exactly cover that chunk.

    Example: ``x = torch.arange(24).reshape(2, 3, 4)[:, :, :2]`` has sizes
    ``(2, 3, 2)`` and strides ``(12, 4, 1)``.  Dim 2 (stride 1, 2 elements)
    would need dim 1 to have stride 2, but it has 4: a chunk boundary.  Dim 1
    joins dim 0 (12 == 3 * 4), so the chunks are ``(2, 3)`` with base
    stride 4 and ``(2,)`` with base stride 1.  ``(2, 3, 2, 1)`` fits those
    chunks; ``(2, 6)`` would need a dim of 6 to straddle both, so it fails.
    """
    # Over 60 lines: at::detail::computeStride, one algorithm followed line by line from TensorUtils.cpp.
    old_sizes = tuple(old_sizes)
    old_strides = tuple(old_strides)
    new_sizes = tuple(new_sizes)

    # A 0-d tensor has one element; any all-ones shape views it with stride 1.
    if len(old_sizes) == 0:
        return (1,) * len(new_sizes)

    # No elements: strides are never used.  Keep them if the shape is
    # unchanged, otherwise use fresh ones (this is what NumPy does too).
    if _numel(old_sizes) == 0:
        if old_sizes == new_sizes:
            return old_strides
        return contiguous_strides(new_sizes)

    new_strides = [0] * len(new_sizes)
    view_d = len(new_sizes) - 1  # next new dim to hand out (right to left)
    chunk_base_stride = old_strides[-1]  # stride of the chunk's fastest dim
    chunk_numel = 1  # elements in the old chunk so far
    view_numel = 1  # elements covered by new dims handed out to this chunk

    for tensor_d in reversed(range(len(old_sizes))):
        chunk_numel *= old_sizes[tensor_d]

        # Does the chunk end here?  Yes at dim 0; otherwise yes unless the
        # next dim to the left continues the even spacing (size-1 dims never
        # break a chunk, since their stride is never used).
        chunk_ends = tensor_d == 0 or (
            old_sizes[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != chunk_numel * chunk_base_stride
        )
        if not chunk_ends:
            continue

        # Hand out new dims until they cover the chunk.  Size-1 new dims are
        # taken greedily too (they fit anywhere).
        while view_d >= 0 and (view_numel < chunk_numel or new_sizes[view_d] == 1):
            new_strides[view_d] = view_numel * chunk_base_stride
            view_numel *= new_sizes[view_d]
            view_d -= 1
        if view_numel != chunk_numel:
            return None  # a new dim would straddle two chunks

        # Start the next chunk.
        if tensor_d > 0:
            chunk_base_stride = old_strides[tensor_d - 1]
            chunk_numel = 1
            view_numel = 1

    if view_d != -1:
        return None  # new dims left over (only if the element counts differ)
    return tuple(new_strides)


# ---------------------------------------------------------------------------
# Layout of the result of an elementwise op
# ---------------------------------------------------------------------------


def _iterator_strides(shape, sizes, strides):
    """One operand's strides as TensorIterator sees them (``compute_strides``).

    The operand is lined up against the broadcast ``shape`` on the right.
    Where it is broadcast -- a missing leading dim, or size 1 stretched to a
    bigger size -- the iterator uses stride 0: the same element is reused.
    A size-1 dim facing a size-1 dim of ``shape`` keeps its (arbitrary!)
    stride; it is not being broadcast.
    """
    offset = len(shape) - len(sizes)
    result = [0] * len(shape)
    for i, (size, stride) in enumerate(zip(sizes, strides)):
        if size == 1 and shape[offset + i] != 1:
            result[offset + i] = 0
        else:
            result[offset + i] = stride
    return result


def pointwise_output_strides(shape, operands):
    """Strides PyTorch picks for the output of an elementwise op.

    ``shape`` is the broadcast shape of the inputs; ``operands`` is a list of
    ``(sizes, strides)`` pairs, one per input, in argument order.

    The idea: the output should be laid out *like the inputs*, so that
    ``torch.exp(x.t())`` is itself transposed and the op can walk all
    tensors through memory in the same order.  TensorIterator decides this
    in two steps.

    1. Fast setup (``compute_fast_setup_type``), only when no input is
       broadcast (all have exactly ``shape``): if all are contiguous, the
       output is contiguous; else if all are channels-last contiguous, it is
       channels-last; else if all are non-overlapping-and-dense with the very
       same strides, it copies those strides.

    2. Otherwise, sort the dimensions from fastest to slowest
       (``reorder_dimensions``) by asking the inputs, in order, which of two
       dims has the smaller stride -- an input broadcast along either dim has
       no opinion -- and lay the output out densely in that order
       (``allocate_or_resize_outputs``).

    The inputs are assumed to already have the result's dtype.  With mixed
    dtypes (``float32 + float64``) PyTorch first converts the odd input with
    ``.to(result_dtype)``, which builds a *new* dense tensor, and it is that
    copy's strides that take part here.
    """
    # Over 60 lines: TensorIterator's reorder_dimensions, one algorithm followed line by line from
    # TensorIterator.cpp.
    shape = tuple(shape)
    ndim = len(shape)

    # -- 1. fast setup ------------------------------------------------------
    if all(tuple(sizes) == shape for sizes, _ in operands):
        if all(is_contiguous(sizes, strides) for sizes, strides in operands):
            return contiguous_strides(shape)
        if all(is_channels_last_contiguous(sizes, strides) for sizes, strides in operands):
            return channels_last_strides(shape)
        all_dense = all(is_non_overlapping_and_dense(sz, st) for sz, st in operands)
        all_same = all(tuple(st) == tuple(operands[0][1]) for _, st in operands)
        if all_dense and all_same:
            return tuple(operands[-1][1])

    # -- 2. general path ----------------------------------------------------
    op_strides = [_iterator_strides(shape, sizes, strides) for sizes, strides in operands]

    def should_swap(dim0, dim1):
        """1: dim0 is slower, so it must move after dim1 in ``perm``;
        -1: dim0 is faster, keep it before dim1; 0: no input cares."""
        for strides in op_strides:
            stride0, stride1 = strides[dim0], strides[dim1]
            if stride0 == 0 or stride1 == 0:
                continue  # broadcast along one of them: no opinion
            if stride0 < stride1:
                return -1
            if stride0 > stride1:
                return 1
            # Equal strides (size-1 dims, or overlapping inputs): put the
            # smaller dim first, but only as a reason to swap -- otherwise
            # let the next input decide.
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    # perm[0] is the fastest-moving dim.  Start from the row-major guess
    # (last dim fastest), then insertion-sort it.  The comparison may answer
    # "don't know" (0); then we keep looking further left, which is why this
    # is not a plain sorted() call with a key.
    perm = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break

    # If the order is plain row-major, PyTorch simply allocates a contiguous
    # tensor (``torch.empty(shape)``), whose strides treat size 0 as size 1.
    if perm == list(range(ndim - 1, -1, -1)):
        return contiguous_strides(shape)

    # Otherwise it computes dense strides in perm order using the raw sizes
    # (``compatible_stride``), so a size-0 dim makes every slower stride 0.
    # E.g. a = torch.empty(3, 0, 2).permute(2, 0, 1) has shape (2, 3, 0) and
    # (a + torch.empty(2, 1, 0)).stride() is (1, 0, 2): dim 1 comes after
    # the size-0 dim 2 in memory order.
    strides = [0] * ndim
    running = 1
    for d in perm:
        strides[d] = running
        running *= shape[d]
    return tuple(strides)


def preserve_format_strides(sizes, strides):
    """Strides of a new tensor laid out like an existing one (PyTorch's ``memory_format=preserve_format``).

    What ``clone()``, ``empty_like()`` and ``.to(dtype)`` give: the input's own strides when they are dense
    and non-overlapping (a transposed weight gives a transposed clone), otherwise dense strides in the
    input's memory order, which is TensorIterator's rule for a single operand
    (``empty_like`` in aten/src/ATen/native/TensorFactories.cpp, ``infer_dense_strides``).
    """
    if is_non_overlapping_and_dense(sizes, strides):
        return tuple(strides)
    return pointwise_output_strides(sizes, [(sizes, strides)])
