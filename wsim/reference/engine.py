"""The reference game engine: legal moves, the simultaneous turn of docs/rules.md §9, ages,
military, and whole games with the `random` policy.

Readable first: every rule is spelled out where it happens. The engine checks every choice a
policy returns against the legal moves, so replaying a logged game (wsim.reference.replay)
re-checks every move of it.

Canonical orders (the kernels follow them too, so both draw the same random numbers):
  legal moves   hand slots in hand order; for each slot: build, build_free, stage, discard
  hands         dealt order; playing a card removes it and keeps the rest in order; passing
                moves whole hands (Age I and III to the left, Age II to the right)
  discard pile  a discard build chooses among the buildings there, once each (the lowest card
                id of a name stands for its copies of every age), ids ascending

Two players (the Free City variant, docs/rules.md §10): a 3-city ring, the players at seats 0
and 1, the Free City (FC) at seat codes.FC_SEAT = 2. hands[2] is the FC's face-down pile (the
front card is drawn next). Each turn the controller (codes.fc_controller) appends the drawn card
at the end of its hand and its policy chooses, in this order: its own move (with its stage-3
neighbour), then the FC's move among `free_city_moves` of its hand without its own card (asked
with seat 2), then, on a discard build of the FC, that pick. Events are logged in seat order
0, 1, 2. The FC never plays a 7th card; after each turn seats 0 and 1 swap hands.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wsim import codes
from wsim.kernels.deal import deal
from wsim.kernels.rng import STREAM_SEAT0, draw_below, stream_key
from wsim.movelog import (ACT_BUILD, ACT_BUILD_FREE, ACT_DISCARD, ACT_STAGE, DISCARD_BUILD, MILITARY,
                          MOVE, SEVENTH)
from wsim.reference.scoring import score_all
from wsim.reference.state import City, Position
from wsim.tables import Tables


class IllegalMove(ValueError):
    """A policy (or a replayed log) chose something the rules do not allow."""


@dataclass(frozen=True)
class Move:
    """A legal (card, action) pair for a seat, with the purchases it may use.

    options: the affordable Pareto-minimal (left, right) purchases, in docs/rules.md §4 order
    (the first is the default purchase); ((0, 0),) when nothing is bought.
    """

    slot: int
    card: int
    action: int
    coin_cost: int
    options: tuple
    needs_copy3: bool  # building Manneken Pis A stage 3: the move also names a neighbour


@dataclass(frozen=True)
class Choice:
    """What a policy plays: a legal move, the purchase it pays, and the stage-3 neighbour."""

    move: Move
    purchase: tuple = (0, 0)
    copy3: int = -1


def legal_moves(pos: Position, seat: int, hand: list, age: int, turn: int | None) -> list:
    """Every legal (card, action) pair of a seat for a hand, in canonical order (module doc);
    `turn` the turn whose move it is, None for a 7th card (no turn's card: the second edition's
    Olympia Night powers do not apply to it)."""
    t = pos.t
    city = pos.cities[seat]
    can_free_build = pos.has_power(seat, codes.POW_FREE_BUILD) and city.free_build_age != age
    stage = pos.stage_cost(seat)
    stage_e = t.stage_entity(city.board, city.side, city.stages) if stage is not None else -1
    needs_copy3 = stage_e >= 0 and t.copies_chosen_neighbour(stage_e)
    moves = []
    for slot, card in enumerate(hand):
        owned = pos.owns_name(seat, card)
        if not owned:
            cost = pos.card_cost(seat, card)
            free = cost.free or pos.power_makes_free(seat, card, turn)
            if free:
                moves.append(Move(slot, card, ACT_BUILD, 0, ((0, 0),), False))
            elif cost.affordable:
                moves.append(Move(slot, card, ACT_BUILD, cost.coin_cost, tuple(cost.affordable_options), False))
            # Olympia A: only for a card that is not free anyway
            if can_free_build and not free:
                moves.append(Move(slot, card, ACT_BUILD_FREE, 0, ((0, 0),), False))
        if stage is not None and (stage.free or stage.affordable):
            opts = ((0, 0),) if stage.free else tuple(stage.affordable_options)
            moves.append(Move(slot, card, ACT_STAGE, 0, opts, needs_copy3))
        moves.append(Move(slot, card, ACT_DISCARD, 0, ((0, 0),), False))
    return moves


def free_city_moves(pos: Position, hand: list, age: int, turn: int) -> list:
    """The Free City's legal moves for a hand (docs/rules.md §10), in canonical order.

    Per card: build alone when a chain it holds makes the card free (and it does not own the
    name); else build / build_free / stage as for a player, and discard only when none of these
    is legal. Purchases: every affordable option, as for a player.
    """
    seat = codes.FC_SEAT
    moves = legal_moves(pos, seat, hand, age, turn)
    out = []
    for slot, card in enumerate(hand):
        mine = [m for m in moves if m.slot == slot]
        if not pos.owns_name(seat, card) and pos.chain_applies(seat, card):
            out.extend(m for m in mine if m.action == ACT_BUILD)
            continue
        plays = [m for m in mine if m.action != ACT_DISCARD]
        out.extend(plays if plays else mine)
    return out


def discard_choices(pos: Position, seat: int, pile: list) -> list:
    """The buildings a discard build may take from the pile, once each: a name the city does not
    own, its lowest card id standing for every copy (the Age I and Age II Loom are one building),
    ascending."""
    first = {}
    for c in sorted(set(pile)):
        if not pos.owns_name(seat, c):
            first.setdefault(int(pos.t.card_name_id[c]), c)
    return sorted(first.values())


class RandomPolicy:
    """docs/rules.md §12: uniform over legal (card, action) pairs, the default purchase, a
    discard build uniform over the legal cards, the stage-3 neighbour uniform, and it always
    plays a 7th card. Draws come from the seat's own stream, one draw per decision."""

    name = "random"

    def __init__(self, seed: int, game: int, seat: int):
        self.key = np.uint64(stream_key(np.uint64(seed), np.uint64(game), np.uint64(STREAM_SEAT0 + seat)))
        self.counter = 0

    def draw(self, n: int) -> int:
        value = int(draw_below(self.key, self.counter, n))
        self.counter += 1
        return value

    def choose(self, game: "Game", seat: int, moves: list, seventh: bool) -> Choice:
        move = moves[self.draw(len(moves))]
        copy3 = self.draw(2) if move.needs_copy3 else -1
        return Choice(move, move.options[0], copy3)

    def discard_build(self, game: "Game", seat: int, cards: list):
        return cards[self.draw(len(cards))] if cards else None


class Game:
    """One game in progress: the position, hands, discard pile, age, turn and the event log.

    free_city: the 2-player variant (module docstring): three boards and hands (the third is
    the Free City's pile) and one policy per player (two).
    """

    def __init__(self, tables: Tables, boards, sides, hands, policies, free_city: bool = False):
        self.t = tables
        self.n = len(boards)
        self.free_city = free_city
        self.players = codes.FC_PLAYERS if free_city else self.n
        self.pos = Position(tables, [City(int(b), int(s), int(tables.board_coins[b]))
                                     for b, s in zip(boards, sides)],
                            codes.FC_SEAT if free_city else -1)
        self.dealt = [[[int(c) for c in hand] for hand in age] for age in hands]
        self.policies = policies
        self.hands: list = []
        self.discard: list = []
        self.age = 0
        self.turn = 0
        self.events: list = []

    # -- who decides for a seat -----------------------------------------------------------------
    def controller(self) -> int:
        """The seat holding the Free City card this turn (docs/rules.md §10)."""
        return codes.fc_controller(self.age, self.turn)

    def decider(self, seat: int) -> int:
        """The player whose policy decides for a seat: the controller for the Free City."""
        return self.controller() if self.free_city and seat == codes.FC_SEAT else seat

    # -- one choice, checked -------------------------------------------------------------------
    def _checked(self, seat: int, choice: Choice, moves: list) -> Choice:
        m = choice.move
        if m not in moves:
            raise IllegalMove(f"age {self.age} turn {self.turn} seat {seat}: "
                              f"{self.t.card_names[m.card]} / action {m.action} is not a legal move")
        if tuple(choice.purchase) not in m.options:
            raise IllegalMove(f"age {self.age} turn {self.turn} seat {seat}: purchase {choice.purchase} "
                              f"for {self.t.card_names[m.card]} is not one of {list(m.options)}")
        if m.needs_copy3 != (choice.copy3 in (codes.COPY_LEFT, codes.COPY_RIGHT)):
            raise IllegalMove(f"age {self.age} turn {self.turn} seat {seat}: the Manneken Pis stage-3 "
                              f"neighbour is {'missing' if m.needs_copy3 else 'not expected'}")
        return choice

    # -- steps 2-4 of a round ------------------------------------------------------------------
    def _resolve(self, choices: dict) -> list:
        """Pay, place, then resolve immediate coins; returns the (seat, stage index) built.

        Counts each city's behaviour on the way (City.discards, chained, coins_paid,
        coins_received): the purchase's coins to and from the neighbours; a build action of a
        card with a cost that a chain source the city owns makes free; a discard for coins."""
        pos = self.pos
        cities = pos.cities
        for seat, ch in choices.items():  # step 2: payments
            left, right = ch.purchase
            cities[seat].coins -= ch.move.coin_cost + left + right
            cities[pos.left(seat)].coins += left
            cities[pos.right(seat)].coins += right
            cities[seat].coins_paid += left + right
            cities[pos.left(seat)].coins_received += left
            cities[pos.right(seat)].coins_received += right
        stages = []
        for seat, ch in choices.items():  # step 3: cards enter cities / the discard pile
            m = ch.move
            # the FC's card comes from the controller's hand, whose own card (a lower seat,
            # so popped first) is gone by now: the FC's slot counts in the hand without it
            self.hands[self.decider(seat)].pop(m.slot)
            city = cities[seat]
            if m.action in (ACT_BUILD, ACT_BUILD_FREE):
                if m.action == ACT_BUILD and pos.has_cost(m.card) and pos.chain_applies(seat, m.card):
                    city.chained += 1  # built free through a chain (its source owned before it enters)
                city.cards.append(m.card)
                if m.action == ACT_BUILD_FREE:
                    city.free_build_age = self.age
            elif m.action == ACT_STAGE:
                stages.append((seat, city.stages))
                city.stages += 1
                if ch.copy3 >= 0:
                    city.copy3 = ch.copy3
            else:
                self.discard.append(m.card)
        for seat, ch in choices.items():  # step 4: immediate coins, on the cities as they stand
            m = ch.move
            if m.action == ACT_DISCARD:
                cities[seat].coins += codes.DISCARD_COINS
                cities[seat].discards += 1
            elif m.action == ACT_STAGE:
                e, _ = pos.stage_source(seat, cities[seat].stages - 1)
                if e >= 0:
                    cities[seat].coins += pos.coins_when_built(seat, e)
            else:
                cities[seat].coins += pos.coins_when_built(seat, m.card)
        return stages

    def _log_choice(self, kind: int, seat: int, ch: Choice):
        m = ch.move
        self.events.append((kind, self.age, self.turn, seat, m.card, m.action,
                            ch.purchase[0], ch.purchase[1], ch.copy3))

    # -- a turn ---------------------------------------------------------------------------------
    def play_turn(self):
        """One turn of docs/rules.md §9, steps 1 to 7 (section 10 with the Free City)."""
        pos, n = self.pos, self.n
        if self.free_city:  # the controller draws the FC pile's next card
            self.hands[self.controller()].append(self.hands[codes.FC_SEAT].pop(0))
        choices = {}
        for seat in range(self.players):  # step 1: every choice against the state at the start of the turn
            moves = legal_moves(pos, seat, self.hands[seat], self.age, self.turn)
            choices[seat] = self._checked(seat, self.policies[seat].choose(self, seat, moves, False), moves)
            self._log_choice(MOVE, seat, choices[seat])
        if self.free_city:
            choices[codes.FC_SEAT] = self._free_city_choice(choices[self.controller()])
        built = self._resolve(choices)
        if self.turn == codes.TURNS_PER_AGE:
            sevenths = {}
            for seat in range(self.players):  # step 5: 7th cards (never the FC's), on the state after step 4
                if self.hands[seat] and pos.has_power(seat, codes.POW_SEVENTH):
                    moves = legal_moves(pos, seat, self.hands[seat], self.age, None)
                    ch = self.policies[seat].choose(self, seat, moves, True)
                    if ch is not None:
                        sevenths[seat] = self._checked(seat, ch, moves)
                        self._log_choice(SEVENTH, seat, sevenths[seat])
            built += self._resolve(sevenths)
            for seat in range(n):  # leftovers, and unplayed 7th cards, go face down, no coins
                self.discard.extend(self.hands[seat])
                self.hands[seat] = []
        self._discard_builds(built)
        if self.turn < codes.TURNS_PER_AGE:  # step 7: pass hands
            if self.free_city:  # the players swap hands; the FC pile stays
                self.hands[0], self.hands[1] = self.hands[1], self.hands[0]
            elif self.age == 2:
                self.hands = [self.hands[(s + 1) % n] for s in range(n)]  # to the right
            else:
                self.hands = [self.hands[(s - 1) % n] for s in range(n)]  # to the left

    def _free_city_choice(self, own: Choice) -> Choice:
        """The controller's move for the FC, among the cards left beside its own move's card."""
        ctrl = self.controller()
        hand = [c for slot, c in enumerate(self.hands[ctrl]) if slot != own.move.slot]
        moves = free_city_moves(self.pos, hand, self.age, self.turn)
        choice = self._checked(codes.FC_SEAT, self.policies[ctrl].choose(self, codes.FC_SEAT, moves, False), moves)
        self._log_choice(MOVE, codes.FC_SEAT, choice)
        return choice

    def _discard_builds(self, built: list):
        """Step 6: each discard-build stage built this turn; Halicarnassus before copies."""
        t, pos = self.t, self.pos
        triggers = []
        for seat, k in built:
            e, copied = pos.stage_source(seat, k)
            if e >= 0 and t.ent_power[e] == codes.POW_DISCARD_BUILD:
                triggers.append((int(copied), seat))
        for _, seat in sorted(triggers):
            cards = discard_choices(pos, seat, self.discard)
            pick = self.policies[self.decider(seat)].discard_build(self, seat, cards)
            if pick is not None and pick not in cards:
                raise IllegalMove(f"age {self.age} turn {self.turn} seat {seat}: discard build of "
                                  f"{t.card_names[pick]} is not allowed (choices: "
                                  f"{[t.card_names[c] for c in cards]})")
            self.events.append((DISCARD_BUILD, self.age, self.turn, seat,
                                -1 if pick is None else pick, 0, 0, 0, -1))
            if pick is not None:
                self.discard.remove(pick)
                pos.cities[seat].cards.append(pick)
                pos.cities[seat].coins += pos.coins_when_built(seat, pick)

    def military(self):
        """End of an age: each seat against each neighbour (docs/rules.md §5)."""
        pos = self.pos
        shields = [pos.shields(s) for s in range(self.n)]
        win = codes.MILITARY_WIN[self.age - 1]
        for seat in range(self.n):
            results = []
            for nb in (pos.left(seat), pos.right(seat)):
                if shields[seat] > shields[nb]:
                    results.append(win)
                elif shields[seat] < shields[nb]:
                    results.append(codes.MILITARY_LOSS)
                else:
                    results.append(0)
            pos.cities[seat].tokens.extend(r for r in results if r)
            self.events.append((MILITARY, self.age, codes.TURNS_PER_AGE, seat, shields[seat], 0,
                                results[0], results[1], -1))

    def play_age(self, age: int):
        """Play one age: its hands dealt, its turns, its military."""
        self.age = age
        self.hands = [list(h) for h in self.dealt[age - 1]]
        for turn in range(1, codes.TURNS_PER_AGE + 1):
            self.turn = turn
            self.play_turn()
        self.military()

    def play(self) -> dict:
        """Play the three ages; returns the final breakdown {"players": [...], "winners": [...]}."""
        for age in (1, 2, 3):
            self.play_age(age)
        return self.final()

    def final(self) -> dict:
        scores, ranks, winners = score_all(self.pos)
        players = []
        for seat, s in enumerate(scores):
            d = s.as_dict(seat)
            city = self.pos.cities[seat]
            d["coins"] = city.coins
            d["rank"] = ranks[seat]
            for name in codes.COUNTERS:
                d[name] = getattr(city, name)
            if seat == self.pos.free_city:
                d["free_city"] = True
            players.append(d)
        return {"players": players, "winners": winners}


def play(seed: int, game: int, players: int, tables: Tables | None = None, policies=None,
         board_spec=None, side_spec=None, promo_in_pool: bool = False) -> dict:
    """Play one full game with the shared deal of (seed, game); returns its JSON move log.

    players: 2 plays the Free City variant on a 3-city deal (board_spec and side_spec then
    name 3 seats, the third the Free City's). policies: one policy object per player (default:
    the random policy for every player).
    """
    from wsim import movelog, tables as tables_mod

    t = tables if tables is not None else tables_mod.load()
    free_city = players == codes.FC_PLAYERS
    cities = codes.FC_CITIES if free_city else players
    boards, sides, hands = deal(t, cities, seed, game, board_spec, side_spec, promo_in_pool)
    if policies is None:
        policies = [RandomPolicy(seed, game, s) for s in range(players)]
    g = Game(t, boards, sides, hands, policies, free_city=free_city)
    final = g.play()
    return movelog.to_json(t, seed, game, boards.tolist(), sides.tolist(), hands.tolist(), g.events, final,
                           free_city=free_city)
