"""The rules of writes that replace a tensor's values (``ops/inplace.py``,
``ops/inplace_unary.py``): ``copy_``, ``zero_``, ``fill_``, ``uniform_``, ``normal_``.
"""

from ..creation import zeros_like
from .table import rule


rule("copy_", "CopyBackwards",                          # dst.copy_(src): dst's old values are gone
     self=lambda grad: zeros_like(grad),
     src=lambda grad: grad)
rule("zero_", "ZeroBackward0", self=lambda grad: zeros_like(grad))
rule("fill_.Scalar", "FillBackward2", self=lambda grad: zeros_like(grad))
rule("fill_.Tensor", "FillBackward3",                   # t.fill_(0-dim tensor), t[...] = value
     self=lambda grad: zeros_like(grad),
     value=lambda grad: grad.sum())

# Random fills forget the old values (ops/inplace_unary.py).
rule("uniform_", "UniformBackward0", self=lambda grad: zeros_like(grad))
rule("normal_", "NormalBackward0", self=lambda grad: zeros_like(grad))

