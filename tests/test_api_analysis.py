"""wsim.balance, wsim.ablate, wsim.ladder and wsim.survey from Python: the command's files, its
tables as DataFrames, and errors named as the Python caller wrote them."""

import pytest

import wsim
from wsim.errors import WsimError

from clikit import run_cli

pytestmark = pytest.mark.slow  # small analyses, each a few seconds


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return wsim.simulate(games=400, players=3, policies="greedy", seed=2, threads=1,
                         out=tmp_path_factory.mktemp("api") / "ds").path


def test_balance_returns_its_tables_and_writes_the_commands_files(dataset, tmp_path):
    report = wsim.balance(dataset)  # nothing written
    assert {"players", "wonder", "side", "win_rate"} <= set(report.wonders.columns)
    assert len(report.cards) > 0 and report.paired is None
    written = wsim.balance(dataset, out=tmp_path / "api")
    assert run_cli("balance", str(dataset), "--out", str(tmp_path / "cli")).exit_code == 0
    for name in ("wonders.csv", "cards.csv", "index.html"):
        assert (tmp_path / "api" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert written.wonders.equals(report.wonders)
    with pytest.raises(WsimError, match="out: .* is the dataset folder dataset names"):
        wsim.balance(dataset, out=dataset)


def test_ablate_returns_the_paired_table(tmp_path):
    report = wsim.ablate(["Altar.points=+8"], games=300, players=3, seed=1, threads=1, out=tmp_path / "r")
    assert report.paired is not None and "q_value" in report.paired.columns
    assert (tmp_path / "r" / "paired.csv").exists()
    with pytest.raises(WsimError, match="^edits: must be a non-empty list of edits"):
        wsim.ablate("Altar.points=+8", games=10, out=tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_ladder_returns_its_tables(tmp_path):
    result = wsim.ladder(["random", "greedy"], games=40, players=3, seed=3, threads=1, out=tmp_path / "l")
    assert len(result.ladder) == 2 and len(result.ratings) == 2
    assert (tmp_path / "l" / "ladder.csv").read_text() == result.ladder_text
    with pytest.raises(WsimError, match="^policies: a ladder needs at least two policies"):
        wsim.ladder(["random"], games=10, out=tmp_path / "m")


def test_survey_returns_its_tables(tmp_path):
    estimates = []
    survey = wsim.survey(populations=["r=random", "g=greedy"], players=3, games=300, seed=4, threads=1,
                         chunk_size=300, out=tmp_path / "s", on_estimate=estimates.extend)
    assert [pop.name for pop, _ in estimates] == ["r", "g"]
    assert {"population", "wonder", "side"} <= set(survey.survey.columns) and len(survey.verdicts) > 0
    with pytest.raises(WsimError, match="^overwrite and resume"):
        wsim.survey(out=tmp_path / "t", overwrite=True, resume=True)
    with pytest.raises(WsimError, match="^players: must be a whole number from 2 to 7"):
        wsim.survey(out=tmp_path / "t", players=1)


@pytest.mark.parametrize("setting, value", [("games", 0), ("games", -5), ("games", 2.5), ("seed", -1),
                                            ("seed", 2**64)])
def test_ladder_names_a_bad_count_or_seed(tmp_path, setting, value):
    with pytest.raises(WsimError, match=f"^{setting}: must be a whole number"):
        wsim.ladder(["random", "greedy"], out=tmp_path / "l", **{setting: value})
    assert not (tmp_path / "l").exists()


def test_analysis_errors_name_the_python_arguments(dataset, tmp_path):
    """From Python a message names `out`, `overwrite` and `dataset`, not the command's --out and DIR."""
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    calls = {"balance": lambda: wsim.balance(dataset, out=busy),
             "ablate": lambda: wsim.ablate(["Altar.points=+8"], games=10, out=busy),
             "survey": lambda: wsim.survey(games=10, out=busy)}
    for name, call in calls.items():
        with pytest.raises(WsimError, match=r"^out: .* not empty \(use overwrite") as caught:
            call()
        assert "--" not in str(caught.value), name
    assert (busy / "notes.txt").read_text() == "mine"
    with pytest.raises(WsimError, match="^dataset: .*nosuch: no such folder"):
        wsim.balance(tmp_path / "nosuch")
    with pytest.raises(WsimError, match="^games: must be a whole number from 1"):
        wsim.rebalance(games=0, out=tmp_path / "rb")
