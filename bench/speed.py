"""Speed: every figure of the speed issue in one table, teachtorch against PyTorch CPU (and NumPy), one run.

Run with `make bench` (or `.venv/bin/python bench/speed.py [--quick]`). Every time is the best of interleaved
repeats taken in this run (overhead.py's `measure`), so a ratio compares like with like on this machine, at
this load (the load average is printed with the table). PyTorch runs on its default threads, as a student's
PyTorch does. A benchmark, not a test: it reports each goal, it never fails.

The digits step is also timed in the NumPy-based autograd libraries mygrad and HIPS autograd (the `bench`
extra: `pip install -e '.[bench]'`) and written by hand in NumPy, so teachtorch's place among them is
visible; a peer that is not installed is left out.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from overhead import measure, thread_info  # noqa: E402


def _bench_module(name):
    """bench/<name>.py, loaded by path: bench/autograd.py must not hide HIPS autograd (a peer below)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mlp_case, small_case = _bench_module("autograd").mlp_case, _bench_module("autograd").small_case
EncodingComm, make_loop = _bench_module("explorer").EncodingComm, _bench_module("explorer").make_loop
build, numpy_mlp_step, step_fn = (getattr(_bench_module("nn"), n) for n in ("build", "numpy_mlp_step", "step_fn"))
sys.path[:] = [p for p in sys.path if Path(p).resolve() != HERE]   # `import autograd` means HIPS autograd

GOALS = {
    "digits MLP 64-128-10 Adam step, batch 32": 1.0,
    "MLP 784-512-512-10 Adam step, batch 256": 1.1,
    "digits CNN step, batch 32": 2.0,
    "8x8 add with requires_grad": 3.0,
    "(a*b).sum().backward(), 8x8": 2.0,
    "50-layer MLP fwd+bwd, batch 64, width 256": 1.2,
    "GPT step (2 layers, 2 heads, width 32, block 16, AdamW)": 3.0,
    "1024x1024 float32 matmul (vs NumPy)": 1.05,
    "training loop, live explorer (vs the loop without)": 1.5,
}


def same_weights(ours, theirs, tt):
    with tt.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            p.copy_(tt.tensor(q.detach().numpy()))


def wide_mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def add_case(lib):
    a = lib.ones(8, 8, requires_grad=True)
    b = lib.ones(8, 8, requires_grad=True)
    return lambda: a + b


def gpt(lib, vocab=65, width=32, heads=2, layers=2, block=16):
    """A GPT in the shape of nanoGPT's (token and position embeddings, pre-LayerNorm blocks of causal
    self-attention and a GELU MLP, a language-model head), written once for both libraries."""
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.c_attn, self.c_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(width, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f, self.lm_head = nn.LayerNorm(width), nn.Linear(width, vocab, bias=False)

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(lib.arange(idx.shape[1]))
            for b in self.blocks:
                x = b(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    return GPT()


def train_step(lib, model, loss_of, optimizer):
    def step():
        loss = loss_of(model)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return step


def model_cases(tt, torch, rng):
    """{figure: {library: step}} for the model steps, both libraries from the same weights and batches."""
    cases = {}
    images = rng.random((32, 1, 8, 8), dtype=np.float32)
    labels = rng.integers(0, 10, 32)
    for figure, which in (("digits MLP 64-128-10 Adam step, batch 32", "digits MLP"),
                          ("digits CNN step, batch 32", "digits CNN")):
        ours, theirs = build(tt, which), build(torch, which)
        same_weights(ours, theirs, tt)
        cases[figure] = {"teachtorch": step_fn(tt, ours, tt.tensor(images), tt.tensor(labels)),
                         "torch": step_fn(torch, theirs, torch.tensor(images), torch.tensor(labels))}
        if which == "digits MLP":
            cases[figure]["numpy"] = numpy_mlp_step(images, labels)
            cases[figure].update(peer_steps(images, labels))

    x = rng.random((256, 784), dtype=np.float32)
    y = rng.integers(0, 10, 256)
    ours, theirs = wide_mlp(tt), wide_mlp(torch)
    same_weights(ours, theirs, tt)
    cases["MLP 784-512-512-10 Adam step, batch 256"] = {
        name: train_step(lib, m, lambda m, lib=lib, x=lib.tensor(x), y=lib.tensor(y):
                         lib.nn.functional.cross_entropy(m(x), y), lib.optim.Adam(m.parameters(), lr=1e-3))
        for name, lib, m in (("teachtorch", tt, ours), ("torch", torch, theirs))}

    idx = rng.integers(0, 65, (8, 16))
    targets = rng.integers(0, 65, (8, 16))
    tt.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = gpt(tt), gpt(torch)
    same_weights(ours, theirs, tt)
    cases["GPT step (2 layers, 2 heads, width 32, block 16, AdamW)"] = {
        name: train_step(lib, m, lambda m, lib=lib, i=lib.tensor(idx), t=lib.tensor(targets): m(i, t),
                         lib.optim.AdamW(m.parameters(), lr=1e-3))
        for name, lib, m in (("teachtorch", tt, ours), ("torch", torch, theirs))}
    return cases


def peer_steps(images, labels):
    """The digits MLP step in the NumPy-based autograd libraries that are installed."""
    steps = {}
    x = images.reshape(len(images), 64).astype(np.float64)
    onehot = np.eye(10)[labels]
    rng = np.random.default_rng(1)
    init = [rng.standard_normal((64, 128)) / 8, np.zeros(128), rng.standard_normal((128, 10)) / 11, np.zeros(10)]

    def adam(params, grads, state):
        state["t"] += 1
        for i, (p, g) in enumerate(zip(params, grads)):
            state["m"][i] = 0.9 * state["m"][i] + 0.1 * g
            state["v"][i] = 0.999 * state["v"][i] + 0.001 * g * g
            p -= 1e-3 * (state["m"][i] / (1 - 0.9 ** state["t"])) / (
                np.sqrt(state["v"][i] / (1 - 0.999 ** state["t"])) + 1e-8)

    try:
        import mygrad as mg
    except ImportError:
        pass
    else:
        params = [mg.tensor(p.astype(np.float32)) for p in init]
        state = {"t": 0, "m": [0] * 4, "v": [0] * 4}
        xm = x.astype(np.float32)

        def mygrad_step():
            w1, b1, w2, b2 = params
            z = mg.maximum(xm @ w1 + b1, 0) @ w2 + b2
            z = z - z.max(axis=1, keepdims=True).data
            loss = -(onehot * (z - mg.log(mg.exp(z).sum(axis=1, keepdims=True)))).sum() / len(xm)
            loss.backward()
            grads = [p.grad for p in params]
            adam([p.data for p in params], grads, state)
            for p in params:
                p.null_grad()
        steps["mygrad"] = mygrad_step

    try:
        import autograd.numpy as anp
        from autograd import grad
    except ImportError:
        pass
    else:
        params_a = [p.astype(np.float32) for p in init]
        state_a = {"t": 0, "m": [0] * 4, "v": [0] * 4}
        xa = x.astype(np.float32)

        def loss_fn(params):
            w1, b1, w2, b2 = params
            z = anp.maximum(anp.dot(xa, w1) + b1, 0) @ w2 + b2
            z = z - anp.max(z, axis=1, keepdims=True)
            return -anp.sum(onehot * (z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True)))) / len(xa)
        loss_grad = grad(loss_fn)

        def autograd_step():
            adam(params_a, loss_grad(params_a), state_a)
        steps["HIPS autograd"] = autograd_step
    return steps


def explorer_ratio(tt, steps, repeat):
    """The training loop of bench/explorer.py with the live explorer, over the same loop without."""
    from teachtorch.explorer import widgets
    plain = make_loop(tt, steps)

    def live(loop=make_loop(tt, steps)):
        ex = widgets.explore(display=False)
        ex.comm = EncodingComm()
        with ex:
            loop()
    best = {"plain": math.inf, "live": math.inf}
    plain(), live()
    for _ in range(repeat):
        for name, fn in (("plain", plain), ("live", live)):
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best["live"] * 1e6 / steps, best["plain"] * 1e6 / steps


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter loops")
    args = parser.parse_args(argv)
    import torch
    import teachtorch as tt
    repeat, target = (3, 0.1) if args.quick else (7, 0.3)
    rng = np.random.default_rng(0)

    rows = {}     # figure -> (teachtorch us, reference us, reference name, {peer: us})
    for figure, fns in model_cases(tt, torch, rng).items():
        t = measure(fns, repeat=repeat, target_s=target)
        peers = {k: v for k, v in t.items() if k not in ("teachtorch", "torch") and v is not None}
        rows[figure] = (t["teachtorch"], t["torch"], "torch", peers)
    for figure, case in (("8x8 add with requires_grad", add_case),
                         ("(a*b).sum().backward(), 8x8", small_case),
                         ("50-layer MLP fwd+bwd, batch 64, width 256", mlp_case)):
        t = measure({"teachtorch": case(tt), "torch": case(torch)}, repeat=repeat,
                    target_s=target * (5 if "50-layer" in figure else 1))
        rows[figure] = (t["teachtorch"], t["torch"], "torch", {})
    a = rng.standard_normal((1024, 1024)).astype(np.float32)
    ta = tt.from_numpy(a)
    t = measure({"teachtorch": lambda: ta @ ta, "numpy": lambda: a @ a}, repeat=repeat, target_s=target)
    rows["1024x1024 float32 matmul (vs NumPy)"] = (t["teachtorch"], t["numpy"], "numpy", {})
    live, plain = explorer_ratio(tt, 20 if args.quick else 50, repeat)
    rows["training loop, live explorer (vs the loop without)"] = (live, plain, "no explorer", {})

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(__doc__.splitlines()[0])
    print(f"{thread_info(torch)}, load average {load:.2f}\n")
    print(f"{'figure':58} {'teachtorch':>12} {'reference':>12}  {'ratio':>7}  {'goal':>6}")
    for figure, (ours, ref, ref_name, peers) in rows.items():
        ratio = ours / ref
        goal = GOALS[figure]
        verdict = "ok" if ratio <= goal else "MISSED"
        print(f"{figure:58} {ours:10,.1f}us {ref:10,.1f}us  {ratio:6.2f}x  <={goal:<4g}  {verdict}"
              + ("" if ref_name == "torch" else f"  (reference: {ref_name})"))
        for peer, us in peers.items():
            print(f"{'  ' + peer:58} {us:10,.1f}us {ref:10,.1f}us  {us / ref:6.2f}x")


if __name__ == "__main__":
    main()
