"""Padding, pixel-shuffle and distance modules against `torch.nn`'s (outputs, gradients, reprs)."""

from __future__ import annotations

import numpy as np
import pytest

import funcgrad as fg
from tests.nn.modcheck import check_module
from tests.references import requires

torch = requires("torch")

_MISSING = [
    name
    for name in (
        "pad",
        "pixel_shuffle",
        "pixel_unshuffle",
        "cosine_similarity",
        "pairwise_distance",
    )
    if not hasattr(fg.nn.functional, name)
]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"funcgrad.nn.functional lacks {_MISSING}")

CASES = [
    (lambda nn: nn.ZeroPad1d(2), (2, 3, 4)),
    (lambda nn: nn.ZeroPad2d((1, 1, 2, 0)), (1, 2, 3, 3)),
    (lambda nn: nn.ZeroPad3d(1), (1, 1, 2, 2, 2)),
    (lambda nn: nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    (lambda nn: nn.ConstantPad2d((0, 1, 2, 1), -1.0), (1, 2, 3, 3)),
    (lambda nn: nn.ConstantPad3d(1, 0.5), (1, 1, 2, 2, 2)),
    (lambda nn: nn.ReflectionPad1d(2), (1, 2, 5)),
    (lambda nn: nn.ReflectionPad2d(1), (1, 2, 3, 3)),
    (lambda nn: nn.ReflectionPad3d(1), (1, 1, 2, 3, 3)),
    (lambda nn: nn.ReplicationPad1d((2, 1)), (1, 2, 4)),
    (lambda nn: nn.ReplicationPad2d(2), (1, 1, 3, 3)),
    (lambda nn: nn.ReplicationPad3d(1), (1, 1, 2, 2, 2)),
    (lambda nn: nn.CircularPad1d(1), (1, 2, 4)),
    (lambda nn: nn.CircularPad2d(1), (1, 1, 3, 3)),
    (lambda nn: nn.CircularPad3d(1), (1, 1, 2, 2, 2)),
    (lambda nn: nn.PixelShuffle(2), (1, 8, 2, 3)),
    (lambda nn: nn.PixelUnshuffle(2), (1, 2, 4, 6)),
]


@pytest.mark.parametrize("make,shape", CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_shape_layers_match_pytorch(make, shape, dtype):
    check_module(make, [np.random.default_rng(0).standard_normal(shape)], dtype=dtype)
    assert repr(make(fg.nn)) == repr(make(torch.nn))


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.CosineSimilarity(),
        lambda nn: nn.CosineSimilarity(dim=0, eps=1e-3),
        lambda nn: nn.PairwiseDistance(),
        lambda nn: nn.PairwiseDistance(p=3.0, keepdim=True),
    ],
)
def test_distances_match_pytorch(make):
    rng = np.random.default_rng(1)
    check_module(make, [rng.standard_normal((3, 4)), rng.standard_normal((3, 4))])
    assert repr(make(fg.nn)) == repr(make(torch.nn))
