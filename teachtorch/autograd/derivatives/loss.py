"""Backward formulas of the losses with a kernel of their own: `_ctc_loss`.

The other losses (nn/functional/loss.py) are compositions of core ops and need no entry. CTC's gradient is
its own kernel, `_ctc_loss_backward` (kernels/ctc_loss.py): the beta recursion and Graves' eq. 16, from the
log_alpha the forward kept. The formula reads only `grad`, so only the loss is differentiable, not
log_alpha (PyTorch's codegen rule, autograd/variable_type.py `record`).
"""

from ...ops.ctc import _ctc_loss_backward_op
from ..derivative import derivative, no_formula

derivative("_ctc_loss",
           log_probs=lambda grad, log_probs, targets, input_lengths, target_lengths, result0, result1, blank,
           zero_infinity: _ctc_loss_backward_op(grad, log_probs, targets, input_lengths, target_lengths, result0,
                                                result1, blank, zero_infinity))

no_formula("_ctc_loss_backward", why="CTC's gradient kernel: a double backward through CTC fails, as in PyTorch")
