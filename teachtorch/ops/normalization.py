"""The normalization ops PyTorch has kernels for: `native_layer_norm`, `native_batch_norm`, `native_group_norm`
and their backward ops (kernels in kernels/normalization.py). (`torch.group_norm` calls `native_group_norm`
with the input seen as (N, C, HxW), node NativeGroupNormBackward0.)

`torch.layer_norm` (what `F.layer_norm` calls) is CompositeImplicitAutograd in PyTorch: it calls
`native_layer_norm`, which returns (output, mean, rstd) and records one node, NativeLayerNormBackward0, whose
backward is one op, `native_layer_norm_backward` (aten/src/ATen/native/layer_norm.cpp). Batch norm is the same
with `native_batch_norm` (returns (output, save_mean, save_invstd) and updates the running statistics in
place: they are the mutable `Tensor(a!)?` arguments) and `native_batch_norm_backward`, in training and in
evaluation alike (torch 2.13 on the CPU: `F.batch_norm` -> `_batch_norm_impl_index` -> `native_batch_norm`;
aten/src/ATen/native/Normalization.cpp).
"""

from .._dispatch_key import DispatchKey
from ..kernels import normalization as K
from ._define import function, kernel_op

native_layer_norm_op = kernel_op(
    "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
    "-> (Tensor, Tensor, Tensor)", K.native_layer_norm_kernel)
native_layer_norm_backward_op = kernel_op(
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, "
    "Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    K.native_layer_norm_backward_kernel)
native_batch_norm_op = kernel_op(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, "
    "Tensor(b!)? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    K.native_batch_norm_kernel)
# The running statistics are written inside the kernel, and their version counters are left as they were:
# in PyTorch `rm._version` is still 0 after `F.batch_norm(x, rm, rv, training=True)` (the update is the
# kernel's own business, not an in-place op the autograd layer records), so no ADInplaceOrView kernel.
if native_batch_norm_op.kernels.pop(DispatchKey.ADInplaceOrView, None) is not None:
    native_batch_norm_op._compute_table()

native_batch_norm_backward_op = kernel_op(
    "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
    "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) "
    "-> (Tensor, Tensor, Tensor)", K.native_batch_norm_backward_kernel)

native_group_norm_op = kernel_op(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, "
    "float eps) -> (Tensor, Tensor, Tensor)", K.native_group_norm_kernel)
native_group_norm_backward_op = kernel_op(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, Tensor? weight, SymInt N, "
    "SymInt C, SymInt HxW, int group, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    K.native_group_norm_backward_kernel)

native_layer_norm = function(native_layer_norm_op)
native_group_norm = function(native_group_norm_op)
native_batch_norm = function(native_batch_norm_op)

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm"]
