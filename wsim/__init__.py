"""wsim: a high-throughput Monte Carlo simulator of 7 Wonders (first edition, base game)."""

__version__ = "0.1.0"

# Bumped whenever any game outcome for the same (data, seed, settings) can change.
RULES_VERSION = 5  # 5: a rollout's playouts deal the hidden cards with kernels/hidden.resample_hidden
