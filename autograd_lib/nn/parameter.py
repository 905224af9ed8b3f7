"""``nn.Parameter``: a tensor that a module should train.

A Parameter is an ordinary :class:`~autograd_lib.Tensor` with two differences:

* **Being a Parameter is what registers it.**  Assigning one as a module
  attribute (``self.weight = nn.Parameter(...)``) files it in the module's
  ``_parameters``, so ``model.parameters()`` finds it and an optimizer can
  update it.  Assigning a plain tensor does not.
* It **requires grad by default** and is always a **leaf**, whatever the
  history of the tensor it was made from: its values are the data to learn,
  not the result of a computation.

``nn.Parameter(t)`` does not copy: it shares ``t``'s storage *and* version
counter, exactly like ``t.detach()``.  Operations on a Parameter give plain
Tensors (``(2 * w)`` is not a parameter of anything).
"""

from .._tensor_str import tensor_repr
from ..creation import empty
from ..tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A leaf tensor that :class:`~autograd_lib.nn.Module` registers as trainable.

    >>> w = nn.Parameter(autograd_lib.zeros(2))
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, "
                            f"not {type(data).__name__}")
        # _make wraps the same NumPy array: no copy, and the same version
        # counter, so an in-place change of `data` is seen through the Parameter.
        if requires_grad and not data.is_floating_point():      # no complex dtypes here
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        param = cls._make(data._data, data._version_counter)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        """Everything is done in ``__new__`` (Tensor.__init__ would copy ``data``)."""

    def __repr__(self):
        return tensor_repr(self._data, dtype_name=self.dtype.name,
                           requires_grad=self.requires_grad,
                           grad_fn_name=self.grad_fn.name() if self.grad_fn is not None else None,
                           prefix="Parameter containing:\ntensor(")

    __str__ = __repr__              # Tensor's __str__ is bound to Tensor.__repr__

    def __reduce_ex__(self, protocol):
        # Pickling (and copy.copy) rebuild a Parameter, not a plain Tensor.
        return (Parameter, (Tensor._make(self._data.copy()), self._requires_grad))
