"""Training-step benchmark: one step of the class models in teachtorch against PyTorch CPU, in one run.

Run with `.venv/bin/python bench/nn.py [--quick]`. A step is forward, loss, zero_grad, backward and the
optimizer's step, on the same batch of digits (batch 32) in both libraries, built from the same weights:

  digits MLP   64-128-10, Adam          goal: no slower than PyTorch (1.0x)
  digits CNN   two conv layers, Adam    goal: at most 2x PyTorch

The MLP is also written by hand in raw NumPy (forward, backward, Adam) as a floor.
PyTorch runs on one thread as well as on its default threads, since teachtorch's kernels are NumPy calls
on small arrays. A benchmark, not a test: it reports, never fails.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from overhead import measure, thread_info  # noqa: E402

GOALS = {"digits MLP": 1.0, "digits CNN": 2.0}


def build(lib, which):
    """The example's model in `lib` (teachtorch or torch): the same layers as examples/digits_*.py."""
    nn = lib.nn
    if which == "digits MLP":
        return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(128, 10))


def step_fn(lib, model, images, labels):
    loss_fn = lib.nn.CrossEntropyLoss()
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        loss = loss_fn(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return step


def numpy_mlp_step(images, labels):
    """The MLP step written by hand in NumPy (forward, backward and Adam): the floor any Python framework
    built on NumPy pays for the arithmetic alone."""
    rng = np.random.default_rng(1)
    params = [rng.standard_normal((64, 128), dtype=np.float32) / 8, np.zeros(128, np.float32),
              rng.standard_normal((128, 10), dtype=np.float32) / 11, np.zeros(10, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    x = images.reshape(len(images), 64)
    onehot = np.eye(10, dtype=np.float32)[labels]
    t = [0]

    def step():
        w1, b1, w2, b2 = params
        h = np.maximum(x @ w1 + b1, 0)
        z = h @ w2 + b2
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - onehot) / len(x)
        dh = (dz @ w2.T) * (h > 0)
        grads = [x.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)]
        t[0] += 1
        for param, g, m_, v_ in zip(params, grads, m, v):
            m_ *= 0.9
            m_ += 0.1 * g
            v_ *= 0.999
            v_ += 0.001 * g * g
            param -= 1e-3 * (m_ / (1 - 0.9 ** t[0])) / (np.sqrt(v_ / (1 - 0.999 ** t[0])) + 1e-8)
    return step


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    import torch
    import teachtorch as tt
    repeat, target = (3, 0.1) if args.quick else (7, 0.3)

    rng = np.random.default_rng(0)
    images = rng.random((32, 1, 8, 8), dtype=np.float32)
    labels = rng.integers(0, 10, 32)
    print(__doc__.split("\n\n")[0])
    print(thread_info(torch))
    default_threads = torch.get_num_threads()
    for which, goal in GOALS.items():
        ours, theirs = build(tt, which), build(torch, which)
        with tt.no_grad():
            for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
                p.copy_(tt.tensor(q.detach().numpy()))
        fns = {
            "teachtorch": step_fn(tt, ours, tt.tensor(images), tt.tensor(labels)),
            "torch": step_fn(torch, theirs, torch.tensor(images), torch.tensor(labels)),
        }
        if which == "digits MLP":
            fns["numpy"] = numpy_mlp_step(images, labels)
        torch.set_num_threads(1)
        one = measure(fns, repeat=repeat, target_s=target)
        torch.set_num_threads(default_threads)
        many = measure({"torch": fns["torch"]}, repeat=repeat, target_s=target)
        ratio = one["teachtorch"] / one["torch"]
        print(f"\n{which} step (batch 32, Adam)")
        print(f"  teachtorch            {one['teachtorch'] / 1e3:8.3f} ms")
        print(f"  torch, 1 thread       {one['torch'] / 1e3:8.3f} ms   teachtorch is {ratio:.2f}x")
        print(f"  torch, {default_threads} threads      {many['torch'] / 1e3:8.3f} ms   "
              f"teachtorch is {one['teachtorch'] / many['torch']:.2f}x")
        if "numpy" in one:
            print(f"  raw NumPy by hand     {one['numpy'] / 1e3:8.3f} ms   teachtorch is "
                  f"{one['teachtorch'] / one['numpy']:.2f}x")
        print(f"  goal <= {goal:.1f}x torch: {'met' if ratio <= goal else 'MISSED'} ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
