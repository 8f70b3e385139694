"""The primitives' fast paths give NumPy's own results, bit for bit (issue 18).

`Primitive.direct` calls `numpy.NAME` instead of the `lambda xp, x: xp.NAME(x)`
forward, and `bind` computes `+`, `-` and negation with Python's operators (NumPy's
scalar arithmetic on 0-d values). The reference is the ufunc called on the values.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import funcgrad as fg
from funcgrad.ops import registry

_BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}


def _same(a, b) -> bool:
    return (
        type(a) is type(b)
        and np.asarray(a).dtype == np.asarray(b).dtype
        and (np.asarray(a).tobytes() == np.asarray(b).tobytes())
    )


def test_direct_is_the_forward_function_of_numpy():
    assert registry.get("sin").direct is np.sin
    assert registry.get("add").direct is np.add and registry.get("add").direct_arity == 2
    assert registry.get("add").bind_direct is operator.add
    assert registry.get("multiply").bind_direct is np.multiply  # complex products differ
    assert registry.get("sum").direct is None  # a forward with parameters


def test_a_wrong_number_of_arguments_is_refused_not_taken_as_out():
    x, out = np.ones(2), np.zeros(2)
    with pytest.raises(Exception, match="cos"):
        registry.get("cos")(x, out)
    assert np.all(out == 0.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.complex128])
def test_operators_in_bind_equal_the_ufuncs_bit_for_bit(dtype):
    rng = np.random.default_rng(18)
    for _ in range(200):
        a, b, c, d = rng.standard_normal(4) * 10.0 ** rng.integers(-20, 20, 4)
        with np.errstate(all="ignore"):
            x = dtype(complex(a, b)) if np.dtype(dtype).kind == "c" else dtype(a)
            y = dtype(complex(c, d)) if np.dtype(dtype).kind == "c" else dtype(c)
            node = fg.leaf(np.asarray(x))
            for name, ufunc in _BINARY.items():
                prim = registry.get(name)
                for p, q in [(node, y), (node, float(c)), (float(a), node), (node, node)]:
                    vp = p.value if p is node else p
                    vq = q.value if q is node else q
                    assert _same(prim(p, q).value, ufunc(vp, vq)), (name, p, q)
            assert _same(registry.get("negative")(node).value, np.negative(node.value))
            arr = fg.leaf(np.full(3, x))
            assert _same(registry.get("add")(arr, y).value, np.add(arr.value, y))
