"""Where funcgrad's functional API may differ from HIPS autograd, and where it is still wrong.

`DIFFERENCES`: `(case, kind) -> reason`, the one table of allowed
differences. `case` is a public name (`"clip"`, all its variants) or a case
id (`"linalg.norm[matrix, other ord]"`). The kinds:

* `"nan"`: autograd gives NaN where funcgrad gives a number: at points
  where the derivative is undefined, the NaN guard keeps zero cotangents
  zero (docs/concepts/primitive-registry.md, "Zero cotangents stay zero"),
  where autograd computes `0 * inf` or `0 / 0`. Those entries are accepted.
* `"fd"`: autograd is wrong here, or has no rule: the derivatives are
  compared with central differences instead (values still with NumPy).
  Where the function is not smooth at ties and zeros (`Case.smooth`), the
  examples then have none.
* `"reference"`: autograd is given a composite (`REFERENCES`) instead of
  its own function: where funcgrad's convention at a non-differentiable
  point differs from autograd's, or autograd's function cannot take the
  call; autograd differentiates the composite.
* `"fd2"`: as `"fd"`, for the second-order checks only (hvp, hessian).
* `"raises"`: NumPy computes a value and funcgrad refuses graph nodes
  with a `FuncgradError` that says what to use instead; the value check
  asserts the refusal (on plain arrays funcgrad may compute, or refuse).

`KNOWN_MISMATCHES`: `(case id, check) -> what is wrong`, funcgrad bugs
found by these tests and not fixed yet. Each makes its test an xfail with
`strict=True`, so the test fails once the bug is fixed: then remove the
entry. The goal is an empty table.
"""

from __future__ import annotations

from collections import namedtuple

NAN_GUARD = (
    "the derivative is undefined here; autograd computes NaN (0 * inf or 0 / 0), "
    "funcgrad's NaN guard gives the exact zero of a zero cotangent"
)

REAL_FFT = (
    "autograd's real FFT gradients refuse odd lengths, and are wrong for norm='backward' or "
    "'forward' and where n or s crops or pads"
)

DIFFERENCES: dict[tuple[str, str], str] = {
    # --- conventions at non-differentiable points ---
    ("sqrt", "nan"): f"at x = 0: {NAN_GUARD}",
    ("arctan2", "nan"): f"at (0, 0): {NAN_GUARD}",
    ("std", "nan"): f"where a slice is constant (std = 0): {NAN_GUARD}",
    ("linalg.norm", "nan"): f"at a zero vector or matrix: {NAN_GUARD}",
    ("clip", "reference"): "at x equal to a bound, funcgrad passes the gradient "
    "(PyTorch's clamp: a_min <= x <= a_max); autograd gives 0",
    # --- autograd is wrong, or has no rule ---
    ("prod", "fd"): "autograd's prod VJP divides by x: NaN wherever an entry is 0",
    ("angle[deg]", "fd"): "autograd's angle has no deg argument (NumPy's does)",
    ("fft.hfft", "fd"): "autograd has no VJP for hfft",
    ("fft.ihfft", "fd"): "autograd has no VJP for ihfft",
    ("fft.rfft[odd]", "fd"): REAL_FFT,
    ("fft.irfft[odd]", "fd"): REAL_FFT,
    ("fft.rfftn[odd]", "fd"): REAL_FFT,
    ("fft.rfft2[odd]", "fd"): REAL_FFT,
    ("fft.irfftn[odd]", "fd"): REAL_FFT,
    ("fft.irfft2[odd]", "fd"): REAL_FFT,
    ("pad", "fd"): "autograd's pad has a gradient for mode='constant' only, and crashes "
    "(pad_vjp() missing 'mode') when mode is not passed",
    ("einsum[diagonal]", "fd"): "autograd's einsum VJP fails on an index repeated in one "
    "operand ('ii'): ValueError, output subscript 'i' repeated",
    ("where", "fd"): "autograd's where VJP does not unbroadcast: the gradient of a 0-d x "
    "under a (1,) condition has shape (1,)",
    ("broadcast_to", "fd"): "autograd's broadcast_to VJP: AssertionError, Can't handle "
    "extra leading dims",
    ("flip", "fd"): "autograd has no VJP for flip",
    ("vdot", "fd"): "autograd has no VJP for vdot",
    ("atleast_1d", "fd"): "autograd has no VJP for atleast_1d of several arrays",
    ("atleast_2d", "fd"): "autograd has no VJP for atleast_2d of several arrays",
    ("atleast_3d", "fd"): "autograd has no VJP for atleast_3d of several arrays",
    ("linalg.norm[vector, other ord]", "fd"): "autograd has no gradient of the vector "
    "norms ord=1, -1, -2, 0.5, -inf, 0",
    ("linalg.norm[matrix, other ord]", "fd"): "autograd has no gradient of the matrix "
    "norms ord=1, -1, inf, -inf",
    ("outer", "reference"): "autograd's outer VJP fails on an empty operand (shapes not "
    "aligned): given ravel(a)[:, None] * ravel(b)[None, :]",
    ("linalg.slogdet", "reference"): "autograd's slogdet returns a plain pair, without the "
    "named field logabsdet: given one wrapped in a named pair",
    ("linalg.cholesky", "reference"): "autograd's cholesky has no upper=, and reads the "
    "lower triangle where funcgrad factors (a + a^T) / 2 (as JAX): given the "
    "cholesky of (a + a^T) / 2, transposed for upper=True",
    ("linalg.norm", "reference"): "autograd's norm VJP is wrong with keepdims=True and an "
    "int axis (it expands the kept axis again), and fails on a negative axis of a matrix "
    "norm (AxisError): given the norms written with sum, sqrt, abs, max and min",
    ("hypot", "nan"): "at (0, 0) funcgrad's gradient is 0 in both inputs (the subgradient abs "
    "has at 0; hypot(x, 0) = |x|), autograd's x / hypot(x, y) is 0 / 0 = NaN",
    ("atan2", "nan"): f"at (0, 0): {NAN_GUARD}",
    ("sinc", "fd"): "autograd's sinc derivative is NaN at 0 (0/0), where sinc is smooth "
    "with derivative 0",
    ("power", "fd2"): "autograd's power VJP wrt x uses x ** where(y, y - 1, 1) * y, whose "
    "derivative wrt y is wrong at y = 0 (x instead of 1/x): second order by central differences",
    ("pow", "fd2"): "as power: autograd's mixed second derivative is wrong at y = 0",
    ("tile", "fd"): "autograd's tile VJP is wrong when reps adds leading axes",
    ("diag", "fd"): "autograd's diag VJP fails for k != 0 and for a 2-d input (broadcast error)",
    ("diff", "fd"): "autograd's diff VJP fails on some axes (non-broadcastable output)",
    ("repeat", "fd"): "autograd's repeat VJP takes an int repeats only",
    ("roll", "fd"): "autograd's roll VJP takes an int shift only",
    ("rollaxis", "fd"): "autograd has no gradient of rollaxis for a negative axis",
    ("rot90", "fd"): "autograd's rot90 VJP does not take axes",
    ("sort", "fd"): "autograd has no gradient of sort for arrays of more than one axis",
    ("sort_complex", "fd"): "autograd defines no VJP of sort_complex (NotImplementedError)",
    ("hsplit", "fd"): "autograd's hsplit VJP concatenates along axis 1, also for a 1-d array",
    ("linspace", "fd"): "autograd's linspace VJP does not take endpoint=",
    ("full_like", "fd"): "autograd passes no gradient to full_like's fill value",
    ("diagonal", "fd"): "autograd's diagonal VJP supports offset=0, axis1=-1, axis2=-2 only",
    ("dstack", "fd"): "autograd's dstack VJP gives 0 for a 1-d input",
    ("concat", "fd"): "autograd's concat VJP gives 0 with axis=None",
    **dict.fromkeys(
        [
            (name, "fd")
            for name in (
                "positive",
                "copy",
                "asarray",
                "asanyarray",
                "ascontiguousarray",
                "asfortranarray",
                "asarray_chkfinite",
                "fmod",
                "heaviside",
                "ptp",
                "average",
                "matrix_transpose",
                "diagflat",
                "geomspace",
                "logspace",
                "meshgrid",
                "take",
                "take_along_axis",
            )
        ],
        "autograd has no VJP for it (NotImplementedError)",
    ),  # fmt: skip
    **dict.fromkeys(
        [
            (name, "fd")
            for name in (
                "bincount",
                "cumprod",
                "cumulative_sum",
                "cumulative_prod",
                "nancumsum",
                "nancumprod",
                "nanprod",
                "nanvar",
                "nanstd",
                "quantile",
                "percentile",
                "nanquantile",
                "nanpercentile",
                "median",
                "nanmedian",
                "cov",
                "corrcoef",
                "trapezoid",
                "ediff1d",
                "interp",
                "convolve",
                "correlate",
                "unwrap",
                "histogram[weights]",
                "histogram2d[weights]",
                "histogramdd[weights]",
            )
        ],
        "autograd has no VJP for it (NotImplementedError): funcgrad's statistics functions "
        "(tests/differential/functional_cases_statistics.py) against central differences",
    ),
    ("gradient[spacing]", "fd"): "autograd's gradient takes axis= only (NotImplementedError "
    "for spacings and edge_order)",
    ("gradient[coordinates]", "fd"): "autograd's gradient takes axis= only",
    ("partition[n-d]", "fd"): "autograd's partition VJP is for 1-d arrays only",
    **dict.fromkeys(
        [(name, "reference") for name in ("nansum", "nanmean", "nanmax", "nanmin")],
        "autograd has no VJP for it: given the composite with where(isnan(x), ...)",
    ),
    # --- linalg (tests/differential/functional_cases_linalg.py) ---
    ("linalg.norm[matrix, singular values]", "fd"): "autograd has no gradient of the matrix "
    "norms ord=2 and -2 (NotImplementedError), and its norm fails on a negative axis pair",
    ("linalg.svd[square, full_matrices=True]", "fd"): "autograd's svd gradient refuses "
    "full_matrices=True (NotImplementedError), also for square matrices",
    ("linalg.svd[hermitian]", "fd"): "autograd's svd gradient has no hermitian=",
    ("linalg.pinv[hermitian]", "fd"): "autograd's pinv gradient has no hermitian=",
    ("linalg.multi_dot", "fd"): "autograd's multi_dot JVP is wrong (0, or arrays of boxes)",
    **dict.fromkeys(
        [
            (name, "fd")
            for name in (
                "linalg.eigvalsh",
                "linalg.eigvals",
                "linalg.svdvals",
                "linalg.qr",
                "linalg.lstsq",
                "linalg.matrix_power",
                "linalg.tensorsolve",
                "linalg.tensorinv",
                "linalg.cond",
                "linalg.vector_norm",
                "linalg.matrix_norm",
                "linalg.outer",
                "linalg.cross",
                "linalg.vecdot",
                "linalg.matmul",
                "linalg.matrix_transpose",
                "linalg.diagonal",
                "linalg.trace",
                "linalg.tensordot",
                "vander",
                "polyfit",
                "roots",
            )
        ],
        "autograd 1.9.1 has NumPy's function without a VJP (NotImplementedError)",
    ),  # fmt: skip
}


def _clip(anp):
    def clip(x, a_min=None, a_max=None):
        inside = anp.ones(anp.shape(x), dtype=bool)
        if a_min is not None:
            inside = inside & (x >= a_min)
        if a_max is not None:
            inside = inside & (x <= a_max)
        return anp.where(inside, x, anp.clip(x, a_min, a_max))

    return clip


def _outer(anp):
    return lambda a, b: anp.ravel(a)[:, None] * anp.ravel(b)[None, :]


_Slogdet = namedtuple("_Slogdet", ["sign", "logabsdet"])


def _slogdet(anp):
    def slogdet(a):
        sign, logabsdet = anp.linalg.slogdet(a)
        return _Slogdet(sign, logabsdet)

    return slogdet


def _cholesky(anp):
    def cholesky(a, upper=False):
        factor = anp.linalg.cholesky((a + anp.swapaxes(a, -1, -2)) / 2.0)
        return anp.swapaxes(factor, -1, -2) if upper else factor

    return cholesky


def _norm(anp):
    def norm(x, ord=None, axis=None, keepdims=False):
        if axis is None:
            if ord is None:  # the 2-norm of the flattened array
                out = anp.sqrt(anp.sum(x * x))
                return anp.reshape(out, (1,) * anp.ndim(x)) if keepdims else out
            axis = tuple(range(anp.ndim(x))) if anp.ndim(x) == 2 else 0
        if isinstance(axis, tuple):  # a matrix norm: None and "fro" only here
            assert ord in (None, "fro"), ord
            return anp.sqrt(anp.sum(x * x, axis=axis, keepdims=keepdims))
        if ord is None or ord == 2:
            return anp.sqrt(anp.sum(x * x, axis=axis, keepdims=keepdims))
        if ord == anp.inf:
            return anp.max(anp.abs(x), axis=axis, keepdims=keepdims)
        total = anp.sum(anp.abs(x) ** ord, axis=axis, keepdims=keepdims)
        return total ** (1.0 / ord)

    return norm


def _nan(anp, name):
    def reduce(x, axis=None, keepdims=False, **kw):
        nan = anp.isnan(x)
        if name == "nansum":
            return anp.sum(anp.where(nan, 0.0, x), axis=axis, keepdims=keepdims)
        if name == "nanmean":
            total = anp.sum(anp.where(nan, 0.0, x), axis=axis, keepdims=keepdims)
            return total / anp.sum(~nan, axis=axis, keepdims=keepdims)
        fill, pick = (-anp.inf, anp.max) if name == "nanmax" else (anp.inf, anp.min)
        return pick(anp.where(nan, fill, x), axis=axis, keepdims=keepdims)

    return reduce


# The composites of the "reference" differences: dotted name -> (autograd.numpy -> function).
REFERENCES = {
    "clip": _clip,
    "outer": _outer,
    "linalg.slogdet": _slogdet,
    "linalg.cholesky": _cholesky,
    "linalg.norm": _norm,
    **{
        name: (lambda anp, _n=name: _nan(anp, _n))
        for name in ("nansum", "nanmean", "nanmax", "nanmin")
    },
}

KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}


def difference(case, kind) -> str | None:
    """Return the reason of an allowed difference of `kind` for `case` (its id or name), or None."""
    return DIFFERENCES.get((case.id, kind)) or DIFFERENCES.get((case.name, kind))
