"""The fused attention op PyTorch runs on the CPU: `_scaled_dot_product_flash_attention_for_cpu` and its
backward (kernels in kernels/attention.py).

`F.scaled_dot_product_attention` is CompositeImplicitAutograd in PyTorch (native/transformers/attention.cpp):
it picks a backend (`select_sdp_backend_cpp`, sdp_utils_cpp.cpp) and, on the CPU, calls either this op, which
returns (output, logsumexp) and records ONE node, ScaledDotProductFlashAttentionForCpuBackward0, or
`_scaled_dot_product_attention_math`, the composite of matmul, softmax, ... (nn/functional/attention.py says
which inputs go where).
"""

from ..kernels import attention as K
from ._define import function, kernel_op

__all__ = ["_scaled_dot_product_flash_attention_for_cpu"]

scaled_dot_product_flash_attention_for_cpu_op = kernel_op(
    "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, "
    "bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)",
    K.scaled_dot_product_flash_attention_for_cpu_kernel)
scaled_dot_product_flash_attention_for_cpu_backward_op = kernel_op(
    "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, "
    "Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) "
    "-> (Tensor grad_query, Tensor grad_key, Tensor grad_value)",
    K.scaled_dot_product_flash_attention_for_cpu_backward_kernel)

_scaled_dot_product_flash_attention_for_cpu = function(scaled_dot_product_flash_attention_for_cpu_op)
