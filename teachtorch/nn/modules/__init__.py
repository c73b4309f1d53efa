"""The layers of teachtorch.nn, one family per file as in PyTorch's torch/nn/modules."""

from .module import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .linear import *  # noqa: F401,F403
from .flatten import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .sparse import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .batchnorm import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403

# the files' own __all__ lists, read without binding a file's name over a function of the same name (linear)
__all__ = [name for _file in ("module", "container", "linear", "flatten", "activation", "dropout", "sparse", "conv", "pooling", "padding", "batchnorm", "normalization", "loss", "attention", "transformer", "rnn")
           for name in __import__(f"{__name__}.{_file}", fromlist=["__all__"]).__all__]
