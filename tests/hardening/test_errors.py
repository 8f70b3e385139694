"""The error catalogue (`errors_catalogue.CASES`): each bad input raises the documented exception.

Every case checks the exception type and that the message names what went
wrong (the funcgrad operation and the offending shapes, dtypes or values).
`ERRORS.md` is generated from the same cases; `test_errors_md_is_up_to_date`
fails when a message changes and the file was not regenerated.
"""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp
from funcgrad.errors import FuncgradError
from tests.hardening.errors_catalogue import (
    CASES,
    GENERATED_WITH,
    PATH,
    message_of,
    render,
    run,
)


def test_the_catalogue_has_at_least_40_distinct_cases():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique (they are anchors)"
    assert len({c.code for c in CASES}) == len(CASES), "two cases run the same program"
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_raises_a_helpful_error(case):
    error = run(case)
    assert error is not None, f"{case.id}: raised nothing"
    assert isinstance(error, case.raises), (
        f"{case.id}: raised {type(error).__name__} ({error}), expected {case.raises.__name__}"
    )
    message = message_of(error)
    missing = [name for name in case.names if name not in message]
    assert not missing, f"{case.id}: the message lacks {missing}:\n{message}"
    if isinstance(error, FuncgradError):
        # every funcgrad error ends with a pointer to its section of docs/errors.md
        assert f"/errors/#{type(error).__name__.lower()}" in str(error) or any(
            f"/errors/#{cls.__name__.lower()}" in str(error) for cls in type(error).__mro__
        )


def test_funcgrad_errors_are_also_the_builtin_exceptions():
    # `except ValueError` / `except TypeError` keep working around funcgrad calls.
    assert issubclass(fg.OpError, ValueError)
    assert issubclass(fg.ShapeError, ValueError)
    assert issubclass(fg.TreeStructureError, ValueError)
    assert issubclass(fg.NonScalarOutputError, ValueError)
    assert issubclass(fg.DtypeError, TypeError)
    assert issubclass(fg.NotDifferentiableError, NotImplementedError)


def test_errors_md_is_up_to_date():
    with open(PATH, encoding="utf-8") as f:
        current = f.read()
    if GENERATED_WITH not in current:
        pytest.skip(f"ERRORS.md was generated with another NumPy (this is {GENERATED_WITH})")
    assert current == render(), (
        "tests/hardening/ERRORS.md is out of date: run "
        "`python -m tests.hardening.errors_catalogue --write` from the repository root"
    )


# --- behaviour that is not an error, next to the errors it could be confused with ---


def test_gradient_of_an_unused_input_is_zeros_not_an_error():
    # The functional API returns zeros (JAX's choice); only Tensor.backward on
    # something that does not require grad is an error.
    g = fg.grad(lambda x, y: fnp.sum(x * 2.0), argnums=1)(np.ones(2), np.ones(3))
    assert g.shape == (3,) and not g.any()


def test_integer_arguments_not_differentiated_are_fine():
    # DtypeError is raised only for the arguments selected by argnums.
    assert fg.grad(lambda x, n: x**n)(2.0, 3) == 12.0


def test_a_constant_output_gives_zero_gradients():
    assert fg.grad(lambda x: 3.0)(1.0) == 0.0
    with pytest.raises(fg.NonScalarOutputError, match=r"shape \(2,\)"):
        fg.grad(lambda x: np.ones(2))(1.0)


def test_a_forward_error_keeps_numpys_exception_as_its_cause():
    with pytest.raises(fg.OpError) as info:
        fnp.add(np.ones(2), np.ones(3))
    assert isinstance(info.value.__cause__, ValueError)


def test_writing_into_the_users_own_array_is_allowed_and_does_not_change_the_graph():
    # The graph copies a writeable array (funcgrad.backend.freeze), so the user's
    # array stays writeable and changing it later changes no gradient.
    a = np.array([1.0, 2.0])
    x = fg.leaf(a)
    y = fnp.sum(x * x)
    a[:] = 100.0
    assert a.flags.writeable
    np.testing.assert_array_equal(fg.backward(y)[x], [2.0, 4.0])


# --- gaps found by the catalogue, fixed since (regression tests) ---


def test_custom_vjp_bwd_returning_an_integer_cotangent_is_an_error():
    # (Another float dtype is fine: the engine casts it back, float32 stays float32.)
    @fg.custom_vjp
    def f(x):
        return x * 2.0

    f.defvjp(lambda x: (x * 2.0, None), lambda res, ct: (np.ones(ct.shape, np.int64),))
    with pytest.raises(fg.ShapeError, match="int64"):
        fg.grad(lambda x: fnp.sum(f(x)))(np.ones(2))


def test_backward_wrt_a_plain_array_names_the_mistake():
    x = fg.leaf(np.ones(2))
    with pytest.raises(TypeError, match="funcgrad.backward"):
        fg.backward(fnp.sum(x), wrt=[np.ones(2)])
