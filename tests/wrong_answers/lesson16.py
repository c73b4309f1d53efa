"""Plausible wrong answers to lesson 16's exercises: each check must reject every one (tests/test_exercises.py)."""

import numpy as np

import teachtorch as tt


# ---- L16.softclip_kernel ----

def kernel_numpy_not_xp(xp, x, limit):                # np.* instead of xp: fine on the CPU, fails on CuPy
    inside = x - x ** 3 / (3 * limit ** 2)
    return np.where(np.abs(x) <= limit, inside, np.sign(x) * (2 * limit / 3))


def kernel_writes_into_input(xp, x, limit):           # computes in place, into the input's memory
    beyond = xp.sign(x) * (2 * limit / 3)
    inside = xp.abs(x) <= limit
    x[...] = xp.where(inside, x - x ** 3 / (3 * limit ** 2), beyond)
    return x


def kernel_forgets_the_clip(xp, x, limit):            # the cubic everywhere: it turns back beyond the limit
    return x - x ** 3 / (3 * limit ** 2)


def kernel_clips_to_limit(xp, x, limit):              # saturates at +-limit, not at the cubic's 2 limit / 3
    return xp.where(xp.abs(x) <= limit, x - x ** 3 / (3 * limit ** 2), xp.sign(x) * limit)


# ---- L16.softclip_backward ----

def backward_forgets_grad(grad, x, limit):            # the derivative alone: no chain-rule factor
    return (1 - (x / limit) ** 2).where(x.abs() <= limit, 0.0)


def backward_past_the_boundary(grad, x, limit):       # the inside formula beyond the limit too
    return grad * (1 - (x / limit) ** 2)


def backward_drops_the_square(grad, x, limit):        # d/dx of x^3 / (3 limit^2) taken as x / limit
    return (grad * (1 - x / limit)).where(x.abs() <= limit, 0.0)


# ---- L16.softclip_fake ----

def fake_default_dtype(x, limit):                     # always float32, the default dtype
    return tt.empty(x.shape, device="meta")


def fake_returns_input(x, limit):                     # "shapes only, so the input will do"
    return x


def fake_flattened(x, limit):                         # one dim: the number of elements
    return x.new_empty((x.numel(),))


def fake_on_cpu(x, limit):                            # a real tensor on the cpu, not a meta one
    return tt.empty(x.shape, dtype=x.dtype)


WRONG = {
    "L16.softclip_kernel": [kernel_numpy_not_xp, kernel_writes_into_input, kernel_forgets_the_clip,
                            kernel_clips_to_limit],
    "L16.softclip_backward": [backward_forgets_grad, backward_past_the_boundary, backward_drops_the_square],
    "L16.softclip_fake": [fake_default_dtype, fake_returns_input, fake_flattened, fake_on_cpu],
}
