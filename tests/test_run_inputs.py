"""Run inputs the kernels must never see: too few boards for the seats (F5), more guilds than
the deal's old buffer held, data beyond the kernels' limits in `bench` (F14)."""

import copy

import yaml

from clikit import last_error_line, run_cli
from wsim import tables as tables_mod
from wsim.kernels.deal import deal
from wsim.kernels.layout import DEAL_DECK


def write(tmp_path, doc, name="data.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def test_too_few_boards_for_the_seats(tmp_path, data_doc):
    """F5: three boards and four seats; eight boards of which six are promo."""
    doc = copy.deepcopy(data_doc)
    doc["wonders"] = doc["wonders"][:3]
    three = write(tmp_path, doc, "three.yaml")
    result = run_cli("--data", str(three), "simulate", "--games", "20", "--players", "4",
                     "--out", str(tmp_path / "d28"))
    assert result.exit_code == 2
    assert last_error_line(result) == (f"Error: {three}: 4 seats need a random board but the pool holds only 3 "
                                       "(promo boards join it only with --manneken-pis)")
    assert not (tmp_path / "d28").exists()
    assert run_cli("--data", str(three), "simulate", "--games", "20", "--players", "3",
                   "--out", str(tmp_path / "ok")).exit_code == 0
    doc = copy.deepcopy(data_doc)
    for w in doc["wonders"][2:]:
        w["promo"] = True
    promo = write(tmp_path, doc, "promo.yaml")
    result = run_cli("--data", str(promo), "simulate", "--games", "20", "--players", "5",
                     "--manneken-pis", "--out", str(tmp_path / "d29"))
    assert result.exit_code == 0  # promo boards in the pool: enough boards
    result = run_cli("--data", str(promo), "simulate", "--games", "20", "--players", "5",
                     "--out", str(tmp_path / "d29"))
    assert result.exit_code == 2 and "5 seats need a random board but the pool holds only 2" in last_error_line(result)
    bench = run_cli("--data", str(three), "bench", "--quick", "--no-save")
    assert bench.exit_code == 2 and "pool holds only 3" in last_error_line(bench)


def test_many_guilds_deal_within_the_deal_buffer(tmp_path, data_doc):
    """The deal deck is DEAL_DECK cards whatever the player count: 40 guilds at 3 players."""
    doc = copy.deepcopy(data_doc)
    guild = next(c for c in doc["cards"] if c["color"] == "purple")
    for i in range(40 - sum(1 for c in doc["cards"] if c["color"] == "purple")):
        extra = copy.deepcopy(guild)
        extra["name"] = f"Extra Guild {i}"
        doc["cards"].append(extra)
    t = tables_mod.load(write(tmp_path, doc))
    assert 40 > 7 * 3 + 16 and 40 <= DEAL_DECK  # more guilds than the old 3-player buffer
    boards, sides, hands = deal(t, 3, 11, 0)
    purple = [c for c in hands[2].ravel() if t.ent_kind[c] == 6]
    assert len(purple) == 5 and len(set(int(c) for c in purple)) == 5
    assert (hands >= 0).all() and (hands < t.n_cards).all()
    result = run_cli("--data", str(tmp_path / "data.yaml"), "simulate", "--games", "30", "--players", "3",
                     "--out", str(tmp_path / "ds"))
    assert result.exit_code == 0, result.output


def test_bench_reports_data_beyond_the_kernel_limits(tmp_path, data_doc):
    """F14: the same Error: line as simulate, not a traceback."""
    doc = copy.deepcopy(data_doc)
    next(c for c in doc["cards"] if c["name"] == "Palace")["cost"]["wood"] = 2
    nine = write(tmp_path, doc, "nine.yaml")
    for command in (["simulate", "--games", "10", "--out", str(tmp_path / "x")], ["bench", "--quick", "--no-save"]):
        result = run_cli("--data", str(nine), *command)
        assert result.exit_code == 2
        assert last_error_line(result) == (f"Error: {nine}: the kernels' trading solver takes costs of at "
                                           "most 7 resource units (Palace costs 8)"), command
