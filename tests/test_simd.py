"""The eight-lane SIMD values of the exact best response's river (``solve/holdem/_simd.py``):
each operation gives, bit for bit, what numba's scalar arithmetic gives lane by lane (the river
kernel's values must equal the one-lane walk's exactly), on random values and on the corner
cases (signed zeros, infinities, NaN, subnormals); and they refuse the wrong arrays at compile
time."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_
from numba import njit

from solve.holdem._simd import WIDTH, add, div, ld, mul, splat, st, sub, vmax, zero, zeros64


@njit
def _lanes(x, y, out):
    """Every operation on each aligned block of ``x`` and ``y`` (out rows: add, sub, mul, vmax,
    zero, a load/store round trip at an unaligned offset, div, splat of x's first element)."""
    for o in range(0, len(x) - WIDTH + 1, WIDTH):
        a = ld(x, o)
        b = ld(y, o)
        st(out[0], o, add(a, b))
        st(out[1], o, sub(a, b))
        st(out[2], o, mul(a, b))
        st(out[3], o, vmax(a, b))
        st(out[4], o, zero())
        st(out[6], o, div(a, b))
        st(out[7], o, splat(x[o]))
    for o in range(1, len(x) - WIDTH + 1, WIDTH):
        st(out[5], o, ld(x, o))


@njit
def _scalar(x, y, out):
    """The same, one element at a time, as the kernels were written before."""
    for i in range(len(x) - len(x) % WIDTH):
        out[0, i] = x[i] + y[i]
        out[1, i] = x[i] - y[i]
        out[2, i] = x[i] * y[i]
        out[3, i] = max(x[i], y[i])
        out[4, i] = 0.0
        out[6, i] = x[i] / y[i] if y[i] != 0 else _ieee_div(x[i], y[i])
        out[7, i] = x[i - i % WIDTH]
    for i in range(1, 1 + (len(x) - 1) // WIDTH * WIDTH):
        out[5, i] = x[i]


@njit
def _ieee_div(x, y):
    """x / y for y = +-0 as IEEE divides (numba's scalar ``/`` raises there)."""
    if x != x or x == 0:
        return np.nan
    return np.inf * np.sign(x) * (-1.0 if np.signbit(y) else 1.0)


def _both(x, y):
    a = np.full((8, len(x)), 7.0)
    b = np.full((8, len(x)), 7.0)
    _lanes(x, y, a)
    _scalar(x, y, b)
    return a, b


def _same_bits(a, b) -> bool:
    """Equal bits, but any NaN equals any NaN (x86's 0/0 is a negative NaN, ``np.nan`` not)."""
    nan = np.isnan(a) & np.isnan(b)
    return a.shape == b.shape and bool(np.all((a.view(np.int64) == b.view(np.int64)) | nan))


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
                    1.7976931348623157e308, 1e-300, 3.0])


def test_corner_cases_bit_for_bit():
    x = np.repeat(SPECIAL, len(SPECIAL))
    y = np.tile(SPECIAL, len(SPECIAL))
    pad = (-len(x)) % WIDTH
    x = np.concatenate([x, np.zeros(pad)])
    y = np.concatenate([y, np.zeros(pad)])
    a, b = _both(x, y)
    assert _same_bits(a, b)
    # vmax is numba's max: the second argument only when strictly greater
    assert np.signbit(a[3][(x == 0) & (y == 0) & np.signbit(x)]).all()
    assert not np.signbit(a[3][(x == 0) & (y == 0) & ~np.signbit(x)]).any()


@settings(max_examples=60, deadline=None)
@given(st_.integers(1, 6), st_.integers(0, 2**32 - 1))
def test_random_values_bit_for_bit(blocks, seed):
    rng = np.random.default_rng(seed)
    n = blocks * WIDTH + 1
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    y = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)
    a, b = _both(x, y)
    assert _same_bits(a, b)


def test_store_leaves_the_rest_of_the_array():
    x = np.arange(3 * WIDTH, dtype=np.float64)
    out = np.full((8, 3 * WIDTH), -1.0)
    _lanes(x, x, out)
    assert (out[5, 0] == -1.0) and (out[5, -WIDTH + 1:] == -1.0).all()
    assert (out[5, 1:1 + 2 * WIDTH] == x[1:1 + 2 * WIDTH]).all()


@pytest.mark.parametrize("array", [np.zeros(16, np.float32), np.zeros((2, 8)),
                                   np.zeros(16, np.int64)])
def test_wrong_arrays_are_refused(array):
    @njit
    def load(a):
        return ld(a, 0)

    with pytest.raises(TypeError, match="lanes need a 1-d float64 array"):
        load(array)


@pytest.mark.parametrize("n", [1, 8, 416, 10608, 3 * 10608])
def test_zeros64_is_zeros_on_a_cache_line(n):
    @njit
    def make(n):
        a = zeros64(n)
        b = zeros64(3 * n).reshape((3, n))
        return a, b

    a, b = make(n)
    assert a.shape == (n,) and not a.any() and a.ctypes.data % 64 == 0
    assert b.shape == (3, n) and not b.any() and b.ctypes.data % 64 == 0
