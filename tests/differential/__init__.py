"""Differential tests: funcgrad against an independent reference, on random inputs.

* `test_torch_*.py` (`torch_cases.py`, `torch_compare.py`, `torch_differences.py`):
  the Tensor layer against PyTorch 2.13, every public Tensor method and torch function.
* `test_functional_*.py` (`functional_*.py`): the functional API against central
  differences and HIPS autograd.

`FUNCGRAD_FUZZ_EXAMPLES` scales the number of examples (see `tests/hardening/fuzz.py`).
"""
