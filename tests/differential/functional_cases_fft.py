"""Differential cases of `funcgrad.numpy.fft` (issue #13), compared with `autograd.numpy.fft`.

Each case returns the real and the imaginary part of a complex result (the
harness draws real arrays and differentiates real outputs); complex inputs
are built inside the call as `a + 1j * b` from two drawn real arrays, so
the JAX-convention rules are compared with autograd's through real inputs.
`n`, `s`, `axes` and `norm` are drawn, with sizes that crop and that pad.

autograd differentiates the real transforms (`rfft`, `irfft`, `hfft`,
`ihfft` and their n-d forms) only for an even length of the last
transformed axis, and scales them right for `norm=None` and `"ortho"` only
(not "backward" or "forward" spelled out), and wrongly where `n` or `s`
crops or pads: those cases draw even lengths, those norms and no `n`/`s`,
and their `[odd]` variants (odd lengths, every norm, `n`/`s`) are
compared with central differences instead (`functional_differences`), as
are `hfft` and `ihfft`, which autograd does not differentiate.
"""

from __future__ import annotations

from tests.differential.functional_cases import EXEMPT, Example, case

EXEMPT["fft"] = "the funcgrad.numpy.fft module; each of its functions has cases (fft.*)"

NORMS = (None, "backward", "ortho", "forward")
# autograd's real transforms scale their gradients right for norm=None and "ortho" only
AUTOGRAD_REAL_NORMS = (None, "ortho")
# The real transforms, and which of them take a Hermitian half-spectrum (output length n).
REAL = {"rfft": False, "ihfft": False, "irfft": True, "hfft": True}
REAL_ND = {"rfftn": False, "rfft2": False, "irfftn": True, "irfft2": True}


def _size(g, parity):
    """A length >= 1, or of the given parity ("even": 2 or 4; "odd": 1, 3 or 5)."""
    if parity == "even":
        return 2 * g.d.integers(1, 2)
    if parity == "odd":
        return 2 * g.d.integers(0, 2) + 1
    return g.d.integers(1, 5)


def _half(n):
    """The half-spectrum length of a real signal of length n."""
    return n // 2 + 1


def _call(g, name, shape, kw, complex_input, real_output):
    def out(m, z):
        return m.real(z) if real_output else (m.real(z), m.imag(z))

    fn = name
    if complex_input:
        a, b = g.array(shape), g.array(shape)
        return Example(
            (a, b), lambda m, a, b: out(m, getattr(m.fft, fn)(a + 1j * b, **kw)), f"{kw}"
        )
    x = g.array(shape)
    return Example((x,), lambda m, x: out(m, getattr(m.fft, fn)(x, **kw)), f"{kw}")


def _one_d(g, name, complex_input, parity=None):
    shape = list(g.shape(min_dims=1, max_dims=3, empty=False))
    ndim = len(shape)
    axis = g.d.integers(-ndim, ndim - 1)
    hermitian = REAL.get(name, False)
    n = None if g.d.boolean() else _size(g, parity)
    if parity == "even":
        n = None  # autograd's real-transform gradients are wrong where n crops or pads
    if name in REAL and (n is None or not hermitian):
        # the real signal's length: even for autograd (which checks the input's too), or odd
        length = _size(g, parity)
        shape[axis] = _half(length) if hermitian else length
        if hermitian and parity is None:
            shape[axis] = max(shape[axis], 2)  # n = 2 (m - 1) >= 1
    norms = AUTOGRAD_REAL_NORMS if name in REAL and parity == "even" else NORMS
    kw = {"n": n, "axis": axis, "norm": g.d.choice(norms)}
    if hermitian and n is None and parity == "odd":
        kw["n"] = 2 * shape[axis] - 1  # an odd output needs an explicit n
    return _call(g, name, tuple(shape), kw, complex_input, hermitian)


def _n_d(g, name, complex_input, parity=None):
    two = name.endswith("2")
    shape = list(g.shape(min_dims=2 if two else 1, max_dims=3, empty=False))
    ndim = len(shape)
    if two:
        axes = g.d.choice(((-2, -1), (0, 1), (-1, -2)))
    else:
        k = g.d.integers(1, ndim)
        axes = tuple(g.d.permutation(ndim)[:k])
    hermitian = REAL_ND.get(name, False)
    s = None if g.d.boolean() or parity == "even" else [g.d.integers(1, 4) for _ in axes]
    if name in REAL_ND:
        length = _size(g, parity)
        if s is not None:
            s[-1] = length
            if not hermitian:
                shape[axes[-1]] = _size(g, parity)  # autograd checks the input's length too
        else:
            shape[axes[-1]] = max(_half(length), 2) if hermitian else length
            if hermitian and parity == "odd":
                s = [shape[a] for a in axes[:-1]] + [2 * shape[axes[-1]] - 1]
    norms = AUTOGRAD_REAL_NORMS if name in REAL_ND and parity == "even" else NORMS
    kw = {"s": None if s is None else tuple(s), "axes": axes, "norm": g.d.choice(norms)}
    return _call(g, name, tuple(shape), kw, complex_input, hermitian)


def _register():
    for name in ("fft", "ifft"):
        case(f"fft.{name}", smooth=True)(lambda g, name=name: _one_d(g, name, False))
        case(f"fft.{name}", "complex", smooth=True)(lambda g, name=name: _one_d(g, name, True))
    for name, hermitian in REAL.items():
        case(f"fft.{name}", smooth=True)(
            lambda g, name=name, h=hermitian: _one_d(g, name, h, "even")
        )
        case(f"fft.{name}", "odd", smooth=True)(
            lambda g, name=name, h=hermitian: _one_d(g, name, h, "odd")
        )
    for name in ("fftn", "ifftn", "fft2", "ifft2"):
        case(f"fft.{name}", smooth=True)(lambda g, name=name: _n_d(g, name, True))
    for name, hermitian in REAL_ND.items():
        case(f"fft.{name}", smooth=True)(lambda g, name=name, h=hermitian: _n_d(g, name, h, "even"))
        case(f"fft.{name}", "odd", smooth=True)(
            lambda g, name=name, h=hermitian: _n_d(g, name, h, "odd")
        )


_register()


@case("fft.fftshift", smooth=True)
def _fftshift(g):
    shape = g.shape(min_dims=1, max_dims=3)
    axes = None if g.d.boolean() else g.d.integers(-len(shape), len(shape) - 1)
    x = g.array(shape)
    return Example((x,), lambda m, x: m.fft.fftshift(x, axes=axes), f"axes={axes}")


@case("fft.ifftshift", smooth=True)
def _ifftshift(g):
    shape = g.shape(min_dims=1, max_dims=3)
    axes = None if g.d.boolean() else (0,)
    x = g.array(shape)
    return Example((x,), lambda m, x: m.fft.ifftshift(x, axes=axes), f"axes={axes}")


@case("fft.fftfreq", differentiable=False)
def _fftfreq(g):
    n, d = g.d.integers(1, 6), g.d.choice((1.0, 0.5, 2.0))
    x = g.array((2,))
    return Example((x,), lambda m, x: m.fft.fftfreq(n, d) + 0.0 * m.sum(x), f"n={n}, d={d}")


@case("fft.rfftfreq", differentiable=False)
def _rfftfreq(g):
    n, d = g.d.integers(1, 6), g.d.choice((1.0, 0.5, 2.0))
    x = g.array((2,))
    return Example((x,), lambda m, x: m.fft.rfftfreq(n, d) + 0.0 * m.sum(x), f"n={n}, d={d}")
