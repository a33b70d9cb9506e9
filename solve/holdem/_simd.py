"""Eight float64 lanes as one SIMD value in numba kernels (the exact best response's river,
``_br_lanes``; issue 51).

A ``Lanes`` value is a ``UniTuple(float64, 8)``; :func:`ld` and :func:`st` move one between an
array's elements ``o .. o + 7`` and a vector register in one load or store, :func:`zero` is
its eight zeros and :func:`splat` a scalar in each lane, and :func:`add`,
:func:`sub`, :func:`mul`, :func:`div` and :func:`vmax` are one vector instruction each.
Each lane does the scalar arithmetic exactly (IEEE, no fused multiply-add, no reassociation), so a kernel written
with them gives the same bits as its element-by-element loop; :func:`vmax` is numba's
``max(x, y)`` per lane (``y if y > x else x``).

Why not let LLVM vectorise the ``for w in range(8)`` loops: numba turns its SLP vectoriser off
by default (miscompilations, numba PR 8852), and the loop vectoriser sees those eight-step loops
only after they are unrolled; without either, every lane of the river walk was a scalar
instruction, and the read-modify-writes into the per-card sums could not even be reordered
because numba cannot tell the arrays apart (the micro-benchmark in ``bench/bench_simd_lanes.py``:
the showdown and fold passes 2.9x faster written with these).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

#: Lanes of a value: eight float64, one AVX-512 register (two AVX2 ones).
WIDTH = 8

Lanes = types.UniTuple(types.float64, WIDTH)

_VEC = ir.VectorType(ir.DoubleType(), WIDTH)
_I32 = ir.IntType(32)


def _to_vector(builder, lanes):
    v = ir.Constant(_VEC, ir.Undefined)
    for w in range(WIDTH):
        v = builder.insert_element(v, builder.extract_value(lanes, w), ir.Constant(_I32, w))
    return v


def _to_lanes(context, builder, vec):
    t = ir.Constant(context.get_value_type(Lanes), ir.Undefined)
    for w in range(WIDTH):
        t = builder.insert_value(t, builder.extract_element(vec, ir.Constant(_I32, w)), w)
    return t


def _address(context, builder, array_type, array, index):
    data = context.make_array(array_type)(context, builder, array).data
    return builder.bitcast(builder.gep(data, [index]), _VEC.as_pointer())


def _check_array(arr):
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64 and arr.ndim == 1
            and arr.layout in "CA"):
        raise TypeError(f"lanes need a 1-d float64 array, not {arr}")


@intrinsic
def ld(typingctx, arr, o):
    """``(arr[o], ..., arr[o + 7])`` in one load (no bounds check, like numba's indexing)."""
    _check_array(arr)

    def codegen(context, builder, sig, args):
        p = _address(context, builder, sig.args[0], args[0], args[1])
        return _to_lanes(context, builder, builder.load(p, align=8))

    return Lanes(arr, types.intp), codegen


@intrinsic
def st(typingctx, arr, o, x):
    """``arr[o + w] = x[w]`` for the eight lanes, in one store."""
    _check_array(arr)
    if x != Lanes:
        raise TypeError(f"st stores {Lanes}, not {x}")

    def codegen(context, builder, sig, args):
        p = _address(context, builder, sig.args[0], args[0], args[1])
        builder.store(_to_vector(builder, args[2]), p, align=8)
        return context.get_dummy_value()

    return types.none(arr, types.intp, Lanes), codegen


@intrinsic
def zero(typingctx):
    """Eight lanes of ``0.0``."""

    def codegen(context, builder, sig, args):
        return _to_lanes(context, builder, ir.Constant(_VEC, [0.0] * WIDTH))

    return Lanes(), codegen


@intrinsic
def splat(typingctx, x):
    """``(x, x, ..., x)``: a float64 in every lane."""
    if not isinstance(x, types.Float):
        raise TypeError(f"splat takes a float, not {x}")

    def codegen(context, builder, sig, args):
        v = context.cast(builder, args[0], sig.args[0], types.float64)
        vec = ir.Constant(_VEC, ir.Undefined)
        for w in range(WIDTH):
            vec = builder.insert_element(vec, v, ir.Constant(_I32, w))
        return _to_lanes(context, builder, vec)

    return Lanes(x), codegen


def _binary(name: str, doc: str):
    def typer(typingctx, x, y):
        if x != Lanes or y != Lanes:
            raise TypeError(f"{name} takes two {Lanes}, not {x}, {y}")

        def codegen(context, builder, sig, args):
            a = _to_vector(builder, args[0])
            b = _to_vector(builder, args[1])
            if name == "vmax":  # numba's max(a, b): b if b > a else a (NaN and -0.0 alike)
                r = builder.select(builder.fcmp_ordered(">", b, a), b, a)
            else:
                r = getattr(builder, {"add": "fadd", "sub": "fsub", "mul": "fmul",
                                      "div": "fdiv"}[name])(a, b)
            return _to_lanes(context, builder, r)

        return Lanes(Lanes, Lanes), codegen

    typer.__name__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


add = _binary("add", "``x + y`` per lane.")
sub = _binary("sub", "``x - y`` per lane.")
mul = _binary("mul", "``x * y`` per lane.")
div = _binary("div", "``x / y`` per lane.")
vmax = _binary("vmax", "``max(x, y)`` per lane, as numba computes it: ``y if y > x else x``.")


@njit(cache=True)
def zeros64(n):
    """``np.zeros(n)`` starting on a 64-byte boundary, so that the lanes at multiples of
    ``WIDTH`` are whole cache lines whatever allocated them. Numba's arrays start on 32 bytes,
    which measured as fast; numpy's on 16, where the river's showdown and fold passes run
    1.5-1.9x slower (``python -m bench.bench_simd_lanes --offset 16``). Reshape it for more
    dimensions; rows whose length is a multiple of ``WIDTH`` stay aligned."""
    buf = np.zeros(n + WIDTH)
    o = (-(buf.ctypes.data % 64) % 64) // 8
    return buf[o:o + n]
