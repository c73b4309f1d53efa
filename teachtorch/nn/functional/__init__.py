"""teachtorch.nn.functional: the layers as functions of tensors, built from the core ops (so autograd needs no new
formulas). PyTorch keeps them in one long torch/nn/functional.py; here each family has its own file."""

from .linear import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403

# the files' own __all__ lists, read without binding a file's name over a function of the same name (linear)
__all__ = [name for _file in ("linear", "activation", "dropout", "sparse", "padding", "conv", "pooling", "normalization", "loss", "attention")
           for name in __import__(f"{__name__}.{_file}", fromlist=["__all__"]).__all__]
