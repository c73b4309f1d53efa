"""The activation ops PyTorch has kernels for: gelu, silu, leaky_relu, hardtanh, elu (selu, celu), softplus,
hardsigmoid, hardswish, mish, threshold, log_sigmoid, glu, prelu (`_prelu_kernel`), and the backward op of each
(and of tanh and sigmoid).

PyTorch declares each activation in native_functions.yaml with an in-place and an out= variant
(`gelu`, `gelu_`, `gelu.out`) and a *backward op* (`gelu_backward`) that computes `grad * f'(x)` in one pass;
derivatives.yaml then says that the backward of `gelu` is `gelu_backward(grad, self, approximate)` (node
`GeluBackward0`). One op forward and one op backward, instead of the five or six a composition of
`mul`, `erf`, `add` costs, each with its own dispatch and autograd node. The backward ops have derivatives
of their own (autograd/derivatives/nn.py), so gradients of gradients go through ops too.

Each op here is an elementwise op declared with `pointwise` (ops/pointwise.py): one line of PyTorch's schema
and the array code from kernels/activation.py, computed in float32 for float16 inputs as PyTorch's
`opmath_t` does. PyTorch binds them in `torch._C._nn` (what `torch.nn.functional` calls) and, for selu, celu
and threshold, in `torch` too: only those are in `__all__` here; nn/functional/activation.py calls the ops.
"""

from .._dtype import bool_
from ..kernels import activation as K
from ..kernels.pointwise import DEFAULT, Checks, PointwiseKernel
from ._define import composite_op, function, kernel_op
from .pointwise import OPS, not_implemented_for, pointwise


def _floating(kernel_name):
    """Integer and bool inputs are refused, as PyTorch's AT_DISPATCH_FLOATING_TYPES kernels refuse them."""
    return Checks(late=not_implemented_for(kernel_name, "integral"))


_FWD = ("inplace", "out")       # PyTorch's variants of a forward activation: `gelu_`, `gelu.out`
_BWD = ()                      # a backward op: the functional form only (PyTorch's `.grad_input` out= unused)

# tanh and sigmoid are ops of ops/pointwise_unary.py; their backward ops, from the result y, are here
tanh_backward = pointwise("tanh_backward(Tensor grad_output, Tensor output) -> Tensor", K.tanh_backward, variants=_BWD)
sigmoid_backward = pointwise("sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", K.sigmoid_backward,
                             variants=_BWD)
gelu = pointwise("gelu(Tensor self, *, str approximate='none') -> Tensor", K.gelu,
                 checks=_floating("GeluKernelImpl"), variants=_FWD)
gelu_backward = pointwise("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
                          K.gelu_backward, variants=_BWD)
silu = pointwise("silu(Tensor self) -> Tensor", K.silu, checks=_floating("silu_cpu"), variants=_FWD)
silu_backward = pointwise("silu_backward(Tensor grad_output, Tensor self) -> Tensor", K.silu_backward,
                          variants=_BWD)
leaky_relu = pointwise("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", K.leaky_relu,
                       checks=_floating("leaky_relu_cpu"), variants=_FWD)
leaky_relu_backward = pointwise("leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, "
                                "bool self_is_result) -> Tensor", K.leaky_relu_backward, variants=_BWD)
def _no_bool_hardtanh(operands):
    if operands[0].dtype is bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")


hardtanh = pointwise("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", K.hardtanh,
                     checks=Checks(operands=_no_bool_hardtanh), variants=_FWD)
hardtanh_backward = pointwise("hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, "
                              "Scalar max_val) -> Tensor", K.hardtanh_backward, variants=_BWD)
softplus = pointwise("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", K.softplus,
                     checks=_floating("softplus_cpu"), variants=("out",))
softplus_backward = pointwise("softplus_backward(Tensor grad_output, Tensor self, Scalar beta, "
                              "Scalar threshold) -> Tensor", K.softplus_backward, variants=_BWD)
hardsigmoid = pointwise("hardsigmoid(Tensor self) -> Tensor", K.hardsigmoid,
                        checks=_floating("hardsigmoid_cpu"), variants=_FWD)
hardsigmoid_backward = pointwise("hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor",
                                 K.hardsigmoid_backward, variants=_BWD)
hardswish = pointwise("hardswish(Tensor self) -> Tensor", K.hardswish, checks=_floating("hardswish_cpu"),
                      variants=_FWD)
hardswish_backward = pointwise("hardswish_backward(Tensor grad_output, Tensor self) -> Tensor",
                               K.hardswish_backward, variants=_BWD)
mish = pointwise("mish(Tensor self) -> Tensor", K.mish, checks=_floating("mish_cpu"), variants=_FWD)
mish_backward = pointwise("mish_backward(Tensor grad_output, Tensor self) -> Tensor", K.mish_backward,
                          variants=_BWD)
threshold = pointwise("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", K.threshold,
                      variants=_FWD)
threshold_ = function(OPS["threshold"][1], name="threshold_")

# ---- elu, selu, celu: one kernel ---------------------------------------------------------------------------
# `elu(self, alpha, scale, input_scale)` is PyTorch's one kernel for the three; `selu` calls it with the fixed
# constants (CompositeImplicitAutograd, so its node is EluBackward0) and `celu` with input_scale = 1 / alpha
# (an op of its own, so its node is CeluBackward0).

elu = pointwise("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", K.elu,
                checks=_floating("elu_cpu"), variants=_FWD)
elu_op, elu_inplace_op, _ = OPS["elu"]

# elu_backward's schema puts the scalars between the two tensors; the elementwise kernel takes the tensors
# first, so this kernel reorders the arguments and runs it.
_elu_backward_pointwise = PointwiseKernel(K.elu_backward, DEFAULT, 2)


def elu_backward_kernel(ks, grad_output, alpha, scale, input_scale, is_result, self_or_result):
    return _elu_backward_pointwise.functional(ks, grad_output, self_or_result, alpha, scale, input_scale,
                                              is_result)


elu_backward = kernel_op("elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, "
                         "bool is_result, Tensor self_or_result) -> Tensor", elu_backward_kernel)

# selu's constants (Klambauer et al. 2017), as in PyTorch's Activation.cpp
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946



def _selu(self):
    return elu_op(self, SELU_ALPHA, SELU_SCALE, 1)


def _selu_(self):
    return elu_inplace_op(self, SELU_ALPHA, SELU_SCALE, 1)


selu_op = composite_op("selu(Tensor self) -> Tensor", _selu)
selu_inplace_op = composite_op("selu_(Tensor(a!) self) -> Tensor(a!)", _selu_)
selu, selu_ = function(selu_op), function(selu_inplace_op)


def _celu_check(alpha):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")


def celu_kernel(ks, self, alpha=1.0):
    """PyTorch's celu: `elu(self, alpha, 1.0, 1.0 / alpha)`, run as the elu kernel (Activation.cpp)."""
    _celu_check(alpha)
    return _ELU_KERNEL.functional(ks, self, alpha, 1, 1 / alpha)


def celu_inplace_kernel(ks, self, alpha=1.0):
    _celu_check(alpha)
    return _ELU_KERNEL.inplace(ks, self, alpha, 1, 1 / alpha)


_ELU_KERNEL = PointwiseKernel(K.elu, DEFAULT, 1, _floating("elu_cpu"))
celu_op = kernel_op("celu(Tensor self, Scalar alpha=1.0) -> Tensor", celu_kernel)
celu_inplace_op = kernel_op("celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)", celu_inplace_kernel)
celu, celu_ = function(celu_op), function(celu_inplace_op)

# ---- log_sigmoid, glu, prelu ---------------------------------------------------------------------------------
# `log_sigmoid` is CompositeImplicitAutograd over `log_sigmoid_forward`, which also returns the buffer
# exp(-|x|) its backward reads (node LogSigmoidBackward0). `prelu` reshapes the weight to broadcast over the
# channels and calls `_prelu_kernel` (node PreluKernelBackward0), whose backward gives both gradients at once.

log_sigmoid_forward_op = kernel_op("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)",
                                   K.log_sigmoid_forward_kernel)
log_sigmoid_backward = pointwise("log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor",
                                 K.log_sigmoid_backward, variants=_BWD)


def _log_sigmoid(self):
    return log_sigmoid_forward_op(self)[0]


log_sigmoid_op = composite_op("log_sigmoid(Tensor self) -> Tensor", _log_sigmoid)

glu_op = kernel_op("glu(Tensor self, int dim=-1) -> Tensor", K.glu_kernel)
glu_backward_op = kernel_op("glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor",
                            K.glu_backward_kernel)

_prelu_kernel = pointwise("_prelu_kernel(Tensor self, Tensor weight) -> Tensor", K.prelu,
                          checks=_floating("prelu_cpu"), variants=_BWD)
_prelu_kernel_op = OPS["_prelu_kernel"][0]
_prelu_kernel_backward_op = kernel_op("_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> "
                                      "(Tensor, Tensor)", K.prelu_kernel_backward_kernel)

__all__ = ["selu", "selu_", "celu", "celu_", "threshold", "threshold_"]
