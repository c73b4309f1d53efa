"""Lesson 1, a tensor is a view of a storage: the exercises.

    L01.contiguous_strides   contiguous_strides(shape) -> the strides of a fresh row-major tensor
    L01.index_to_offset      index_to_offset(index, strides, offset) -> where element `index` lives

Both are checked against the library's own code (teachtorch/_strides.py `contiguous_strides`; for the
offset, the formula every kernel uses: offset + sum(index[d] * strides[d])) on seeded random shapes,
after fixed cases worked out by hand. PyTorch: `torch.empty(shape).stride()` and `Tensor.storage_offset()`.
"""

from .. import _strides
from .core import Exercise


def _random_shape(rng, max_dims=4):
    return tuple(int(s) for s in rng.integers(1, 6, size=int(rng.integers(0, max_dims + 1))))


def _index_to_offset(index, strides, offset):
    return offset + sum(i * s for i, s in zip(index, strides))


def _random_index_case(rng):
    shape = _random_shape(rng)
    strides = tuple(int(s) for s in rng.integers(0, 30, size=len(shape)))     # any strides: views
    index = tuple(int(rng.integers(0, n)) for n in shape)
    return index, strides, int(rng.integers(0, 10))


EXERCISES = [
    Exercise(
        name="L01.contiguous_strides",
        title="contiguous_strides(shape): the strides (in elements) of a fresh, contiguous tensor of this shape",
        reference=lambda shape: _strides.contiguous_strides(shape),
        known=[(((2, 3, 4),), (12, 4, 1)), (((5,),), (1,)), (((),), ()), (((3, 1, 2),), (2, 2, 1)),
               (((2, 0, 3),), (3, 3, 1))],
        random_args=lambda rng: (_random_shape(rng),),
        hints=["The last dimension moves fastest: its stride is 1.",
               "Walk the dimensions from the last to the first, multiplying as you go: the stride of a dim "
               "is the product of the sizes to its right.",
               "A size-0 dim counts as size 1 for the dims to its left, as in PyTorch: "
               "torch.empty(2, 0, 3).stride() == (3, 3, 1)."],
        solution='''def contiguous_strides(shape):
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = running
        running *= max(shape[d], 1)
    return tuple(strides)''',
    ),
    Exercise(
        name="L01.index_to_offset",
        title="index_to_offset(index, strides, offset): the storage position of element `index`",
        reference=_index_to_offset,
        known=[(((1, 2), (4, 1), 0), 6), (((1, 2), (1, 3), 0), 7), (((0, 0), (4, 1), 5), 5),
               (((2, 1), (0, 1), 3), 4), (((), (), 7), 7)],
        random_args=_random_index_case,
        hints=["Start at the offset: element (0, 0, ...) lives there.",
               "Each step along dim d moves strides[d] places in the storage.",
               "offset + index[0] * strides[0] + index[1] * strides[1] + ..."],
        solution='''def index_to_offset(index, strides, offset):
    return offset + sum(i * s for i, s in zip(index, strides))''',
    ),
]
