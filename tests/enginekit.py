"""A tiny harness to drive single turns of the reference engine from hand-made positions.

Typical use (see tests/test_rules_engine.py):

    g = new_game(t, ["giza:A", "olympia:A", "rhodes:B"], age=1, turn=1)
    setup(g, 0, cards=["Stone Pit"], coins=0)
    set_hands(g, [["Stockade", "Altar"], ["Tavern"], ["Theater"]])
    script(g, 0, ("Stockade", "build", (2, 0)))      # one scripted move per turn
    script(g, 1, ("Tavern", "build"))
    script(g, 2, ("Theater", "discard"))
    g.play_turn()                                    # docs/rules.md §9, steps 1-7
    assert g.pos.cities[0].coins == 1

Seats: seat s's left neighbour is s+1, its right neighbour s-1 (mod N).

Two players (docs/rules.md §10): `new_game(t, [three boards], free_city=True)` seats the
Free City at seat 2 with two ScriptedPolicies; hands are [seat 0, seat 1, the FC's pile]. The
controller's script holds its own move, then the FC's move (among its hand without its card).

`ENGINE` ("reference" or "kernel") picks the engine `new_game` builds: the kernel twin
(tests/kernelturn.py) takes the same setup and plays its turns with the kernels' step API, so a
rule test parametrised over both engines holds the two to the same numbers.
Cards are named by their printed name; Loom, Glassworks and Press (two entries, Age I and II)
resolve to the entry of the game's current age unless an age is given (`card(t, "Loom", 2)`).
"""

from __future__ import annotations

import pytest

from wsim import codes
from wsim.movelog import ACTIONS
from wsim.reference.engine import Choice, Game, legal_moves

ENGINE = "reference"  # set by the `engine` fixture of a rule-test module


# -- names -> ids ---------------------------------------------------------------------------------

def card(t, name, age=None) -> int:
    """Card id of a printed name; `age` picks the entry when a name exists in two ages."""
    if isinstance(name, int):
        return name
    first = t.card_id(name)
    same = [c for c in range(t.n_cards) if t.card_name_id[c] == t.card_name_id[first]]
    if len(same) == 1:
        return same[0]
    if age is None:
        raise ValueError(f"{name!r} exists in several ages: pass age")
    for c in same:
        if int(t.card_age[c]) == age:
            return c
    return first


def cards(t, names, age=None) -> list:
    return [card(t, n, age) for n in names]


def names(t, ids) -> list:
    return [t.card_names[c] for c in ids]


ACTION = {name: i for i, name in enumerate(ACTIONS)}  # "build", "build_free", "stage", "discard"


# -- games and positions ----------------------------------------------------------------------------

def new_game(t, boards, age=1, turn=1, policies=None, free_city=False) -> Game:
    """A Game over boards given as "wonder:SIDE" strings; every player gets a ScriptedPolicy
    (empty script) unless `policies` is given. Cities start with the board's coins.
    free_city: a 2-player game, three boards (the third the Free City's), two players."""
    ids, sides = [], []
    for spec in boards:
        wonder, side = spec.split(":")
        ids.append(t.board_id(wonder))
        sides.append("AB".index(side.upper()))
    n = len(ids)
    dummy = [[[0] * codes.HAND_SIZE for _ in range(n)] for _ in range(3)]
    if policies is None:
        policies = [ScriptedPolicy(t) for _ in range(codes.FC_PLAYERS if free_city else n)]
    if ENGINE == "kernel":
        from kernelturn import KernelTurnGame

        g = KernelTurnGame(t, ids, sides, dummy, policies, free_city=free_city)
    else:
        g = Game(t, ids, sides, dummy, policies, free_city=free_city)
    g.age, g.turn = age, turn
    g.hands = [[] for _ in range(n)]
    return g


def setup(g: Game, seat: int, *, cards=None, coins=None, stages=None, tokens=None, copy3=None,
          free_build_age=None):
    """Set fields of one city; card names resolve with the game's age for Loom/Glassworks/Press
    (give an id to pick another age's entry)."""
    city = g.pos.cities[seat]
    if cards is not None:
        city.cards = [card(g.t, c, g.age) for c in cards]
    if coins is not None:
        city.coins = coins
    if stages is not None:
        city.stages = stages
    if tokens is not None:
        city.tokens = list(tokens)
    if copy3 is not None:
        city.copy3 = copy3
    if free_build_age is not None:
        city.free_build_age = free_build_age
    return city


def set_hands(g: Game, hands):
    """The hands of the current turn, by names (or ids)."""
    g.hands = [[card(g.t, c, g.age) for c in hand] for hand in hands]


def set_discard(g: Game, pile):
    g.discard = [card(g.t, c, g.age) for c in pile]


def coins(g: Game) -> list:
    return [c.coins for c in g.pos.cities]


def city_names(g: Game, seat: int) -> list:
    return names(g.t, g.pos.cities[seat].cards)


def discard_names(g: Game) -> list:
    return sorted(names(g.t, g.discard))


# -- legality ---------------------------------------------------------------------------------------

def moves_for(g: Game, seat: int, hand=None) -> list:
    """The legal moves of a seat for its current hand (or the given one), on the current
    position: the kernels' list for a kernel game, the reference's otherwise."""
    h = g.hands[seat] if hand is None else [card(g.t, c, g.age) for c in hand]
    if hasattr(g, "legal_for"):
        return g.legal_for(seat, h)
    return legal_moves(g.pos, seat, h, g.age, g.turn)


def actions(g: Game, seat: int, name, hand=None) -> list:
    """Action names legal for one card of the seat's hand, in canonical order."""
    cid = card(g.t, name, g.age)
    return [ACTIONS[m.action] for m in moves_for(g, seat, hand) if m.card == cid]


def options(g: Game, seat: int, name, action="build", hand=None):
    """The affordable purchase options of a (card, action), or None when it is not legal."""
    cid = card(g.t, name, g.age)
    for m in moves_for(g, seat, hand):
        if m.card == cid and m.action == ACTION[action]:
            return list(m.options)
    return None


def find_move(t, moves, name, action, age=None):
    """The legal Move for (card name, action name) among `moves`, or None."""
    ids = {card(t, name, a) for a in (1, 2, 3)} if age is None else {card(t, name, age)}
    for m in moves:
        if m.card in ids and m.action == ACTION[action]:
            return m
    return None


# -- scripted policy ----------------------------------------------------------------------------------

class ScriptedPolicy:
    """Plays scripted moves in order and answers discard builds from a script.

    A move is (card name, action name[, purchase[, copy3]]): purchase (left, right) or None for
    the default (first listed option), copy3 "left"/"right" (or codes.COPY_*) for Manneken Pis A
    stage 3. The move must be in the legal list the engine offers, else the test fails.
    With an empty move script the seat plays its first hand card as `default` ("discard"), or
    fails if default is None; an empty script declines a 7th card.
    A discard-build answer is a card name or None (decline); it is returned as given, so a
    test can also feed an illegal pick. `offered` records the cards each discard build offered
    (as names); `log` (shareable between policies) records (seat, "discard_build") calls in order.
    """

    def __init__(self, t, moves=(), picks=(), default="discard", log=None):
        self.t = t
        self.moves = list(moves)
        self.picks = list(picks)
        self.default = default
        self.offered: list = []
        self.seen: list = []  # (seventh, legal moves) per call
        self.asked: list = []  # the seat argument of each call to choose (2: the Free City's move)
        self.log = log if log is not None else []

    def choose(self, game, seat, moves, seventh):
        self.seen.append((seventh, list(moves)))
        self.asked.append(seat)
        if not self.moves:
            if seventh:
                return None
            if self.default is None:
                pytest.fail(f"seat {seat}: no scripted move for age {game.age} turn {game.turn}")
            spec = (self.t.card_names[game.hands[seat][0]], self.default)
        else:
            spec = self.moves.pop(0)
        name, action = spec[0], spec[1]
        purchase = spec[2] if len(spec) > 2 else None
        copy3 = spec[3] if len(spec) > 3 else -1
        if isinstance(copy3, str):
            copy3 = {"left": codes.COPY_LEFT, "right": codes.COPY_RIGHT}[copy3]
        cid = card(self.t, name, game.age)
        move = next((m for m in moves if m.card == cid and m.action == ACTION[action]), None)
        if move is None:
            legal = [(self.t.card_names[m.card], ACTIONS[m.action], m.options) for m in moves]
            pytest.fail(f"seat {seat} age {game.age} turn {game.turn}{' (7th card)' if seventh else ''}: "
                        f"{name} / {action} is not legal; legal: {legal}")
        if purchase is None:
            purchase = move.options[0]
        elif tuple(purchase) not in move.options:
            pytest.fail(f"seat {seat}: purchase {purchase} for {name} is not one of {move.options}")
        return Choice(move, tuple(purchase), copy3)

    def discard_build(self, game, seat, offered):
        self.offered.append(names(self.t, offered))
        self.log.append((seat, "discard_build"))
        pick = self.picks.pop(0) if self.picks else None
        return None if pick is None else card(self.t, pick, game.age)


def script(g: Game, seat: int, *moves, picks=()):
    """Append moves (and discard-build answers) to a seat's ScriptedPolicy."""
    pol = g.policies[seat]
    pol.moves.extend(moves)
    pol.picks.extend(picks)
    return pol
