"""Plausible wrong answers to lesson 5's exercises: each check must reject every one (tests/test_exercises.py)."""

import teachtorch as tt
from teachtorch.backends import wrap
from teachtorch.dispatch import DispatchKey, redispatch

BELOW_AUTOGRAD = (1 << DispatchKey.AutogradCPU) - 1


# ---- L05.dispatch_path --------------------------------------------------------------------------------------

def path_lowest_first(keys, table):                # walks the keys in the wrong priority order
    path = []
    for key in sorted(keys, key=lambda k: DispatchKey[k]):
        if table[key] == "fallthrough":
            continue
        path.append(key)
        if table[key] == "kernel":
            break
    return path


def path_keeps_fallthroughs(keys, table):          # a fallthrough key is listed as if it ran
    path = []
    for key in sorted(keys, key=lambda k: DispatchKey[k], reverse=True):
        path.append(key)
        if table[key] == "kernel":
            break
    return path


def path_never_stops(keys, table):                 # goes on below a kernel, as if every key redispatched
    return [k for k in sorted(keys, key=lambda k: DispatchKey[k], reverse=True) if table[k] != "fallthrough"]


def path_unsorted(keys, table):                    # takes the keys in the order they were given
    path = []
    for key in keys:
        if table[key] == "fallthrough":
            continue
        path.append(key)
        if table[key] == "kernel":
            break
    return path


# ---- L05.register_axpby -------------------------------------------------------------------------------------

def _autograd(lib, alpha_grad=lambda a, b: a, beta_grad=lambda a, b: b):
    """A right Autograd kernel for `lib`'s axpby (its backward's factors can be made wrong)."""
    op = tt.dispatch.lookup(f"{lib.ns}::axpby")

    class Axpby(tt.autograd.Function):
        @staticmethod
        def forward(ctx, ks, x, y, alpha, beta):
            ctx.alpha, ctx.beta = alpha, beta
            return redispatch(op, ks & BELOW_AUTOGRAD, (x, y, alpha, beta))

        @staticmethod
        def backward(ctx, grad):
            return None, grad * alpha_grad(ctx.alpha, ctx.beta), grad * beta_grad(ctx.alpha, ctx.beta), None, None

    def axpby_autograd(ks, x, y, alpha, beta):
        return Axpby.apply(ks, x, y, alpha, beta)
    return axpby_autograd


def _define(lib, kernel, meta=True):
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    lib.impl("axpby", kernel, "CPU")
    lib.impl("axpby", kernel, "CUDA")
    if meta:
        lib.impl("axpby", lambda x, y, alpha, beta: tt.empty_like(x), "Meta")


def axpby_forgets_beta(lib):                      # alpha*x + y
    _define(lib, lambda x, y, alpha, beta: wrap(alpha * x._data() + y._data(), x.dtype, x.device))
    lib.impl("axpby", _autograd(lib), "Autograd", with_keyset=True)


def _right_kernel(x, y, alpha, beta):
    return wrap(alpha * x._data() + beta * y._data(), x.dtype, x.device)


def axpby_only_autograd(lib):                     # one kernel at Autograd: computes there, the backend never runs
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    lib.impl("axpby", lambda x, y, alpha, beta: alpha * x + beta * y, "Autograd")


def axpby_no_autograd(lib):                       # no Autograd kernel: the fallback's node fails in backward
    _define(lib, _right_kernel)


def axpby_no_meta(lib):                           # no Meta kernel: a call on meta tensors finds none
    _define(lib, _right_kernel, meta=False)
    lib.impl("axpby", _autograd(lib), "Autograd", with_keyset=True)


def axpby_swapped_grads(lib):                     # backward gives x the factor of y and y the factor of x
    _define(lib, _right_kernel)
    lib.impl("axpby", _autograd(lib, lambda a, b: b, lambda a, b: a), "Autograd", with_keyset=True)


def axpby_cpu_only(lib):                          # forgets the CUDA slot: a cuda tensor would find no kernel
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    lib.impl("axpby", _right_kernel, "CPU")
    lib.impl("axpby", lambda x, y, alpha, beta: tt.empty_like(x), "Meta")
    lib.impl("axpby", _autograd(lib), "Autograd", with_keyset=True)


def axpby_composite_backend(lib):                 # one kernel for every backend: Meta tensors have no data
    lib.define("axpby(Tensor x, Tensor y, float alpha, float beta) -> Tensor")
    lib.impl("axpby", _right_kernel, "CompositeExplicitAutograd")
    lib.impl("axpby", _autograd(lib), "Autograd", with_keyset=True)


WRONG = {
    "L05.dispatch_path": [path_lowest_first, path_keeps_fallthroughs, path_never_stops, path_unsorted],
    "L05.register_axpby": [axpby_forgets_beta, axpby_only_autograd, axpby_no_autograd, axpby_no_meta,
                           axpby_swapped_grads, axpby_cpu_only, axpby_composite_backend],
}
