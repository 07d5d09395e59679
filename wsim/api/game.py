"""One game at the step level, for notebooks and agents: `wsim.Game`.

    g = wsim.Game(players=4, seed=0, game=12)
    while not g.done:
        g.step({d.seat: g.policy_move(d.seat) for d in g.pending()})
    g.scores()

A game waits for decisions: `pending()` lists them (the seats that must decide now and what
kind of decision), `legal(seat)` the seat's options as `Move` records, and `step({seat: index})`
plays the chosen ones (indices into `legal(seat)`); the military at an age's end runs by itself.
The moves are simultaneous as in the rules: a seat's options and its `observation` never show
what another seat chose this turn. The engine is the kernels `wsim simulate` runs
(wsim.run.stepgame.KernelGame), so a game played by `policy_move` is the game `wsim.simulate`
plays for the same seed, game index and policies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from wsim import codes
from wsim.errors import WsimError, brief, text, whole_number
from wsim.kernels.layout import DEC_NAMES
from wsim.kernels.policy import POLICY_NAMES

DECISION_KINDS = DEC_NAMES  # by kernel decision kind (layout.DEC_*)
_COPY3, _DISCARD_BUILD = DECISION_KINDS.index("copy3"), DECISION_KINDS.index("discard_build")
MAX_GAME = 2**63 - 1


class GameError(WsimError):
    """A step the game cannot take: a seat that is not deciding, an option out of range."""


@dataclass(frozen=True)
class Decision:
    """A decision the game waits for: seat `seat` must choose (its player `decider` does: at 2
    players the Free City's are its controller's). kind: "move" (a turn's card), "seventh" (a 7th
    card, Babylon B), "copy3" (Manneken Pis A's stage-3 neighbour), "discard_build" (a card from
    the discard pile)."""

    seat: int
    kind: str
    decider: int


@dataclass(frozen=True)
class Move:
    """One legal option. card: the card's printed name (None when the option takes no card).
    action: "build", "build_free" (Olympia A's free build), "stage", "discard", "take" (a
    discard build's card), "decline" (a 7th card or a discard build left), or "copy" (a stage-3
    neighbour). left, right: coins paid to the left and right neighbours. copy3: "left" or
    "right" for a stage-3 neighbour, else None."""

    card: str | None
    action: str
    left: int
    right: int
    copy3: str | None


class Game:
    """One game of 7 Wonders at the step level (module docstring).

    players 2..7 (2: the Free City variant), seed and game: the game `wsim.simulate(seed=seed)`
    plays as game index `game`. wonders, sides, manneken_pis, policies, policy_params (a learned
    seat's model file included), data: as for wsim.simulate; the policies are those policy_move
    uses by default (and, at 2 players, those the Free City's controller plays it with).
    """

    def __init__(self, players: int = 4, seed: int = 0, game: int = 0, *, wonders: str = "random",
                 sides: str = "random", manneken_pis: bool = False, policies="heuristic", policy_params=(),
                 data=None):
        from wsim.api.runs import run_settings
        from wsim.run.lock import KERNEL_LOCK
        from wsim.run.stepgame import KernelGame

        game = whole_number(game, "game", 0, MAX_GAME, GameError)
        t, settings = run_settings(games=1, players=players, policies=policies, policy_params=policy_params,
                                   seed=seed, wonders=wonders, sides=sides, manneken_pis=manneken_pis, data=data)
        boards, game_sides = settings.board_spec(t)
        with KERNEL_LOCK:
            self._g = KernelGame(t, settings.players, seed=settings.seed, game=game, board_spec=boards,
                                 side_spec=game_sides, promo=settings.promo_in_pool(), model=settings.models,
                                 model_digests=settings.weights_files)
        self._g.policies[:] = settings.policy_ids()
        self._g.params[:] = settings.policy_params()
        self.players, self.seed, self.game = settings.players, settings.seed, game
        self.labels = settings.labels
        self._tables = t
        self._advance()

    # -- the state -------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return self._g.over

    @property
    def age(self) -> int:
        return self._g.age

    @property
    def turn(self) -> int:
        return self._g.turn

    def _advance(self):
        """Run the military of an age that ended (nothing pending), until a decision or the end."""
        from wsim.run.lock import KERNEL_LOCK

        with KERNEL_LOCK:
            while not self._g.over and not self._g.pending():
                self._g.next()

    def pending(self) -> list[Decision]:
        """The decisions the game waits for now ([] once it is over)."""
        from wsim.kernels.step import decider
        from wsim.run.lock import KERNEL_LOCK

        with KERNEL_LOCK:
            todo = self._g.pending()
        return [Decision(s, DECISION_KINDS[kind], int(decider(self._g.gs, np.int32(s)))) for s, kind in todo]

    def _seat(self, seat, name: str = "seat") -> int:
        """A seat argument checked: one of the game's cities."""
        return whole_number(seat, name, 0, self._g.n - 1, GameError)

    def _kind_of(self, seat) -> tuple:
        """(seat, the kind of its pending decision) of a seat argument; GameError unless the
        seat is one of the game's and has a decision to take now."""
        seat = self._seat(seat)
        for s, kind in self._g.pending():
            if s == seat:
                return seat, kind
        deciding = ", ".join(str(s) for s, _ in self._g.pending()) or "none: the game is over"
        raise GameError(f"seat {seat} has no decision to take now (deciding: {deciding})")

    def _rows(self, seat: int, kind: int, all_purchases: bool = True) -> np.ndarray:
        from wsim.run.lock import KERNEL_LOCK

        with KERNEL_LOCK:
            return self._g.legal(seat, kind, all_purchases=all_purchases)

    def _move(self, row, kind: int) -> Move:
        from wsim.kernels.layout import DECLINE, M_ACTION, M_CARD, M_COPY3, M_LEFT, M_RIGHT

        names = self._tables.card_names
        if kind == _COPY3:
            return Move(None, "copy", 0, 0, "left" if row[M_COPY3] == codes.COPY_LEFT else "right")
        if kind == _DISCARD_BUILD:
            if row[M_ACTION] == DECLINE:
                return Move(None, "decline", 0, 0, None)
            return Move(names[int(row[M_CARD])], "take", 0, 0, None)
        if row[M_ACTION] == DECLINE:
            return Move(None, "decline", 0, 0, None)
        return Move(names[int(row[M_CARD])], codes.ACTIONS[int(row[M_ACTION])], int(row[M_LEFT]), int(row[M_RIGHT]),
                    None)

    def legal(self, seat: int) -> list[Move]:
        """Seat `seat`'s options for its pending decision, every affordable purchase of each
        (card, action) pair listed (its default one first: docs/rules.md §4)."""
        seat, kind = self._kind_of(seat)
        return [self._move(row, kind) for row in self._rows(seat, kind)]

    def observation(self, seat: int) -> dict:
        """What `seat` sees now (docs/rules.md §2; the definition `resample` keeps): every city's public
        columns, its hand, the hands it held earlier this age, this age's plays as shown, the
        discard builds, the pile's size by age, the Free City pile's size, the game header
        (wsim.run.stepgame.KernelGame.view documents each entry)."""
        return self._g.view(self._seat(seat))

    def features(self, seat: int) -> np.ndarray:
        """What player `seat` sees now as one float32 vector: the learned policy's input and the
        batched environment's observation (wsim.kernels.observe; feature_names() names each
        entry), for the city of the decision the seat owes now (at 2 players the Free City's when
        it decides for it), else its own city. A new array at each call."""
        from wsim.run.lock import KERNEL_LOCK

        seat = whole_number(seat, "seat", 0, self.players - 1, GameError)
        with KERNEL_LOCK:
            return self._g.features(seat)

    def feature_names(self) -> list[str]:
        """The name of every entry of a features() vector."""
        return self._g.feature_names()

    # -- the steps -------------------------------------------------------------------------------
    def step(self, choices: Mapping[int, int]):
        """Play option choices[seat] (an index into legal(seat)) for each seat given, in seat
        order; a round resolves once every seat has chosen (a seat left out is still pending).
        Every seat given must be deciding now (the Free City's move is pending once its
        controller's own is played). Every choice is checked before any is played: a refused
        step changes nothing."""
        from wsim.run.lock import KERNEL_LOCK

        if not isinstance(choices, Mapping) or not choices:
            raise GameError(f"step: a mapping {{seat: option index}}, got {brief(choices)}")
        checked = {}
        for key, index in choices.items():
            seat, kind = self._kind_of(key)
            rows = self._rows(seat, kind)
            checked[seat] = (kind, rows, whole_number(index, f"seat {seat}: option index", 0, len(rows) - 1,
                                                      GameError))
        for seat in sorted(checked):
            kind, rows, index = checked[seat]
            with KERNEL_LOCK:
                self._g.apply(seat, kind, rows, index)
        self._advance()

    def policy_move(self, seat: int, policy: str | None = None) -> int:
        """The index in legal(seat) of the option the kernel policy `policy` (one of {policies},
        with its default parameters; default: the seat's own policy and parameters) picks for
        seat `seat`'s pending decision. It decides as in `wsim simulate`, drawing from the seat's
        own random stream (a random policy's answer changes at each call), from what the seat
        sees."""
        from wsim.kernels.step import decider
        from wsim.run.lock import KERNEL_LOCK
        from wsim.run.weights import policy_defaults

        seat, kind = self._kind_of(seat)
        g = self._g
        who = int(decider(g.gs, np.int32(seat)))
        saved = (int(g.policies[who]), g.params[who].copy())
        if policy is not None:
            if text(policy, "policy", "a policy name", GameError) not in POLICY_NAMES:
                raise GameError(f"policy: one of {', '.join(POLICY_NAMES)}, got {brief(policy)}")
            g.policies[who], g.params[who] = policy_defaults(policy)
        try:
            with KERNEL_LOCK:
                return g.policy_row(seat, kind)
        finally:
            g.policies[who], g.params[who] = saved

    def clone(self) -> Game:
        """An independent copy of this game, at the same point."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._g = self._g.clone()
        return other

    def resample(self, seat: int, seed: int):
        """Deal again every card `seat` cannot see, uniformly over the deals consistent with what
        it sees (docs/rules.md §2; kernels/hidden.py), from stream `seed`; the other seats' choices of
        this round are undone and their random streams keyed on `seed`. observation(seat) is
        unchanged."""
        from wsim.run.lock import KERNEL_LOCK

        seat = self._seat(seat)
        seed = whole_number(seed, "seed", 0, 2**64 - 1, GameError)
        if self.done:
            raise GameError("resample: the game is over: nothing is hidden any more")
        with KERNEL_LOCK:
            self._g.resample_hidden(seat, seed)

    def scores(self) -> list[dict]:
        """Each seat's points by category (docs/interfaces.md §2's names), total, coins and rank (None for
        the Free City), and whether it won; the game must be over."""
        from wsim.run.runner import final_from_res

        self._need_over("scores")
        final = final_from_res(self._g.results()[0], self.players == codes.FC_PLAYERS)["players"]
        return [{"seat": p["seat"], **{f"vp_{c}": p[c] for c in codes.CATEGORIES}, "vp_total": p["total"],
                 "coins": p["coins"], "rank": p["rank"], "win": p["rank"] == 1} for p in final]

    def replay_text(self) -> str:
        """The game in words, as `wsim replay` prints it; the game must be over."""
        from wsim import movelog
        from wsim.kernels.layout import F_BOARD, F_SIDE
        from wsim.logtext import log_text
        from wsim.run.runner import final_from_res

        self._need_over("replay_text")
        g, free_city = self._g, self.players == codes.FC_PLAYERS
        n = g.n
        boards = [int(b) for b in g.seat[:n, F_BOARD]]
        sides = [int(s) for s in g.seat[:n, F_SIDE]]
        dealt = g.state["dealt"][0]
        hands = [[[int(c) for c in dealt[a, s] if c >= 0] for s in range(n)] for a in range(3)]
        doc = movelog.to_json(self._tables, self.seed, self.game, boards, sides, hands, g.events(),
                              final_from_res(g.results()[0], free_city), free_city=free_city)
        return log_text(doc, list(self.labels))

    def _need_over(self, what: str):
        if not self.done:
            raise GameError(f"{what}: the game is not over (age {self.age}, turn {self.turn})")


if Game.policy_move.__doc__:  # None under python -OO
    Game.policy_move.__doc__ = Game.policy_move.__doc__.format(policies=", ".join(POLICY_NAMES))
