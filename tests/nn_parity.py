"""The parity harness for modules: the same layer in teachtorch and in PyTorch, with the same weights.

    check_module(lambda nn: nn.Conv2d(3, 4, 3, padding=1), P(x))

`make(nn)` is called with `teachtorch.nn` and with `torch.nn`. PyTorch's module keeps the weights it drew;
`copy_weights` copies its whole state_dict (parameters and buffers) into ours, key by key, so the two key
sets must be equal: that is the state_dict parity. Then, in train mode and in eval mode (each on a fresh
pair), the inputs (`P` values from tests/parity.py, in any memory layout) go through both modules, and
everything is compared:

- the output (values, shape, dtype, strides unless `strides=False`);
- the gradient of every floating input and every parameter, for one random upstream gradient;
- every buffer afterwards (BatchNorm's running statistics and its num_batches_tracked).

`forward(module, *inputs)` overrides the call (for modules that take keyword arguments or return tuples).
"""

import numpy as np
import torch

import teachtorch as tt

from parity import P, _build, assert_same


def copy_weights(ours, theirs):
    """Copy every parameter and buffer of the torch module `theirs` into the same-named tensor of `ours`."""
    source = theirs.state_dict()
    target = dict(ours.named_parameters())
    target.update(dict(ours.named_buffers()))
    assert list(ours.state_dict().keys()) == list(source.keys()), "state_dict keys differ from PyTorch's"
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()], \
        "named_parameters differ from PyTorch's"
    with tt.no_grad():
        for name, value in source.items():
            target[name].copy_(tt.tensor(value.detach().numpy()))


def _tensors(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [out] if out is not None and hasattr(out, "grad_fn") else []


def check_module(make, *inputs, train=(True, False), backward=True, forward=None, rtol=1e-4, atol=1e-5,
                 strides=True, seed=0):
    """Build the module with each library, copy torch's weights into ours, and compare outputs, gradients of
    inputs and parameters, and buffers, in each of the modes in `train`."""
    for mode in ((train,) if isinstance(train, bool) else train):
        torch.manual_seed(seed)
        theirs = make(torch.nn)
        ours = make(tt.nn)
        copy_weights(ours, theirs)
        theirs.train(mode)
        ours.train(mode)
        results = {}
        for lib, module in ((tt, ours), (torch, theirs)):
            args = [_build(a, lib) for a in inputs]
            grads_of = [a for a in args if isinstance(a, (tt.Tensor, torch.Tensor)) and a.is_floating_point()]
            for a in grads_of:
                a.requires_grad_(backward)
            out = forward(module, *args) if forward else module(*args)
            outs = [o for o in _tensors(out) if o.is_floating_point()]
            grads = []
            if backward and any(o.requires_grad for o in outs):
                rng = np.random.default_rng(seed + 1)
                total = None
                for o in outs:
                    g = lib.tensor(rng.standard_normal(tuple(o.shape)).astype(np.float32)).to(o.dtype)
                    term = (o * g).sum()
                    total = term if total is None else total + term
                total.backward()
                grads = [a.grad for a in grads_of]
                grads += [p.grad for _, p in module.named_parameters()]
            buffers = [b for _, b in module.named_buffers()]
            results[lib] = ([o.detach() for o in outs], grads, buffers)
        label = "train" if mode else "eval"
        (o1, g1, b1), (o2, g2, b2) = results[tt], results[torch]
        assert len(o1) == len(o2)
        for i, (a, b) in enumerate(zip(o1, o2)):
            assert_same(a, b, rtol=rtol, atol=atol, strides=strides, path=f"{label} output {i}")
        assert len(g1) == len(g2)
        for i, (a, b) in enumerate(zip(g1, g2)):
            assert (a is None) == (b is None), f"{label} gradient {i}: one library has none"
            if a is not None:
                assert_same(a, b, rtol=rtol, atol=atol, strides=False, path=f"{label} gradient {i}")
        assert len(b1) == len(b2), f"{label}: {len(b1)} buffers, PyTorch has {len(b2)}"
        for i, (a, b) in enumerate(zip(b1, b2)):
            assert_same(a, b, rtol=rtol, atol=atol, strides=False, path=f"{label} buffer {i}")
