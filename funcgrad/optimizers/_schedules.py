"""Schedules: functions from a step count (0, 1, ...) to a value, such as a learning rate (optax's).

Pass one where a transformation takes a learning rate (`adam(schedule)`):
its state then counts the steps, and the schedule's value at the count
scales the updates. Each schedule works on Python ints and on integer arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import funcgrad.numpy as fnp

__all__ = [
    "Schedule",
    "constant_schedule",
    "cosine_decay_schedule",
    "exponential_decay",
    "join_schedules",
    "linear_schedule",
    "piecewise_constant_schedule",
    "polynomial_schedule",
    "warmup_cosine_decay_schedule",
]

Schedule = Callable[[Any], Any]


def constant_schedule(value: float) -> Schedule:
    """The same value at every step.

    Examples:
        >>> constant_schedule(0.1)(1000)
        0.1
    """
    return lambda count: value


def polynomial_schedule(
    init_value: float,
    end_value: float,
    power: float,
    transition_steps: int,
    transition_begin: int = 0,
) -> Schedule:
    """From `init_value` to `end_value` along `(1 - t / transition_steps) ** power`, then constant.

    `t` counts from `transition_begin`. With `transition_steps <= 0` the
    value stays `init_value` (optax's rule).

    Examples:
        >>> s = polynomial_schedule(1.0, 0.0, power=2, transition_steps=4)
        >>> [float(s(t)) for t in (0, 2, 4, 9)]
        [1.0, 0.25, 0.0, 0.0]
    """
    if transition_steps <= 0:
        return constant_schedule(init_value)

    def schedule(count: Any) -> Any:
        t = fnp.clip(fnp.asarray(count) - transition_begin, 0, transition_steps)
        frac = 1 - t / transition_steps
        return (init_value - end_value) * (frac**power) + end_value

    return schedule


def linear_schedule(
    init_value: float, end_value: float, transition_steps: int, transition_begin: int = 0
) -> Schedule:
    """From `init_value` to `end_value` linearly over `transition_steps` steps, then constant.

    Examples:
        >>> s = linear_schedule(0.0, 1.0, transition_steps=4)
        >>> [float(s(t)) for t in (0, 1, 4, 10)]
        [0.0, 0.25, 1.0, 1.0]
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def exponential_decay(
    init_value: float,
    transition_steps: int,
    decay_rate: float,
    transition_begin: int = 0,
    staircase: bool = False,
    end_value: float | None = None,
) -> Schedule:
    """`init_value * decay_rate ** ((t - transition_begin) / transition_steps)`, bounded by `end_value`.

    Before `transition_begin` the value is `init_value`. With `staircase`
    the exponent is rounded down (decays in steps). `end_value` is a lower
    bound when decaying (`decay_rate < 1`), an upper one when growing.
    With `transition_steps <= 0` or `decay_rate == 0` the value stays
    `init_value` (optax's rule).

    Examples:
        >>> s = exponential_decay(1.0, transition_steps=2, decay_rate=0.5, staircase=True)
        >>> [float(s(t)) for t in (0, 1, 2, 5)]
        [1.0, 1.0, 0.5, 0.25]
    """
    if transition_steps <= 0 or decay_rate == 0:
        return constant_schedule(init_value)
    transition_begin = max(transition_begin, 0)
    clip = fnp.maximum if decay_rate < 1.0 else fnp.minimum

    def schedule(count: Any) -> Any:
        decreased = fnp.asarray(count) - transition_begin
        p = decreased / transition_steps
        if staircase:
            p = fnp.floor(p)
        value = fnp.where(decreased <= 0, init_value, init_value * fnp.power(decay_rate, p))
        if end_value is not None:
            value = clip(value, end_value)
        return value

    return schedule


def cosine_decay_schedule(
    init_value: float, decay_steps: int, alpha: float = 0.0, exponent: float = 1.0
) -> Schedule:
    """A half cosine from `init_value` to `alpha * init_value` over `decay_steps`, then constant.

    `init_value * ((1 - alpha) * (0.5 * (1 + cos(pi * t / decay_steps))) ** exponent + alpha)`.

    Raises:
        ValueError: If `decay_steps` is not positive.

    Examples:
        >>> s = cosine_decay_schedule(1.0, decay_steps=4, alpha=0.1)
        >>> [round(float(s(t)), 4) for t in (0, 2, 4, 8)]
        [1.0, 0.55, 0.1, 0.1]
    """
    if not decay_steps > 0:
        raise ValueError("The cosine_decay_schedule requires positive decay_steps!")

    def schedule(count: Any) -> Any:
        t = fnp.minimum(fnp.asarray(count), decay_steps)
        cosine = 0.5 * (1 + fnp.cos(math.pi * t / decay_steps))
        return init_value * ((1 - alpha) * cosine**exponent + alpha)

    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """Run `schedules[i]` from `boundaries[i - 1]` on, each counting from 0 at its boundary.

    Examples:
        >>> s = join_schedules([constant_schedule(1.0), linear_schedule(1.0, 0.0, 2)], [3])
        >>> [float(s(t)) for t in range(6)]
        [1.0, 1.0, 1.0, 1.0, 0.5, 0.0]
    """

    def schedule(count: Any) -> Any:
        output = schedules[0](count)
        for boundary, nxt in zip(boundaries, schedules[1:], strict=True):
            output = fnp.where(fnp.asarray(count) < boundary, output, nxt(count - boundary))
        return output

    return schedule


def warmup_cosine_decay_schedule(
    init_value: float,
    peak_value: float,
    warmup_steps: int,
    decay_steps: int,
    end_value: float = 0.0,
    exponent: float = 1.0,
) -> Schedule:
    """A linear warm-up from `init_value` to `peak_value`, then a cosine decay to `end_value`.

    `decay_steps` counts the warm-up too (the total length), as in optax.

    Examples:
        >>> s = warmup_cosine_decay_schedule(0.0, 1.0, warmup_steps=2, decay_steps=6)
        >>> [round(float(s(t)), 3) for t in range(7)]
        [0.0, 0.5, 1.0, 0.854, 0.5, 0.146, 0.0]
    """
    alpha = 0.0 if peak_value == 0.0 else end_value / peak_value
    return join_schedules(
        [
            linear_schedule(init_value, peak_value, warmup_steps),
            cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent),
        ],
        [warmup_steps],
    )


def piecewise_constant_schedule(
    init_value: float, boundaries_and_scales: dict[int, float] | None = None
) -> Schedule:
    """`init_value`, multiplied by `scale` from each boundary step on.

    Raises:
        ValueError: For a negative scale.

    Examples:
        >>> s = piecewise_constant_schedule(1.0, {2: 0.5, 4: 0.1})
        >>> [float(s(t)) for t in range(6)]
        [1.0, 1.0, 0.5, 0.5, 0.05, 0.05]
    """
    if boundaries_and_scales is not None:
        if not all(scale >= 0.0 for scale in boundaries_and_scales.values()):
            raise ValueError("`piecewise_constant_schedule` expects non-negative scale factors")

    def schedule(count: Any) -> Any:
        v: Any = init_value
        for threshold, scale in sorted((boundaries_and_scales or {}).items()):
            # 1 before the boundary, 0 from it on
            indicator = fnp.maximum(0.0, fnp.sign(threshold - fnp.asarray(count)))
            v = v * indicator + (1 - indicator) * scale * v
        return v

    return schedule
