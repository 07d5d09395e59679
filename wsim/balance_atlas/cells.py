"""How the atlas shows a table's cell, and what its pages are called (docs/atlas.md, "The
site"): one formatter for every number a page shows (the tests hold each page's numbers to
it), and one name per page, which the findings link to.

`cell_text(TABLE, frame, row, COLUMN)` is `fmt(COLUMN, value)`, but for the character table's
value, ci_low and ci_high, formatted as their row's metric (`fmt(metric, value)`: a share in
percent, a rank to two decimals…)."""

from __future__ import annotations

import math
import re
from numbers import Real

import pandas as pd

# fmt's rules, by column (or character metric) name
PERCENT = frozenset({"win_rate", "ci_low", "ci_high", "fair_share", "people_rate", "people_ci_low", "people_ci_high",
                     "pair_ci_low", "pair_ci_high", "base", "edited", "leader_age1_wins", "leader_age2_wins",
                     "close_share", "forced_share", "skill_vs_random", "skill_vs_default"})
SIGNED_PERCENT = frozenset({"diff", "pair_diff", "effect"})
SIGNED_VP = frozenset({"vp", "vp_ci_low", "vp_ci_high"})
Q = frozenset({"q_value", "pair_q", "people_q", "people_p"})
WHOLE = frozenset({"players", "order", "games", "seats", "n", "anchor", "games_needed", "people_seats"})
ONE_DECIMAL = frozenset({"people_chi2", "margin", "options", "decisions", "rating_spread"})
TWO_DECIMALS = frozenset({"people_rho", "winner_rank_age1", "winner_rank_age2"})
CHARACTER_VALUES = ("value", "ci_low", "ci_high")  # formatted as their row's metric


# ---------------------------------------------------------------------------------------------
# The formatter

def as_number(value):
    """`value` as a float, None when missing (None, NaN, ""), or as text when it is no number."""
    if value is None or isinstance(value, bool):
        return None if value is None else str(value)
    if isinstance(value, Real):
        return None if math.isnan(value) else float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            return value
        return None if math.isnan(number) else number
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def decimal_text(x: float, digits: int, signed: bool = False) -> str:
    """x to `digits` decimals, a true minus sign, `+` if `signed`; never a signed zero."""
    if round(x, digits) == 0:
        x = 0.0
    text = f"{x:+.{digits}f}" if signed and x != 0 else f"{x:.{digits}f}"
    return text.replace("-", "−")


def fmt(column: str, value) -> str:
    """The text of one table cell on a page, by its column: rates, shares and differences of
    them (fractions) in percent to one decimal (differences signed); victory points signed to one
    decimal; q- and p-values to four decimals, `<0.0001` below; counts whole with thousands
    separators; a few measures to one or two decimals; "" for a missing value (None, NaN, "");
    infinity as "inf"; text as it is. Numeric text ("0.25", as a CSV holds it) is read as its
    number, so that a cell and its CSV's text give the same."""
    x = as_number(value)
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if column in PERCENT or column in SIGNED_PERCENT:
        return decimal_text(100 * x, 1, column in SIGNED_PERCENT)
    if column in SIGNED_VP:
        return decimal_text(x, 1, True)
    if column in Q:
        return "<0.0001" if x < 1e-4 else f"{x:.4f}"
    if column in ONE_DECIMAL:
        return decimal_text(x, 1)
    if column in TWO_DECIMALS:
        return decimal_text(x, 2)
    if column in WHOLE or x == int(x):
        return f"{round(x):,}".replace("-", "−")
    return decimal_text(x, 2)


def format_key(table: str, column: str, metric) -> str:
    """The name fmt formats a cell of `table` by: its column, or for the character table's
    values its row's metric."""
    return str(metric) if table == "character" and column in CHARACTER_VALUES else column


def cell_text(table: str, frame: pd.DataFrame, row: int, column: str) -> str:
    """The text a page shows for cell (row, column) of `table` (row: 0-based position)."""
    metric = frame["metric"].iloc[row] if "metric" in frame else None
    return fmt(format_key(table, column, metric), frame[column].iloc[row])


# ---------------------------------------------------------------------------------------------
# Names and paths

def slug(name: str) -> str:
    """A name as a file name's part: lower case, every run of other characters than a–z and 0–9
    as one "-"."""
    return re.sub(r"[^a-z0-9]+", "-", str(name).lower()).strip("-") or "-"


def side_page(wonder: str, side: str) -> str:
    return f"side-{slug(wonder)}-{re.sub(r'[^A-Za-z0-9]+', '-', str(side)).strip('-') or '-'}.html"


def card_page(card: str) -> str:
    return f"card-{slug(card)}.html"


def players_page(players: int) -> str:
    return f"players-{int(players)}.html"


def side_name(wonder: str, side: str) -> str:
    """`Rhodes A`, `Manneken Pis B` (plain text)."""
    return f"{str(wonder).replace('_', ' ').title()} {side}"
