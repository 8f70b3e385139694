"""Differential cases of complex values (issue #13): `angle`, and the complex forms of the parts.

The harness draws real arrays; each case builds `z = a + 1j * b` from two of
them inside the call, so funcgrad's complex rules (the JAX convention) are
compared with HIPS autograd's through their real inputs: a real input's
gradient is the real part of the complex one, in both libraries.
"""

from __future__ import annotations

import numpy as np

from tests.differential.functional_cases import Example, case


def _parts(g, b_low=-2.0, b_high=2.0):
    shape = g.shape(empty=False)
    return g.array(shape, -2.0, 2.0, ties=False), g.array(shape, b_low, b_high, ties=False)


@case("angle")
def _angle(g):
    # b > 0: away from the branch cut (the negative real axis) and from 0
    a, b = _parts(g, 0.3, 2.0)
    return Example((a, b), lambda m, a, b: m.angle(a + 1j * b))


@case("angle", "deg")
def _angle_deg(g):
    a, b = _parts(g, 0.3, 2.0)
    return Example((a, b), lambda m, a, b: m.angle(a + 1j * b, deg=True))


@case("angle", "real")
def _angle_real(g):
    shape = g.shape()
    x = g.array(shape, 0.2, 2.0)
    x = np.where(g.array(shape, -1.0, 1.0) >= 0, x, -x)  # both signs, the dtype kept
    return Example((x,), lambda m, x: m.angle(x))


@case("real", "complex")
def _real_complex(g):
    a, b = _parts(g)
    return Example((a, b), lambda m, a, b: m.real(m.exp(a + 1j * b) * (a - 2j * b)))


@case("imag", "complex")
def _imag_complex(g):
    a, b = _parts(g)
    return Example((a, b), lambda m, a, b: m.imag(m.sin(a + 1j * b) * (a + 1j * b)))


@case("conj", "complex")
def _conj_complex(g):
    a, b = _parts(g)
    return Example((a, b), lambda m, a, b: m.real(m.conj(a + 1j * b) * m.exp(a - 1j * b)))


@case("abs", "complex")
def _abs_complex(g):
    a, b = _parts(g, 0.3, 2.0)  # away from 0, where |z| has no derivative
    return Example((a, b), lambda m, a, b: m.abs(m.exp(a + 1j * b) + (a + 1j * b) ** 2))


@case("real_if_close", "complex")
def _real_if_close(g):
    # imaginary parts of 0 (the real part comes back) or not (z itself, its real part taken)
    a, b = _parts(g)
    small = g.boolean()
    return Example(
        (a, b),
        lambda m, a, b: m.real(m.real_if_close(a * (1 + 0j) + 1j * (0 * b if small else b))),
        f"small={small}",
    )
