"""``fma(a, b, c)``: ``a * b + c`` rounded once, as a CPU's fused multiply-add computes it.

PyTorch's C++ kernels are compiled for CPUs that have a fused multiply-add instruction, and
the compiler uses it for expressions such as ``start + step * i``: the product is not rounded
before the addition.  NumPy has no fused multiply-add, and ``a * b + c`` rounds twice, which
can change the last bit.  To give PyTorch's bits (``linspace``), this module computes the
once-rounded result with ordinary floating-point operations, elementwise on arrays:

* in float32, the product of two float32 numbers is exact in float64; the sum with ``c`` is
  split into its float64 rounding and the exact error (*TwoSum*), the float64 value is rounded
  *to odd* (nudged to the neighbour with an odd last bit when the error is not 0), and that
  rounds to the correct float32, since float64 carries more than two extra bits;
* in float64, the product is split exactly into two float64 numbers (Veltkamp's splitting,
  Dekker's *TwoProduct*), added to ``c`` with TwoSum, and the small parts are summed rounded to
  odd before the last addition (Boldo and Melquiond, "Emulation of FMA and correctly rounded
  sums: proved algorithms using rounding to odd", IEEE Trans. Computers, 2008).

Overflow and underflow are not handled (the results are then not guaranteed to be PyTorch's).
"""

import numpy as np

__all__ = ["fma"]


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s, e):
    """``s + e`` (``s`` its round-to-nearest, ``e`` the exact rest) rounded to odd: ``s`` when
    exact, else whichever of ``s`` and its neighbour toward ``e`` has an odd last bit."""
    bits = s.view(np.int64 if s.dtype == np.float64 else np.int32)
    even = (bits & 1) == 0
    nudge = (e != 0) & even & np.isfinite(e)
    return np.where(nudge, np.nextafter(s, np.where(e > 0, np.inf, -np.inf).astype(s.dtype)), s)


def _split(a):
    """Veltkamp's splitting of float64 ``a`` into two halves of 26 bits: ``a = hi + lo``."""
    c = 134217729.0 * a                 # 2 ** 27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a, b):
    """``(p, e)`` with ``p = fl(a * b)`` and ``a * b = p + e`` exactly (Dekker's TwoProduct)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma(a, b, c):
    """``a * b + c`` rounded once, elementwise, in the dtype of the arrays (float32 or float64:
    all three the same)."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    dtype = np.result_type(a, b, c)
    with np.errstate(all="ignore"):
        if dtype == np.float32:
            s, e = _two_sum(c.astype(np.float64), a.astype(np.float64) * b.astype(np.float64))
            return _round_to_odd(s, e).astype(np.float32)
        if dtype != np.float64:
            raise TypeError(f"fma: float32 or float64 arrays expected, got {dtype}")
        p, p_rest = _two_product(a, b)
        s, s_rest = _two_sum(c, p)
        small, small_rest = _two_sum(s_rest, p_rest)
        return s + _round_to_odd(small, small_rest)
