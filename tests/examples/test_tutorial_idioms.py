"""Idioms of PyTorch's beginner tutorials, in one short program of our own, run on funcgrad as on PyTorch.

Each line below met a gap when PyTorch's tutorials (basics, blitz, nlp, introyt)
were run with their import lines pointed at funcgrad: legacy `torch.LongTensor`,
`out=` on functions and random draws, `torch.unique`, the in-place function
`torch.sin_` and method `unsqueeze_`, `'{}'.format(loss)` of a 0-dim tensor,
`print(type(x))`, `import torch.functional as F`, an import line with a comment.
The program runs as written and with its imports changed (`harness.with_funcgrad`),
with the same random numbers; both print the same text and numbers.
"""

from __future__ import annotations

from tests.examples import harness
from tests.references import requires

torch = requires("torch")

PROGRAM = """
import torch
import torch.nn as nn  # layers
import torch.functional as F
from torch.utils.data import DataLoader, TensorDataset

tokens = "the cat saw the dog and the cat".split()
vocab = {w: i for i, w in enumerate(sorted(set(tokens)))}
ids = torch.LongTensor([vocab[w] for w in tokens])
print(ids, ids.dtype == torch.int64, isinstance(ids, torch.LongTensor), isinstance(ids.float(), torch.LongTensor))
values, counts = torch.unique(ids, return_counts=True)
print(values, counts, ids.unique(sorted=True, return_inverse=True)[1])

a = torch.randn(2, 3)
b = torch.randn(3, 2)
c = torch.zeros(2, 2)
d = torch.matmul(a, b, out=c)
print(d is c, c)
e = torch.empty(2, 3)
torch.add(a, a, alpha=2, out=e)
torch.mul(e, 0.5, out=e)
print(e)
print(torch.cat([a, a], dim=0, out=torch.empty(4, 3)).shape)

s = torch.randn(4)
print(torch.sin_(s) is s, s)
s.unsqueeze_(0)
print(s.shape, s.t_().shape)
print(type(s))
print(F.einsum("ij->j", s))

layer = nn.Linear(3, 2)
data = TensorDataset(torch.randn(6, 3), torch.LongTensor([0, 1, 1, 0, 1, 0]))
total = 0.0
for x, y in DataLoader(data, batch_size=4):
    loss = nn.functional.cross_entropy(layer(x), y)
    total += loss
print("total {}".format(total / 2), "last {:.4f}".format(loss))
"""


def test_the_idioms_print_the_same_on_funcgrad():
    torch.manual_seed(0)
    draws = harness.Draws()
    with draws.record(torch):
        theirs, _ = harness.run(PROGRAM, "idioms")
    with draws.replay():
        ours, ns = harness.run(harness.with_funcgrad(PROGRAM), "idioms")
    assert ns["torch"].__name__ == "funcgrad" and ns["nn"].__name__ == "funcgrad.nn"
    assert "torch.Tensor" in theirs and "total " in theirs
    harness.assert_same_printout(ours, theirs.replace("torch.", "funcgrad."), rtol=1e-4, atol=1e-4)
