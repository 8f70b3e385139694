"""`funcgrad.distributions` is PyTorch's `torch.distributions`: probability distributions with
`sample`, reparameterised `rsample`, `log_prob`, `entropy`, moments and `kl_divergence`.

Parameters are `Tensor`s (numbers and NumPy arrays are converted), so gradients of
`log_prob`, `entropy`, `kl_divergence` and `rsample`-based expressions reach them: enough
for variational autoencoders (`Normal.rsample`) and policy gradients (`Categorical.log_prob`).
Draws come from funcgrad's generators (`funcgrad.manual_seed`). Layer: training (it imports
tensors, numpy, scipy, ops).
"""

from funcgrad.distributions import constraints
from funcgrad.distributions.bernoulli import Bernoulli
from funcgrad.distributions.beta import Beta
from funcgrad.distributions.binomial import Binomial
from funcgrad.distributions.categorical import Categorical
from funcgrad.distributions.dirichlet import Dirichlet
from funcgrad.distributions.distribution import Distribution
from funcgrad.distributions.exponential import Exponential
from funcgrad.distributions.gamma import Gamma
from funcgrad.distributions.independent import Independent
from funcgrad.distributions.kl import kl_divergence, register_kl
from funcgrad.distributions.laplace import Laplace
from funcgrad.distributions.log_normal import LogNormal
from funcgrad.distributions.multivariate_normal import MultivariateNormal
from funcgrad.distributions.normal import Normal
from funcgrad.distributions.one_hot_categorical import OneHotCategorical
from funcgrad.distributions.poisson import Poisson
from funcgrad.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "Gamma",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
