"""The log-gamma function and its derivatives: ``lgamma``, ``digamma`` (its derivative)
and ``polygamma(n, x)`` (the n-th derivative of ``digamma``), with NumPy only.

``lgamma`` is Python's ``math.lgamma`` element by element.  ``digamma`` and
``polygamma`` use the recurrence ``psi(x) = psi(x + 1) - 1/x`` (and its derivatives)
to move ``x`` above 20, then the asymptotic series there, which is accurate to about
1e-15.  Each one's gradient is the next one: lgamma -> digamma -> polygamma(1) -> ...
"""

import math

import numpy as np

from .inplace import _inplace
from .inplace_unary import _in_place
from .special import _unary
from ..op_table import methods, op

__all__ = ["lgamma", "digamma", "polygamma", "lgamma_", "digamma_", "polygamma_"]

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)   # B2, B4, ...
_LARGE = 20.0


def _np_lgamma(x):
    return np.vectorize(lambda v: math.lgamma(v) if v > 0 or v != math.floor(v) else math.inf,
                        otypes=[np.float64])(np.asarray(x, dtype=np.float64))


def _shifted(x, n):
    """``(x + m, sum over k < m of 1/(x + k)**(n + 1))`` with ``x + m`` above the threshold."""
    x = np.array(x, dtype=np.float64)
    total = np.zeros_like(x)
    low = x < _LARGE
    while np.any(low):
        total[low] += 1.0 / x[low] ** (n + 1)
        x[low] += 1.0
        low = x < _LARGE
    return x, total


def _np_digamma(x):
    x = np.asarray(x, dtype=np.float64)
    poles = (x <= 0) & (x == np.floor(x))
    safe = np.where(poles, 0.5, x)
    big, total = _shifted(safe, 0)
    series = np.log(big) - 0.5 / big
    for k, b in enumerate(_BERNOULLI, 1):
        series -= b / (2 * k * big ** (2 * k))
    result = series - total
    # digamma(0) is -inf (+inf for -0.0), the negative integers give nan, as in PyTorch
    return np.where(poles, np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), np.nan), result)


def _np_polygamma(n, x):
    x = np.asarray(x, dtype=np.float64)
    if n == 0:
        return _np_digamma(x)
    poles = (x <= 0) & (x == np.floor(x))
    big, total = _shifted(np.where(poles, 0.5, x), n)
    series = math.factorial(n - 1) / big ** n + math.factorial(n) / (2 * big ** (n + 1))
    for k, b in enumerate(_BERNOULLI, 1):
        series += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * big ** (2 * k + n))
    sign = 1.0 if n % 2 else -1.0
    result = sign * (series + math.factorial(n) * total)
    return np.where(poles, np.inf if n % 2 else np.nan, result)


@op("lgamma", public=True, inplace="lgamma_")
def lgamma(input):
    """``log |Gamma(x)|``."""
    return _unary("lgamma", _np_lgamma, input)


@op("digamma", public=True, inplace="digamma_")
def digamma(input):
    """``d/dx lgamma(x)``."""
    return _unary("digamma", _np_digamma, input)


@op(public=True)
def polygamma(n, input):
    """The ``n``-th derivative of ``digamma``."""
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _unary("polygamma", lambda x: _np_polygamma(n, x), input, {"n": n})


lgamma_, digamma_ = _in_place(lgamma), _in_place(digamma)


@op("polygamma_", public=True)
def polygamma_(self, n):
    return _inplace(self, lambda s: polygamma(n, s))


op("lgamma_", public="lgamma_")(lgamma_)
op("digamma_", public="digamma_")(digamma_)
methods(polygamma=lambda self, n: polygamma(n, self))
