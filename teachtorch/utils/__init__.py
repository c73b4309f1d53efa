"""teachtorch.utils: helpers above nn. `utils.data` holds datasets, samplers and the DataLoader."""

from . import data  # noqa: F401
