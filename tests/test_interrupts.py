"""Ctrl-C at any instant leaves teachtorch's thread-local state as it was.

A student presses Ctrl-C (Jupyter's "interrupt kernel") in the middle of a training loop. Python raises
KeyboardInterrupt at whatever check point comes next: the start of a Python function, a loop's jump back,
just after a call returns. Whatever that instant, grad mode, inference mode, the dispatcher's include and
exclude sets, the mode stack, the active trace, the default device, saved-tensor hooks, backward listeners
and NumPy's floating-point error state must be as they were (teachtorch/_grad_mode.py explains the pattern
that guarantees it).

These tests fire a real signal (SIGALRM, whose handler raises KeyboardInterrupt, as SIGINT's does) after a
random delay, thousands of times, with a fixed seed. The delays are random, so where each one lands is not
reproducible; the number of trials makes every part of a training step likely to be hit many times.
"""

import gc
import random
import signal
import time

import numpy as np
import pytest

import teachtorch as tt
from teachtorch import _device, nn
from teachtorch._grad_mode import GradMode
from teachtorch.autograd import graph as autograd_graph
from teachtorch.autograd.saved_variable import saved_tensors_hooks_stack
from teachtorch.dispatch import dispatcher
from teachtorch.dispatch import TorchDispatchMode

pytestmark = [
    pytest.mark.cpu_only,
    pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer (POSIX)"),
]


def thread_state():
    """Every piece of thread-local state an interrupted op could leave changed."""
    return {
        "grad_enabled": GradMode.enabled,
        "inference": GradMode.inference,
        "include": dispatcher.tls.include,
        "exclude": dispatcher.tls.exclude,
        "modes": dispatcher.tls.modes,
        "trace": dispatcher._active_trace,
        "default_device": _device._default[0],
        "saved_tensors_hooks": tuple(saved_tensors_hooks_stack),
        "listeners": autograd_graph._listeners,
        "numpy_errors": np.geterr(),
        "gc_frozen": gc.get_freeze_count() > 0,
    }


class _Interrupter:
    """SIGALRM's handler: raises KeyboardInterrupt (as SIGINT's does) once per trial, and notes where.

    The timer keeps ticking until the loop has seen the interrupt: Python drops an exception raised where it
    cannot propagate (inside a `__del__`, a weakref callback), and a student would then press Ctrl-C again.
    A tick raises again only after `patience` seconds, so one interrupt still unwinding through a slow
    `__exit__` (the explorer drawing its last picture) is not hit by a second."""

    def __init__(self, patience=2.0):
        self.patience = patience
        self.armed = False
        self.raised_at = None
        self.landed = None

    def arm(self):
        self.armed, self.raised_at = True, None

    def __call__(self, signum, frame):
        now = time.monotonic()
        if self.armed and (self.raised_at is None or now - self.raised_at > self.patience):
            self.raised_at = now
            self.landed = f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
            raise KeyboardInterrupt


def interrupt_at_random(step, trials, seed, max_delay_s, check=None):
    """Run `step()` in a loop, interrupt it after a random delay, check the state; `trials` times.

    Returns the number of trials the interrupt landed in (always `trials`: the loop runs until it does)."""
    rng = random.Random(seed)
    before = thread_state()
    interrupter = _Interrupter()
    previous_handler = signal.signal(signal.SIGALRM, interrupter)
    interrupted = 0
    try:
        for trial in range(trials):
            delay = rng.uniform(1e-6, max_delay_s)
            try:
                interrupter.arm()
                signal.setitimer(signal.ITIMER_REAL, delay, 0.05)   # inside the try: it may fire at once
                while True:
                    step()
            except KeyboardInterrupt:
                interrupter.armed = False     # the first thing the handler does (no check point before it)
                interrupted += 1
            finally:
                interrupter.armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
            after = thread_state()
            assert after == before, f"trial {trial}: an interrupt at {interrupter.landed} changed " + ", ".join(
                f"{k}: {before[k]!r} -> {after[k]!r}" for k in before if before[k] != after[k])
            if check is not None:
                try:
                    check()
                except AssertionError as e:
                    raise AssertionError(f"trial {trial}, interrupt at {interrupter.landed}: {e}") from e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
    return interrupted


def _training_step(seed=0):
    tt.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = tt.optim.Adam(model.parameters(), lr=1e-3)
    x, y = tt.randn(32, 8), tt.randint(0, 3, (32,))

    @tt.no_grad()
    def predict(inputs):
        return model(inputs).argmax(1)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        predict(x[:4])

    return step, model


def _still_trains(model):
    def check():
        out = model(tt.randn(2, 8))
        assert out.requires_grad and out.grad_fn is not None
        (tt.ones(2) / tt.zeros(2)).sum()          # NumPy would warn here if its error state leaked
    return check


def test_ctrl_c_in_a_training_loop_restores_every_state():
    step, model = _training_step()
    assert interrupt_at_random(step, trials=1500, seed=0, max_delay_s=0.004, check=_still_trains(model)) == 1500


class _CountOps(TorchDispatchMode):
    def __init__(self):
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def test_ctrl_c_inside_a_torch_dispatch_mode_keeps_the_mode_stack():
    step, model = _training_step(1)
    outer, inner = _CountOps(), _CountOps()
    with outer:
        with inner:
            stack = dispatcher.tls.modes
            assert stack == (outer, inner)

            def check():
                assert dispatcher.tls.modes == (outer, inner)
                before = inner.count
                tt.ones(2) + 1
                assert inner.count > before           # the mode still sees ops

            interrupt_at_random(step, trials=800, seed=1, max_delay_s=0.004, check=check)
    assert dispatcher.tls.modes == ()
    tt.ones(2) + 1                                    # and ops run without a mode again


def test_ctrl_c_inside_a_trace_keeps_the_trace_consistent():
    step, model = _training_step(2)
    with tt.dispatch.trace(max_events=300) as t:
        def check():
            assert t._stack == [] and t._ops == [], "the trace's stack of running hops was left behind"
            assert t.backward_node is None, "forward ops after the interrupt would be labelled as backward"
            count = t._count
            tt.ones(3) + 1
            calls = [e for e in t.events if e.index >= count and e.depth == 0]
            assert [e.op for e in calls][-1] == "aten::add.Tensor" and calls[-1].parent is None
            assert len(t.events) <= 2 * 300 + 100       # bounded

        interrupt_at_random(step, trials=800, seed=2, max_delay_s=0.004, check=check)
    assert dispatcher._active_trace is None


class _Square(tt.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return 2 * x * grad


@tt.no_grad()
def _no_grad_numbers(x):
    for i in range(3):
        yield x * i


def test_ctrl_c_in_context_managers_decorators_and_hooks():
    """Entering each context manager, the body, and leaving it because of the interrupt. (A `with` block
    that ends normally calls the Python method `__exit__`, and an interrupt can land as that starts, before
    its first line: Python gives no way around that, and PyTorch's Python context managers share it. The
    library's own hot paths use decorators and `run_with_grad_mode` instead, tested above.)"""
    w = tt.randn(16, requires_grad=True)

    def body():
        y = _Square.apply(w).sum()
        y.backward()
        for v in _no_grad_numbers(w):
            assert v.grad_fn is None
        with tt.inference_mode():
            tt.ones(3) * 2
        with tt.no_grad():
            (w * 2).sum()
        w.grad = None

    def step():
        with tt.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with tt.autograd.graph.listen(lambda ev: None):
                with tt.device("cpu"):
                    with tt.enable_grad():
                        with tt.autograd.set_detect_anomaly(False):
                            while True:      # leave only by the interrupt: the exception path of each `with`
                                body()

    interrupt_at_random(step, trials=1500, seed=3, max_delay_s=0.002)


def test_ctrl_c_in_kernels_restores_numpy_error_state():
    a = tt.randn(64, 64)
    zero = tt.zeros(64, 64)

    def step():
        (a / zero).log().sum(1).softmax(0)
        tt.linspace(0, 6e4, 50, dtype=tt.float16)
        tt.arange(0, 1e3, 0.5, dtype=tt.float16).exp()
        a.to(tt.float16) * 1e5

    interrupt_at_random(step, trials=1500, seed=4, max_delay_s=0.002)


def test_ctrl_c_while_the_explorer_records():
    """The live explorer's recorder: its trace, its backward listener and gc.freeze() are undone whether the
    interrupt lands while it starts, while it records, or while it stops."""
    from teachtorch.explorer.recorder import Recorder
    step, model = _training_step(5)

    def recorded():
        with Recorder(interval=0.001, max_events=300):
            while True:
                step()

    interrupt_at_random(recorded, trials=300, seed=5, max_delay_s=0.02, check=_still_trains(model))
