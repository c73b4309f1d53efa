"""The thread-wide autograd switches, at the bottom layer (PyTorch keeps them in c10/core/GradMode.h and
c10/core/InferenceMode.h, below everything else, because tensor construction reads them too).

`teachtorch.autograd.grad_mode` has the user-facing context managers that flip them.

Thread-local state and Ctrl-C. Python runs a signal handler (and so raises KeyboardInterrupt) only at
*check points*: the start of a Python function, a loop's jump back, and just after a call returns. Plain
assignments, attribute reads and arithmetic on ints and tuples have none. PyTorch's C++ guards
(`AutoGradMode`, `ExcludeDispatchKeyGuard`) are never interrupted by a Python signal; teachtorch's Python
gets the same guarantee from one pattern, used for every piece of thread-local state (grad mode, the
dispatcher's include/exclude sets, the mode stack, the active trace, NumPy's error state):

    saved = State.value          # no check point between the save ...
    State.value = new            # ... the change ...
    try:                         # ... and the try (which costs nothing and has none either)
        ...
    finally:
        State.value = saved      # the first thing the finally does, a plain store

so whatever instant an interrupt lands, the state is either unchanged or restored.
"""


class GradMode:
    enabled = True       # record the graph? (no_grad turns it off)
    inference = False    # inside inference_mode(): every tensor made is an inference tensor


def run_with_grad_mode(enabled, inference, fn, *args, **kwargs):
    """`fn(*args, **kwargs)` with grad mode set to (enabled, inference), restored afterwards whatever
    happens (an error, or Ctrl-C at any instant: see the module's docstring)."""
    saved = GradMode.enabled, GradMode.inference
    GradMode.enabled, GradMode.inference = enabled, inference
    try:
        return fn(*args, **kwargs)
    finally:
        GradMode.enabled, GradMode.inference = saved
