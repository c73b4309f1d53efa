"""Plausible wrong answers to lesson 3's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch as tt

# ---- broadcast_shape --------------------------------------------------------------------------------------------


def _error(sa, sb, i):
    return RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
                        f"at non-singleton dimension {i}")


def shape_aligned_left(a, b):                    # pads the shorter shape on the right, not the left
    n = max(len(a), len(b))
    a, b = tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))
    out = []
    for i, (sa, sb) in enumerate(zip(a, b)):
        if sa != sb and sa != 1 and sb != 1:
            raise _error(sa, sb, i)
        out.append(sb if sa == 1 else sa)
    return tuple(out)


def shape_max(a, b):                             # takes the larger size: wrong when a 1 meets a 0
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (sa, sb) in enumerate(zip(a, b)):
        if sa != sb and sa != 1 and sb != 1:
            raise _error(sa, sb, i)
        out.append(max(sa, sb))
    return tuple(out)


def shape_dim_of_a(a, b):                        # the message counts a's dims, not the result's
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (sa, sb) in enumerate(zip(pa, pb)):
        if sa != sb and sa != 1 and sb != 1:
            raise _error(sa, sb, i - (n - len(a)))
        out.append(sb if sa == 1 else sa)
    return tuple(out)


def shape_never_raises(a, b):                    # forgets the check: the larger size always wins
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    return tuple(sb if sa == 1 else sa if sb == 1 else max(sa, sb) for sa, sb in zip(a, b))


# ---- the puzzles ------------------------------------------------------------------------------------------------


def ones_first_zero(n):                          # > where >= was meant
    return tt.where(tt.arange(n) > 0, 1, 0)


def ones_last_zero(n):                           # < n - 1: the last one is left out
    return tt.where(tt.arange(n) < n - 1, 1, 0)


def ones_too_short(n):                           # arange(n - 1): one short
    return tt.where(tt.arange(n - 1) >= 0, 1, 0)


def outer_sum(a, b):                             # + where * was meant
    return a[:, None] + b


def outer_transposed(a, b):                      # the row and the column swapped: shape (len(b), len(a))
    return b[:, None] * a


def outer_elementwise(a, b):                     # no new dim: a plain product (and only for equal lengths)
    return a * b


def eye_off_by_one(n):                           # the diagonal above the main one
    i = tt.arange(n)
    return tt.where(i[:, None] + 1 == i, 1, 0)


def eye_lower_triangle(n):                       # >= where == was meant
    i = tt.arange(n)
    return tt.where(i[:, None] >= i, 1, 0)


def eye_anti_diagonal(n):                        # the other diagonal
    i = tt.arange(n)
    return tt.where(i[:, None] + i == n - 1, 1, 0)


def triu_strict(n):                              # < leaves out the diagonal
    i = tt.arange(n)
    return tt.where(i[:, None] < i, 1, 0)


def triu_lower(n):                               # the comparison turned round: tril
    i = tt.arange(n)
    return tt.where(i[:, None] >= i, 1, 0)


def triu_one_below(n):                           # triu(n, -1): one diagonal too many
    i = tt.arange(n)
    return tt.where(i[:, None] <= i + 1, 1, 0)


def cumsum_exclusive(a):                         # j < i: out[i] leaves a[i] out
    j = tt.arange(len(a))
    return a @ tt.where(j[:, None] < j, 1, 0)


def cumsum_from_the_end(a):                      # the matrix on the wrong side: sums a[i:]
    j = tt.arange(len(a))
    return tt.where(j[:, None] <= j, 1, 0) @ a


def cumsum_total(a):                             # every entry the whole sum
    return a.sum() + 0 * a


def diff_wraps(a):                               # out[0] = a[0] - a[-1]
    i = tt.arange(len(a))
    return a - a[i - 1]


def diff_first_zero(a):                          # out[0] = 0
    i = tt.arange(len(a))
    return tt.where(i > 0, a - a[i - 1], 0)


def diff_sign(a):                                # a[i - 1] - a[i]
    i = tt.arange(len(a))
    return tt.where(i > 0, a[i - 1], 0) - a


def roll_wrong_way(a, k):                        # out[i] = a[i + k]: torch.roll(a, -k)
    n = len(a)
    return a[(tt.arange(n) + k) % n]


def roll_off_by_one(a, k):                       # one place too far
    n = len(a)
    return a[(tt.arange(n) - k - 1) % n]


def roll_mirrored(a, k):                         # k - i: rolls and flips
    n = len(a)
    return a[(k - tt.arange(n)) % n]


def flip_rows(a):                                # the wrong axis: upside down (torch.flipud)
    n = a.shape[0]
    return a[n - 1 - tt.arange(n)]


def flip_wraps(a):                               # m - j, not m - 1 - j: column 0 stays first
    m = a.shape[1]
    return a[:, (m - tt.arange(m)) % m]


def flip_both(a):                                # both axes (torch.flip(a, (0, 1)))
    n, m = a.shape
    return a[n - 1 - tt.arange(n)][:, m - 1 - tt.arange(m)]


def compress_in_place(g, v):                     # drops the rest but does not move the kept ones
    return tt.where(g, v, 0)


def compress_shifted(g, v):                      # cumsum(g) without the - 1: one slot too far right
    j = tt.arange(len(v))
    slot = tt.where(g, tt.where(g, 1, 0) @ tt.where(j[:, None] <= j, 1, 0), -1)
    return v @ tt.where(slot[:, None] == j, 1, 0)


def compress_unpadded(g, v):                     # boolean indexing: right values, no zeros after them
    return v[g]


WRONG = {
    "L03.broadcast_shape": [shape_aligned_left, shape_max, shape_dim_of_a, shape_never_raises],
    "L03.ones": [ones_first_zero, ones_last_zero, ones_too_short],
    "L03.outer": [outer_sum, outer_transposed, outer_elementwise],
    "L03.eye": [eye_off_by_one, eye_lower_triangle, eye_anti_diagonal],
    "L03.triu": [triu_strict, triu_lower, triu_one_below],
    "L03.cumsum": [cumsum_exclusive, cumsum_from_the_end, cumsum_total],
    "L03.diff": [diff_wraps, diff_first_zero, diff_sign],
    "L03.roll": [roll_wrong_way, roll_off_by_one, roll_mirrored],
    "L03.flip": [flip_rows, flip_wraps, flip_both],
    "L03.compress": [compress_in_place, compress_shifted, compress_unpadded],
}
