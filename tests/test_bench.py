"""The benchmark's pieces run (timings themselves are never asserted: see `make bench`)."""

from wsim import bench


def test_bench_pieces_run(tables):
    assert bench._games_per_second(tables, 3, "greedy", 1, 64) > 0
    assert bench._trade_calls_per_second(positions=200, repeats=1) > 0
    assert bench._reference_games_per_second(tables, 3, 1) > 0
    split = bench._where_time_goes(tables, 3, 8, 1000.0)
    assert split["game_us"] == 1000.0 and split["deal_us"] > 0 and split["loop_floor_us"] > 0  # no timing asserted
    bench.set_threads(None)
