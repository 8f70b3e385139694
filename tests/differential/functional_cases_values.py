"""Differential cases of the functions that return entries of their input: `unique`, and the
bin edges a histogram takes from its data.

Registered on import by `functional_cases.py`. Their integer outputs (indices,
counts) are checked by the value-only cases there; these differentiate the
float outputs, which are entries of the input (`unique`) or its minimum and
maximum (`histogram_bin_edges`). HIPS autograd wraps both as primitives
without a gradient, so the derivatives are compared with central differences
(at points without ties, where they exist).
"""

from __future__ import annotations

from tests.differential.functional_cases import Example, case
from tests.differential.functional_differences import DIFFERENCES


@case("unique", "values")
def _unique(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.unique(x))


@case("unique_values", "values")
def _unique_values(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.unique_values(x))


@case("unique_all", "values")
def _unique_all(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.unique_all(x)[0])


@case("unique_counts", "values")
def _unique_counts(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.unique_counts(x)[0])


@case("unique_inverse", "values")
def _unique_inverse(g):
    x = g.array(g.shape())
    return Example((x,), lambda m, x: m.unique_inverse(x)[0])


@case("histogram_bin_edges", "edges from the data")
def _edges(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    return Example((x,), lambda m, x: m.histogram_bin_edges(x, 3))


@case("histogram", "edges from the data")
def _histogram_edges(g):
    x = g.array(g.shape(min_dims=1, empty=False))
    return Example((x,), lambda m, x: m.histogram(x, bins=3)[1])


DIFFERENCES.update(
    {
        (name, "fd"): "autograd.numpy wraps it as a primitive with no gradient: derivatives are "
        "compared with central differences"
        for name in (
            "unique[values]",
            "unique_values[values]",
            "unique_all[values]",
            "unique_counts[values]",
            "unique_inverse[values]",
            "histogram_bin_edges[edges from the data]",
            "histogram[edges from the data]",
        )
    }
)
