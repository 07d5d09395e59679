"""The kernels' twin of the reference Game for scripted rule tests (tests/enginekit.py).

`KernelTurnGame` keeps the reference Game's position, hands, discard pile and policies, so a
test sets up a position exactly as for the reference engine; but `play_turn` and `military`
load that position into the kernels' state and play the turn through the step-level API
(kernels/step.py): the kernels list the legal moves, the test's policies choose among them
(a choice the kernels do not list is an IllegalMove, as in the reference), the kernels resolve,
and the new position, hands, pile and log events are read back for the test's assertions.
"""

from __future__ import annotations

import numpy as np

from wsim import codes
from wsim.kernels.game import new_scratch
from wsim.kernels.layout import (DEC_COPY3, DEC_DISCARD, DEC_MOVE, DEC_SEVENTH, DECLINE, F_CARDS, F_CHAINED, F_COINS,
                                 F_COINS_PAID, F_COINS_RECEIVED, F_COPY3, F_DISCARDS, F_FREE_AGE, F_HAND, F_HAND_N,
                                 F_NCARDS, F_STAGES, G_FC, G_PHASE, G_TURN, M_ACTION, M_CARD, M_COIN_COST, M_COPY3,
                                 M_LEFT, M_RIGHT, M_SLOT, MAX_EVENTS, PH_AGE_END, PH_MOVE, PH_OVER, kernel_tables)
from wsim.kernels import driven
from wsim.kernels.schema import Log
from wsim.kernels.step import end_age
from wsim.movelog import EVENT_COLUMNS, MILITARY
from wsim.reference.engine import Game, IllegalMove, Move
from wsim.run.stepgame import regions, state_of_position


def rows_to_moves(rows) -> list:
    """Kernel move rows -> reference Moves: one per (slot, action), its purchases in order."""
    moves, order = {}, []
    for r in rows:
        if r[M_ACTION] == DECLINE:
            continue
        key = (int(r[M_SLOT]), int(r[M_ACTION]))
        if key not in moves:
            order.append(key)
            moves[key] = [int(r[M_CARD]), int(r[M_COIN_COST]), [], bool(r[M_COPY3])]
        moves[key][2].append((int(r[M_LEFT]), int(r[M_RIGHT])))
    return [Move(slot, moves[(slot, action)][0], action, moves[(slot, action)][1], tuple(moves[(slot, action)][2]),
                 moves[(slot, action)][3]) for slot, action in order]


class KernelTurnGame(Game):
    """A reference Game whose turns (and military) the kernels play (module docstring)."""

    def _load(self):
        """The kernels' state of the current position, hands and pile, at the start of the turn."""
        self.ent, self.board, self.n_cards = kernel_tables(self.t)
        self.log = Log(np.zeros((1, MAX_EVENTS, len(EVENT_COLUMNS)), np.int16), np.zeros(1, np.int32), 0)
        hands = [list(h) for h in self.hands]
        pile = hands[codes.FC_SEAT] if self.free_city else []
        if self.free_city:  # the kernels' turn starts with the pile card drawn into the controller's hand
            hands[self.controller()].append(pile[0])
            hands[codes.FC_SEAT] = []
        state = state_of_position(self.t, self.pos, hands, self.discard, self.age, self.turn)
        if self.free_city:
            _, _, _, gs, dealt, *_ = regions(state)
            gs[G_FC] = codes.FC_SEAT
            dealt[self.age - 1, codes.FC_SEAT, self.turn - 1:self.turn - 1 + len(pile)] = pile
        return state

    def _store(self, state):
        """Read the kernels' state back into the reference position, hands, pile and log."""
        seat, keys, pile, gs, dealt, *_ = regions(state)
        for s, city in enumerate(self.pos.cities):
            city.coins = int(seat[s, F_COINS])
            city.cards = [int(c) for c in seat[s, F_CARDS:F_CARDS + seat[s, F_NCARDS]]]
            city.stages = int(seat[s, F_STAGES])
            city.copy3 = int(seat[s, F_COPY3])
            city.free_build_age = int(seat[s, F_FREE_AGE])
            city.discards, city.chained = int(seat[s, F_DISCARDS]), int(seat[s, F_CHAINED])
            city.coins_paid, city.coins_received = int(seat[s, F_COINS_PAID]), int(seat[s, F_COINS_RECEIVED])
        self.hands = [[int(c) for c in seat[s, F_HAND:F_HAND + seat[s, F_HAND_N]]] for s in range(self.n)]
        self.discard = [c for c in range(len(pile)) for _ in range(int(pile[c]))]
        new = [tuple(ev) for ev in self.log.rows[0, :self.log.count[0]].tolist()]
        self.events.extend(new)
        return new

    def _decide(self, state, s, kind, scratch, chosen) -> int:
        """The test's policy decides among the kernels' options; returns the row index."""
        m = driven.legal_into(self.ent, self.board, state[0], scratch[0], s, kind, True)
        rows = scratch["moves"][0][:m]
        if kind == DEC_COPY3:
            return 0 if chosen[s].copy3 == codes.COPY_LEFT else 1
        if kind == DEC_DISCARD:
            offered = [int(r[M_CARD]) for r in rows if r[M_ACTION] != DECLINE]
            pick = self.policies[self.decider(s)].discard_build(self, s, offered)
            if pick is not None and pick not in offered:
                raise IllegalMove(f"age {self.age} turn {self.turn} seat {s}: discard build of "
                                  f"{self.t.card_names[pick]} is not allowed")
            if pick is None:
                return next(i for i, r in enumerate(rows) if r[M_ACTION] == DECLINE)
            return next(i for i, r in enumerate(rows) if r[M_ACTION] != DECLINE and r[M_CARD] == pick)
        legal_list = rows_to_moves(rows)
        ch = self.policies[self.decider(s)].choose(self, s, legal_list, kind == DEC_SEVENTH)
        if ch is None:
            if kind != DEC_SEVENTH:
                raise IllegalMove(f"seat {s}: a turn's move cannot be declined")
            return next(i for i, r in enumerate(rows) if r[M_ACTION] == DECLINE)
        ch = self._checked(s, ch, legal_list)  # the reference's own checks, on the kernels' list
        chosen[s] = ch
        return next(i for i, r in enumerate(rows)
                    if (r[M_SLOT], r[M_ACTION], r[M_LEFT], r[M_RIGHT]) == (ch.move.slot, ch.move.action,
                                                                           *ch.purchase))

    def legal_for(self, seat: int, hand: list) -> list:
        """The kernels' legal moves of `seat` holding `hand`, as reference Moves."""
        saved = self.hands
        self.hands = [list(h) for h in saved]
        self.hands[seat] = list(hand)
        state = self._load()
        self.hands = saved
        scratch = new_scratch()
        m = driven.legal_into(self.ent, self.board, state[0], scratch[0], seat, DEC_MOVE, True)
        return rows_to_moves(scratch["moves"][0][:m])

    def play_turn(self):
        """One turn of docs/rules.md §9, steps 1 to 7, played by the kernels."""
        fc_pile = self.hands[codes.FC_SEAT] if self.free_city else []
        state = self._load()
        gs = regions(state)[3]
        scratch = new_scratch()
        todo = scratch["todo"][0]
        chosen = {}
        while gs[G_TURN] == self.turn and gs[G_PHASE] not in (PH_AGE_END, PH_OVER):
            for i in range(driven.pending_into(state[0], scratch[0])):
                s, kind = int(todo[i, 0]), int(todo[i, 1])
                j = self._decide(state, s, kind, scratch, chosen)
                driven.apply_option(self.ent, self.board, state[0], scratch[0], s, kind, j, self.log)
        assert gs[G_PHASE] in (PH_MOVE, PH_AGE_END)
        self._store(state)
        if self.free_city:  # the pile less the card drawn this turn, as the reference keeps it
            self.hands[codes.FC_SEAT] = fc_pile[1:] if gs[G_PHASE] == PH_MOVE else []
            if gs[G_PHASE] == PH_MOVE:  # the kernels began the next turn: its controller drew
                self.hands[codes.fc_controller(self.age, self.turn + 1)].pop()

    def military(self):
        """End of an age (docs/rules.md §5), by the kernels; tokens read back from the log."""
        state = self._load()
        regions(state)[3][G_PHASE] = PH_AGE_END
        end_age(state[0], self.log)
        for ev in self._store(state):
            if ev[0] == MILITARY:
                self.pos.cities[ev[3]].tokens.extend(r for r in (ev[6], ev[7]) if r)


# -- scoring and trading on the kernels (the twins of `wsim score` / `wsim trade`) ----------------

def _score_rows(t, pos):
    """Every seat's kernel score row, the seat's Manneken Pis A stage-3 neighbour (when a
    scenario leaves it open) chosen for its best total, as `wsim score` does."""
    from wsim.kernels.layout import MAX_CITY, RES_COUNT, RES_TOTAL
    from wsim.kernels.score import score_seat

    ent, _, _ = kernel_tables(t)
    rows = []
    for s, city in enumerate(pos.cities):
        first = t.stage_entity(city.board, city.side, 2)
        open3 = city.copy3 < 0 and city.stages >= 3 and first >= 0 and t.copies_chosen_neighbour(first)
        best = None
        for choice in ((codes.COPY_LEFT, codes.COPY_RIGHT) if open3 else (city.copy3,)):
            saved, city.copy3 = city.copy3, choice
            seat = regions(state_of_position(t, pos))[0]
            city.copy3 = saved
            row = np.zeros(RES_COUNT, np.int16)
            score_seat(ent, seat, len(pos.cities), s, row, np.zeros(MAX_CITY, np.int16))
            if best is None or row[RES_TOTAL] > best[RES_TOTAL]:
                best = row
        rows.append(best)
    return rows


def kernel_score_doc(t, pos) -> dict:
    """The `wsim score --json` document of a position, every number from the kernels."""
    from wsim.kernels.layout import RES_COINS, RES_COUNT, RES_MILITARY, RES_RANK, RES_TOTAL
    from wsim.kernels.score import rank_seats

    res = np.zeros((len(pos.cities), RES_COUNT), np.int16)
    for s, row in enumerate(_score_rows(t, pos)):
        res[s] = row
        res[s, RES_COINS] = pos.cities[s].coins
    rank_seats(res, len(pos.cities), -1)
    players = []
    for s in range(len(pos.cities)):
        d = {"seat": s}
        for k, name in enumerate(codes.CATEGORIES):
            d[name] = int(res[s, RES_MILITARY + k])
        d["total"] = int(res[s, RES_TOTAL])
        players.append(d)
    return {"players": players, "winners": [s for s in range(len(pos.cities)) if res[s, RES_RANK] == 1]}


def kernel_trade_doc(t, pos, seat: int, card) -> dict:
    """The `wsim trade --json` document, every number from the kernels (card None: next stage)."""
    from wsim.kernels.city import chain_applies, owns_name, purchase, stage_entity
    from wsim.kernels.layout import E_COIN_COST, E_HAS_COST
    from wsim.kernels.schema import MAX_OPTIONS

    ent, board, _ = kernel_tables(t)
    state = state_of_position(t, pos)
    s_arr = regions(state)[0]
    city = pos.cities[seat]
    n = len(pos.cities)
    if card is None:
        target = f"{t.board_ids[city.board]} {'AB'[city.side]} stage {city.stages + 1}"
        e = stage_entity(board, city.board, city.side, city.stages)
        if e < 0:
            return {"seat": seat, "target": target, "free": False, "coin_cost": 0, "options": [],
                    "affordable": False, "legal": False}
        free, second = bool(ent[e, E_HAS_COST] == 0), False
    else:
        e = card
        target = t.card_names[card]
        free = bool(ent[e, E_HAS_COST] == 0 or chain_applies(ent, s_arr, seat, e))
        second = bool(owns_name(ent, s_arr, seat, e))
    coin_cost = 0 if free else int(ent[e, E_COIN_COST])
    if free:
        options = [(0, 0)]
    else:
        opts = np.zeros((MAX_OPTIONS, 2), np.int32)
        k = purchase(ent, s_arr, n, seat, e, opts)
        options = [(int(a), int(b)) for a, b in opts[:k]]
    affordable = any(coin_cost + a + b <= city.coins for a, b in options)
    return {"seat": seat, "target": target, "free": free, "coin_cost": coin_cost,
            "options": [{"left": a, "right": b} for a, b in options], "affordable": affordable,
            "legal": (free or affordable) and not second}
