"""`funcgrad.optimizers`: pure optimizers over pytrees, in optax's shape.

An optimizer is a `GradientTransformation(init, update)`: `init(params)`
returns a state (NamedTuples of arrays), `update(grads, state, params)`
returns `(updates, new_state)`, and `apply_updates(params, updates)` takes
the step. Nothing changes in place, so a whole training step is a pure
function that `funcgrad.grad` can differentiate (meta-learning). Building
blocks (`scale_by_adam`, `trace`, `clip_by_global_norm`, ...) compose with
`chain`; learning rates may be schedules of the step count.

Why this name: DESIGN's layer table names the package `optimizers` (the
training layer: "pure optax-style optimizers over pytrees"), beside the
imperative `funcgrad.optim` that is `torch.optim`; the API follows optax,
the functional optimizers JAX users know (`jax.example_libraries.optimizers`
is the older triple-of-functions style). HIPS autograd's drivers are
`funcgrad.misc.optimizers`. Layer: training (it may import everything below
it; it needs only `funcgrad.numpy` and the pytree functions).
"""

from funcgrad.optimizers._aliases import adagrad, adam, adamw, lamb, lion, nadam, rmsprop, sgd
from funcgrad.optimizers._base import (
    EmptyState,
    GradientTransformation,
    apply_updates,
    chain,
    global_norm,
    identity,
)
from funcgrad.optimizers._schedules import (
    Schedule,
    constant_schedule,
    cosine_decay_schedule,
    exponential_decay,
    join_schedules,
    linear_schedule,
    piecewise_constant_schedule,
    polynomial_schedule,
    warmup_cosine_decay_schedule,
)
from funcgrad.optimizers._transforms import (
    AddDecayedWeightsState,
    ClipByGlobalNormState,
    ClipState,
    ScaleByAdamState,
    ScaleByLionState,
    ScaleByRmsState,
    ScaleByRssState,
    ScaleByRStdDevState,
    ScaleByScheduleState,
    ScaleByTrustRatioState,
    ScaleState,
    TraceState,
    add_decayed_weights,
    clip,
    clip_by_global_norm,
    scale,
    scale_by_adam,
    scale_by_learning_rate,
    scale_by_lion,
    scale_by_rms,
    scale_by_rss,
    scale_by_schedule,
    scale_by_stddev,
    scale_by_trust_ratio,
    trace,
)

__all__ = [
    "AddDecayedWeightsState",
    "ClipByGlobalNormState",
    "ClipState",
    "EmptyState",
    "GradientTransformation",
    "ScaleByAdamState",
    "ScaleByLionState",
    "ScaleByRStdDevState",
    "ScaleByRmsState",
    "ScaleByRssState",
    "ScaleByScheduleState",
    "ScaleByTrustRatioState",
    "ScaleState",
    "Schedule",
    "TraceState",
    "adagrad",
    "adam",
    "adamw",
    "add_decayed_weights",
    "apply_updates",
    "chain",
    "clip",
    "clip_by_global_norm",
    "constant_schedule",
    "cosine_decay_schedule",
    "exponential_decay",
    "global_norm",
    "identity",
    "join_schedules",
    "lamb",
    "linear_schedule",
    "lion",
    "nadam",
    "piecewise_constant_schedule",
    "polynomial_schedule",
    "rmsprop",
    "scale",
    "scale_by_adam",
    "scale_by_learning_rate",
    "scale_by_lion",
    "scale_by_rms",
    "scale_by_rss",
    "scale_by_schedule",
    "scale_by_stddev",
    "scale_by_trust_ratio",
    "sgd",
    "trace",
    "warmup_cosine_decay_schedule",
]
