"""Several model files in one run: each learned seat plays the model file its label names
(kernels/learned.py: the model record holds one model per file, a seat's row names its own), the
dataset records each seat's file and sha256, and a changed file is refused on --resume; the
batched environment's opponent pool (wsim/env/pool.py) plays seating i mod k in game i."""

import hashlib
import re
import shutil

import numpy as np
import pytest

import wsim
from clikit import last_error_line, run_cli
from wsim.dataset.parts import read_metadata
from wsim.env.batched import BatchedEnv
from wsim.run.model import Model, read_model

pytestmark = pytest.mark.slow  # the learned family's kernels


@pytest.fixture(scope="module")
def narrow_model(tables, tmp_path_factory):
    """The shipped model with its last 5 hidden units dropped: another model, and narrower than
    the shipped one (its record pads it with zero units that its loops never reach)."""
    shipped = read_model("shipped", tables)
    path = tmp_path_factory.mktemp("model") / "narrow.npz"
    path.write_bytes(Model(shipped.w1[:, :-5], shipped.b1[:-5], shipped.w2[:-5], shipped.b2, shipped.header).to_bytes())
    return path


def _game(policies, params, seed=4):
    return wsim.Game(players=3, seed=seed, policies=policies, policy_params=params)


def test_each_learned_seat_plays_its_own_model_file(negated_model, narrow_model):
    """At every decision of a whole game with seats a (negated) and b (narrow), seat 0 picks what
    a one-model game of the negated file picks in the same position, seat 1 what a one-model game
    of the narrow file picks (the three games step on the mixed game's choices); and the two
    files' choices differ somewhere, so each seat's own model decided."""
    mixed = _game(["learned:a", "learned:b", "heuristic"], (f"a.model={negated_model}", f"b.model={narrow_model}"))
    alone = {0: _game(["learned", "learned", "heuristic"], (f"learned.model={negated_model}",)),
             1: _game(["learned", "learned", "heuristic"], (f"learned.model={narrow_model}",))}
    differ = 0
    while not mixed.done:
        choices = {d.seat: mixed.policy_move(d.seat) for d in mixed.pending()}
        for seat, game in alone.items():
            if seat in choices:
                assert choices[seat] == game.policy_move(seat)
                differ += choices[seat] != alone[1 - seat].policy_move(seat)
        for g in (mixed, *alone.values()):
            g.step(choices)
    assert differ > 0
    table = wsim.simulate(games=1, players=3, seed=4, threads=1, policies=["learned:a", "learned:b", "heuristic"],
                          policy_params=(f"a.model={negated_model}", f"b.model={narrow_model}")).to_pylist()
    for row, score in zip(table, mixed.scores(), strict=True):
        assert {k: row[k] for k in score if k != "seat"} == {k: v for k, v in score.items() if k != "seat"}


def test_one_file_under_two_labels_plays_as_one_model(negated_model):
    """Two labels naming one file make one model: the games are the one-model run's."""
    one = wsim.simulate(games=6, players=3, seed=2, policies=["learned", "learned", "heuristic"],
                        policy_params=(f"learned.model={negated_model}",))
    two = wsim.simulate(games=6, players=3, seed=2, policies=["learned:a", "learned:b", "heuristic"],
                        policy_params=(f"a.model={negated_model}", f"b.model={negated_model}"))
    for column in ("vp_total", "rank", "cards", "coins_paid"):
        assert one.column(column).to_pylist() == two.column(column).to_pylist()


def test_the_dataset_records_each_seats_model_and_resume_refuses_a_changed_one(tables, negated_model, narrow_model,
                                                                               tmp_path):
    """Each learned seat's metadata names its own file and sha256; a label without a file plays
    the unlabeled learned seats' (learned.model, else the shipped model); --resume refuses a file
    that changed since."""
    b = tmp_path / "b.npz"
    shutil.copyfile(narrow_model, b)
    out = tmp_path / "d"
    run = run_cli("simulate", "--games", "4", "--chunk-size", "2", "--players", "4", "--policies",
                  "learned:a,learned:b,learned,heuristic", "--policy-param", f"a.model={negated_model}",
                  "--policy-param", f"b.model={b}", "--out", str(out))
    assert run.exit_code == 0, run.output
    seats = read_metadata(out).meta["policies"]
    assert [p.get("model") for p in seats] == [str(negated_model), str(b), "shipped", None]
    digests = [hashlib.sha256(f.read_bytes()).hexdigest() for f in (negated_model, b)]
    assert [p.get("weights_sha256") for p in seats[:2]] == digests
    assert seats[2]["weights_sha256"] == read_model("shipped", tables).sha256
    shutil.copyfile(negated_model, b)
    refused = run_cli("simulate", "--resume", "--out", str(out))
    assert refused.exit_code == 2 and "its sha256 is not the" in last_error_line(refused)


def test_a_label_without_a_file_refused(tmp_path):
    """`LABEL.model=` with no file is an `Error:` line, exit 2, nothing written."""
    out = tmp_path / "d"
    bad = run_cli("simulate", "--games", "2", "--players", "3", "--policies", "learned:a,learned:b,heuristic",
                  "--policy-param", "a.model=", "--out", str(out))
    assert bad.exit_code == 2 and "a.model needs a model file" in last_error_line(bad) and not out.exists()


def _pool_totals(venv, games: int) -> dict:
    """{game index: its final totals} of every game that ends until `games` have, each learner
    playing its heuristic (BatchedEnv.policy_actions)."""
    venv.reset()
    got = {}
    while len(got) < games:
        index = venv._book.game.copy()
        _, _, ended, _, info = venv.step(venv.policy_actions("heuristic"))
        for g in np.flatnonzero(ended):
            got[int(index[g])] = info["vp_total"][g].tolist()
    return got


@pytest.mark.parametrize("rotate", [True, False])
def test_a_pool_plays_seating_i_mod_k_as_simulate_plays_it(negated_model, narrow_model, rotate):
    """Game i of a pool of two seatings plays seating i mod 2, with rotate turned i seats on (the
    learner's role played by its heuristic): the game wsim.simulate plays with that seating, each
    learned label on its own model file, the unlabeled learned seat on the shipped one."""
    pool = [[None, "learned:a", "heuristic", "greedy"], [None, "greedy", "learned:b", "learned"]]
    params = {"a.model": str(negated_model), "b.model": str(narrow_model)}
    venv = BatchedEnv(num_games=3, players=4, seed=3, policies=pool, policy_params=params, rotate=rotate)
    assert venv.seatings == pool and venv._runs.shape[0] == (4 if rotate else 2)
    for game, totals in _pool_totals(venv, 6).items():
        named = ["heuristic" if p is None else p for p in pool[game % 2]]
        turned = [named[(s - game * rotate) % 4] for s in range(4)]
        own = [f"{k}={v}" for k, v in params.items() if any(p.endswith(":" + k.split(".")[0]) for p in turned)]
        table = wsim.simulate(games=game + 1, players=4, seed=3, policies=turned, policy_params=own, threads=1)
        rows = sorted((r["seat"], r["vp_total"]) for r in table.to_pylist() if r["game"] == game)
        assert totals == [v for _, v in rows], f"game {game}"


def test_vector_env_takes_a_pool_of_opponents(negated_model):
    """vector_env's opponents may be a list of opponent lists, labels among them: the batched core
    gets one seating per list, the learner at seat 0."""
    from wsim.env import batched_v0

    venv = batched_v0.vector_env(num_envs=2, players=3, opponents=[["learned:old", "heuristic"], ["greedy", "random"]],
                                 policy_params={"old.model": str(negated_model)}, seed=1)
    assert venv.batched.seatings == [[None, "learned:old", "heuristic"], [None, "greedy", "random"]]
    venv.reset()
    venv.step(venv.sample_legal())


@pytest.mark.parametrize("policies, params, message", [
    ([[None, "heuristic", "greedy"], ["heuristic", None, "greedy"]], {}, "learners (None) at the same seats"),
    ([[None, "heuristic", "greedy"], [None, "rollout", "greedy"]], {}, "each a policy name"),
    ([[None, "heuristic", "greedy"], [None, "heuristic"]], {}, "a list of 3 entries"),
    ([[None, "learned:a", "greedy"], [None, "heuristic", "greedy"]], {"b.model": "x.npz"},
     "names neither a policy nor a label of any seating"),
    ([[None, "learned:a", "greedy"]], {"a.model": "/no/such/model.npz"}, "cannot be read"),
])
def test_a_bad_pool_is_refused(policies, params, message):
    with pytest.raises(wsim.WsimError, match=re.escape(message)):
        BatchedEnv(num_games=2, players=3, policies=policies, policy_params=params)


def test_a_rollout_over_a_labelled_learned_seat_plays_its_file(tables, negated_model):
    """rollout.base=LABEL over a learned label plays that label's file: its row's base carries the
    file's index in the model record (kernels/policy.L_MODEL), as the learned seat's row does."""
    from wsim.kernels.policy import L_MODEL, R_BASE
    from wsim.run.settings import build_settings

    settings = build_settings(tables, players=3, policies=["learned", "learned:a", "rollout"], games=1,
                              policy_params=[f"a.model={negated_model}", "rollout.base=a"])
    assert settings.models == ("shipped", str(negated_model), str(negated_model))
    rows = settings.policy_params()
    assert (rows[0, L_MODEL], rows[1, L_MODEL], rows[2, R_BASE + L_MODEL]) == (0, 1, 1)
