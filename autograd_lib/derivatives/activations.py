"""The rules of ``ops/activations.py``: ``leaky_relu``, ``elu``, ``gelu``, ``silu``, ``softplus``
and the backward ops of their gradients.
"""

from .. import ops as F
from ..creation import zeros_like
from ..ops import activations as A
from .table import rule


# The activations of ops/activations.py: as relu, their gradients are ops of their own
# (differentiated again through the *_curvature helpers), but silu's, written with plain
# ops as PyTorch writes it.
rule("leaky_relu", "LeakyReluBackward0",
     self=("self negative_slope", lambda grad, self, negative_slope: A.leaky_relu_backward(
         grad, self, negative_slope)))
rule("leaky_relu_backward", "LeakyReluBackwardBackward0",
     grad_output=("self negative_slope", lambda grad, self, negative_slope: A.leaky_relu_backward(
         grad, self, negative_slope)),
     self=lambda grad: zeros_like(grad))
rule("elu", "EluBackward0", self=("self alpha", lambda grad, self, alpha: A.elu_backward(grad, self, alpha)))
rule("elu_backward", "EluBackwardBackward0",
     grad_output=("self alpha", lambda grad, self, alpha: A.elu_backward(grad, self, alpha)),
     self=("grad_output self alpha", lambda grad, grad_output, self, alpha: grad * grad_output
           * A.elu_curvature(self, alpha)))
rule("gelu", "GeluBackward0",
     self=("self approximate", lambda grad, self, approximate: A.gelu_backward(grad, self, approximate)))
rule("gelu_backward", "GeluBackwardBackward0",
     grad_output=("self approximate", lambda grad, self, approximate: A.gelu_backward(grad, self, approximate)),
     self=("grad_output self approximate", lambda grad, grad_output, self, approximate: grad * grad_output
           * A.gelu_curvature(self, approximate)))
rule("silu", "SiluBackward0",
     self=("self", lambda grad, self: (lambda s: grad * s * F.add_scalar(self * (1 - s), 1))(F.sigmoid(self))))
rule("softplus", "SoftplusBackward0",
     self=("self beta threshold", lambda grad, self, beta, threshold: A.softplus_backward(
         grad, self, beta, threshold)))
rule("softplus_backward", "SoftplusBackwardBackward0",
     grad_output=("self beta threshold", lambda grad, self, beta, threshold: A.softplus_backward(
         grad, self, beta, threshold)),
     self=("grad_output self beta threshold", lambda grad, grad_output, self, beta, threshold:
           A.softplus_double_backward(grad * grad_output, self, beta, threshold)))

