"""GPU benchmark: teachtorch's cuda backend against raw CuPy and PyTorch CUDA, on the same GPU, in one run.

Run on a machine with an NVIDIA GPU: `.venv/bin/python bench/cuda.py [--quick]`.

  8192 x 8192 float32 matmul    throughput against raw CuPy (goal: at least 0.95x) and PyTorch CUDA
  digits MLP step (batch 32)    64-128-10, Adam: time against PyTorch CUDA
  CNN step (batch 256)          the class CNN on 8x8 digits, Adam: time against PyTorch CUDA

GPU work is asynchronous, so every measurement synchronizes the device before starting and before stopping
the clock (teachtorch.cuda.synchronize, cupy's deviceSynchronize, torch.cuda.synchronize). Each figure is the
median of several repeats. Without a GPU (or without CuPy) it says so and stops; without PyTorch CUDA the
PyTorch columns say n/a. A benchmark, not a test: it reports, never fails.
"""

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

# Python puts this script's folder first on sys.path, where this file's own name would hide the `cuda`
# namespace package (cuda-bindings, cuda-pathfinder) that CuPy 14 imports: take the folder off, then load
# bench/nn.py by its path.
BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
sys.path.insert(0, str(BENCH.parent))

import teachtorch as tt  # noqa: E402

_spec = importlib.util.spec_from_file_location("bench_nn", BENCH / "nn.py")
bench_nn = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_nn)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]   # bench/nn.py put it back
build, step_fn = bench_nn.build, bench_nn.step_fn   # the same models and step as bench/nn.py


def gpu_time(fn, sync, repeats, number):
    """Median seconds per call of fn over `repeats` timings of `number` calls, synchronized at both ends."""
    fn()
    sync()
    times = []
    for _ in range(repeats):
        sync()
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def matmul(args, torch):
    import cupy
    n = 2048 if args.quick else 8192
    rng = np.random.default_rng(0)
    a_host = rng.standard_normal((n, n), dtype=np.float32)
    b_host = rng.standard_normal((n, n), dtype=np.float32)
    flops = 2 * n ** 3
    rows = {}
    a, b = tt.tensor(a_host, device="cuda"), tt.tensor(b_host, device="cuda")
    rows["teachtorch"] = gpu_time(lambda: a @ b, tt.cuda.synchronize, args.repeats, args.number)
    ca, cb = cupy.asarray(a_host), cupy.asarray(b_host)
    rows["raw CuPy"] = gpu_time(lambda: ca @ cb, cupy.cuda.runtime.deviceSynchronize, args.repeats, args.number)
    if torch is not None:
        ta, tb = torch.tensor(a_host, device="cuda"), torch.tensor(b_host, device="cuda")
        rows["PyTorch CUDA"] = gpu_time(lambda: ta @ tb, torch.cuda.synchronize, args.repeats, args.number)
    print(f"\n{n} x {n} float32 matmul (TF32 off in all three)")
    for name, t in rows.items():
        print(f"  {name:14} {t * 1e3:9.3f} ms   {flops / t / 1e12:7.2f} TFLOP/s")
    ratio = rows["raw CuPy"] / rows["teachtorch"]
    print(f"  teachtorch throughput / raw CuPy: {ratio:.3f}x (goal >= 0.95x: {'met' if ratio >= 0.95 else 'MISSED'})")
    if "PyTorch CUDA" in rows:
        print(f"  teachtorch throughput / PyTorch CUDA: {rows['PyTorch CUDA'] / rows['teachtorch']:.3f}x")


def steps(args, torch):
    rng = np.random.default_rng(0)
    for which, batch in (("digits MLP", 32), ("digits CNN", 256)):
        images = rng.standard_normal((batch, 1, 8, 8), dtype=np.float32)
        labels = rng.integers(0, 10, batch)
        tt.manual_seed(0)
        model = build(tt, which).to("cuda")
        x, y = tt.tensor(images, device="cuda"), tt.tensor(labels, device="cuda")
        rows = {"teachtorch": gpu_time(step_fn(tt, model, x, y), tt.cuda.synchronize, args.repeats,
                                       args.steps)}
        if torch is not None:
            torch.manual_seed(0)
            tmodel = build(torch, which).to("cuda")
            tx = torch.tensor(images, device="cuda")
            ty = torch.tensor(labels, device="cuda")
            rows["PyTorch CUDA"] = gpu_time(step_fn(torch, tmodel, tx, ty), torch.cuda.synchronize,
                                            args.repeats, args.steps)
        print(f"\n{which} training step, batch {batch}")
        for name, t in rows.items():
            print(f"  {name:14} {t * 1e3:9.3f} ms")
        if "PyTorch CUDA" in rows:
            print(f"  teachtorch / PyTorch CUDA: {rows['teachtorch'] / rows['PyTorch CUDA']:.2f}x the time")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 2048 matmul and fewer repeats")
    args = parser.parse_args()
    args.repeats = 3 if args.quick else 7
    args.number = 2 if args.quick else 5
    args.steps = 5 if args.quick else 20
    if not tt.cuda.is_available():
        print("bench/cuda.py: no GPU here (CuPy missing or no device); nothing to measure")
        return
    torch = torch_cuda()
    print(f"GPU: {tt.cuda.get_device_name()}; PyTorch CUDA: "
          f"{'torch ' + torch.__version__ if torch is not None else 'n/a'}")
    matmul(args, torch)
    steps(args, torch)
    print(f"\nmax_memory_allocated: {tt.cuda.max_memory_allocated() / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
