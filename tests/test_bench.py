"""The benchmark's pieces run (timings themselves are never asserted: see `make bench`)."""

import pytest

from wsim.bench import breakdown, envs, games, record, rollout, suite, yardsticks
from wsim.kernels.policy import BATCHABLE, POLICY_NAMES
from wsim.run.runner import set_threads

pytestmark = pytest.mark.slow  # compiles bench's own kernels and the rollout family


def test_bench_pieces_run(tables):
    assert games.games_per_second(tables, 3, "greedy", 1, 64) > 0
    assert yardsticks.trade_calls_per_second(positions=200, repeats=1) > 0
    assert yardsticks.reference_games_per_second(tables, 3, 1) > 0
    steps, played = envs.aec_speed(3, 1)
    assert steps > played > 0
    steps, played = envs.parallel_speed(3, 1)
    assert steps > played > 0
    row = envs.batched_speed(3, 1, 0.05, games=20)
    assert row["agent_steps_per_second"] > 0 and row["mib_per_10k_games"] > row["mask_mib_per_10k_games"] > 0
    assert rollout.games_per_second(tables, 1, 1) > 0
    per_game = rollout.playouts_per_game(tables, 2, 1)
    assert per_game > 0 and per_game % 2 == 0  # two playouts for each candidate move
    split = breakdown.floor_split(tables, 3, 8, 1000.0)
    assert split["game_us"] == 1000.0 and split["deal_us"] > 0 and split["loop_floor_us"] > 0  # no timing asserted
    set_threads(None)


def test_the_cached_batched_figure_replays_legal_actions_and_counts_games_stepped():
    """The PufferLib/EnvPool way: the recorded actions replay on the same games (step refuses an
    illegal one, so a replay that drifted from the recording would fail), and its steps are games
    x calls: with every seat a learner, each game has a seat that acts at every call, so the agent
    steps are at least as many."""
    cached = envs.batched_speed_cached(3, 1, 0.05, games=20)
    assert cached["calls"] >= 1
    assert cached["agent_steps_per_second"] >= cached["steps_per_second"] > 0
    set_threads(None)


def test_the_policy_lists_derive_from_the_kernels_names():
    assert set(games.SELF_PLAY) <= set(BATCHABLE) and set(games.SELF_PLAY) < set(POLICY_NAMES)
    assert "rollout" not in games.SELF_PLAY and "learned" not in games.SELF_PLAY


def test_the_progress_counts_each_sections_measurements(tables, tmp_path):
    """The progress total is the sum of the sections' lists: one step per measurement."""
    ctx = suite.Context(tables, True, 2, suite.Children(tmp_path, None), {})
    counts = [len(section.measures(ctx)) for section in suite.SUITE]
    cells = 6 * len(games.SELF_PLAY) * 2
    assert counts[0] == cells and sum(counts) == cells + 3 + 2 + 3 + 3 + 8 + 1 + 7


def test_instrumented_twin_plays_the_production_games(tables):
    """kernels/profile.py times the same calls the production loop makes: its last game's
    results equal the production kernel's, the components add up to the total, and the trading
    solver's share, timed where the listing calls it (kernels/price.py), is counted."""
    import numpy as np

    from wsim.bench.profiling import profile_run
    from wsim.kernels.layout import RES_COUNT, RES_NCARDS
    from wsim.kernels.profile import COMPONENTS
    from wsim.kernels.schema import MAX_CITY
    from wsim.run.runner import Runner
    from wsim.run.settings import Settings

    for policy in ("random", "greedy"):
        runner = Runner(tables, Settings(players=5, seed=0, policies=(policy,) * 5))
        res = np.zeros((5, RES_COUNT), np.int16)
        cards = np.zeros((5, MAX_CITY), np.int16)
        acc = np.zeros(len(COMPONENTS) + 1, np.uint64)
        profile_run(runner, 7, res, cards, acc)
        chunk = runner.play(6, 1)
        assert np.array_equal(res, chunk.res[0])
        for s in range(5):  # past a city's cards the row is the scorer's scratch
            built = res[s, RES_NCARDS]
            assert np.array_equal(cards[s, :built], chunk.cards[0, s, :built])
        signed = acc.view(np.int64)  # `legal` is a difference of two timings
        assert int(signed[:len(COMPONENTS)].sum()) == int(acc[len(COMPONENTS)])
        names = list(COMPONENTS) + ["total"]
        assert all(int(signed[i]) > 0 for i, name in enumerate(names) if name != "legal")
    parts = breakdown.components(tables, 3, "random", 4)
    assert set(parts) == set(COMPONENTS) | {"total"}


def test_records_name_the_processor_model(monkeypatch, tmp_path):
    """A record's speeds compare only with others of the same processor: the model is kept."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Example CPU 9000 @ 2.60GHz\nflags\t: fpu\n")
    real_path = record.Path
    monkeypatch.setattr(record, "Path", lambda p: cpuinfo if p == "/proc/cpuinfo" else real_path(p))
    assert record.machine()["cpu_model"] == "Example CPU 9000 @ 2.60GHz"
    monkeypatch.setattr(record, "Path", lambda p: tmp_path / "missing")
    assert record.machine()["cpu_model"]  # the platform's word when the kernel's list is unreadable


def test_playouts_are_counted_on_the_games_timed(tables):
    """wsim.bench.playouts steps the games the bench timed and refuses to count others."""
    from wsim.bench import playouts
    from wsim.run.runner import Runner

    settings = rollout.settings(1)
    timed = Runner(tables, settings).play(1, 2)
    assert playouts.playouts_per_game(tables, settings, 1, timed.res) > 0
    with pytest.raises(RuntimeError, match="did not end as the timed game did"):
        playouts.playouts_per_game(tables, settings, 1, timed.res[::-1])
