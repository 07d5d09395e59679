"""Cities and positions of the reference engine, and what follows from them.

A City is what docs/rules.md calls a player's city: board, side, coins, the buildings in build order,
wonder stages built, military tokens, two memories (Manneken Pis A's stage-3 neighbour, the
age of Olympia A's last free build), and four counts of how it played (the dataset's `discards`,
`chained`, `coins_paid` and `coins_received`: wsim.reference.engine counts them, no rule reads them). A Position is the ring of cities; everything the rules
derive from it (production, prices, shields, powers, purchase options) is computed here, on
demand, in plain Python.

Effects come from *entities* (wsim.tables): a city's active entities are its cards plus the
effective entity of each built stage. A Manneken Pis A stage is a copy: its effective entity is
the copied neighbour stage (or none, docs/rules.md §6 rulings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wsim import codes
from wsim.effects import COUNT_COMPLETE, COUNT_DEFEATS, COUNT_STAGES
from wsim.reference.trade import purchase_options
from wsim.tables import Tables


@dataclass
class City:
    """One player's city (see the module docstring)."""

    board: int
    side: int
    coins: int
    cards: list = field(default_factory=list)
    stages: int = 0
    tokens: list = field(default_factory=list)
    copy3: int = -1  # Manneken Pis A stage 3: codes.COPY_LEFT / COPY_RIGHT once chosen, else -1
    free_build_age: int = 0  # age of Olympia A's last free build (0 = never)
    discards: int = 0  # cards discarded for coins by a move or a 7th card (not turn 6's leftovers)
    chained: int = 0  # cards with a cost built free by the build action through an owned chain source
    coins_paid: int = 0  # coins paid to the neighbours for resources
    coins_received: int = 0  # coins received from the neighbours for resources


@dataclass
class Cost:
    """What building a card or stage costs a seat right now (docs/rules.md §3–§4)."""

    free: bool  # no cost at all, or a chain applies
    coin_cost: int  # coins paid to the bank (0 when free)
    options: list  # Pareto-minimal (left, right) purchases, [(0, 0)] when nothing is bought
    coins: int  # coins the seat may spend

    @property
    def affordable_options(self) -> list:
        return [o for o in self.options if self.coin_cost + o[0] + o[1] <= self.coins]

    @property
    def affordable(self) -> bool:
        return bool(self.affordable_options)


class Position:
    """A ring of cities over the compiled tables; seat i's left is i+1, its right i-1.

    free_city: the seat of the Free City in a 2-player position (docs/rules.md §10), else -1.
    The Free City is a city like any other for trade, military and scoring; it only never ranks.
    """

    def __init__(self, tables: Tables, cities: list, free_city: int = -1):
        self.t = tables
        self.cities = cities
        self.n = len(cities)
        self.free_city = free_city

    def player_seats(self) -> list:
        """The seats that rank and may win: every seat but the Free City's."""
        return [s for s in range(self.n) if s != self.free_city]

    # -- neighbours and names ------------------------------------------------------------------
    def left(self, seat: int) -> int:
        return (seat + 1) % self.n

    def right(self, seat: int) -> int:
        return (seat - 1) % self.n

    def owns_name(self, seat: int, card: int) -> bool:
        """Whether the city already has a building of this card's name (one copy per name)."""
        nid = self.t.card_name_id[card]
        return any(self.t.card_name_id[c] == nid for c in self.cities[seat].cards)

    def has_cost(self, card: int) -> bool:
        """Whether a card costs coins or resources (built free only through a chain)."""
        return bool(self.t.ent_coin_cost[card] != 0 or self.t.ent_cost[card].any())

    def chain_applies(self, seat: int, card: int) -> bool:
        """Whether a building the city owns makes this card free."""
        owned = {int(self.t.card_name_id[c]) for c in self.cities[seat].cards}
        return any(k in owned for k in self.t.chain_sources(card))

    def power_makes_free(self, seat: int, card: int, turn: int | None) -> bool:
        """Whether a second-edition power makes the card free to build now (docs/rules.md §13):
        Olympia Day's first card of a colour the city lacks; Olympia Night's card of turn 1 or of
        turn 6 of an age (`turn` None: a 7th card, no turn's card)."""
        kind = int(self.t.ent_kind[card])
        if self.has_power(seat, codes.POW_FIRST_OF_COLOR) and \
                not any(int(self.t.ent_kind[c]) == kind for c in self.cities[seat].cards):
            return True
        if turn == 1 and self.has_power(seat, codes.POW_FIRST_OF_AGE):
            return True
        return turn == codes.TURNS_PER_AGE and self.has_power(seat, codes.POW_LAST_OF_AGE)

    # -- wonder stages and their effects -------------------------------------------------------
    def stage_source(self, seat: int, k: int) -> tuple:
        """(entity, copied) of stage k (0-based) of a seat's board, built or not.

        For a Manneken Pis copy stage, the copied neighbour stage (copied=True), or -1 where the
        copy gives nothing: the neighbour's side has no such stage, the stage-3 neighbour is not
        chosen yet, or the target is itself a copy stage (a scenario may seat two Manneken Pis).
        """
        t = self.t
        city = self.cities[seat]
        e = t.stage_entity(city.board, city.side, k)
        if e < 0 or t.ent_power[e] != codes.POW_COPY_STAGE:
            return e, False
        stage, of = int(t.ent_copy_stage[e]), int(t.ent_copy_of[e])
        if of == codes.COPY_CHOICE:
            of = city.copy3
        if of == codes.COPY_LEFT:
            nb = self.cities[self.left(seat)]
        elif of == codes.COPY_RIGHT:
            nb = self.cities[self.right(seat)]
        else:
            return -1, True
        target = t.stage_entity(nb.board, nb.side, stage)
        if target < 0 or t.ent_power[target] == codes.POW_COPY_STAGE:
            return -1, True
        return target, True

    def stage_entities(self, seat: int) -> list:
        """Effective entities of the built stages (copies resolved; copies of nothing left out)."""
        out = []
        for k in range(self.cities[seat].stages):
            e, _ = self.stage_source(seat, k)
            if e >= 0:
                out.append(e)
        return out

    def entities(self, seat: int) -> list:
        """Every active entity of a city: its cards, then its effective built stages."""
        return list(self.cities[seat].cards) + self.stage_entities(seat)

    def has_power(self, seat: int, power: int) -> bool:
        return any(self.t.ent_power[e] == power for e in self.entities(seat))

    def shields(self, seat: int) -> int:
        return sum(int(self.t.ent_shields[e]) for e in self.entities(seat))

    def stages_left(self, seat: int) -> int:
        city = self.cities[seat]
        return int(self.t.board_stages[city.board, city.side]) - city.stages

    # -- production and prices -----------------------------------------------------------------
    def production(self, seat: int, sellable_only: bool = False) -> tuple:
        """(fixed[7], choice masks) a city produces; sellable_only keeps what neighbours may buy
        (board resource, brown and grey cards: docs/rules.md §4)."""
        t = self.t
        city = self.cities[seat]
        fixed = [0] * codes.N_RES
        choices = []
        if t.board_resource[city.board] >= 0:
            fixed[t.board_resource[city.board]] += 1
        sources = city.cards if sellable_only else self.entities(seat)
        for e in sources:
            if sellable_only and not t.ent_tradeable[e]:
                continue
            for r in range(codes.N_RES):
                fixed[r] += int(t.ent_prod[e, r])
            if t.ent_choice[e]:
                choices.append(int(t.ent_choice[e]))
        return fixed, choices

    def prices(self, seat: int) -> tuple:
        """(left_price[7], right_price[7]): coins per unit bought from each neighbour."""
        disc = 0
        for e in self.entities(seat):
            disc |= int(self.t.ent_discount[e])
        left, right = [], []
        for r in range(codes.N_RES):
            raw = codes.RAW_MASK >> r & 1
            lbit = codes.DISC_RAW_LEFT if raw else codes.DISC_MANUF_LEFT
            rbit = codes.DISC_RAW_RIGHT if raw else codes.DISC_MANUF_RIGHT
            left.append(codes.DISCOUNT_PRICE if disc & lbit else codes.TRADE_PRICE)
            right.append(codes.DISCOUNT_PRICE if disc & rbit else codes.TRADE_PRICE)
        return left, right

    def purchase_options(self, seat: int, cost) -> list:
        """Pareto-minimal (left, right) purchases that cover a resource cost vector."""
        own_fixed, own_choices = self.production(seat)
        lf, lc = self.production(self.left(seat), sellable_only=True)
        rf, rc = self.production(self.right(seat), sellable_only=True)
        lp, rp = self.prices(seat)
        return purchase_options(list(cost), own_fixed, own_choices, lf, lc, rf, rc, lp, rp)

    def card_cost(self, seat: int, card: int) -> Cost:
        """Cost of building a card now (ignores the one-copy rule; see Moves for legality)."""
        t = self.t
        coins = self.cities[seat].coins
        if not self.has_cost(card) or self.chain_applies(seat, card):
            return Cost(True, 0, [(0, 0)], coins)
        return Cost(False, int(t.ent_coin_cost[card]), self.purchase_options(seat, t.ent_cost[card]), coins)

    def stage_cost(self, seat: int) -> Cost | None:
        """Cost of the seat's next wonder stage, None when every stage is built."""
        city = self.cities[seat]
        if self.stages_left(seat) <= 0:
            return None
        e = self.t.stage_entity(city.board, city.side, city.stages)
        if not self.t.ent_cost[e].any():
            return Cost(True, 0, [(0, 0)], city.coins)
        return Cost(False, 0, self.purchase_options(seat, self.t.ent_cost[e]), city.coins)

    # -- counting (coins when built, points at the end) ------------------------------------------
    def count(self, seat: int, spec, extra_purple: int = 0) -> int:
        """amount x count over the scope of a (amount, count, scope) triple, seen from `seat`.

        extra_purple adds guild copies to the seat's own purple count (Olympia B3 copies are
        purple cards of the copier's city for its own Shipowners Guild).
        """
        amount, what, scope = (int(x) for x in spec)
        if amount == 0:
            return 0
        seats = []
        if scope & codes.SCOPE_SELF:
            seats.append(seat)
        if scope & codes.SCOPE_LEFT:
            seats.append(self.left(seat))
        if scope & codes.SCOPE_RIGHT:
            seats.append(self.right(seat))
        total = 0
        for s in seats:
            city = self.cities[s]
            if what == COUNT_STAGES:
                total += city.stages
            elif what == COUNT_DEFEATS:
                total += sum(1 for tok in city.tokens if tok < 0)
            elif what == COUNT_COMPLETE:
                total += 1 if self.stages_left(s) <= 0 else 0
            else:
                total += sum(1 for c in city.cards if what >> int(self.t.ent_kind[c]) & 1)
                if s == seat and what >> codes.PURPLE & 1:
                    total += extra_purple
        return amount * total

    def coins_when_built(self, seat: int, entity: int) -> int:
        """Coins an entity gives when it resolves, counted on the cities as they stand now."""
        return int(self.t.ent_coins[entity]) + self.count(seat, self.t.ent_coins_per[entity])
