"""`funcgrad.functional` stands for `torch.functional` (`import torch.functional as F` in introyt's models page)."""

from __future__ import annotations

import pytest

import funcgrad
import funcgrad.functional as F
from funcgrad.errors import NotProvidedError
from tests.references import requires

torch = requires("torch")


def test_every_name_of_torch_functional_is_funcgrads_or_named_as_missing():
    import torch.functional as theirs

    for name in theirs.__all__:
        if hasattr(funcgrad, name):
            assert name in F.__all__, f"add {name} to funcgrad/functional.py"
            assert getattr(F, name) is getattr(funcgrad, name), name
        else:
            with pytest.raises(NotProvidedError, match=f"torch.{name} of PyTorch"):
                getattr(F, name)
    assert sorted(F.__all__) == sorted(n for n in theirs.__all__ if hasattr(funcgrad, n))


def test_a_function_of_funcgrad_functional_computes_as_torch_functional():
    import torch.functional as theirs

    a = [[1.0, 2.0], [3.0, 4.0]]
    ours = F.einsum("ij,jk->ik", funcgrad.tensor(a), funcgrad.tensor(a))
    assert ours.tolist() == theirs.einsum("ij,jk->ik", torch.tensor(a), torch.tensor(a)).tolist()
