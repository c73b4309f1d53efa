"""The derivative of PyTorch's fused CPU attention (tools/autograd/derivatives.yaml):

    - name: _scaled_dot_product_flash_attention_for_cpu(...) -> (Tensor output, Tensor logsumexp)
      output_differentiability: [True, False]
      query, key, value: _scaled_dot_product_flash_attention_for_cpu_backward(grad, query, key, value, output,
                         logsumexp, dropout_p, is_causal, attn_mask, scale)

One backward op for the three gradients, from the saved output and logsumexp. PyTorch has no derivative for
that backward op, so a second derivative fails with "derivative for ..._backward is not implemented", here too.
"""

from ...ops.attention import scaled_dot_product_flash_attention_for_cpu_backward_op as _backward_op
from ..derivative import derivative, no_formula


def _flash_attention_backward(grad, query, key, value, output, logsumexp, dropout_p, is_causal, attn_mask, scale):
    return _backward_op(grad, query, key, value, output, logsumexp, dropout_p, is_causal, attn_mask=attn_mask,
                        scale=scale)


derivative("_scaled_dot_product_flash_attention_for_cpu", name="ScaledDotProductFlashAttentionForCpuBackward0",
           entries={"query, key, value": _flash_attention_backward})
no_formula("_scaled_dot_product_flash_attention_for_cpu_backward",
           why="none in PyTorch 2.13 either: double backward of the fused CPU attention is not implemented")
