"""In-place forms of the pointwise ops (``x.exp_()``, ``x.relu_()``, ``x.pow_(2)``, ...)
and the in-place random fills (``uniform_``, ``normal_``).

Each is its out-of-place op run through ``inplace._inplace``: the same checks
(the leaf rule, views), the same write and version bump, and the op's own
backward node becomes the tensor's ``grad_fn`` (``y.exp_()`` records
ExpBackward0, as PyTorch).  A random fill records UniformBackward0 or
NormalBackward0, whose gradient is zero: the old values are forgotten.
A few aliases PyTorch code uses (``square``, ``view_as``, ``reshape_as``,
``negative``) are here too.
"""

import numpy as np

from .. import creation
from ..recording import record
from ..tensor import Tensor
from . import pointwise as _pw
from . import special as _special
from .arithmetic import neg, pow, reciprocal
from .inplace import _inplace
from .shape import reshape, view
from ..op_table import op

__all__ = ["exp_", "log_", "sqrt_", "sin_", "cos_", "tanh_", "sigmoid_", "relu_", "abs_", "neg_",
           "reciprocal_", "sign_", "sgn_", "pow_", "square", "square_", "uniform_", "normal_",
           "view_as", "reshape_as", "negative", "masked_fill_"]


def _in_place(out_of_place):
    """The in-place method of a one-input op: ``x.exp_()`` is ``_inplace(x, exp)``."""
    def method(self):
        return _inplace(self, out_of_place)
    method.__name__ = out_of_place.__name__ + "_"
    method.__doc__ = f"``{out_of_place.__name__}`` written into the tensor itself."
    return method


exp_, log_, sqrt_ = _in_place(_pw.exp), _in_place(_pw.log), _in_place(_pw.sqrt)
sin_, cos_, tanh_ = _in_place(_pw.sin), _in_place(_pw.cos), _in_place(_pw.tanh)
sigmoid_, relu_, abs_ = _in_place(_pw.sigmoid), _in_place(_pw.relu), _in_place(_pw.abs)
neg_, reciprocal_ = _in_place(neg), _in_place(reciprocal)
sign_, sgn_ = _in_place(_pw.sign), _in_place(_pw.sgn)


@op("square", public=True, inplace="square_")
def square(input):
    """``input ** 2`` (recorded as pow, PowBackward0, as in PyTorch)."""
    return pow(input, 2)


@op("square_", public=True)
def square_(self):
    return _inplace(self, square)


@op("pow_", "__ipow__")
def pow_(self, exponent):
    return _inplace(self, pow, exponent)


@op("negative", public=True, inplace="negative_")
def negative(input):
    return neg(input)


op("exp_", public="exp_")(exp_)
op("log_", public="log_")(log_)
op("sqrt_", public="sqrt_")(sqrt_)
op("sin_", public="sin_")(sin_)
op("cos_", public="cos_")(cos_)
op("tanh_", public="tanh_")(tanh_)
op("sigmoid_", public="sigmoid_")(sigmoid_)
op("relu_", public="relu_")(relu_)
op("abs_", public="abs_")(abs_)
op("neg_", "negative_", public="neg_")(neg_)
op("reciprocal_", public="reciprocal_")(reciprocal_)
op("sign_")(sign_)
op("sgn_")(sgn_)


@op("masked_fill_")
def masked_fill_(self, mask, value):
    """``value`` written where ``mask`` is True, in place (MaskedFillBackward0/1)."""
    if isinstance(value, Tensor):
        return _inplace(self, lambda s, v: _pw.masked_fill(s, mask, v), value)
    return _inplace(self, lambda s: _pw.masked_fill(s, mask, value))


# ----------------------------------------------------------- random fills

def _fill(op, sample):
    """Overwrite the tensor with ``sample(shape, generator)`` (cast to its dtype)."""
    def write(self, generator):
        rng = generator or creation._generator
        values = np.asarray(sample(rng, self._data.shape), dtype=self._data.dtype)
        return record(op, values, (self,))
    return write


@op("uniform_")
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """Fill with samples from the uniform distribution on [from_, to) (in place)."""
    return _inplace(self, _fill("uniform_", lambda rng, shape: rng.uniform(from_, to, shape)),
                    generator)


@op("normal_")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from the normal distribution N(mean, std**2) (in place)."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std)}")
    return _inplace(self, _fill("normal_", lambda rng, shape: rng.normal(mean, std, shape)),
                    generator)


# ----------------------------------------------------------------- aliases

@op("view_as")
def view_as(input, other):
    """``input.view(other.shape)`` (ViewBackward0)."""
    return view(input, other.shape)


@op("reshape_as")
def reshape_as(input, other):
    return reshape(input, other.shape)


# ------------------------------------- in-place forms of ops/special.py's functions

def _special_in_place():
    """``x.tan_()``, ``x.erfinv_()``, ``x.logit_(eps)``, ...: one per function of
    ops/special.py that PyTorch writes in place (installed as methods)."""
    names = ["tan", "sinh", "cosh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "log1p",
             "expm1", "log2", "log10", "exp2", "rsqrt", "erf", "erfc", "erfinv", "sinc", "frac",
             "deg2rad", "rad2deg"]
    made = {name + "_": _in_place(getattr(_special, name)) for name in names}
    for name in ("asinh", "acosh", "atanh"):        # no derivative when written in place
        made[name + "_"] = _in_place(_special.written_in_place(name))
        made[name + "_"].__name__ = name + "_"
    for alias, name in (("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                        ("arcsinh", "asinh"), ("arccosh", "acosh"), ("arctanh", "atanh")):
        made[alias + "_"] = made[name + "_"]
    made["logit_"] = lambda self, eps=None: _inplace(self, _special.logit, eps)
    made["nan_to_num_"] = lambda self, nan=0.0, posinf=None, neginf=None: _inplace(
        self, _special.nan_to_num, nan, posinf, neginf)
    return made


SPECIAL_IN_PLACE = _special_in_place()
for _name, _method in SPECIAL_IN_PLACE.items():     # PyTorch has them as functions too (torch.tan_(x)) but erfinv_
    op(_name, public=_name if _name != "erfinv_" else False)(_method)
globals().update({k: v for k, v in SPECIAL_IN_PLACE.items() if k != "erfinv_"})
__all__ += [k for k in SPECIAL_IN_PLACE if k != "erfinv_"]
