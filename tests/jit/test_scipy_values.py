"""`funcgrad.scipy`'s reads of values are computed by a jit plan, not baked from the trace.

`funcgrad.scipy.special` and `funcgrad.scipy.stats` read nodes' values (`node.value`) for
support masks (`expon.logpdf`'s `x >= 0`), `logsumexp`'s shift and sign, `gammasgn`. The trace
did not see those reads, so a plan replayed the traced call's mask, shift or sign: a replay at
`x = -0.5` gave expon's `0.5` (eagerly `-inf`), `logsumexp` with `b` overflowed to `inf` at
values far above the traced ones, and `return_sign` kept the traced sign. Their value reads are
now followed (`_FOLLOWED_READERS` in funcgrad/transforms/jit.py): the plan computes them from
the replayed values, in one plan per signature. The reference is the same function run eagerly,
bit for bit.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
import funcgrad.scipy.special as fsp
import funcgrad.scipy.stats as fss
from funcgrad.transforms.jit import JitWarning

B = np.array([1.0, 2.0, 0.5])
B_SIGNED = np.array([1.0, -1.0, 0.5])

CASES = {
    "expon.logpdf": lambda x: fss.expon.logpdf(x),
    "expon.logcdf": lambda x: fss.expon.logcdf(x, scale=2.0),
    "gamma.logpdf": lambda x: fss.gamma.logpdf(x, 2.0),
    "gamma.cdf": lambda x: fss.gamma.cdf(x, 2.0),
    "laplace.cdf": lambda x: fss.laplace.cdf(x),
    "t.cdf": lambda x: fss.t.cdf(x, 3.0),
    "poisson.logpmf": lambda x: fss.poisson.logpmf(x, 2.5),
    "binom.logpmf": lambda x: fss.binom.logpmf(x, 4, 0.3),
    "bernoulli.logpmf": lambda x: fss.bernoulli.logpmf(x, 0.3),
    "logsumexp(b=)": lambda x: fsp.logsumexp(x, b=B),
    "logsumexp(b=, return_sign=True)": lambda x: fsp.logsumexp(x, b=B_SIGNED, return_sign=True),
    "gammasgn": lambda x: fsp.gammasgn(x),
}

INPUTS = [
    [0.5, 1.0, 2.0],  # traced with these
    [-0.5, 1.0, 2.0],  # below a support
    [1.0, 3.0, -2.0],
    [0.0, 1.5, 4.0],  # an edge, a non-integer count
    [900.0, 901.0, 899.0],  # far above the traced values (logsumexp's shift)
    [-1.5, -0.5, 3.0],  # gammasgn's sign changes
]


def _bits(out):
    leaves = out if isinstance(out, tuple) else (out,)
    return tuple(np.asarray(v).tobytes() for v in leaves)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_replay_computes_scipys_value_reads(name):
    f = CASES[name]
    jf = fg.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's: log(0), overflow
        warnings.simplefilter("error", JitWarning)  # no eager fallback, no retrace warning
        for v in INPUTS:
            x = np.array(v)
            assert _bits(jf(x)) == _bits(f(x)), (name, v)
    assert jf.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}


GRADS = {
    "expon.logpdf": lambda x: fnp.sum(fss.expon.logpdf(x)),
    "gamma.logpdf": lambda x: fnp.sum(fss.gamma.logpdf(x, 2.0)),
    "laplace.cdf": lambda x: fnp.sum(fss.laplace.cdf(x)),
    "logsumexp(b=)": lambda x: fsp.logsumexp(x, b=B),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_a_replayed_gradient_computes_scipys_value_reads(name):
    g = fg.grad(GRADS[name])
    jg = fg.jit(g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("error", JitWarning)
        for v in INPUTS[:5]:
            x = np.array(v)
            assert np.asarray(jg(x)).tobytes() == np.asarray(g(x)).tobytes(), (name, v)
    assert jg.cache_info() == {"signatures": 1, "plans": 1, "retraces": 0}
