"""Run a PyTorch program as written and with funcgrad imported instead; compare what each prints.

The programs are two tutorial pages (`tests.examples.pages`) and our own programs in
the tutorials' idioms (`tests.examples.programs`).

* `with_funcgrad(source)` changes the import lines only: `import torch`
  becomes `import funcgrad as torch`, `import torch.nn as nn` becomes
  `import funcgrad.nn as nn` (and so on), `import numpy as np` becomes
  `import funcgrad.numpy as np` (unless `numpy=False`: a PyTorch program's
  own NumPy stays NumPy's).
* `Draws` makes both runs see the same random numbers: the reference run
  (PyTorch or NumPy) records what its random functions return, and the
  funcgrad run gets those values from its own random functions, in the same
  order and with the same shapes (checked at each draw). Python's `random`
  is seeded the same for both.
* `run(source, name, given)` executes the code (with `given` global names
  set, such as the data put in place of a download) and returns what it
  printed and its global names.
* `assert_same_printout` compares two printouts: the text between numbers
  exactly (object addresses aside), the numbers to a tolerance.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import sys
from typing import Any

import numpy as np
import pytest

import funcgrad
import funcgrad.nn.functional as F
import funcgrad.nn.init
import funcgrad.numpy
import funcgrad.utils.data.sampler

_IMPORT = re.compile(r"^(\s*)import (torch|numpy)((?:\.\w+)*)(?: as (\w+))?\s*(#.*)?$")
_FROM = re.compile(r"^(\s*)from torch((?:\.\w+)*) import (.*)$")


def with_funcgrad(source: str, numpy: bool = True) -> str:
    """Return `source` with its `torch`/`numpy` imports pointed at funcgrad (nothing else changed).

    `import torch.nn as nn  # a comment` and `from torch.utils.data import DataLoader` count too.
    With `numpy=False`, `import numpy as np` stays NumPy's (a PyTorch program that uses NumPy
    next to torch, as the tensors page's NumPy bridge does, keeps it when moving to funcgrad).
    """
    lines, changed = [], 0
    for line in source.splitlines():
        m = _IMPORT.match(line)
        if m and (numpy or m.group(2) == "torch"):
            indent, lib, sub, alias, _comment = m.groups()
            target = "funcgrad" + (".numpy" if lib == "numpy" else sub)
            line = f"{indent}import {target} as {alias or lib}"
            changed += 1
        m = _FROM.match(line)
        if m:  # from torch.utils.data import DataLoader -> from funcgrad.utils.data import ...
            indent, sub, names = m.groups()
            line = f"{indent}from funcgrad{sub} import {names}"
            changed += 1
        lines.append(line)
    assert changed, "the page imports neither torch nor numpy"
    return "\n".join(lines) + "\n"


class Draws:
    """The random numbers of a reference run, handed to funcgrad's random functions.

    `record(torch)` (a context) wraps `torch.randn`, `torch.rand`, `torch.rand_like`,
    `Tensor.uniform_` and `Tensor.normal_` (which `nn.init` uses for the layers'
    default initialisation: `nn.Linear`, `nn.Conv2d`, `nn.LSTM`, `nn.Embedding`),
    `torch.randperm` (which a shuffling `DataLoader`'s sampler calls), the masks
    `F.dropout` draws (so `nn.Dropout` drops the same elements) and NumPy's
    `np.random.randn`, keeping what each returns. `replay()` makes
    `funcgrad.randn`, `funcgrad.rand`, `funcgrad.rand_like`, `funcgrad.nn.init.uniform_`,
    `funcgrad.nn.init.normal_`, `funcgrad.randperm` (also the sampler's),
    `funcgrad.nn.functional.dropout` and `funcgrad.numpy.random.randn` return
    those values in order. PyTorch runs on one thread meanwhile (the pages'
    tensors are small; its worker threads only slowed it on a loaded machine).
    """

    def __init__(self, empty: bool = False) -> None:
        self.values: list[tuple[str, np.ndarray]] = []
        self.used = 0
        # With `empty`, what `torch.empty`/`empty_like` return (whatever was in memory) is
        # shared too, for pages that print uninitialised tensors.
        self.empty = empty
        self._dropout = F.dropout

    @contextlib.contextmanager
    def record(self, torch: Any):
        with pytest.MonkeyPatch.context() as mp:
            randn, uniform_, np_randn = torch.randn, torch.Tensor.uniform_, np.random.randn
            rand, normal_, randperm = torch.rand, torch.Tensor.normal_, torch.randperm
            rand_like = torch.rand_like

            def rec_randn(*args, **kwargs):
                out = randn(*args, **kwargs)
                self.values.append(("randn", out.detach().cpu().numpy().copy()))
                return out

            def rec_rand(*args, **kwargs):
                out = rand(*args, **kwargs)
                self.values.append(("rand", out.detach().cpu().numpy().copy()))
                return out

            def recorded(kind, draw):
                def rec(*args, **kwargs):
                    out = draw(*args, **kwargs)
                    self.values.append((kind, out.detach().cpu().numpy().copy()))
                    return out

                return rec

            dropout = torch.nn.functional.dropout

            def rec_dropout(input, p=0.5, training=True, inplace=False):
                out = dropout(input, p, training, inplace)
                if training and 0 < p < 1:  # the mask it drew: what it kept
                    self.values.append(("dropout", out.detach().cpu().numpy() != 0))
                return out

            def rec_rand_like(*args, **kwargs):
                out = rand_like(*args, **kwargs)
                self.values.append(("rand", out.detach().cpu().numpy().copy()))
                return out

            def rec_normal_(t, *args, **kwargs):
                out = normal_(t, *args, **kwargs)
                self.values.append(("normal_", t.detach().cpu().numpy().copy()))
                return out

            def rec_randperm(*args, **kwargs):
                out = randperm(*args, **kwargs)
                self.values.append(("randperm", out.cpu().numpy().copy()))
                return out

            def rec_uniform_(t, *args, **kwargs):
                out = uniform_(t, *args, **kwargs)
                self.values.append(("uniform_", t.detach().cpu().numpy().copy()))
                return out

            def rec_np_randn(*args):
                out = np_randn(*args)
                self.values.append(("np.randn", np.asarray(out).copy()))
                return out

            mp.setattr(torch, "randn", rec_randn)
            mp.setattr(torch, "rand", rec_rand)
            mp.setattr(torch, "rand_like", rec_rand_like)
            mp.setattr(torch.nn.functional, "dropout", rec_dropout)
            if self.empty:
                for name in ("empty", "empty_like"):
                    mp.setattr(torch, name, recorded("empty", getattr(torch, name)))
            mp.setattr(torch, "randperm", rec_randperm)
            mp.setattr(torch.Tensor, "uniform_", rec_uniform_)
            mp.setattr(torch.Tensor, "normal_", rec_normal_)
            mp.setattr(np.random, "randn", rec_np_randn)
            random.seed(0)
            # NOTE: one thread: the pages' tensors are small, and on a loaded machine
            # PyTorch's worker threads made its run of an LSTM page 8x slower (11 s CPU).
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                yield
            finally:
                torch.set_num_threads(threads)

    def _next(self, kind: str, shape: tuple[int, ...]) -> np.ndarray:
        assert self.used < len(self.values), f"funcgrad draws more than the reference ({kind})"
        theirs, value = self.values[self.used]
        self.used += 1
        assert (theirs, value.shape) == (kind, tuple(shape)), (
            f"draw {self.used}: funcgrad asks {kind} of shape {tuple(shape)}, "
            f"the reference drew {theirs} of shape {value.shape}"
        )
        return value

    @contextlib.contextmanager
    def replay(self):
        with pytest.MonkeyPatch.context() as mp:
            randn, np_randn = funcgrad.randn, funcgrad.numpy.random.randn
            rand, randperm, rand_like = funcgrad.rand, funcgrad.randperm, funcgrad.rand_like

            def replayed(kind, draw):
                def rep(*args, **kwargs):
                    out = draw(*args, **kwargs)  # funcgrad's own call: its checks, dtype, device
                    value = self._next(kind, tuple(out.shape))
                    if kwargs.get("out") is not None:  # torch.rand(2, 2, out=c) fills c
                        with funcgrad.no_grad():
                            return out.copy_(funcgrad.from_numpy(value))
                    return funcgrad.tensor(
                        value, dtype=out.dtype, device=out.device, requires_grad=out.requires_grad
                    )

                return rep

            def rep_uniform_(tensor, a=0.0, b=1.0, generator=None):
                value = self._next("uniform_", tuple(tensor.shape))
                with funcgrad.no_grad():
                    return tensor.copy_(funcgrad.from_numpy(value))

            def rep_dropout(input, p=0.5, training=True, inplace=False):
                if not (training and 0 < p < 1):
                    return self._dropout(input, p, training, inplace)
                kept = self._next("dropout", tuple(input.shape))
                # PyTorch's formula: input * (mask / (1 - p)), the scale in input's dtype
                scale = funcgrad.from_numpy((kept / (1 - p)).astype(input.dtype))
                out = input * scale
                return input.copy_(out) if inplace else out

            def rep_normal_(tensor, mean=0.0, std=1.0, generator=None):
                value = self._next("normal_", tuple(tensor.shape))
                with funcgrad.no_grad():
                    return tensor.copy_(funcgrad.from_numpy(value))

            def rep_np_randn(*args):
                out = np.asarray(np_randn(*args))
                value = self._next("np.randn", out.shape)
                return value if value.ndim else float(value)

            mp.setattr(funcgrad, "randn", replayed("randn", randn))
            mp.setattr(funcgrad, "rand", replayed("rand", rand))
            mp.setattr(funcgrad, "rand_like", replayed("rand", rand_like))
            mp.setattr(F, "dropout", rep_dropout)
            if self.empty:
                for name in ("empty", "empty_like"):
                    mp.setattr(funcgrad, name, replayed("empty", getattr(funcgrad, name)))
            mp.setattr(funcgrad, "randperm", replayed("randperm", randperm))
            mp.setattr(funcgrad.utils.data.sampler, "randperm", replayed("randperm", randperm))
            mp.setattr(funcgrad.nn.init, "uniform_", rep_uniform_)
            mp.setattr(funcgrad.nn.init, "normal_", rep_normal_)
            mp.setattr(funcgrad.numpy.random, "randn", rep_np_randn)
            random.seed(0)
            yield
        assert self.used == len(self.values), "funcgrad drew fewer numbers than the reference"


def run(source: str, name: str, given: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Execute `source`; return what it printed and its global names.

    `given` are global names the page finds already set (the data a test puts in place of
    a download, say).
    """
    namespace: dict[str, Any] = {"__name__": f"__page_{name}__", **(given or {})}
    out = io.StringIO()
    with _default_devices_kept(), contextlib.redirect_stdout(out):
        exec(compile(source, f"<page {name}>", "exec"), namespace)
    return out.getvalue(), namespace


@contextlib.contextmanager
def _default_devices_kept():
    """Undo a page's `torch.set_default_device(...)` (in PyTorch and in funcgrad) afterwards.

    The setting is process-wide; left in place, PyTorch's device mode changes what later
    tests compute (F.l1_loss with a weight gives another value under it).
    """
    torch = sys.modules.get("torch")
    ours = funcgrad.get_default_device()
    try:
        yield
    finally:
        funcgrad.set_default_device(ours)
        if torch is not None:
            torch.set_default_device(None)


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def split_numbers(text: str) -> tuple[list[str], list[float]]:
    """The text between the numbers (addresses dropped), and the numbers."""
    text = _ADDRESS.sub(" at 0x", text)
    return _NUMBER.split(text), [float(n) for n in _NUMBER.findall(text)]


def assert_same_printout(
    ours: str, theirs: str, rtol: float, atol: float, layout: bool = True
) -> None:
    """The same text, and numbers equal to `rtol`/`atol`.

    With `layout=False`, runs of white space count as one space: a printed tensor's columns
    are as wide as its widest number, so a value that differs in its last bit and sign
    (1e-7 for -1e-7) moves the columns.
    """
    our_text, our_numbers = split_numbers(ours)
    their_text, their_numbers = split_numbers(theirs)
    if not layout:
        our_text = [re.sub(r"\s+", " ", t) for t in our_text]
        their_text = [re.sub(r"\s+", " ", t) for t in their_text]
    assert our_text == their_text, f"printed text differs:\n{ours}\n--- PyTorch ---\n{theirs}"
    np.testing.assert_allclose(our_numbers, their_numbers, rtol=rtol, atol=atol)
