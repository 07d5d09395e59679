"""One kernel game driven from Python, decision by decision (the step-level API of kernels/step.py).

For tests, notebooks and agents prototyped in Python: the same kernels as `wsim simulate`, one
call per step. A decision is (seat, kind); `legal` lists its options as rows of M_* columns and
`apply` takes the index of one of them.

    g = KernelGame(tables, players=4, seed=0, game=12)
    for pending in g.rounds():          # [] at the end of an age: military runs after it
        for seat, kind in pending:
            options = g.legal(seat, kind)
            g.apply(seat, kind, options, g.decide(seat, kind, options))
    g.results()
"""

from __future__ import annotations

import numpy as np

from wsim import codes
from wsim.kernels import driven, schema
from wsim.kernels.city import add_card, add_entity
from wsim.kernels.game import new_run, new_scratch, new_state
from wsim.kernels.layout import (C_COUNT, C_ON, F_CHAINED, F_CHOSEN, F_COINS, F_COINS_PAID, F_COINS_RECEIVED, F_COPY3,
                                 F_COUNT, F_CTR, F_DEFEATS, F_DISCARDS, F_FREE_AGE,
                                 F_HAND, F_HAND2, F_HAND_N, F_MIL, F_STAGE_E, F_STAGES, G_AGE, G_FC, G_N, G_NCARDS,
                                 G_NTOOK, G_OPEN, G_PHASE, G_TURN, MAX_CITY,
                                 MAX_EVENTS, MAX_HAND, MAX_SEATS, PH_AGE_END, PH_MOVE, PH_OVER, RES_COUNT, kernel_tables)
from wsim.kernels.loop import play_out
from wsim.kernels.learned import empty_tape
from wsim.kernels.observe import O_LENGTH, names as observation_names, tables_layout
from wsim.kernels.policy import P_COUNT, POLICY_NAMES, POLICY_ROLLOUT
from wsim.kernels.step import decider, end_age, final
from wsim.kernels.turn import reset_state
from wsim.movelog import EVENT_COLUMNS
from wsim.run.weights import default_params
from wsim.tables import Tables


def regions(state: np.ndarray) -> tuple:
    """Views of a one-record state array's regions (layout.STATE), in kernels/schema.STATE's order:
    (seat, keys, pile, gs, dealt, hist, took, starts)."""
    return tuple(state[name][0] for name, *_ in schema.STATE)


def state_of_position(tables: Tables, pos, hands=(), discard=(), age: int = 1, turn: int = 1) -> np.ndarray:
    """The kernels' state (a one-record array, layout.STATE; `regions` gives its arrays) of a
    reference Position (wsim.reference.state), with these hands and discard pile, at the start
    of turn `turn` of age `age`.

    Cities are built entity by entity as the kernels build them in play, their behaviour
    counters (City.discards, ...) copied; policy streams are those of (seed 0, game 0), and the
    later ages' deal is empty.
    """
    ent, board, n_cards = kernel_tables(tables)
    state = new_state()
    seat, keys, pile, gs, dealt, *_ = regions(state)
    n = len(pos.cities)
    bs = np.zeros((2, MAX_SEATS), np.int8)
    for s, city in enumerate(pos.cities):
        bs[0, s], bs[1, s] = city.board, city.side
    reset_state(board, seat, keys, pile, bs, n, np.uint64(0), 0)
    for s, city in enumerate(pos.cities):
        seat[s, F_COINS] = city.coins
        seat[s, F_MIL] = sum(city.tokens)
        seat[s, F_DEFEATS] = sum(1 for x in city.tokens if x < 0)
        seat[s, F_FREE_AGE] = city.free_build_age
        seat[s, F_COPY3] = city.copy3
        seat[s, F_DISCARDS], seat[s, F_CHAINED] = city.discards, city.chained
        seat[s, F_COINS_PAID], seat[s, F_COINS_RECEIVED] = city.coins_paid, city.coins_received
        for c in city.cards:
            add_card(ent, seat, s, c)
    for s, city in enumerate(pos.cities):  # stages once every board is known (copies)
        for k in range(city.stages):
            e, _ = pos.stage_source(s, k)
            seat[s, F_STAGE_E + k] = e
            seat[s, F_STAGES] = k + 1
            if e >= 0:
                add_entity(ent, seat, s, e)
    for s, hand in enumerate(hands):
        seat[s, F_HAND:F_HAND + len(hand)] = hand
        seat[s, F_HAND_N] = len(hand)
    for s in range(n):
        seat[s, F_CHOSEN + C_ON] = 0
    for c in discard:
        pile[c] += 1
    gs[G_N], gs[G_AGE], gs[G_TURN], gs[G_PHASE], gs[G_OPEN], gs[G_FC] = n, age, turn, PH_MOVE, n, -1
    gs[G_NCARDS] = n_cards
    return state


# The columns of a view's cities, in order: every layout.F_* field but the hand and its scratch,
# the choice of this round and the random counter (the observation of docs/rules.md §2)
_HIDDEN = set(range(F_HAND, F_HAND2 + MAX_HAND)) | set(range(F_CHOSEN, F_CHOSEN + C_COUNT)) | {F_CTR}
CITY_FIELDS = [f for f in range(F_COUNT) if f not in _HIDDEN]

class KernelGame:
    """The state of one game and its step functions (every seat on `policy` for decide).

    Seats and decision kinds reach the kernels as int32, as in the game loop (kernels/game.py):
    the step functions then share the game's compiled specialisations.
    """

    def __init__(self, tables: Tables, players: int, seed: int = 0, game: int = 0, policy: str = "random",
                 board_spec=None, side_spec=None, promo: bool = False, _state=None, model: str = "shipped",
                 model_digests=()):
        self.tables = tables
        self.model_file = model  # the learned seats' model file, or each seat's (read at a learned seat's 1st decision)
        self.model_digests = model_digests  # per seat, the sha256 that file had when the settings read it
        self._model = None
        self.n = codes.FC_CITIES if players == codes.FC_PLAYERS else players  # cities
        self.ent, self.board, self.n_cards = kernel_tables(tables)
        self.olay = tables_layout(tables)  # the observation vector's offsets (kernels/observe.py)
        pid = POLICY_NAMES.index(policy)
        policies = np.full(players, pid, dtype=np.int32)
        params = np.tile(np.array(default_params(policy), np.int32), (players, 1))
        spec_b = np.full(self.n, -1, np.int8) if board_spec is None else np.asarray(board_spec, np.int8)
        spec_s = np.full(self.n, -1, np.int8) if side_spec is None else np.asarray(side_spec, np.int8)
        if spec_b.shape != (self.n,) or spec_s.shape != (self.n,):
            raise ValueError(f"board_spec and side_spec need one entry per city ({self.n})")
        self.run = new_run(players, seed, self.n_cards, promo, spec_b, spec_s, policies, params)
        self.players = players
        self.scratch = new_scratch()
        self.moves, self.todo = self.scratch["moves"][0], self.scratch["todo"][0]
        self.log = schema.Log(np.zeros((1, MAX_EVENTS, len(EVENT_COLUMNS)), np.int16), np.zeros(1, np.int32), 0)
        if _state is not None:
            self.state = _state
            return
        self.state = new_state()
        driven.deal(self.ent, self.board, self.run[0], game, self.state[0], self.scratch[0])

    # -- the state ------------------------------------------------------------------------------
    @property
    def seat(self) -> np.ndarray:
        return self.state["seat"][0]

    @property
    def gs(self) -> np.ndarray:
        return self.state["gs"][0]

    @property
    def over(self) -> bool:
        return int(self.gs[G_PHASE]) == PH_OVER

    @property
    def age(self) -> int:
        return int(self.gs[G_AGE])

    @property
    def turn(self) -> int:
        return int(self.gs[G_TURN])

    def clone(self) -> "KernelGame":
        """An independent copy (its own state, scratch and run record: same position, same
        policies, which the copy may change without changing this game's)."""
        other = KernelGame.__new__(KernelGame)
        other.__dict__.update(self.__dict__)
        other.run = self.run.copy()
        other.state = self.state.copy()
        other.scratch = self.scratch.copy()
        other.moves, other.todo = other.scratch["moves"][0], other.scratch["todo"][0]
        other.log = schema.Log(self.log.rows.copy(), self.log.count.copy(), 0)
        return other

    # -- the steps ------------------------------------------------------------------------------
    def pending(self) -> list:
        """[(seat, decision kind)] the game waits for; [] once it is over."""
        k = driven.pending_into(self.state[0], self.scratch[0])
        return [(int(s), int(kind)) for s, kind, _ in self.todo[:k]]

    def legal(self, seat: int, kind: int, all_purchases: bool = True) -> np.ndarray:
        """The legal options of a decision, a copy of the kernel's rows (columns layout.M_*)."""
        m = driven.legal_into(self.ent, self.board, self.state[0], self.scratch[0], np.int32(seat), np.int32(kind),
                              all_purchases)
        return self.moves[:m].copy()

    @property
    def policies(self) -> np.ndarray:
        """Each seat's policy id: a view of the run record the kernels read, so a change
        (g.policies[0] = ...) is what they play."""
        return self.run["policies"][0][:self.players]

    @policies.setter
    def policies(self, ids):
        # written into the record: rebinding the name to a new array would leave the kernels
        # playing the old policies (wsim bench once counted a rollout's playouts that way)
        self.policies[:] = ids

    @property
    def params(self) -> np.ndarray:
        """Each seat's parameter row (players x P_COUNT): a view of the run record (whose rows
        have room for more, schema.PARAMS), like `policies`; assigning rows writes them into the record."""
        return self.run["params"][0][:self.players, :P_COUNT]

    @params.setter
    def params(self, rows):
        self.params[:] = rows

    def decide(self, seat: int, kind: int, options: np.ndarray) -> int:
        """What the deciding seat's policy (the seat's own, or for the Free City its
        controller's) picks among `options` (rows as `legal` returns them)."""
        seat, kind, who = np.int32(seat), np.int32(kind), np.int32(decider(self.gs, seat))
        self.moves[:len(options)] = options
        # only games with a searching seat compile the search
        among = driven.search_among if self.policies[who] == POLICY_ROLLOUT else driven.decide_among
        return int(among(self.ent, self.board, self.state[0], self.scratch[0], seat, who, kind, len(options),
                         self.run[0], self._kernel_model()))

    def policy_row(self, seat: int, kind: int) -> int:
        """The index in legal(seat, kind) (every purchase listed) of the option the deciding
        seat's policy picks, as the game loop picks it, its draws from the seat's stream included:
        kernels/driven.policy_row, or search_row for a rollout decider."""
        seat, kind, who = np.int32(seat), np.int32(kind), np.int32(decider(self.gs, seat))
        pick = driven.search_row if self.policies[who] == POLICY_ROLLOUT else driven.policy_row
        row, _ = pick(self.ent, self.board, self.state[0], self.scratch[0], seat, kind, who, self.run[0],
                      self._kernel_model())
        if row < 0:
            raise AssertionError("a policy chose an option that the every-purchase listing does not hold")
        return int(row)

    def _kernel_model(self):
        """The learned model's kernel tuple when a seat plays learned (or bases a rollout on it),
        else None (no learned code is compiled)."""
        from wsim.run.model import seats_model, uses_learned

        if not uses_learned(self.policies, self.params):  # asked each time: policies may be set later
            return None
        if self._model is None:
            self._model = seats_model(self.tables, self.model_file, self.policies, self.params, self.model_digests)
        return self._model

    def apply(self, seat: int, kind: int, options: np.ndarray, index: int):
        """Play option `index` of `options` for the seat's decision."""
        self.moves[:len(options)] = options
        driven.apply_option(self.ent, self.board, self.state[0], self.scratch[0], np.int32(seat), np.int32(kind),
                            index, self.log)

    def resample_hidden(self, seat: int, key: int):
        """Deal again every card `seat` cannot see, uniformly over the deals consistent with what
        it sees (kernels/hidden.py), drawing from stream `key` (an integer the caller derives
        from the seat's own randomness); the other seats' choices of this round are undone and
        their random streams keyed on `key`. What `view(seat)` returns is unchanged."""
        if driven.resample(self.ent, self.board, self.state[0], self.scratch[0], np.int32(seat), np.uint64(key)) < 0:
            raise ValueError("this state was not reached by play: its record of the age's plays does not add up")

    def view(self, seat: int) -> dict:
        """What `seat` sees now (docs/rules.md §2), as plain Python values: every city (its public
        columns: layout.F_* but the hand, the choice of this round and the random counter), its
        hand, the hands it held earlier this age (sorted), this age's plays as shown (the action,
        and the card when built or played by the seat or for it), the discard builds, the discard
        pile's size by age, the Free City pile's size and the game header's public fields."""
        seat_arr, gs = self.seat, self.gs
        age, fc = int(gs[G_AGE]), int(gs[G_FC])
        hist = self.state["hist"][0]
        plays = []
        for row in range(hist.shape[0]):
            for s in range(self.n):
                card, action = int(hist[row, s, 0]), int(hist[row, s, 1])
                if card < 0:
                    continue
                u = min(row + 1, codes.TURNS_PER_AGE)
                mine = (codes.fc_controller(age, u) if s == fc else s) == seat
                shown = mine or action in (codes.ACT_BUILD, codes.ACT_BUILD_FREE)
                plays.append((row, s, action, card if shown else -1))
        return {"cities": seat_arr[:self.n, CITY_FIELDS].tolist(), "hand": self.hand(seat), "held": self.held(seat),
                "plays": plays, "took": self.state["took"][0][:gs[G_NTOOK]].tolist(),
                "pile_by_age": self.pile_by_age(), "fc_pile": self.fc_pile(),
                "header": [int(gs[f]) for f in (G_N, G_FC, G_AGE, G_TURN, G_PHASE)]}

    def features(self, seat: int) -> np.ndarray:
        """Player `seat`'s observation vector (kernels/observe.py, float32; names: feature_names),
        for the city of the decision it owes now, else its own: the batched environment's
        observation of that seat in the same position."""
        out = np.zeros(self.olay[O_LENGTH], np.float32)
        driven.observe_into(self.ent, self.state[0], self.scratch[0], np.int32(seat), self.olay, out)
        return out

    def feature_names(self) -> list:
        """The name of every entry of a features vector (kernels/observe.names)."""
        return observation_names(self.tables)

    # the pieces of a view that a caller may want alone (the environment's observation)
    def hand(self, seat: int) -> list:
        """The seat's hand (card ids)."""
        return self.seat[seat, F_HAND:F_HAND + self.seat[seat, F_HAND_N]].tolist()

    def pile_by_age(self) -> list:
        """The discard pile's size by age of its cards (public: every discard is seen face down)."""
        t = self.tables
        pile = self.state["pile"][0][:t.n_cards]
        return [int(pile[t.card_age == a].sum()) for a in (1, 2, 3)]

    def fc_pile(self) -> int:
        """The cards left in the Free City's pile (0 without it)."""
        return codes.TURNS_PER_AGE + 1 - self.turn if int(self.gs[G_FC]) >= 0 else 0

    def held(self, seat: int) -> list:
        """The hands `seat` held at each earlier turn of this age (sorted card lists), followed from
        the age's deal and its plays."""
        age, now, fc, n = int(self.gs[G_AGE]), int(self.gs[G_TURN]), int(self.gs[G_FC]), self.n
        dealt, hist = self.state["dealt"][0][age - 1], self.state["hist"][0]
        hands = {s: list(dealt[s]) for s in range(n) if s != fc}  # by the seat each hand was dealt to

        def holding(s, u):  # which hand seat s holds on turn u
            step = u - 1
            if fc >= 0:
                return s if step % 2 == 0 else 1 - s
            return (s + step) % n if age == 2 else (s - step) % n

        held = []
        for u in range(1, now):
            if fc >= 0:
                hands[holding(codes.fc_controller(age, u), u)].append(dealt[fc][u - 1])
            held.append(sorted(int(c) for c in hands[holding(seat, u)]))
            for row in ((u - 1, codes.TURNS_PER_AGE) if u == codes.TURNS_PER_AGE else (u - 1,)):
                for s in range(n):
                    if hist[row, s, 0] >= 0:
                        hands[holding(codes.fc_controller(age, u) if s == fc else s, u)].remove(hist[row, s, 0])
        return held

    def next(self):
        """At the end of an age (nothing pending): military, then the next age or the end."""
        if int(self.gs[G_PHASE]) == PH_AGE_END:
            end_age(self.state[0], self.log)

    def rounds(self):
        """The game's rounds until it is over: yields each round's pending decisions, the list
        `pending` gives, for the caller to apply (one it leaves pending comes again in the next
        round's list); an empty list at the end of an age, after which `next` runs."""
        while not self.over:
            pending = self.pending()
            yield pending
            if not pending:
                self.next()

    def play_out(self, until=None) -> bool:
        """Every remaining decision by the seats' policies: the game loop of `wsim simulate`
        (kernels/loop.py), from this state on; with until=(seat, k), only up to seat's k-th turn
        move from here (a truncated playout, kernels/rollout.py), left pending. Returns whether
        it stopped there (False: the game is over)."""
        search = True if (self.policies == POLICY_ROLLOUT).any() else None
        model = self._kernel_model()
        tape = None if model is None else empty_tape(model.lay)  # the learned family's types (kernels/game.py)
        at = None if until is None else np.array(until, np.int64)
        if at is not None and (at.shape != (2,) or not 0 <= at[0] < self.n or at[1] < 1):
            raise ValueError(f"until: (seat, turn moves >= 1) of this game, got {until!r}")
        stop = None if at is None else schema.Stop(int(at[0]), int(at[1]), np.zeros(0, np.int8), 0)
        left = play_out(self.ent, self.board, self.run[0], self.state[0], self.scratch[0], self.log, search, None,
                        model, tape, stop)
        return stop is not None and left > 0

    def results(self) -> tuple:
        """(res[n, RES_COUNT], cards[n, MAX_CITY]) of a finished game."""
        res = np.zeros((self.n, RES_COUNT), np.int16)
        cards = np.zeros((self.n, MAX_CITY), np.int16)
        final(self.ent, self.state[0], res, cards)
        return res, cards

    def events(self) -> list:
        """The move log so far (integer events, wsim.movelog columns)."""
        return self.log.rows[0, :self.log.count[0]].tolist()
