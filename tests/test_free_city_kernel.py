"""Two players on the kernels and through `wsim simulate` (docs/rules.md §10, docs/interfaces.md §2)."""

import numpy as np
import pyarrow.dataset as ds
import pytest

from clikit import last_error_line, run_cli
from wsim import codes
from wsim.kernels.layout import (C_SLOT, DEC_MOVE, F_CHOSEN, F_HAND, F_HAND_N, G_FC, G_PHASE, M_ACTION, M_CARD,
                                 PH_OVER, RES_BOARD, RES_RANK, RES_SIDE, RES_TOTAL)
from wsim.run.runner import Runner
from wsim.run.settings import Settings
from wsim.run.stepgame import KernelGame


def test_controller_and_decision_order_each_turn(tables):
    """Seat 0 holds the Free City card on turn 1 of Ages I and III, seat 1 on turn 1 of Age II,
    alternating; the Free City's move is asked of the controller, after its own move, over its
    hand less that card; the drawn pile card ends the controller's hand."""
    g = KernelGame(tables, players=2, seed=3, game=5)
    assert int(g.gs[G_FC]) == codes.FC_SEAT
    seen = []
    while not g.over:
        if g.pending():
            age, turn = g.age, g.turn
            ctrl = codes.fc_controller(age, turn)
            first = g.pending()
            if [k for _, k in first] == [DEC_MOVE, DEC_MOVE]:  # a turn's start
                seen.append((age, turn, ctrl))
                assert [s for s, _ in first] == [0, 1]
                hand = g.seat[ctrl, F_HAND:F_HAND + g.seat[ctrl, F_HAND_N]].tolist()
                other = g.seat[1 - ctrl, F_HAND_N]
                assert len(hand) == other + 1 == 9 - turn
                assert hand[-1] == int(g.state["dealt"][0][age - 1, codes.FC_SEAT, turn - 1])  # the pile card drawn
        for seat, kind in g.pending():
            options = g.legal(seat, kind)
            if seat == codes.FC_SEAT and kind == DEC_MOVE:
                ctrl = codes.fc_controller(g.age, g.turn)
                own = int(g.seat[ctrl, F_CHOSEN + C_SLOT])
                cards = g.seat[ctrl, F_HAND:F_HAND + g.seat[ctrl, F_HAND_N]].tolist()
                left = cards[:own] + cards[own + 1:]
                assert sorted({int(c) for c in options[:, M_CARD]}) == sorted(set(left))
            g.apply(seat, kind, options, g.decide(seat, kind, options))
        g.next()
    assert seen == [(a, t, codes.fc_controller(a, t)) for a in (1, 2, 3) for t in range(1, 7)]
    assert [codes.fc_controller(a, 1) for a in (1, 2, 3)] == [0, 1, 0]
    assert int(g.gs[G_PHASE]) == PH_OVER
    res, _ = g.results()
    assert res[codes.FC_SEAT, RES_RANK] == 0 and sorted(res[:2, RES_RANK].tolist()) in ([1, 1], [1, 2])


def test_free_city_discards_only_when_it_must(tables):
    """Over many kernel games: a Free City option list holds a discard of a card only when it
    has no other option for that card."""
    checked = 0
    for game in range(30):
        g = KernelGame(tables, players=2, seed=1, game=game)
        while not g.over:
            for seat, kind in g.pending():
                options = g.legal(seat, kind)
                if seat == codes.FC_SEAT and kind == DEC_MOVE:
                    for card in set(options[:, M_CARD].tolist()):
                        actions = set(options[options[:, M_CARD] == card, M_ACTION].tolist())
                        assert codes.ACT_DISCARD not in actions or actions == {codes.ACT_DISCARD}
                        checked += 1
                g.apply(seat, kind, options, g.decide(seat, kind, options))
            g.next()
    assert checked > 1000


def _table(out):
    return ds.dataset(str(out)).to_table().sort_by([("game", "ascending"), ("seat", "ascending")])


def test_two_player_dataset_rows_and_determinism(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--games", "300", "--players", "2", "--seed", "4", "--policies", "greedy,random"]
    assert run_cli("simulate", "--out", str(a), *common, "--threads", "1").exit_code == 0
    assert run_cli("simulate", "--out", str(b), *common, "--threads", "2", "--chunk-size", "70").exit_code == 0
    ta, tb = _table(a), _table(b)
    assert ta.equals(tb)
    assert ta.num_rows == 900
    rows = ta.to_pylist()
    for i in range(0, 900, 3):
        p0, p1, fc = rows[i:i + 3]
        assert [r["seat"] for r in (p0, p1, fc)] == [0, 1, 2]
        assert {r["players"] for r in (p0, p1, fc)} == {2}
        assert (p0["policy"], p1["policy"], fc["policy"]) == ("greedy", "random", "free_city")
        assert (p0["free_city"], p1["free_city"], fc["free_city"]) == (False, False, True)
        assert fc["rank"] is None and fc["win"] is False
        better = (p0["vp_total"], p0["coins"]) > (p1["vp_total"], p1["coins"])
        tied = (p0["vp_total"], p0["coins"]) == (p1["vp_total"], p1["coins"])
        assert (p0["rank"], p1["rank"]) == ((1, 1) if tied else (1, 2) if better else (2, 1))
    assert run_cli("check", str(a)).exit_code == 0
    replay = run_cli("replay", str(a), "--game", "17")
    assert replay.exit_code == 0 and "Free City (seat 2, decided by seat 0)" in replay.stdout
    # an interrupted 2-player run: the lost part and the manifest are played and written again
    (b / "part-00002.parquet").unlink()
    (b / "_wsim_manifest.json").unlink()
    assert run_cli("simulate", "--out", str(b), "--resume").exit_code == 0
    assert _table(b).equals(ta) and run_cli("check", str(b)).exit_code == 0


def test_free_city_with_the_most_points_does_not_win(tables):
    runner = Runner(tables, Settings(players=2, seed=0, policies=("random", "random")))
    res = runner.play(0, 200).res
    top = [g for g in range(200) if res[g, 2, RES_TOTAL] > res[g, :2, RES_TOTAL].max()]
    assert top, "the Free City never had the most points"
    for g in top:
        assert res[g, 2, RES_RANK] == 0 and 1 in res[g, :2, RES_RANK].tolist()


@pytest.mark.parametrize("args, message", [
    (["--policies", "random,random,random"], "--policies: needs exactly 2 names"),
    (["--wonders", "fixed:giza,rhodes"], "--wonders: 'fixed:' needs exactly 3 entries"),
    (["--players", "1"], "--players: must be a whole number from 2 to 7, got 1"),
])
def test_two_player_bad_input(tmp_path, args, message):
    result = run_cli("simulate", "--out", str(tmp_path / "x"), "--games", "5", "--players", "2", *args)
    assert result.exit_code == 2
    assert last_error_line(result).startswith(f"Error: {message}"), result.stderr
    assert not (tmp_path / "x").exists()


def test_fixed_wonders_at_two_players_name_the_free_city(tables):
    runner = Runner(tables, Settings(players=2, seed=0, policies=("random", "random"),
                                     wonders=(("giza", "A"), ("rhodes", "B"), ("manneken_pis", "A")), manneken_pis=True))
    res = runner.play(0, 5).res
    names = [tables.board_ids[b] for b in res[0, :, RES_BOARD]]
    assert names == ["giza", "rhodes", "manneken_pis"] and res[0, :, RES_SIDE].tolist() == [0, 1, 0]
    assert np.all(res[:, 2, RES_BOARD] == res[0, 2, RES_BOARD])
