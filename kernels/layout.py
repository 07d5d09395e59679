"""The kernels' data layout, in one place: the tables tuple, the game state, results and logs.

Tables (`tables_tuple(tables)`): the compiled wsim.tables arrays, in the order of KERNEL_TABLES;
kernels read them as T[T_NAME] (a constant index into a tuple is resolved at compile time).

Game state: a tuple of small arrays (indices S_*), allocated once per block of games and reset
before each game, so the hot loop allocates nothing.
  S_SEAT    int32[7, F_COUNT]  per-seat scalars, fields F_*:
              F_COINS, F_BOARD, F_SIDE, F_STAGES (built), F_COPY3 (-1 or COPY_LEFT/RIGHT),
              F_FREE_AGE (age of Olympia A's last free build), F_MIL (sum of military tokens),
              F_DEFEATS (number of -1 tokens), F_SHIELDS, F_DISC (DISC_* bits), F_POWERS
              (bit p set when power p is active), F_NCARDS, F_NCHOICE, F_NSELL_CHOICE, F_HAND_N,
              F_COPY_GUILD (active copy-guild entities)
  S_CARDS   int16[7, MAX_CITY]   card ids in build order
  S_STAGE_E int16[7, 4]          effective entity of each built stage (-1: copies nothing)
  S_OWNED   uint64[7, 2]         bit k of word k>>6 set when the city has a building of name id k
  S_COLORS  int32[7, 8]          cards per colour
  S_SCI     int32[7, 4]          compass, gear, tablet, wildcard counts
  S_PROD    int32[7, 7]          own fixed production (board + all active entities)
  S_CHOICE  int32[7, MAX_CHOICE] own choice units (resource bitmasks)
  S_SELL    int32[7, 7]          fixed units neighbours may buy (board, brown, grey)
  S_SELL_CH int32[7, MAX_CHOICE] choice units neighbours may buy
  S_HAND    int16[7, 7]          current hands (first F_HAND_N entries)
  S_PILE    int32[n_cards]       discard pile: copies of each card id
  S_RNG     uint64[7]            each seat's policy stream key
  S_CTR     int64[7]             each seat's draws so far
  S_DEALT   int16[3, 7, 7]       the three ages' dealt hands
  S_CHOSEN  int32[7, C_COUNT]    this round's choices, fields C_*: C_ON (1 = plays), C_SLOT,
                                 C_CARD, C_ACTION, C_LEFT, C_RIGHT, C_COPY3, C_COIN_COST
  S_MOVES   int32[MAX_MOVES, M_COUNT]  legal moves of one seat, fields M_*: slot, action,
                                 default purchase left and right, coin cost, needs a stage-3 neighbour
  S_OPTS    int32[16, 2]         trade solver output
  S_WORK    int32[W_COUNT, 7]    prices per resource from the left (W_LP) and right (W_RP)
  S_DEAL    int16[64]            deal scratch (deck), and S_POOL int8[16] (boards)
  S_BS      int8[2, 7]           boards (row 0) and sides (row 1) from the deal
  S_HAND2   int16[7, 7]          scratch for passing hands
  S_BUILT   int32[16, 2]         (seat, stage index) of the stages built this turn

Results (`RES_*` fields of res[game, seat, :], int16): board, side, the seven point categories
(codes.CATEGORIES order), total, coins, shields, stages, rank, number of cards; res_cards[game,
seat, :MAX_CITY] the card ids in build order. Logs: log[game, MAX_EVENTS, 9] int16 events
(wsim.movelog columns), n_log[game] how many.
"""

import numpy as np

KERNEL_TABLES = (
    "card_name_id", "card_age", "card_copies", "card_chain",
    "ent_kind", "ent_coin_cost", "ent_cost", "ent_prod", "ent_choice", "ent_tradeable",
    "ent_points", "ent_shields", "ent_coins", "ent_science", "ent_discount", "ent_coins_per",
    "ent_points_per", "ent_power", "ent_copy", "board_resource", "board_coins", "board_promo",
    "board_stages", "board_stage_ent",
)
(T_CARD_NAME_ID, T_CARD_AGE, T_CARD_COPIES, T_CARD_CHAIN, T_ENT_KIND, T_ENT_COIN_COST, T_ENT_COST,
 T_ENT_PROD, T_ENT_CHOICE, T_ENT_TRADEABLE, T_ENT_POINTS, T_ENT_SHIELDS, T_ENT_COINS, T_ENT_SCIENCE,
 T_ENT_DISCOUNT, T_ENT_COINS_PER, T_ENT_POINTS_PER, T_ENT_POWER, T_ENT_COPY, T_BOARD_RESOURCE,
 T_BOARD_COINS, T_BOARD_PROMO, T_BOARD_STAGES, T_BOARD_STAGE_ENT) = range(len(KERNEL_TABLES))

MAX_SEATS = 7
MAX_CITY = 32
MAX_CHOICE = 16
MAX_MOVES = 32
MAX_EVENTS = 192

(F_COINS, F_BOARD, F_SIDE, F_STAGES, F_COPY3, F_FREE_AGE, F_MIL, F_DEFEATS, F_SHIELDS, F_DISC,
 F_POWERS, F_NCARDS, F_NCHOICE, F_NSELL_CHOICE, F_HAND_N, F_COPY_GUILD, F_COUNT) = range(17)

(S_SEAT, S_CARDS, S_STAGE_E, S_OWNED, S_COLORS, S_SCI, S_PROD, S_CHOICE, S_SELL, S_SELL_CH, S_HAND,
 S_PILE, S_RNG, S_CTR, S_DEALT, S_CHOSEN, S_MOVES, S_OPTS, S_WORK, S_DEAL, S_POOL, S_BS, S_HAND2,
 S_BUILT) = range(24)

(C_ON, C_SLOT, C_CARD, C_ACTION, C_LEFT, C_RIGHT, C_COPY3, C_COIN_COST, C_COUNT) = range(9)

W_LP, W_RP, W_COUNT = range(3)

M_SLOT, M_ACTION, M_LEFT, M_RIGHT, M_COIN_COST, M_COPY3, M_COUNT = range(7)

(RES_BOARD, RES_SIDE, RES_MILITARY, RES_TREASURY, RES_WONDER, RES_CIVILIAN, RES_SCIENCE,
 RES_COMMERCIAL, RES_GUILD, RES_TOTAL, RES_COINS, RES_SHIELDS, RES_STAGES, RES_RANK, RES_NCARDS,
 RES_COUNT) = range(16)


def tables_tuple(tables) -> tuple:
    """The tables as the kernels take them (order: KERNEL_TABLES)."""
    return tuple(getattr(tables, name) for name in KERNEL_TABLES)

