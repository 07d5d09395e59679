"""Corrected significance: each row's p-value is the test its CI inverts, q-values are
Benjamini–Hochberg within one family per player count, and the report marks exactly the rows
with q < 0.05 (docs/interfaces.md §5 `q_value`)."""

import csv
import io
import math
import re

import numpy as np
import pandas as pd
import pytest

from wsim.analysis.significance import bh_q, normal_test_p, q_values, score_test_p, t_test_p
from wsim.analysis.stats import Z95, wilson_interval


def test_bh_by_hand_with_a_row_left_out_and_two_families():
    table = pd.DataFrame({"players": [3, 3, 3, 3, 3, 4, 4],
                          "p_value": [0.01, 0.04, 0.03, 0.2, math.nan, 0.01, 0.5]})
    q = q_values(table)
    # family 3 (four p-values; the NaN row is no comparison): 0.01·4/1 = 0.04, 0.03·4/2 = 0.06,
    # 0.04·4/3 = 0.0533, 0.2·4/4 = 0.2, then the running minimum from the largest down
    assert list(q[:4]) == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.2])
    assert math.isnan(q[4])
    assert list(q[5:]) == pytest.approx([0.02, 0.5])  # family 4: two comparisons


def test_bh_agrees_with_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = pd.Series(np.random.default_rng(3).uniform(0, 0.2, 86))
    assert list(bh_q(p)) == pytest.approx(list(multipletests(p, method="fdr_bh")[1]))


def test_the_score_test_by_hand_and_against_the_wilson_interval():
    # 300 wins of 1,000 seats against 1/4: z = 0.05 / sqrt(0.1875 / 1000) = 3.6515
    assert score_test_p(300, 1000, 0.25) == pytest.approx(2.607e-4, rel=1e-3)
    assert score_test_p(250, 1000, 0.25) == 1.0
    assert math.isnan(score_test_p(0, 0, 0.25))
    # the Wilson interval is the score test inverted: it excludes the fair share iff p < 0.05
    for wins in range(180, 330, 3):
        lo, hi = wilson_interval(wins, 1000)
        assert (not lo <= 0.25 <= hi) == (score_test_p(wins, 1000, 0.25) < 0.05), wins


def test_t_and_normal_tests_match_their_intervals():
    from scipy import stats

    t95 = stats.t.ppf(0.975, 19)
    for effect in np.linspace(-0.05, 0.05, 41):
        se = 0.01
        assert (abs(effect) > t95 * se) == (t_test_p(effect, se, 19) < 0.05)
        assert (abs(effect) > Z95 * se) == (normal_test_p(effect, se) < 0.05)
    assert t_test_p(0.0, 0.0, 19) == 1.0 and t_test_p(0.01, 0.0, 19) == 0.0
    assert math.isnan(t_test_p(math.nan, 0.01, 19)) and math.isnan(normal_test_p(0.01, math.nan))


def test_without_any_effect_a_family_shows_a_finding_in_at_most_5_percent_of_reports():
    """86 win rates at the fair share (a report's size), 400 reports: BH keeps the chance of
    any false finding in a report near 5% (its false discovery rate equals it under the null),
    where uncorrected 95% intervals would show one in almost every report."""
    rng = np.random.default_rng(11)
    seats = 2_000
    wins = rng.binomial(seats, 0.25, size=(400, 86))
    any_finding = any_raw = 0
    for row in wins:
        p = pd.Series([score_test_p(int(w), seats, 0.25) for w in row])
        any_finding += bool((bh_q(p) < 0.05).any())
        any_raw += bool((p < 0.05).any())
    assert any_finding / 400 <= 0.08
    assert any_raw / 400 >= 0.9


@pytest.mark.slow
def test_the_report_marks_exactly_the_rows_significant_and_large(tmp_path):
    """A balance finding (★) is a row with q < 0.05 at least the practical threshold from fair;
    the other significant rows are fair enough."""
    from clikit import run_cli

    data = tmp_path / "d"
    assert run_cli("simulate", "--games", "3000", "--players", "3", "--policy", "greedy", "--threads", "1",
                   "--out", str(data)).exit_code == 0
    assert run_cli("balance", str(data), "--out", str(tmp_path / "r")).exit_code == 0
    findings = significant = 0
    for name, distance in (("wonders.csv", "diff"), ("cards.csv", "effect")):
        rows = list(csv.DictReader(io.StringIO((tmp_path / "r" / name).read_text())))
        assert all("q_value" in r for r in rows)
        small = [r for r in rows if r["q_value"] and float(r["q_value"]) < 0.05]
        large = [r for r in small if abs(float(r[distance])) >= float(r["threshold"])]
        assert {r["verdict"] for r in large} <= {"too strong", "too weak"}
        assert {r["verdict"] for r in small if r not in large} <= {"fair enough"}
        findings, significant = findings + len(large), significant + len(small)
        # rows without an estimate have no q-value
        assert all(r["q_value"] == "" for r in rows if r.get("effect", "x") == "")
    page = (tmp_path / "r" / "index.html").read_text()
    assert significant > findings > 0
    assert len(re.findall(r"<td>★ too (?:strong|weak)</td>", page)) == findings
    assert "comparisons with an estimate in this family" in page
