"""The kernels' data layout, in one place: kernel tables, game state, results and logs.

Kernels take a handful of plain 2-D integer arrays, passed as separate arguments. (A tuple of
arrays would be simpler to pass around, but numba pays about 8 ns per member at every call that
receives one, which on the hot path cost more than the rules themselves.)

Kernel tables (`kernel_tables(tables)`, built from wsim.tables; read-only):
  ent   int32[E, E_COUNT]  one row per entity (cards 0..C-1, then wonder stages), columns E_*:
        E_KIND colour or 7 (stage); E_COIN_COST; E_COST+r resource cost; E_PROD+r fixed units;
        E_CHOICE one chosen unit (resource bitmask); E_TRADEABLE; E_POINTS; E_SHIELDS; E_COINS;
        E_SCIENCE (-1, 0..2, 3 = wildcard); E_DISCOUNT (DISC_* bits); E_CPER+0..2 coins when
        built (amount, count, scope); E_PPER+0..2 points at the end (same); E_POWER (POW_*);
        E_COPY_STAGE, E_COPY_OF (copy_neighbor_stage); E_HAS_COST (any coin or resource cost);
        E_NAME building name id (-1 for stages); E_AGE; E_CHAIN+0..1 name ids whose ownership
        makes the card free (-1 none); E_COPIES+N copies in an N-player deck
  board int32[B, B_COUNT]  B_RESOURCE (-1 none), B_COINS, B_PROMO, B_STAGES+side,
        B_STAGE_ENT + 4*side + k entity of stage k (-1 past the last)

Game state (allocated once per block of games by `new_state`, reset per game):
  seat  int32[7, F_COUNT]  one row per seat. Scalars F_COINS, F_BOARD, F_SIDE, F_STAGES (built),
        F_COPY3 (-1 or COPY_LEFT/RIGHT), F_FREE_AGE (Olympia A's last free build), F_MIL (sum of
        tokens), F_DEFEATS, F_SHIELDS, F_DISC, F_POWERS (bit p: power p active), F_NCARDS,
        F_NCHOICE, F_NSELL_CHOICE, F_HAND_N, F_COPY_GUILD, F_CTR (policy draws so far).
        Ranges F_PROD (own fixed production), F_SELL (fixed units neighbours may buy), F_LP /
        F_RP (price per resource from the left / right), F_CHOICE / F_SELL_CH (choice units, as
        masks), F_COLORS (cards per colour), F_SCI (compass, gear, tablet, wildcards), F_STAGE_E
        (effective entity of each built stage, -1: a copy of nothing), F_CARDS (card ids in build
        order), F_HAND / F_HAND2 (hand, and scratch for passing), F_OWNED (1 per owned name id),
        F_CHOSEN (this round's choice, fields C_*; C_ON: -1 not deciding this round, 0 to
        decide, 1 decided)
  keys  uint64[7]          each seat's policy stream key
  pile  int32[C]           discard pile: copies of each card id
  gs    int32[G_COUNT]     where the game stands (kernels/step.py): G_N players, G_AGE, G_TURN,
        G_PHASE (PH_*), G_NBUILT and G_BUILT + 2i (seat, stage index) of the stages built this
        turn, G_DBQ_N / G_DBQ_POS and G_DBQ + i the seats owed a discard build this turn, in order
  moves int32[MAX_MOVES, M_COUNT]  the legal decisions of one seat (kernels/step.legal): hand
        slot, card, action, purchase (left, right), coin cost, stage-3 neighbour (M_COPY3: 1 =
        to be chosen, for a move; COPY_LEFT/RIGHT for a DEC_COPY3 option), whether the purchase
        is the default one (§4: the first affordable option in the solver's order)
  opts  int32[16, 2]       trading solver output
  built int32[16, 2]       (seat, stage index) of the stages built this turn
  dealt int16[3, 7, 7]     the three ages' dealt hands (part of the state: later ages' hands are
        hidden information); deck int16[DEAL_DECK], pool int8[DEAL_POOL] and
        bs int8[2, 7] (boards, sides) are the deal's scratch (sizes DEAL_DECK, DEAL_POOL)

Results: res[game, seat, RES_COUNT] int16 (fields RES_*): board, side, the seven categories
(codes.CATEGORIES order), total, coins, shields, stages, rank, number of cards; cards[game,
seat, MAX_CITY] int16 card ids in build order. Logs: log[game, MAX_EVENTS, 9] int16 events
(wsim.movelog columns) and n_log[game] their number; a log with zero rows turns logging off.
"""

import numpy as np

from wsim.kernels.trade import MAX_CHOICE_SLOTS
from wsim.codes import PURPLE
from wsim.tables import DataError

MAX_SEATS = 7
MAX_CITY = 32
MAX_CHOICE = 16
MAX_NAMES = 128
MAX_MOVES = 256  # 7 slots x (16 build + 16 stage purchases + free build + discard), or a pile's card ids
MAX_BUILT = 16  # stages built in one turn (<= 2 per seat: a move and a 7th card)
MAX_EVENTS = 192
MAX_CHAIN = 2
DEAL_DECK = 7 * MAX_SEATS + 16  # deal scratch: one age's deck (or every guild, to draw N+2 of them)
DEAL_POOL = 16  # deal scratch: every board

(E_KIND, E_COIN_COST) = range(2)
E_COST = 2
E_PROD = E_COST + 7
(E_CHOICE, E_TRADEABLE, E_POINTS, E_SHIELDS, E_COINS, E_SCIENCE, E_DISCOUNT) = range(E_PROD + 7, E_PROD + 14)
E_CPER = E_PROD + 14
E_PPER = E_CPER + 3
(E_POWER, E_COPY_STAGE, E_COPY_OF, E_HAS_COST, E_NAME, E_AGE) = range(E_PPER + 3, E_PPER + 9)
E_CHAIN = E_PPER + 9
E_COPIES = E_CHAIN + MAX_CHAIN
E_COUNT = E_COPIES + 8

B_RESOURCE, B_COINS, B_PROMO = range(3)
B_STAGES = 3
B_STAGE_ENT = 5
B_COUNT = B_STAGE_ENT + 8

(F_COINS, F_BOARD, F_SIDE, F_STAGES, F_COPY3, F_FREE_AGE, F_MIL, F_DEFEATS, F_SHIELDS, F_DISC,
 F_POWERS, F_NCARDS, F_NCHOICE, F_NSELL_CHOICE, F_HAND_N, F_COPY_GUILD, F_CTR) = range(17)
F_PROD = 17
F_SELL = F_PROD + 7
F_LP = F_SELL + 7
F_RP = F_LP + 7
F_CHOICE = F_RP + 7
F_SELL_CH = F_CHOICE + MAX_CHOICE
F_COLORS = F_SELL_CH + MAX_CHOICE
F_SCI = F_COLORS + 8
F_STAGE_E = F_SCI + 4
F_CARDS = F_STAGE_E + 4
F_HAND = F_CARDS + MAX_CITY
F_HAND2 = F_HAND + 7
F_OWNED = F_HAND2 + 7
F_CHOSEN = F_OWNED + MAX_NAMES
(C_ON, C_SLOT, C_CARD, C_ACTION, C_LEFT, C_RIGHT, C_COPY3, C_COIN_COST, C_NEEDS3, C_COUNT) = range(10)
F_COUNT = F_CHOSEN + C_COUNT

M_SLOT, M_CARD, M_ACTION, M_LEFT, M_RIGHT, M_COIN_COST, M_COPY3, M_DEFAULT, M_COUNT = range(9)
DECLINE = -1  # M_ACTION of the row that declines a 7th card; M_CARD of the one that declines a discard build

(G_N, G_AGE, G_TURN, G_PHASE, G_NBUILT, G_DBQ_N, G_DBQ_POS) = range(7)
G_BUILT = 7
G_DBQ = G_BUILT + 2 * MAX_BUILT
G_COUNT = G_DBQ + MAX_BUILT

# Phases of a turn, and the decisions a seat may owe (kernels/step.pending)
PH_MOVE, PH_SEVENTH, PH_DISCARD, PH_AGE_END, PH_OVER = range(5)
DEC_MOVE, DEC_SEVENTH, DEC_COPY3, DEC_DISCARD = range(4)

(RES_BOARD, RES_SIDE, RES_MILITARY, RES_TREASURY, RES_WONDER, RES_CIVILIAN, RES_SCIENCE,
 RES_COMMERCIAL, RES_GUILD, RES_TOTAL, RES_COINS, RES_SHIELDS, RES_STAGES, RES_RANK, RES_NCARDS,
 RES_COUNT) = range(16)


_PACKED: dict = {}


def kernel_tables(tables) -> tuple:
    """(ent, board, n_cards): the compiled tables in the kernels' packed layout (memoised)."""
    if tables.data_sha256 not in _PACKED:
        _PACKED[tables.data_sha256] = _pack(tables)
    return _PACKED[tables.data_sha256]


def _pack(t) -> tuple:
    n_ent = t.ent_kind.shape[0]
    ent = np.zeros((n_ent, E_COUNT), dtype=np.int32)
    ent[:, E_KIND] = t.ent_kind
    ent[:, E_COIN_COST] = t.ent_coin_cost
    ent[:, E_COST:E_COST + 7] = t.ent_cost
    ent[:, E_PROD:E_PROD + 7] = t.ent_prod
    ent[:, E_CHOICE] = t.ent_choice
    ent[:, E_TRADEABLE] = t.ent_tradeable
    ent[:, E_POINTS] = t.ent_points
    ent[:, E_SHIELDS] = t.ent_shields
    ent[:, E_COINS] = t.ent_coins
    ent[:, E_SCIENCE] = t.ent_science
    ent[:, E_DISCOUNT] = t.ent_discount
    ent[:, E_CPER:E_CPER + 3] = t.ent_coins_per
    ent[:, E_PPER:E_PPER + 3] = t.ent_points_per
    ent[:, E_POWER] = t.ent_power
    ent[:, E_COPY_STAGE:E_COPY_OF + 1] = t.ent_copy
    ent[:, E_HAS_COST] = (t.ent_coin_cost != 0) | t.ent_cost.any(axis=1)
    ent[:, E_NAME] = -1
    ent[:, E_CHAIN:E_CHAIN + MAX_CHAIN] = -1
    n_cards = t.n_cards
    ent[:n_cards, E_NAME] = t.card_name_id
    ent[:n_cards, E_AGE] = t.card_age
    ent[:n_cards, E_COPIES:E_COPIES + 8] = t.card_copies
    for c in range(n_cards):
        sources = t.chain_sources(c)
        ent[c, E_CHAIN:E_CHAIN + len(sources)] = sources  # tables.py allows at most MAX_CHAIN
    board = np.zeros((t.n_boards, B_COUNT), dtype=np.int32)
    board[:, B_RESOURCE] = t.board_resource
    board[:, B_COINS] = t.board_coins
    board[:, B_PROMO] = t.board_promo
    board[:, B_STAGES:B_STAGES + 2] = t.board_stages
    board[:, B_STAGE_ENT:B_STAGE_ENT + 8] = t.board_stage_ent.reshape(t.n_boards, 8)
    # Limits the kernels rely on, checked once here so that they can never be hit in a game:
    # a city holds one card per name plus at most 3 stages' choice units (its own, or Manneken
    # Pis copies), and the trading solver takes costs of at most 7 units (left payments <= 14).
    choice_names = len({int(t.card_name_id[c]) for c in range(n_cards) if t.ent_choice[c]})
    if choice_names + 3 > min(MAX_CHOICE, MAX_CHOICE_SLOTS):
        raise DataError(f"{t.source}: the kernels hold {min(MAX_CHOICE, MAX_CHOICE_SLOTS)} choice units "
                        f"per city; this data allows {choice_names + 3}")
    n_guilds = int((t.ent_kind[:n_cards] == PURPLE).sum())
    if t.n_boards > DEAL_POOL or max(n_guilds, 7 * MAX_SEATS) > DEAL_DECK:
        raise DataError(f"{t.source}: the kernels deal from at most {DEAL_POOL} boards and "
                        f"{DEAL_DECK} cards per age (guilds included)")
    if n_cards > MAX_MOVES:
        raise DataError(f"{t.source}: the kernels list at most {MAX_MOVES} discard-pile cards; this data has "
                        f"{n_cards} cards")
    if int(t.ent_cost.sum(axis=1).max()) > 7:
        raise DataError(f"{t.source}: the kernels' trading solver takes costs of at most 7 resource units")
    ent.setflags(write=False)
    board.setflags(write=False)
    return ent, board, n_cards

