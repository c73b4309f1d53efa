"""Explorer benchmark: what the live explorer costs a training loop, in one run.

Run with `.venv/bin/python bench/explorer.py [--quick]`. A benchmark, not a test: it reports, never fails.

The loop: the small MLP of the lessons (64 -> 128 -> 10, ReLU, cross-entropy, plain SGD) on a batch of 32,
written with tensors (nn arrives in a later issue). Each configuration runs whole loops of `steps` training
steps; repeats are interleaved (a, b, c, a, b, c, ...) so machine drift hits all alike, and the best loop
time is kept. A loop under the explorer includes every redraw it triggered, so the best loop is an honest
total, not a lucky step between redraws.

    no explorer            the loop alone
    explorer imported      teachtorch.explorer and its widgets imported, one explorer opened and closed
                           before: it must leave nothing behind (goal: no measurable cost, ratio ~1.00)
    live explorer          inside `with teachtorch.explore():` with a stand-in for the notebook's
                           connection that JSON-encodes every message the widget sends, as the kernel
                           does (goal: at most 1.5x)
    PyTorch CPU            the same loop in torch, for scale
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

GOAL_LIVE = 1.5


class EncodingComm:
    """Stands in for the kernel's comm: encodes each message as JSON (the kernel's work) and counts them."""

    kernel = True
    comm_id = "bench"

    def __init__(self):
        self.messages = 0
        self.bytes = 0

    def send(self, data=None, metadata=None, buffers=None):
        self.messages += 1
        self.bytes += len(json.dumps(data, default=str))

    def close(self, *a, **k):
        pass

    def on_msg(self, *a, **k):
        pass


def make_loop(lib, steps, seed=0):
    rng = np.random.default_rng(seed)
    X = lib.tensor(rng.standard_normal((32, 64)).astype("float32"))
    y = lib.tensor(rng.integers(0, 10, 32))
    W1 = lib.tensor((rng.standard_normal((128, 64)) / 8).astype("float32"), requires_grad=True)
    b1 = lib.zeros(128, requires_grad=True)
    W2 = lib.tensor((rng.standard_normal((10, 128)) / 11).astype("float32"), requires_grad=True)
    b2 = lib.zeros(10, requires_grad=True)
    params = [W1, b1, W2, b2]

    def loop():
        for _ in range(steps):
            h = (X.matmul(W1.t()) + b1).relu()
            out = h.matmul(W2.t()) + b2
            loss = (out.logsumexp(1) - out.gather(1, y.unsqueeze(1)).squeeze(1)).mean()
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad * 0.1)
        return loss
    return loop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    import torch
    import teachtorch as tt
    torch.set_num_threads(1)
    steps, repeat = (50, 3) if args.quick else (200, 5)

    plain = make_loop(tt, steps)
    plain()                                     # warm up before anything of the explorer is imported
    first = _time(plain)

    from teachtorch.explorer import widgets
    comms = []

    def live_loop(loop=make_loop(tt, steps)):
        ex = widgets.explore(display=False)
        ex.comm = comm = EncodingComm()
        comms.append(comm)
        with ex:
            loop()
        return ex

    with widgets.explore(display=False):        # open and close one: it must leave nothing behind
        pass
    after = make_loop(tt, steps)
    torch_loop = make_loop(torch, steps)
    configs = {"no explorer": plain, "explorer imported": after, "live explorer": live_loop,
               "PyTorch CPU": torch_loop}
    best = {k: float("inf") for k in configs}
    for fn in configs.values():
        fn()
    for _ in range(repeat):
        for name, fn in configs.items():
            best[name] = min(best[name], _time(fn))
    start = time.perf_counter()
    ex = live_loop()
    last = time.perf_counter() - start
    rec = ex.recorder
    base = best["no explorer"]
    print(f"{steps} training steps of the 64-128-10 MLP, batch 32 (best of {repeat} interleaved loops)")
    print(f"  no explorer before importing it: {first * 1e3:8.1f} ms")
    for name, t in best.items():
        print(f"  {name:18} {t * 1e3:8.1f} ms   {t / base:5.2f}x no explorer   {t / best['PyTorch CPU']:5.2f}x torch")
    comm = comms[-1]
    print(f"\nlive explorer, last loop: {rec.flushes} redraws, {rec.flush_seconds * 1e3:.0f} ms drawing, "
          f"{comm.messages} messages, {comm.bytes / 1e3:.0f} kB sent, "
          f"{comm.messages / last:.0f} messages/s")
    ratio = best["live explorer"] / base
    print(f"\ngoal: live explorer <= {GOAL_LIVE}x no explorer: {ratio:.2f}x  {'ok' if ratio <= GOAL_LIVE else 'MISSED'}")
    print(f"      explorer imported ~ 1.00x: {best['explorer imported'] / base:.2f}x")


def _time(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
