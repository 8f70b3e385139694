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
    **{
        name: (
            Difference(
                "grad2",
                "var/std of one element with correction 1: the value and gradient are NaN in "
                "both; the second derivative is NaN in funcgrad, absent (None) in PyTorch",
                match=r"second-order .grad of input 0 \(None as zeros.*nan\) vs torch np.float64\(0.0\)",
            ),
            *(
                Difference(
                    aspect,
                    "var/std with dim=(): both reduce every dim, but PyTorch 2.13's gradient "
                    "divides by 1 - correction (the size of no dims) instead of n - correction "
                    "(inf for correction=1, n times too large for correction=0), at first and "
                    "second order; funcgrad's is the gradient of the value both return",
                    call=EMPTY_DIM,
                )
                for aspect in ("grad", "grad2")
            ),
            *(
                ()
                if name.endswith("std")
                else tuple(
                    Difference(
                        aspect,
                        "var with correction >= the number of elements reduced (PyTorch warns: "
                        "degrees of freedom <= 0): the value is inf in both; the gradient of that "
                        "constant is NaN in funcgrad; in PyTorch +-inf (of the cotangent's sign "
                        "alone for a full reduction) or 0 (one element along a dim): artefacts "
                        "of its kernel",
                        match=r"np\.float64\(nan\) vs torch np\.float64\(",
                        call=r"correction=2",  # the fuzzer's only correction above 1
                    )
                    for aspect in ("grad", "grad2")
                )
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
    "Tensor.expand": Difference(
        "raises",
        "-1 for a new leading dimension is refused (issue #12); PyTorch 2.13 refuses it too, "
        "except when another size is 0, where it returns a tensor of negative size (its bug)",
        match="isn't allowed in a leading, non-existing dimension",
    ),
    **{
        name: Difference(
            "grad2",
            "x ** y at y == 0 (x > 0), second order in y: d/dy (y * x**(y - 1)) is exactly "
            "1/x there; PyTorch masks its first derivative in x with where(y == 0, 0, ...) "
            "and so gives 0 for that term (funcgrad masks only where it is inf or NaN)",
            match=r"second-order \.grad of input 1 ",
            call=r"\[ties\]",  # y == 0 exactly: the exponent's ties
        )
        for name in ("torch.pow", "Tensor.pow", "Tensor.pow_", "Tensor.__pow__", "Tensor.__ipow__")
    },
    "Tensor.__rpow__": Difference(
        "grad2",
        "0 ** y for y >= 0, second order: the exponent's gradient is 0 for every y > 0 (and at "
        "y == 0 by PyTorch's own mask), so its derivative is exactly 0; PyTorch differentiates "
        "through its mask where(y >= 0, 0, out * log(0)) and gets 0 * -inf = NaN",
        match=r"^\[grad2\] second-order \.grad of input 0 \([^)]*\): "
        r"(at \([\d, ]*\): np\.float64\(0\.0\) vs torch np\.float64\(nan\)(, |\n))+",
        call=r"^Tensor\.__rpow__: 0(\.0)? __rpow__",
    ),
}


def rules(case: str) -> tuple[Difference, ...]:
    """The deliberate differences of a case (none, one or several)."""
    rule = DIFFERENCES.get(case)
    return () if rule is None else rule if isinstance(rule, tuple) else (rule,)


# The causes of KNOWN_MISMATCHES (each reported in /tmp/s3/mismatches-torch.md).

KNOWN_MISMATCHES: dict[tuple[str, str], str] = {}
