"""The survey's verdicts (docs/interfaces.md §6): does a wonder side's win rate (or a card's effect) say
the same thing under every population of players?

For one row (players × wonder × side, or players × card), population p's sign d_p is +1 or −1
when its estimate is above or below the reference (the fair share, or 0 for an effect) with
q < 0.05 in its family, else 0 (a population without an estimate has d_p = 0 too). The verdict is
- `robust`: every d_p equal and non-zero (magnitudes may differ: min and max show them);
- `depends on population`: else, when two populations with estimates and d_p ≠ d_p′ differ from
  each other on their shared games with q < 0.05 (the paired test of pairs.csv);
- `not resolved`: else, with `games_needed`: the games at which the least-resolved population's
  observed deviation (or, when every population is resolved but their signs differ, the
  least-resolved opposite pair's difference) would reach significance with 80% power, at the
  Bonferroni threshold 0.05/m of its family of m comparisons (BH's threshold is never stricter,
  so this is the conservative count), and never fewer than the games already played. A
  population exactly at the reference gives no direction: it counts only when no other is open,
  and then the answer is `inf`.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats as sps

from wsim.analysis.significance import FINDING_Q

ROBUST, DEPENDS, NOT_RESOLVED = "robust", "depends on population", "not resolved"
POWER = 0.8
Z_POWER = float(sps.norm.ppf(POWER))


def _at_least(games: float, played: int) -> float:
    """A games count for an unresolved row: more than it has played (it is not significant yet)."""
    return float(max(math.ceil(games), played + 1))


def games_for_rate(rate: float, fair: float, seats: int, games: int, critical: float) -> float:
    """Games at which a win rate `rate` (observed on `seats` seats in `games` games) would differ
    from `fair` by the score test at `critical` with POWER: seats from the power formula of the
    one-sample proportion test, at the row's seats per game; inf at rate == fair."""
    if rate == fair or math.isnan(rate):
        return math.inf
    need = ((critical * math.sqrt(fair * (1 - fair)) + Z_POWER * math.sqrt(rate * (1 - rate))) / abs(rate - fair)) ** 2
    return _at_least(need * games / seats, games)


def games_for_estimate(estimate: float, se: float, games: int, critical: float) -> float:
    """Games at which `estimate`, whose standard error is `se` at `games` games (it shrinks as
    1/sqrt(games)), would reach `critical` with POWER; inf for an estimate of 0."""
    if estimate == 0 or math.isnan(estimate) or math.isnan(se):
        return math.inf
    return _at_least(games * ((critical + Z_POWER) * se / abs(estimate)) ** 2, games)


def _sign(deviation: float, q: float) -> int:
    if not q < FINDING_Q:  # NaN (no estimate) is no evidence either way
        return 0
    return 1 if deviation > 0 else -1 if deviation < 0 else 0


def verdicts(rows: pd.DataFrame, pairs: pd.DataFrame, key: list) -> pd.DataFrame:
    """One verdict per `key` group of `rows`.

    rows: one per population and key, with `population`, `value` (the rate or effect shown as
    min and max), `deviation` (from the reference; NaN: no estimate), `q_value` and `needed`
    (the row's own games_needed: games_for_rate or games_for_estimate).
    pairs: one per key and pair of populations, with `population_a`, `population_b`, `q_value`
    and `needed`.
    Returns key + verdict, min, max, populations (those with an estimate, space-separated),
    games_needed (NaN unless `not resolved`; NaN too when nothing can say how many)."""
    pair_index = {k if isinstance(k, tuple) else (k,): g for k, g in pairs.groupby(key)} if len(pairs) else {}
    out = []
    for k, group in rows.groupby(key, sort=False):
        k = k if isinstance(k, tuple) else (k,)
        estimated = group[group.deviation.notna()]
        signs = {r.population: _sign(r.deviation, r.q_value) for r in estimated.itertuples()}
        values = set(signs.values())
        needed = math.nan
        if len(estimated) == len(group) and len(values) == 1 and 0 not in values:
            verdict = ROBUST
        else:
            opposed = [r for r in pair_index.get(k, pd.DataFrame()).itertuples()
                       if r.population_a in signs and r.population_b in signs
                       and signs[r.population_a] != signs[r.population_b]]
            if any(r.q_value < FINDING_Q for r in opposed):
                verdict = DEPENDS
            else:
                verdict = NOT_RESOLVED
                open_rows = [r for r in estimated.itertuples() if signs[r.population] == 0]
                moving = [r.needed for r in open_rows if r.deviation != 0]
                if moving:
                    needed = max(moving)
                elif open_rows:
                    needed = math.inf
                elif opposed:
                    needed = max(r.needed for r in opposed)
        out.append({**dict(zip(key, k)), "verdict": verdict,
                    "min": estimated.value.min() if len(estimated) else math.nan,
                    "max": estimated.value.max() if len(estimated) else math.nan,
                    "populations": " ".join(estimated.population), "games_needed": needed})
    return pd.DataFrame(out, columns=[*key, "verdict", "min", "max", "populations", "games_needed"])


def games_text(games: float) -> str:
    """games_needed as a table holds it: a whole number (not 1.2e+06), "inf" when no count of
    games would do (a deviation of 0), empty for none (NaN)."""
    return "" if pd.isna(games) else "inf" if math.isinf(games) else str(int(games))


def normal_critical(m: int) -> float:
    """The two-sided normal threshold at 0.05/m."""
    return float(sps.norm.ppf(1 - 0.05 / (2 * max(m, 1))))


def t_critical(m: int, df: int) -> float:
    """The two-sided threshold at 0.05/m of a t test with `df` degrees of freedom (the jackknife's)."""
    return float(sps.t.ppf(1 - 0.05 / (2 * max(m, 1)), df)) if df >= 1 else math.nan
