"""`set_num_threads` / `get_num_threads`: how many threads one op may use on the cpu.

PyTorch runs a CPU op's loop on a thread pool, splitting the elements between threads (intra-op parallelism:
`at::parallel_for` in aten/src/ATen/ParallelOpenMP.h); `torch.set_num_threads(n)` sizes that pool, and its
default is the number of physical cores. teachtorch's cpu kernels are NumPy calls, and the only NumPy calls
that use threads are the BLAS library's (OpenBLAS or MKL: `matmul`, and so `Linear`, attention, the im2col
convolution). So here the same two functions set and read the BLAS library's thread count, through
threadpoolctl, the package scikit-learn uses for the same job.

Why it matters: splitting a product of two 12 x 12 matrices over threads costs more than the product. A small
model's step can be several times faster with one thread (lesson 15 measures it): the overhead regime of
lesson 13. Large matrices are the other way round.
"""

from threadpoolctl import ThreadpoolController

__all__ = ["get_num_threads", "set_num_threads"]


def _blas():
    # looked up at each call (a few ms): a BLAS library loaded after teachtorch is found too
    return ThreadpoolController().select(user_api="blas")


def set_num_threads(n):
    """Let one op use at most `n` threads (the BLAS library's), like `torch.set_num_threads`."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _blas().limit(limits=n)           # stays set until the next call (threadpoolctl undoes it only on request)


def get_num_threads():
    """The threads one op may use: the BLAS library's setting (1 where NumPy has no threaded BLAS)."""
    found = _blas().info()
    return max((lib["num_threads"] for lib in found), default=1)
