"""The thread-wide autograd switches, at the bottom layer (PyTorch keeps them in c10/core/GradMode.h and
c10/core/InferenceMode.h, below everything else, because tensor construction reads them too).

`teachtorch.autograd.grad_mode` has the user-facing context managers that flip them.
"""


class GradMode:
    enabled = True       # record the graph? (no_grad turns it off)
    inference = False    # inside inference_mode(): every tensor made is an inference tensor
