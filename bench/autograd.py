"""Autograd benchmark: teachtorch's engine against PyTorch CPU's, in one run.

Run with `make bench` (or `.venv/bin/python bench/autograd.py [--quick]`). Ratios compare like with like:
every time is the best of interleaved repeats taken in this run (see overhead.py's `measure`). A benchmark,
not a test: it reports goals, it never fails.

Cases:
  (a) (a * b).sum().backward() on 8x8 float32 leaves: the fixed cost of one forward+backward
      (goal: no slower than PyTorch, whose engine costs tens of microseconds per backward call)
  (b) a 50-layer MLP (Linear 256->256 + ReLU), batch 64, forward + backward
      (goal: at most 1.5x PyTorch)
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from overhead import measure  # noqa: E402

GOAL_SMALL = 1.0
GOAL_MLP = 1.5


def small_case(lib):
    a = lib.ones(8, 8, requires_grad=True)
    b = lib.ones(8, 8, requires_grad=True)

    def step():
        a.grad = None
        b.grad = None
        (a * b).sum().backward()
    return step


def mlp_case(lib, depth=50, width=256, batch=64):
    rng = np.random.default_rng(0)
    ws = [lib.tensor((rng.standard_normal((width, width)) / np.sqrt(width)).astype("float32"), requires_grad=True)
          for _ in range(depth)]
    bs = [lib.tensor(np.zeros(width, "float32"), requires_grad=True) for _ in range(depth)]
    x = lib.tensor(rng.standard_normal((batch, width)).astype("float32"))

    def step():
        for p in ws + bs:
            p.grad = None
        h = x
        for w, b in zip(ws, bs):
            h = (h.matmul(w.t()) + b).relu()      # what nn.Linear + nn.ReLU compute
        h.sum().backward()
    return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import torch
    import teachtorch as tt
    torch.set_num_threads(int(os.environ.get("BENCH_THREADS", os.cpu_count() or 1)))
    repeat, target = (3, 0.05) if args.quick else (7, 0.2)

    small = measure({"teachtorch": small_case(tt), "torch": small_case(torch)}, repeat=repeat, target_s=target)
    mlp = measure({"teachtorch": mlp_case(tt), "torch": mlp_case(torch)}, repeat=repeat,
                  target_s=target * 5)
    print(f"{'case':44} {'teachtorch us':>14} {'torch us':>10} {'ratio':>7}")
    rows = [("(a*b).sum().backward(), 8x8", small), ("50-layer MLP fwd+bwd, batch 64, width 256", mlp)]
    for name, r in rows:
        print(f"{name:44} {r['teachtorch']:14,.1f} {r['torch']:10,.1f} {r['teachtorch'] / r['torch']:6.2f}x")
    print("\ngoals:")
    for (name, r), goal in zip(rows, (GOAL_SMALL, GOAL_MLP)):
        ratio = r["teachtorch"] / r["torch"]
        print(f"  {name:42} {ratio:5.2f}x  (goal <= {goal}x)  {'ok' if ratio <= goal else 'MISSED'}")


if __name__ == "__main__":
    main()
