"""Every name of issue #13's scope (jax.numpy and autograd.numpy) resolves, or is listed as missing.

`funcgrad/numpy/_scope.py` (written by `scripts/numpy_scope.py`) holds the
scope and `NOT_PROVIDED`, the names still missing: issue #13's to-do. A
listed name raises `NotProvidedError` (an `AttributeError`); a name outside
the scope raises a plain `AttributeError`.
"""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import pytest

import funcgrad.numpy as fnp
from funcgrad.errors import NotProvidedError
from funcgrad.numpy import _scope
from tests.references import requires

ROOT = Path(__file__).resolve().parents[2]
JAX_WHEEL = Path("/tmp/jaxdl/jax-0.4.38-py3-none-any.whl")


def _provided(name: str) -> bool:
    return name in vars(fnp)


def test_every_scope_name_resolves_or_is_listed_as_not_provided():
    unaccounted = sorted(
        n for n in _scope.SCOPE if not _provided(n) and n not in _scope.NOT_PROVIDED
    )
    assert not unaccounted, (
        f"funcgrad.numpy lacks {unaccounted} and _scope.NOT_PROVIDED does not list them: "
        f"run `python scripts/numpy_scope.py`"
    )


def test_not_provided_lists_only_missing_names():
    stale = sorted(n for n in _scope.NOT_PROVIDED if _provided(n))
    assert not stale, (
        f"funcgrad.numpy now provides {stale}: run `python scripts/numpy_scope.py` to take them "
        f"off the to-do list"
    )
    assert _scope.NOT_PROVIDED <= _scope.SCOPE


def test_the_list_is_the_issues_to_do():
    print(f"\n{len(_scope.NOT_PROVIDED)} of {len(_scope.SCOPE)} scope names not provided yet")
    assert len(_scope.SCOPE) > 450


@pytest.mark.parametrize(
    "name", sorted(_scope.NOT_PROVIDED)[:: max(1, len(_scope.NOT_PROVIDED) // 25)]
)
def test_a_missing_name_raises_not_provided_error(name):
    assert not hasattr(fnp, name)
    assert getattr(fnp, name, "default") == "default"
    with pytest.raises(NotProvidedError, match=rf"funcgrad\.numpy\.{name} is not provided") as e:
        getattr(fnp, name)
    assert isinstance(e.value, AttributeError) and e.value.name == name


@pytest.mark.parametrize("name", sorted(_scope.NOT_PROVIDED_REASONS))
def test_a_name_left_out_by_design_gives_its_reason(name):
    assert name in _scope.NOT_PROVIDED and not hasattr(fnp, name)
    with pytest.raises(NotProvidedError) as e:
        getattr(fnp, name)
    message = str(e.value)
    assert f"funcgrad.numpy.{name} is not provided, by design" in message
    assert _scope.NOT_PROVIDED_REASONS[name] in message
    assert "ml_dtypes" in message and e.value.name == name


def test_a_name_still_to_do_says_so():
    for name in sorted(_scope.NOT_PROVIDED - _scope.NOT_PROVIDED_REASONS.keys())[:3]:
        with pytest.raises(NotProvidedError, match="is not provided yet"):
            getattr(fnp, name)


@pytest.mark.parametrize("name", ["nditer", "memmap", "loadtxt", "char", "no_such_function"])
def test_a_name_outside_the_scope_raises_plain_attribute_error(name):
    with pytest.raises(AttributeError) as e:
        getattr(fnp, name)
    assert not isinstance(e.value, NotProvidedError)


def test_the_first_lines_of_autograd_and_jax_programs_resolve():
    for name in ["array", "ones", "zeros", "eye", "linspace", "arange", "pi", "float32", "floor"]:
        assert hasattr(fnp, name), name
    assert isinstance(fnp.random.randn(2), type(fnp.zeros(2)))


def test_scope_file_matches_its_sources():
    autograd = requires("autograd")
    if not JAX_WHEEL.exists():
        pytest.skip(f"no JAX wheel at {JAX_WHEEL}")
    spec = importlib.util.spec_from_file_location("numpy_scope", ROOT / "scripts/numpy_scope.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert zipfile.is_zipfile(JAX_WHEEL)
    assert script.jax_numpy_names(JAX_WHEEL) == _scope.JAX_NUMPY
    assert {n for n in dir(autograd.numpy) if not n.startswith("_")} == _scope.AUTOGRAD_NUMPY


def test_new_modules_do_not_shadow_existing_names():
    from funcgrad.numpy import (
        _constants,
        _creation,
        _elementwise,
        _functional,
        _generated,
        _linalg,
        _misc,
        _polynomial,
        _shape,
        _value_only,
        _windows,
    )

    old = {*_generated.__all__, *_elementwise.__all__, *_linalg.__all__, *_shape.__all__}
    for module in (_constants, _creation, _value_only, _functional, _misc, _polynomial, _windows):
        assert not old & set(module.__all__), module.__name__
    assert not set(_constants.__all__) & set(_creation.__all__) & set(_value_only.__all__)
