"""Golden results: what the kernels write must not change unless RULES_VERSION does.

- every dataset column of seed 0, 2,000 random games per player count, pinned by a hash (the
  columns of schema version 2 by the hash pinned since RULES_VERSION 3, the four behaviour
  counters schema version 3 added by their own);
- one readable playthrough per player count (the `wsim replay` text), in tests/data/, which a
  reader can check by hand against docs/rules.md. The reference engine replays each of these games
  (test_simulate_cli.test_golden_results and wsim replay do so);
- beside the omniscient ones, the same games as seat 0 sees them (2, 3 and 5 players): at each
  of its decisions, its view (KernelGame.view: its hand, the hands it held this age, the plays
  as shown to it, the hidden counts) and its legal options, in tests/data/seat0-Np.txt;
- the second edition (docs/rules.md §13, wsim/data/cards-2e.yaml) the same way, by their own
  hashes (3 to 7 players: the edition has no two-player game), and one readable 5-player
  playthrough, tests/data/playthrough-2e-5p.txt, which the reference engine replays here.

After a deliberate rules change: bump RULES_VERSION, check the new games by replay, then
regenerate with `python tests/test_golden.py`.
"""

import hashlib
import json
from pathlib import Path

import pytest

from wsim import RULES_VERSION, tables as tables_mod
from wsim.codes import COUNTERS
from wsim.dataset import parts
from wsim.logtext import log_text
from wsim.run.runner import Runner, game_log
from wsim.run.settings import Settings

DATA = Path(__file__).parent / "data"
GAMES = 2000
DATASET_SHA256 = {  # seed 0, random policy, 2,000 games (2: the Free City variant); unchanged since RULES_VERSION 3
    # (versions 4, 5 and 6 changed only rollout's playouts)
    2: "8785dc79053f9290fd2ea281589d3dae524176ee066d18f57e9f7eababdf5590",
    3: "d3e61713a09d6991f8540f5e4a3d6b2561c06ff078bc6deb9b5d9f4c505875bb",
    4: "8eaddfd76ea3a0506a7edb8c8e9888d8a7c2151db60c6b309f379ab101ddd82a",
    5: "cda6da695d877a2e46a3d4a925acff0340e596d4d2136af300e4bd9790446177",
    6: "af5a18d5dffeea1918d65c5ac0fcedac3d778b51573f4bd981767ffd1e0f7281",
    7: "62fcc116751ea9c41b928665eb093c853e3623c8865846271d905bb7d781c8e5",
}


COUNTERS_SHA256 = {  # the same runs' behaviour counters (codes.COUNTERS), pinned since schema version 3
    2: "e7e889da941d100d09a1a0f62f10ccc9037e5d1c738fb468922c012b972aa6c1",
    3: "95e92ea87550ae8b4694e80953638256b899a51ed2246348cc89045fc6cd1373",
    4: "645dca9a0e2ddb0f36df75ea63830be921322cf968f97933d22b27769951a33e",
    5: "03e9920b572b1e33c979945c2e9c853009d0051516b1c85ac9bba48472a6e485",
    6: "d1439785ec6b3d324360fc066b20141aa6bf0c33a16d98fa997ed1c095fb86a8",
    7: "25a797451365c90ca0cf005c4c22d4649f6bd23912f695488a35e1f1e897f4ab",
}


SECOND_EDITION = tables_mod.edition_path(2)
DATASET_SHA256_2E = {  # the second edition's (seed 0, random policy, 2,000 games), pinned at RULES_VERSION 6
    3: "2bb7b0c0a893dc9c57be86ffbd35f93b8f65627b757c01b8cdf5692342c99986",
    4: "582078fbb5b37e321a268d3a6ea41b05c72f35699063bed6a88eaf2a9ac97a51",
    5: "df9d379c94f49946c837ef99b071fcb4fa6a4ffaf986a3dc8460e278ae102e53",
    6: "aa7c46ffb7bd11219059f904a2687544bffc047ae7a870ac4bd0172142b99d03",
    7: "d20323f20f15dd31d913327dac0bb2529312490c44a0cb90a64de2fa07d36b62",
}
COUNTERS_SHA256_2E = {  # the same runs' behaviour counters
    3: "86c7d289ae97f8d8356b9e15541b4d54e84e75e28c223ca0307958ce3282bb56",
    4: "1cad979644d328f2629db64156ac35973398d884b691b0363b65892a0c770178",
    5: "a0fe8f7c2bda45fb8047863cf3918f1df0951754b8d4de0e4f74b601191a3236",
    6: "397b2386ffc97c89bab3682c68d8f4bff184de4c41cdf944184c18331d2d4bae",
    7: "c691e099b7b35dc3114e7322931691b8c81ae9e0f20c2ee7e70a60f2d3911470",
}


def dataset_digest(players: int, counters: bool = False, data=None) -> str:
    """sha256 over the values of the run's columns (seed 0, random, GAMES games) on the data
    file `data` (None: the first edition's): every column but the behaviour counters
    (codes.COUNTERS), or (counters) those alone."""
    t = tables_mod.load(data)
    settings = Settings(players=players, seed=0, games=GAMES, policies=("random",) * players)
    table = parts.chunk_table(t, settings, Runner(t, settings).play(0, GAMES))
    h = hashlib.sha256()
    for name in table.column_names:
        if (name in COUNTERS) == counters:
            h.update(name.encode() + json.dumps(table[name].to_pylist()).encode())
    return h.hexdigest()


def playthrough(players: int, data=None) -> str:
    """The `wsim replay` text of game 0 of seed 0, every seat on `greedy`, Manneken Pis in the pool
    when the data file has it (the first edition's; `data` None)."""
    t = tables_mod.load(data)
    settings = Settings(players=players, seed=0, games=1, policies=("greedy",) * players,
                        manneken_pis=bool(t.board_promo.any()))
    return log_text(game_log(Runner(t, settings), 0), list(settings.policies)) + "\n"


def seat_playthrough(players: int, seat: int = 0) -> str:
    """The game of `playthrough` as `seat` sees it: at each of its decisions, its view and its
    legal options (every purchase)."""
    from wsim import codes
    from wsim.kernels.layout import M_ACTION, M_CARD, M_LEFT, M_RIGHT
    from wsim.run.stepgame import KernelGame

    t = tables_mod.load()
    g = KernelGame(t, players, seed=0, game=0, policy="greedy", promo=True)

    def names(cards):
        return ", ".join(t.card_names[c] if c >= 0 else "?" for c in cards) or "-"

    lines = [f"game 0 (seed 0, {players} players, greedy) as seat {seat} sees it"]
    kinds = ("move", "7th card", "stage-3 neighbour", "discard build")
    while not g.over:
        for s, kind in g.pending():
            options = g.legal(s, kind)
            if s == seat:
                v = g.view(seat)
                lines.append(f"Age {g.age} turn {g.turn}, {kinds[kind]}")
                lines.append(f"  hand: {names(v['hand'])}")
                for u, held in enumerate(v["held"], 1):
                    lines.append(f"  held on turn {u}: {names(held)}")
                shown = [f"{r + 1}/{p}:{codes.ACTIONS[a]}:{names([c])}" for r, p, a, c in v["plays"]]
                lines.append(f"  plays: {' '.join(shown) or '-'}")
                lines.append(f"  pile by age: {v['pile_by_age']}, Free City pile: {v['fc_pile']}, "
                             f"coins: {[city[0] for city in v['cities']]}")
                rows = [f"{codes.ACTIONS[o[M_ACTION]] if o[M_ACTION] >= 0 else 'decline'} "
                        f"{names([o[M_CARD]]) if o[M_CARD] >= 0 else ''} {o[M_LEFT]}+{o[M_RIGHT]}" for o in options]
                lines.append(f"  options: {' | '.join(rows)}")
            g.apply(s, kind, options, g.decide(s, kind, options))
        g.next()
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("players", [2, 3, 5])
def test_seat_view_playthrough_unchanged(players):
    assert seat_playthrough(players) == (DATA / f"seat0-{players}p.txt").read_text()


@pytest.mark.parametrize("players", range(2, 8))
def test_dataset_columns_unchanged(players):
    assert RULES_VERSION == 6
    assert dataset_digest(players) == DATASET_SHA256[players]


@pytest.mark.parametrize("players", range(2, 8))
def test_behaviour_counters_unchanged(players):
    assert dataset_digest(players, counters=True) == COUNTERS_SHA256[players]


@pytest.mark.parametrize("players", range(2, 8))
def test_readable_playthrough_unchanged(players):
    assert playthrough(players) == (DATA / f"playthrough-{players}p.txt").read_text()


@pytest.mark.parametrize("players", range(3, 8))
def test_second_edition_dataset_columns_unchanged(players):
    assert RULES_VERSION == 6
    assert dataset_digest(players, data=SECOND_EDITION) == DATASET_SHA256_2E[players]


@pytest.mark.parametrize("players", range(3, 8))
def test_second_edition_behaviour_counters_unchanged(players):
    assert dataset_digest(players, counters=True, data=SECOND_EDITION) == COUNTERS_SHA256_2E[players]


def test_second_edition_readable_playthrough_unchanged():
    """The text, and the game it tells replayed move by move by the reference engine (the same
    settings: seed 0, game 0, every seat greedy)."""
    from wsim.run.verify import verify_games

    assert playthrough(5, data=SECOND_EDITION) == (DATA / "playthrough-2e-5p.txt").read_text()
    assert verify_games(5, "greedy", 0, 1, seed=0, data=SECOND_EDITION)["games"] == 1


if __name__ == "__main__":
    for n in range(2, 8):
        (DATA / f"playthrough-{n}p.txt").write_text(playthrough(n))
        print(n, dataset_digest(n), dataset_digest(n, counters=True))
    (DATA / "playthrough-2e-5p.txt").write_text(playthrough(5, data=SECOND_EDITION))
    for n in range(3, 8):
        print("2e", n, dataset_digest(n, data=SECOND_EDITION), dataset_digest(n, counters=True, data=SECOND_EDITION))
    for n in (2, 3, 5):
        (DATA / f"seat0-{n}p.txt").write_text(seat_playthrough(n))
