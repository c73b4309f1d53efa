"""Plausible wrong answers to lesson 6's exercises: each check must reject every one (tests/test_exercises.py)."""

import numpy as np

from teachtorch.exercises.lesson06 import contiguous_addcmul


# ---- L06.softplus ----------------------------------------------------------------------------------------------

def softplus_np_exp(xp, x, beta=1.0, threshold=20.0):        # right on NumPy, but calls NumPy's own functions
    scaled = x * beta
    return xp.where(scaled > threshold, x, np.log1p(np.exp(np.minimum(scaled, threshold))) / beta)


def softplus_asarray_first(xp, x, beta=1.0, threshold=20.0):  # "make it a NumPy array first": a copy to the host
    x = np.asarray(x)
    scaled = x * beta
    return np.where(scaled > threshold, x, np.log1p(np.exp(np.minimum(scaled, threshold))) / beta)


def softplus_float64(xp, x, beta=1.0, threshold=20.0):        # computes in float64 "for accuracy", returns float64
    scaled = x.astype(xp.float64) * beta
    return xp.where(scaled > threshold, x, xp.log1p(xp.exp(xp.minimum(scaled, threshold))) / beta)


def softplus_no_threshold(xp, x, beta=1.0, threshold=20.0):   # exp(beta x) overflows float32 above 88: inf
    with np.errstate(over="ignore"):
        return xp.log1p(xp.exp(beta * x)) / beta


# ---- L06.addcmul_ ----------------------------------------------------------------------------------------------

def addcmul_lost_writeback(xp, out, tensor1, tensor2, value=1):    # the MPS bug: the copy is never written back
    buf = xp.ascontiguousarray(out)
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    return out


def addcmul_writeback_through_reshape(xp, out, tensor1, tensor2, value=1):   # reshape(-1) of a transposed array
    buf = xp.ascontiguousarray(out)                                       # is a copy: the write lands in it
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    out.reshape(-1)[:] = buf.reshape(-1)
    return out


def addcmul_returns_buf(xp, out, tensor1, tensor2, value=1):       # writes back, but returns the temporary
    buf = xp.ascontiguousarray(out)
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    xp.copyto(out, buf)
    return buf


def addcmul_np_copyto(xp, out, tensor1, tensor2, value=1):         # right on NumPy; NumPy's copyto on the device
    buf = xp.ascontiguousarray(out)
    contiguous_addcmul(xp, buf, tensor1, tensor2, value)
    if not xp.shares_memory(buf, out):
        np.copyto(out, buf)
    return out


WRONG = {
    "L06.softplus": [softplus_np_exp, softplus_asarray_first, softplus_float64, softplus_no_threshold],
    "L06.addcmul_": [addcmul_lost_writeback, addcmul_writeback_through_reshape, addcmul_returns_buf,
                     addcmul_np_copyto],
}
