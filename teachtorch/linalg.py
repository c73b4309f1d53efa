"""`teachtorch.linalg`: the names PyTorch keeps under `torch.linalg`, for the ops teachtorch has so far."""

from .ops.reductions import vector_norm

__all__ = ["vector_norm"]
