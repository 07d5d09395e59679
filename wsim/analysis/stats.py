"""Small statistics of the base install: proportions and means with their 95% intervals.

No statsmodels here: `wsim ladder`, `wsim learn` and the end-of-run summary of `wsim simulate`
use these, and the base install has no analysis extra (nor should a simulate's start pay for
importing it). The analysis commands take their intervals and tests from statsmodels
(wsim.analysis.significance); tests/test_stats_against_statsmodels.py holds wilson_interval equal to
statsmodels' Wilson interval to 1e-12.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal quantile of 0.975


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple:
    """The Wilson score interval (95% by default) of a proportion successes / trials; (0, 1)
    when there are no trials."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # at 0 or `trials` successes the bound is exactly 0 or 1 (rounding would leave 5e-17)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def mean_half_width(sd, n, z: float = Z95):
    """The half width of the normal interval (95% by default) of a mean of n independent
    observations whose standard deviation is sd (numbers, or pandas columns alike)."""
    return z * sd / n ** 0.5
