"""The learned player (kernels/learned.py, wsim/agents/learn.py): an option's afterstate input is the full
encoding of the position the rules make of it, a recorded game is the simulated game, the model
file is checked before it plays, and `wsim learn` trains, goes on and repeats itself."""

import hashlib
import json

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # the learned family's kernels (make test compiles them; make check does not)

from clikit import last_error_line, run_cli
from wsim import RULES_VERSION
from wsim.codes import ACT_DISCARD, COPY_LEFT
from wsim.kernels import learned
from wsim.kernels.layout import C_ACTION, C_CARD, C_ON, DEC_DISCARD, DEC_MOVE, F_CHOSEN, M_CARD, RES_TOTAL
from wsim.kernels.learned import (L_INPUT, T_GAME, T_TOTAL, T_WHO, input_layout)
from wsim.kernels.observe import tables_layout
from wsim.kernels.step import decider
from wsim.run.model import FORMAT, Model, ModelError, feature_names, features_header, read_model
from wsim.run.tape import record
from wsim.run.runner import Runner
from wsim.run.settings import Settings
from wsim.run.stepgame import KernelGame


def _model(tables, hidden=8, seed=0) -> Model:
    rng = np.random.default_rng(seed)
    inputs = len(feature_names(tables))
    header = {"format": FORMAT, "features": features_header(tables), "rules": RULES_VERSION, "target": "margin",
              "hidden": hidden, "provenance": {}}
    return Model(rng.normal(0, 0.1, (inputs, hidden)), rng.normal(0, 0.1, hidden), rng.normal(0, 1, hidden),
                 [0.0], header)


def _full_afterstate(g, seat, who, kind, options, j, lay):
    """(x plus option j's changes, the input encoded afresh on the position its resolution makes):
    the cities of sc.after, the pile with what went to it."""
    st, sc = g.state[0], g.scratch[0]
    g.moves[:len(options)] = options
    learned._input(g.ent, st, sc, who, seat, lay)
    x = sc["x"][:lay[L_INPUT]].copy()
    sc["after"][:] = st["seat"]
    m = 0
    if learned._resolve_alone(g.ent, g.board, st, sc, seat, who, kind, j, COPY_LEFT):
        after = sc["after"].copy()
        m = learned._changes(g.ent, st, sc, seat, who, kind, j, lay)
        # what the next option starts from: the cities as they were (the others' choices hidden)
        learned._copy_cities(st, sc, seat, False)
        restored = sc["after"].copy()
        hidden = np.arange(len(restored)) != seat
        restored[hidden, F_CHOSEN + C_ON] = st["seat"][hidden, F_CHOSEN + C_ON]
        assert (restored == st["seat"]).all(), np.argwhere(restored != st["seat"])
    else:
        after = st["seat"].copy()
    np.add.at(x, sc["d_at"][:m], sc["d_by"][:m])
    full = g.clone()
    full.state[0]["seat"][:] = after
    pile = full.state[0]["pile"]
    if kind == DEC_DISCARD:
        if options[j, M_CARD] >= 0:
            pile[options[j, M_CARD]] -= 1
    else:
        for t in range(g.n):
            if m and after[t, F_CHOSEN + C_ON] == 1 and after[t, F_CHOSEN + C_ACTION] == ACT_DISCARD:
                pile[after[t, F_CHOSEN + C_CARD]] += 1
    learned._input(g.ent, full.state[0], full.scratch[0], who, seat, lay)
    return x, full.scratch[0]["x"][:lay[L_INPUT]].copy()


def test_an_options_changes_are_the_full_encoding_of_its_afterstate(tables):
    """Every option of every decision of a few games (2, 3, 5 and 7 players, Manneken Pis in the
    pool): x plus the listed changes equals the input encoded afresh on the cities after the
    option's resolution, entry for entry."""
    lay = input_layout(tables_layout(tables))
    checked = set()
    for players in (2, 3, 5, 7):
        g = KernelGame(tables, players, seed=5, game=players, policy="heuristic", promo=True)
        for pending in g.rounds():
            for seat, kind in pending:
                options = g.legal(seat, kind, all_purchases=False)
                who = decider(g.gs, seat)
                for j in range(len(options)):
                    incremental, full = _full_afterstate(g, seat, who, kind, options, j, lay)
                    assert (incremental == full).all(), (players, g.age, g.turn, seat, kind, j,
                                                         np.flatnonzero(incremental != full))
                    checked.add(kind)
                g.apply(seat, kind, options, g.decide(seat, kind, options))
    assert len(checked) >= 2


def test_a_recorded_game_is_the_simulated_game(tables):
    """Recording without exploration changes no game: each recorded seat's total is the one
    `wsim simulate` gives that seat in that game (mixed policies, 3 and 5 players)."""
    for players in (3, 5):
        policies = ("heuristic", "greedy", "random", "heuristic", "greedy")[:players]
        settings = Settings(players=players, policies=policies, seed=8)
        _, facts = record(tables, settings, 0, 12, 0.3, 0.0, 99)
        res = Runner(tables, settings).play(0, 12).res
        assert len(facts) > 12 * players
        assert (facts[:, T_TOTAL] == res[facts[:, T_GAME], facts[:, T_WHO], RES_TOTAL]).all()


def test_a_model_file_round_trips_and_a_mismatch_is_refused(tables, tmp_path):
    m = _model(tables)
    path = tmp_path / "m.npz"
    path.write_bytes(m.to_bytes())
    back = read_model(path, tables)
    assert back.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (back.w1 == m.w1).all() and back.header == m.header
    assert back.to_bytes() == path.read_bytes()  # the same weights, the same bytes
    for keys, value, words in ((("features", "version"), 99, "features version"), (("rules",), 0, "rules version"),
                               (("features", "names_sha256"), "0" * 64, "other buildings"),
                               (("format",), "x", "not a wsim-learned-1 model")):
        header = json.loads(json.dumps(m.header))
        node = header
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
        path.write_bytes(Model(m.w1, m.b1, m.w2, m.b2, header).to_bytes())
        with pytest.raises(ModelError, match=words):
            read_model(path, tables)
    path.write_bytes(Model(m.w1[:-1], m.b1, m.w2, m.b2, m.header).to_bytes())
    with pytest.raises(ModelError, match="wrong shape"):
        read_model(path, tables)
    path.write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="not a model file"):
        read_model(path, tables)


def test_a_bad_model_file_is_an_error_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"junk")
    out = tmp_path / "run"
    result = run_cli("simulate", "--games", "4", "--players", "3", "--policies", "learned,heuristic,heuristic",
                     "--policy-param", f"learned.model={bad}", "--out", str(out))
    assert result.exit_code == 2
    assert last_error_line(result).startswith("Error: ") and "bad.npz" in last_error_line(result)
    assert not out.exists()


def test_wsim_learn_trains_goes_on_and_repeats_itself(tables, tmp_path):
    """A tiny run (two iterations of 30 games): it writes a model that plays, the same command
    goes on from its work folder and writes the same file (with --overwrite), a fresh run into
    another folder and file name gives the same file bit for bit, and so does a run resumed after
    an interruption (here after iteration 1's teacher games); other options on the same folder
    are refused. The header holds no wall-clock time and no --out (learn.json keeps the seconds)."""
    import shutil

    options = ["--iterations", "2", "--games", "30", "--players", "3,4", "--rate", "0.5", "--hidden", "4",
               "--epochs", "3", "--eval-games", "8", "--threads", "1", "--seed", "3"]
    first = tmp_path / "a.npz"
    result = run_cli("learn", "--out", str(first), *options)
    assert result.exit_code == 0, result.output
    assert "iteration 1: against 3 heuristic seats" in result.output
    model = read_model(first, tables)
    provenance = model.header["provenance"]
    iterations = provenance["iterations"]
    assert [i["iteration"] for i in iterations] == [0, 1] and iterations[1]["teacher"] == "learned (iteration 0)"
    assert all("seconds" not in i for i in iterations) and "--out" not in provenance["command"]
    assert all("seconds" in i for i in json.loads((tmp_path / "a.npz.work" / "learn.json").read_text())["iterations"])
    written = first.read_bytes()
    again = run_cli("learn", "--out", str(first), *options, "--overwrite")
    assert again.exit_code == 0 and "teacher games" not in again.output and first.read_bytes() == written
    (tmp_path / "elsewhere").mkdir()
    other = tmp_path / "elsewhere" / "b.npz"
    assert run_cli("learn", "--out", str(other), *options).exit_code == 0
    assert other.read_bytes() == written
    resumed = tmp_path / "c.npz"
    shutil.copytree(tmp_path / "a.npz.work", tmp_path / "c.npz.work")
    record = json.loads((tmp_path / "c.npz.work" / "learn.json").read_text())
    record["iterations"] = record["iterations"][:1]  # stopped after iteration 1's teacher games
    (tmp_path / "c.npz.work" / "learn.json").write_text(json.dumps(record))
    (tmp_path / "c.npz.work" / "model-1.npz").unlink()
    went_on = run_cli("learn", "--out", str(resumed), *options)
    assert went_on.exit_code == 0 and "teacher games" not in went_on.output and "iteration 1: fit" in went_on.output
    assert resumed.read_bytes() == written
    refused = run_cli("learn", "--out", str(first), "--work", str(tmp_path / "a.npz.work"), "--overwrite",
                      *options[:-2], "--seed", "4")
    assert refused.exit_code == 2 and "other options" in last_error_line(refused) and first.read_bytes() == written
    played = Runner(tables, Settings(players=3, policies=("learned", "heuristic", "heuristic"), model=str(first)))
    assert (played.play(0, 4).res[:, :, RES_TOTAL] > 0).all()


def test_learn_shows_the_teacher_games_progress(tmp_path):
    """wsim.learn(progress=f): f gets each iteration's teacher games, counted up to --games."""
    import wsim

    updates = []
    wsim.learn(out=tmp_path / "m.npz", iterations=2, games=2500, players="3", rate=0.01, hidden=2, epochs=1,
               eval_games=4, threads=1, seed=1, progress=updates.append)
    by_label = {}
    for u in updates:
        by_label.setdefault(u.label, []).append(u.done)
        assert u.total == 2500 and u.step == "teacher games"
    assert sorted(by_label) == ["learn, iteration 0", "learn, iteration 1"]
    assert all(done == sorted(done) and done[-1] == 2500 and len(done) >= 3 for done in by_label.values())


def test_the_learned_policy_sees_only_its_observation(tables):
    """At every decision of games at 2, 3, 5 and 7 players (the shipped model), the learned seat
    decides the same when everything hidden from it is changed: other hands, the later ages'
    deals, other seats' choices this turn and their streams; and at every turn move, in another
    world the seat cannot tell from this one (every unseen card of this age and the pile dealt
    again consistently with what it saw, hidden.resample_hidden). Every decision kind included."""
    from test_step_api import _another_world, _perturb_hidden

    rng = np.random.default_rng(12)
    kinds = set()
    for players in (2, 3, 5, 7):
        for game in range(2):
            g = KernelGame(tables, players, seed=22, game=game, policy="learned", promo=True)
            for pending in g.rounds():
                for seat, kind in pending:
                    options = g.legal(seat, kind)
                    who = decider(g.gs, seat)
                    choice = g.clone().decide(seat, kind, options)
                    changed = g.clone()
                    st = changed.state[0]
                    # what the seat saw of this age stays: the pile's size by age, its earlier hands
                    # (this age's deal, followed through the plays); _another_world re-deals the rest
                    kept = st["pile"].copy(), st["dealt"][g.age - 1].copy(), st["hist"].copy()
                    _perturb_hidden(changed, who, rng)
                    st["pile"][:], st["dealt"][g.age - 1], st["hist"][:] = kept
                    assert changed.decide(seat, kind, options) == choice, (players, game, seat, kind)
                    if kind == DEC_MOVE:
                        other = g.clone()
                        _another_world(other, who, rng)
                        assert other.decide(seat, kind, options) == choice, (players, game, seat, kind)
                    kinds.add(kind)
                    g.apply(seat, kind, options, g.decide(seat, kind, options))
    assert {DEC_MOVE, DEC_DISCARD} <= kinds


def test_learn_refuses_bad_options_and_a_missing_extra(tmp_path, monkeypatch):
    """Each is an `Error:` line and exit 2, nothing written: a bad player count, a rate of 0
    (from Python), a labelled seat's model file missing, and scikit-learn missing."""
    import wsim
    from wsim.api import learning

    out = tmp_path / "m.npz"
    bad = run_cli("learn", "--out", str(out), "--players", "4,9")
    assert bad.exit_code == 2 and "players: each count from 2 to 7" in last_error_line(bad)
    with pytest.raises(wsim.WsimError, match="rate: must be above 0"):
        wsim.learn(out=out, rate=0)
    two = run_cli("simulate", "--games", "4", "--players", "3", "--policies", "learned:a,learned:b,heuristic",
                  "--policy-param", "a.model=x.npz", "--policy-param", "b.model=y.npz", "--out", str(tmp_path / "r"))
    assert two.exit_code == 2 and "model file 'x.npz': cannot be read" in last_error_line(two)
    monkeypatch.setattr(learning, "find_spec", lambda name: None)
    missing = run_cli("learn", "--out", str(out))
    assert missing.exit_code == 2 and "pip install 'wsim[learn]'" in last_error_line(missing)
    assert not out.exists() and not (tmp_path / "r").exists()


def test_a_truncated_playout_stops_before_the_seats_kth_turn_move(tables):
    """KernelGame.play_out(until=(seat, k)), the kernel loop of a truncated playout, leaves the
    game just before seat's k-th turn move from here: the state the same game stepped from Python
    reaches there, seat's move pending; past the game's last turn it plays to the end."""
    g = KernelGame(tables, 4, seed=3, game=1, policy="learned")
    for seat, k, where in ((1, 3, (1, 3)), (2, 8, (2, 2)), (0, 1, (1, 1))):
        kernel = g.clone()
        assert kernel.play_out(until=(seat, k))
        stepped = g.clone()
        for pending in stepped.rounds():
            if (stepped.age, stepped.turn) == where and (seat, DEC_MOVE) in [tuple(p) for p in pending]:
                break
            for s, kind in pending:
                options = stepped.legal(s, kind, all_purchases=False)  # the learned policy's listing
                stepped.apply(s, kind, options, stepped.decide(s, kind, options))
        assert (kernel.age, kernel.turn) == where and (seat, DEC_MOVE) in [tuple(p) for p in kernel.pending()]
        assert (kernel.state["seat"] == stepped.state["seat"]).all() and (kernel.state["gs"] == stepped.state["gs"]).all()
    whole = g.clone()
    assert not whole.play_out(until=(0, 19)) and whole.over
    with pytest.raises(ValueError, match="until"):
        g.clone().play_out(until=(0, 0))


def test_rollout_depth_needs_the_learned_base_and_defaults_to_one(tmp_path):
    """rollout.depth (kernels/policy.R_DEPTH) is set only over the learned base, whose rollouts
    default to depth 1; a bad depth or another base is an `Error:` line and exit 2."""
    from wsim.kernels.policy import POLICY_LEARNED, R_BASE_ID, R_DEPTH
    from wsim.run.settings import SettingsError, apply_policy_params
    from wsim.run.weights import LEARNED_BASE_DEPTH

    names = ("rollout", "rollout", "heuristic")
    rows = apply_policy_params(["rollout.base=learned"], names, ("a", "b", "heuristic"))[0]
    assert LEARNED_BASE_DEPTH == 1 and all(r[R_BASE_ID] == POLICY_LEARNED and r[R_DEPTH] == 1 for r in rows[:2])
    rows = apply_policy_params(["rollout.depth=3", "rollout.base=learned", "b.depth=0"], names,
                               ("a", "b", "heuristic"))[0]
    assert (rows[0][R_DEPTH], rows[1][R_DEPTH]) == (3, 0)
    with pytest.raises(SettingsError, match="needs rollout.base=learned"):
        apply_policy_params(["rollout.depth=2"], names, names)
    for bad in ("19", "-1", "x"):
        with pytest.raises(SettingsError, match="depth must be a whole number from 0 to 18"):
            apply_policy_params(["rollout.base=learned", f"rollout.depth={bad}"], names, names)
    res = run_cli("simulate", "--games", "2", "--policy", "rollout", "--policy-param", "rollout.depth=2",
                  "--out", str(tmp_path / "r"))
    assert res.exit_code == 2 and "needs rollout.base=learned" in last_error_line(res) and not (tmp_path / "r").exists()


def test_learn_mix_seats_the_teacher_beside_the_model():
    """--mix M: from iteration 1 on, the first floor(P x M + 1/2) seats of a teacher table play
    the teacher, the others the previous model; iteration 0 and M = 0 as before."""
    from wsim.agents.learn import Plan, _teacher_settings

    half = Plan(mix=0.5)
    assert _teacher_settings(half, 0, 4, "").policies == ("heuristic",) * 4
    assert _teacher_settings(half, 1, 4, "m.npz").policies == ("heuristic", "heuristic", "learned", "learned")
    assert _teacher_settings(half, 2, 5, "m.npz").policies == ("heuristic",) * 3 + ("learned",) * 2
    assert _teacher_settings(Plan(), 1, 3, "m.npz").policies == ("learned",) * 3


def test_a_work_folder_from_before_an_option_goes_on_with_its_default(tables, tmp_path):
    """A learn.json written before --mix existed is the run of mix 0: it goes on, mix 0.5 is refused."""
    from dataclasses import asdict

    from wsim.agents.learn import RECORD, LearnError, Plan, Work, basis

    old = {k: v for k, v in asdict(Plan()).items() if k != "mix"}
    (tmp_path / RECORD).write_text(json.dumps({"plan": old, **basis(tables), "iterations": []}))
    with Work(tmp_path, Plan(), basis(tables)) as work:
        assert work.iterations == []
    with pytest.raises(LearnError, match="other options \\(--mix 0.0 where this run has 0.5\\)"):
        with Work(tmp_path, Plan(mix=0.5), basis(tables)):
            pass
