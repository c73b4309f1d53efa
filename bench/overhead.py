"""Overhead benchmark: teachtorch against PyTorch CPU and raw NumPy.

Run with `make bench` (or `.venv/bin/python bench/overhead.py [--quick]`).
All numbers come from one run on this machine, so the ratios compare like with
like. Each time is the minimum over several repeats of a loop whose length is
chosen automatically. This is a benchmark, not a test: it never fails on a
missed goal, it only reports it.

Cases:
  (a) 8x8 float32 add          small-op overhead (dispatcher, metadata, Python)
  (b) 1024x1024 float32 matmul  large-op cost, where NumPy's BLAS should dominate
  (c) (a) inside tt.dispatch.trace()  the cost of recording dispatch events
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import timeit

import numpy as np

GOAL_ADD_VS_TORCH = 4.0  # 8x8 add: teachtorch <= 4x torch
GOAL_MATMUL_VS_NUMPY = 1.05  # 1024x1024 matmul: teachtorch <= 1.05x numpy


def loop_length(timer, target_s):
    """Smallest loop length in 1, 2, 5, 10, 20, ... taking at least target_s (like timeit's autorange)."""
    number = 1
    while True:
        for step in (1, 2, 5):
            if timer.timeit(number * step) >= target_s:
                return number * step
        number *= 10


def measure(fns, *, repeat, target_s, before_repeat=None):
    """Return {label: best time per call in microseconds, or None if it failed}.

    Each function gets its own auto-ranged loop length; then the repeats are
    interleaved (a, b, c, a, b, c, ...) so that drift in machine speed hits
    every library alike, and the fastest repeat is kept. before_repeat, if
    given, runs untimed before each of its loops. Errors are reported, and the
    benchmark goes on without that entry.
    """
    plans = {}
    for label, fn in fns.items():
        try:
            fn()  # warm up, and surface errors before timing
            timer = timeit.Timer(fn)
            plans[label] = (timer, loop_length(timer, target_s))
        except Exception as exc:  # noqa: BLE001 - a benchmark reports, never crashes
            print(f"  {label}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    best = {label: float("inf") for label in plans}
    for _ in range(repeat):
        for label, (timer, number) in plans.items():
            if before_repeat is not None:
                before_repeat()
            best[label] = min(best[label], timer.timeit(number) / number)
    return {label: best[label] * 1e6 if label in best else None for label in fns}


def to_teachtorch(tt, arr):
    """Wrap a NumPy array as a teachtorch tensor of the same dtype."""
    from_numpy = getattr(tt, "from_numpy", None)
    if from_numpy is not None:
        return from_numpy(arr)
    return tt.tensor(arr)


def thread_info(torch):
    parts = [f"cpu_count={os.cpu_count()}"]
    if torch is not None:
        parts.append(f"torch threads={torch.get_num_threads()}")
    try:
        from threadpoolctl import threadpool_info

        for pool in threadpool_info():
            if pool.get("user_api") == "blas":
                parts.append(f"numpy BLAS ({pool.get('internal_api')}) threads={pool.get('num_threads')}")
                break
    except Exception:  # threadpoolctl is optional
        pass
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        if var in os.environ:
            parts.append(f"{var}={os.environ[var]}")
    return ", ".join(parts)


def fmt_us(us):
    return "n/a" if us is None else f"{us:,.2f}"


def fmt_ratio(num, den):
    return "n/a" if num is None or den is None else f"{num / den:.2f}x"


def verdict(num, den, goal):
    if num is None or den is None:
        return "n/a"
    return "ok" if num / den <= goal else "MISSED"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter loops")
    args = parser.parse_args(argv)
    kw = dict(repeat=3, target_s=0.05) if args.quick else dict(repeat=7, target_s=0.2)

    try:
        import teachtorch as tt
    except Exception as exc:  # noqa: BLE001
        print(f"cannot import teachtorch: {type(exc).__name__}: {exc}", file=sys.stderr)
        tt = None
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        print(f"cannot import torch: {type(exc).__name__}: {exc}", file=sys.stderr)
        torch = None

    print("teachtorch overhead benchmark" + (" (--quick)" if args.quick else ""))
    print(f"python {platform.python_version()}, numpy {np.__version__}"
          + (f", torch {torch.__version__}" if torch is not None else "")
          + f", {platform.machine()}")
    print(f"threads: {thread_info(torch)} (library defaults, not pinned)")
    print(f"each time: min of {kw['repeat']} repeats, loop length auto-ranged to >= {kw['target_s']} s")
    print()

    rng = np.random.default_rng(0)
    small_a = rng.standard_normal((8, 8), dtype=np.float32)
    small_b = rng.standard_normal((8, 8), dtype=np.float32)
    big_a = rng.standard_normal((1024, 1024), dtype=np.float32)
    big_b = rng.standard_normal((1024, 1024), dtype=np.float32)

    def tt_pair(x, y):
        """teachtorch tensors for two arrays, or None if teachtorch cannot make them."""
        if tt is None:
            return None
        try:
            return to_teachtorch(tt, x), to_teachtorch(tt, y)
        except Exception as exc:  # noqa: BLE001
            print(f"  teachtorch tensor creation failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            return None

    def case(label, x, y, op):
        """Time op on teachtorch, torch and numpy versions of (x, y)."""
        print(f"measuring {label} ...", file=sys.stderr)
        fns = {"numpy": lambda: op(x, y)}
        if torch is not None:
            tx, ty = torch.from_numpy(x), torch.from_numpy(y)
            fns["torch"] = lambda: op(tx, ty)
        pair = tt_pair(x, y)
        if pair is not None:
            fns["teachtorch"] = lambda: op(*pair)
        got = measure(fns, **kw)
        return got.get("teachtorch"), got.get("torch"), got.get("numpy")

    results = {}  # case -> (teachtorch, torch, numpy) in µs

    # (a) 8x8 float32 add
    results["8x8 float32 add"] = case("8x8 add", small_a, small_b, lambda p, q: p + q)
    tt_add, torch_add, np_add = results["8x8 float32 add"]

    # (b) 1024x1024 float32 matmul
    results["1024x1024 float32 matmul"] = case("1024x1024 matmul", big_a, big_b, lambda p, q: p @ q)
    tt_mm, _, np_mm = results["1024x1024 float32 matmul"]

    # (c) the 8x8 add while one dispatch trace, opened once, records every call
    print("measuring 8x8 add under dispatch.trace() ...", file=sys.stderr)
    tt_traced = None
    pair = tt_pair(small_a, small_b)
    if pair is not None:
        a, b = pair
        try:
            with tt.dispatch.trace() as trace:
                clear = getattr(trace, "clear", None)  # drop recorded events between repeats
                tt_traced = measure({"teachtorch traced add": lambda: a + b},
                                    before_repeat=clear, **kw)["teachtorch traced add"]
                if clear is not None:
                    clear()
        except Exception as exc:  # noqa: BLE001
            print(f"  teachtorch traced add: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    results["8x8 add under dispatch.trace"] = (tt_traced, torch_add, np_add)

    print()
    header = f"{'case':<30} {'teachtorch µs':>14} {'torch µs':>11} {'numpy µs':>11} {'tt/torch':>9} {'tt/numpy':>9}"
    print(header)
    print("-" * len(header))
    for name, (t_tt, t_torch, t_np) in results.items():
        print(f"{name:<30} {fmt_us(t_tt):>14} {fmt_us(t_torch):>11} {fmt_us(t_np):>11} "
              f"{fmt_ratio(t_tt, t_torch):>9} {fmt_ratio(t_tt, t_np):>9}")
    print()
    print("goals:")
    goals = [
        (f"8x8 add <= {GOAL_ADD_VS_TORCH:g}x torch", tt_add, torch_add, GOAL_ADD_VS_TORCH),
        (f"1024x1024 matmul <= {GOAL_MATMUL_VS_NUMPY:g}x numpy", tt_mm, np_mm, GOAL_MATMUL_VS_NUMPY),
    ]
    for text, num, den, goal in goals:
        print(f"  {text:<34} {fmt_ratio(num, den):>8}  {verdict(num, den, goal)}")
    print(f"  (traced 8x8 add costs {fmt_ratio(tt_traced, tt_add)} the untraced add; no goal)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
