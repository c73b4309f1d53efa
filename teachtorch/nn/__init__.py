"""teachtorch.nn: layers, losses and the Module class, with PyTorch's names and behaviour.

This layer sits above autograd: every layer is written with the core ops, so its backward comes from the
formulas autograd already has. `nn.functional` holds the layers as functions; `nn.modules` the classes
that own parameters and call them.
"""

from .parameter import *  # noqa: F401,F403
from .modules import *  # noqa: F401,F403
from . import functional, init, modules, parameter  # noqa: F401
from . import parallel  # noqa: F401  (DataParallel, DistributedDataParallel)
from .parallel import DataParallel  # noqa: F401  (torch.nn.DataParallel)
from . import utils  # noqa: F401  (clip_grad_norm_, parameters_to_vector, ...)
