"""The survey's verdicts (INTERFACES §6): does a wonder side's win rate (or a card's effect) say
the same thing under every population of players?

For one row (players × wonder × side, or players × card), population p's sign d_p is +1 or −1
when its estimate is above or below the reference (the fair share, or 0 for an effect) with
q < 0.05 in its family, else 0. The verdict is
- `robust`: every d_p equal and non-zero (magnitudes may differ: min and max show them);
- `depends on population`: else, when two populations with d_p ≠ d_p′ differ from each other on
  their shared games with q < 0.05 (the paired test of pairs.csv);
- `not resolved`: else, with `games_needed`: the games at which the least-resolved population's
  observed deviation (or, when every population is resolved but their signs differ, the
  least-resolved opposite pair's difference) would reach significance with 80% power, at the
  Bonferroni threshold 0.05/m of its family of m comparisons (BH's threshold is never stricter,
  so this is the conservative count). A deviation of exactly 0 needs infinitely many games.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats as sps

from wsim.analysis.significance import FINDING_Q

ROBUST, DEPENDS, NOT_RESOLVED = "robust", "depends on population", "not resolved"
POWER = 0.8


def games_needed(deviation: float, se: float, games: int, critical: float) -> float:
    """Games at which `deviation`, whose standard error is `se` at `games` games, reaches
    `critical` (the test's two-sided threshold) with POWER; inf for a zero deviation."""
    if deviation == 0 or math.isnan(deviation) or math.isnan(se):
        return math.inf
    return math.ceil(games * ((critical + sps.norm.ppf(POWER)) * se / abs(deviation)) ** 2)


def _sign(deviation: float, q: float) -> int:
    if not q < FINDING_Q:  # NaN (no estimate) is no evidence either way
        return 0
    return 1 if deviation > 0 else -1 if deviation < 0 else 0


def verdicts(rows: pd.DataFrame, pairs: pd.DataFrame, key: list, critical) -> pd.DataFrame:
    """One verdict per `key` group of `rows`.

    rows: one per population and key, with `population`, `value` (the rate or effect shown as
    min and max), `deviation` (from the reference), `se`, `games`, `q_value`; a row without an
    estimate (NaN deviation: a card too rare in that population) takes no part, and a key
    without any estimate is `not resolved` with no games_needed.
    pairs: one per key and pair of populations, with `population_a`, `population_b`, `diff`,
    `se`, `games`, `q_value`.
    critical(m): the two-sided threshold of a test at 0.05/m (m: the family's size).
    Returns key + verdict, min, max, populations (names, space-separated), games_needed."""
    family = rows.groupby("players")["q_value"].count().to_dict()
    pair_family = pairs.groupby("players")["q_value"].count().to_dict() if len(pairs) else {}
    pair_index = {tuple(k): g for k, g in pairs.groupby(key)} if len(pairs) else {}
    out = []
    for k, group in rows.groupby(key, sort=False):
        k = k if isinstance(k, tuple) else (k,)
        group = group[group.deviation.notna()]  # a population without an estimate says nothing
        if not len(group):
            out.append({**dict(zip(key, k)), "verdict": NOT_RESOLVED, "min": math.nan, "max": math.nan,
                        "populations": "", "games_needed": math.nan})
            continue
        signs = {r.population: _sign(r.deviation, r.q_value) for r in group.itertuples()}
        needed = math.nan
        values = set(signs.values())
        if len(values) == 1 and 0 not in values:
            verdict = ROBUST
        else:
            opposed = [r for r in pair_index.get(k, pd.DataFrame()).itertuples()
                       if signs.get(r.population_a) != signs.get(r.population_b)]
            if any(r.q_value < FINDING_Q for r in opposed):
                verdict = DEPENDS
            else:
                verdict = NOT_RESOLVED
                players = k[0]
                open_rows = [r for r in group.itertuples() if signs[r.population] == 0]
                if open_rows:
                    c = critical(max(family.get(players, 1), 1))
                    needed = max(games_needed(r.deviation, r.se, r.games, c) for r in open_rows)
                elif opposed:
                    c = critical(max(pair_family.get(players, 1), 1))
                    needed = max(games_needed(r.diff, r.se, r.games, c) for r in opposed)
        out.append({**dict(zip(key, k)), "verdict": verdict, "min": group.value.min(), "max": group.value.max(),
                    "populations": " ".join(group.population), "games_needed": needed})
    return pd.DataFrame(out, columns=[*key, "verdict", "min", "max", "populations", "games_needed"])


def normal_critical(m: int) -> float:
    """The two-sided normal threshold at 0.05/m."""
    return float(sps.norm.ppf(1 - 0.05 / (2 * m)))


def t_critical(df: int):
    """critical(m) for a t test with `df` degrees of freedom (the jackknife's)."""
    return lambda m: float(sps.t.ppf(1 - 0.05 / (2 * m), df))
