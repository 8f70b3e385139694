"""Where funcgrad's Tensor layer may differ from PyTorch 2.13: the one list, and the bugs still open.

`DIFFERENCES` holds the *deliberate* differences, each with its reason (they
are the ones `docs/errors.md` and the "Coming from PyTorch" page list). The
comparison (`torch_compare.py`) allows exactly these:

* `GUARD` (every case, gradients only): funcgrad's NaN guard gives an exact
  0 where the incoming cotangent is 0, where PyTorch computes `0 * inf` or
  `0 * nan` and gives NaN;
* `Difference("accepts", canonical=True)`: PyTorch refuses an argument *form*
  with a TypeError (its argument parser), funcgrad accepts it; PyTorch then
  runs on the plain form (a Python int for a NumPy integer dim, a tensor for
  an array) and the answers must agree;
* `Difference(aspect, match=...)`: a mismatch of that aspect whose message
  matches `match` (funcgrad raises a given error where PyTorch returns, ...);
  with `call=...`, only in calls whose text matches that regex too.

A case with several deliberate differences has a tuple of them (`rules(case)`).

`KNOWN_MISMATCHES` holds the bugs the fuzzer found that are not fixed yet:
`(case, aspect) -> description`. Such a case is expected to fail on that
aspect (and only on it); once it no longer does, its test fails until the
entry is removed. The goal is an empty table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Difference:
    """One deliberate difference: which aspect of a case may differ, and why."""

    aspect: str
    reason: str
    match: str | None = None  # a regex the mismatch's message must match (None: any)
    canonical: bool = False  # "accepts": compare with PyTorch on the plain argument form
    call: str | None = None  # a regex the call's text must match (None: any call)


GUARD = "*"

# `dim=()` in a drawn call's text (a tuple, list or NumPy form of the empty dims).
EMPTY_DIM = r"(, |dim=)(np\.int64\()?\(\)"

DIFFERENCES: dict[str, Difference | tuple[Difference, ...]] = {
    GUARD: Difference(
        "grad",
        "the NaN guard: a VJP rule 'cotangent times local derivative' gives an exact 0 where the "
        "cotangent is 0, even where the local derivative is infinite or NaN (PyTorch: NaN); "
        "see funcgrad.ops.guard and docs/concepts/primitive-registry.md",
    ),
    "Tensor.__rmatmul__": Difference(
        "accepts",
        "a NumPy array as left operand of @ is taken as a tensor (funcgrad's Tensor sets "
        "__array_priority__, so NumPy defers to Tensor.__rmatmul__); PyTorch raises TypeError",
        canonical=True,
    ),
    "torch.div": Difference(
        "raises",
        "rounding_mode ('trunc', 'floor') is refused: the result is piecewise constant, "
        "funcgrad has no such primitive yet",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "Tensor.div": Difference(
        "raises",
        "as torch.div",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "Tensor.div_": Difference(
        "raises",
        "as torch.div",
        match="NotImplementedError: funcgrad.div: rounding_mode",
    ),
    "torch.randn_like": Difference(
        "raises",
        "an integer dtype is refused (issue #12: randn(dtype=int64)); PyTorch refuses it too "
        "except for an empty tensor, where no kernel runs",
        match="DtypeError: funcgrad.randn: draws floating-point numbers",
    ),
    **{
        name: (
            Difference(
                "grad2",
                "var/std of one element with correction 1: the value and gradient are NaN in "
                "both; the second derivative is NaN in funcgrad, absent (None) in PyTorch",
                match=r"second-order .grad of input 0 \(None as zeros.*nan\) vs torch np.float64\(0.0\)",
            ),
            Difference(
                "grad",
                "var/std with dim=(): both reduce every dim, but PyTorch 2.13's gradient "
                "divides by 1 - correction (the size of no dims) instead of n - correction "
                "(inf for correction=1, n times too large for correction=0); funcgrad's is the "
                "gradient of the value both return",
                call=EMPTY_DIM,
            ),
        )
        for name in ("torch.var", "Tensor.var", "torch.std", "Tensor.std")
    },
    **{
        name: Difference(
            "accepts",
            "logsumexp with dim=() (and keepdim=False) reduces every dim, as sum, mean and "
            "logsumexp(dim=(), keepdim=True) do; PyTorch 2.13 raises there (its output "
            "shape check fails: 'output with shape [] doesn't match the broadcast shape')",
            match=r"doesn't match the broadcast shape",
        )
        for name in ("torch.logsumexp", "Tensor.logsumexp")
    },
    **{
        name: Difference(
            "raises",
            "p='nuc' (the nuclear norm) is refused with NotDifferentiableError: it needs the "
            "singular values, and funcgrad has no differentiable SVD primitive yet",
            match=r"NotDifferentiableError: funcgrad.norm: p='nuc'",
        )
        for name in ("torch.norm", "Tensor.norm")
    },
    "Tensor.expand": Difference(
        "raises",
        "-1 for a new leading dimension is refused (issue #12); PyTorch 2.13 refuses it too, "
        "except when another size is 0, where it returns a tensor of negative size (its bug)",
        match="isn't allowed in a leading, non-existing dimension",
    ),
}


def rules(case: str) -> tuple[Difference, ...]:
    """The deliberate differences of a case (none, one or several)."""
    rule = DIFFERENCES.get(case)
    return () if rule is None else rule if isinstance(rule, tuple) else (rule,)


# The causes of KNOWN_MISMATCHES (each reported in /tmp/s3/mismatches-torch.md).
POW_EDGES = "pow at base 0 or a negative base: exponent gradient 0 where PyTorch gives inf/NaN; second order at exponent 0 differs (PyTorch masks y == 0; funcgrad's is exact there)"

KNOWN_MISMATCHES: dict[tuple[str, str], str] = {
    ("Tensor.__ipow__", "grad2"): POW_EDGES,
    ("Tensor.__pow__", "grad2"): POW_EDGES,
    ("Tensor.__rpow__", "grad2"): POW_EDGES,
    ("Tensor.pow", "grad2"): POW_EDGES,
    ("torch.pow", "grad2"): POW_EDGES,
}
