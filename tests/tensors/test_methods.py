"""`Tensor`'s methods are those its type declares.

For the type checker `Tensor` inherits `TensorMethods` (and through it the
generated `DeclaredMethods`); at runtime `funcgrad.tensors.methods` copies
their attributes onto `Tensor`, which cannot inherit them when it is
defined. These tests keep the two views the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import funcgrad
from funcgrad.tensors._generated import DeclaredMethods
from funcgrad.tensors.methods import TensorMethods

TENSOR_CLASS = Path(funcgrad.__file__).parent / "tensors" / "tensor_class.py"


def _installed(cls) -> dict:
    return {n: v for n, v in vars(cls).items() if callable(v) or isinstance(v, property)}


def test_every_declared_method_is_installed_as_is():
    for cls in (DeclaredMethods, TensorMethods):
        for name, value in _installed(cls).items():
            assert funcgrad.Tensor.__dict__.get(name) is value, f"Tensor.{name}"


def test_tensor_defines_none_of_them_itself():
    # An installed method would silently replace one that Tensor's class body defines.
    tree = ast.parse(TENSOR_CLASS.read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor").body
    own = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    own |= {t.id for n in body if isinstance(n, ast.Assign) for t in n.targets if hasattr(t, "id")}
    overlap = own & (set(_installed(DeclaredMethods)) | set(_installed(TensorMethods)))
    assert not overlap, overlap


def test_the_type_checker_sees_tensor_inherit_them():
    source = TENSOR_CLASS.read_text(encoding="utf-8")
    assert "from funcgrad.tensors.methods import TensorMethods as _Methods" in source
    assert "class Tensor(TensorBase, _Methods):" in source


def test_operators_and_in_place_methods_work():
    x = funcgrad.tensor([1.0, -2.0])
    assert (x + 1).tolist() == [2.0, -1.0] and (2 * x).tolist() == [2.0, -4.0]
    assert (-x).tolist() == [-1.0, 2.0] and abs(x).tolist() == [1.0, 2.0]
    assert (x == 1.0).tolist() == [True, False] and x.T.tolist() == [1.0, -2.0]
    y = x.clone()
    assert y.add_(1) is y and y.tolist() == [2.0, -1.0]
    y += 1
    assert y.tolist() == [3.0, 0.0] and y.zero_().tolist() == [0.0, 0.0]
