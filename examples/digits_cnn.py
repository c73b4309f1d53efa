"""Train a small two-layer CNN on the UCI handwritten digits (shipped with teachtorch), offline, on a laptop CPU.

    python examples/digits_cnn.py [--epochs 15] [--seed 0] [--figure path.png]

The same seeded 80/20 split as digits_mlp.py; expect about 98-99% test accuracy. Each Conv2d builds its
sliding windows as a strided *view* of the input (no copy: see teachtorch/nn/functional/conv.py) and then
does one matrix multiply, which is how this runs in seconds in Python. In a notebook it shows the live
TrainMonitor (see digits_mlp.py), with the first ReLU's activations and gradients.
"""

import teachtorch as tt
from teachtorch import nn

from _report import default_figure
from digits_mlp import parse_args, train


def build_model():
    return nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1),    # (N, 1, 8, 8) -> (N, 16, 8, 8)
        nn.ReLU(),
        nn.MaxPool2d(2),                               # -> (N, 16, 4, 4)
        nn.Conv2d(16, 32, kernel_size=3, padding=1),   # -> (N, 32, 4, 4)
        nn.ReLU(),
        nn.MaxPool2d(2),                               # -> (N, 32, 2, 2)
        nn.Flatten(),                                  # -> (N, 128)
        nn.Linear(32 * 2 * 2, 10),
    )


def main(argv=None):
    args = parse_args(argv, __doc__, epochs=15, lr=2e-3)
    tt.manual_seed(args.seed)                              # the initial weights
    return train(build_model(), args, "digits CNN", default_figure(__file__), layer="1")   # the first ReLU


if __name__ == "__main__":
    main()
