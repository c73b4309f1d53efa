"""teachtorch.optim: optimizers and learning-rate schedulers, with PyTorch's names, options and numbers.

An optimizer (optimizer.py) holds parameter groups and per-parameter state and, at each `step()`, writes a
new value into every parameter that has a `.grad`: SGD, Adam, AdamW, RMSprop, Adadelta, Adagrad, Adamax,
NAdam, RAdam and ASGD, each written as PyTorch's readable single-tensor loop and, next to it, as its
multi-tensor `_multi_tensor_*` (`foreach=True`, the default on cuda), and LBFGS, which calls a closure to
re-evaluate the loss several times per step. `lr_scheduler` changes the groups' learning rates
from one epoch (or step) to the next.

    opt = teachtorch.optim.Adam(model.parameters(), lr=1e-3)
    for x, y in loader:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
"""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .asgd import ASGD
from .lbfgs import LBFGS
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam", "ASGD",
           "LBFGS", "lr_scheduler"]
