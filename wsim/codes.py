"""Integer codes shared by the tables, the reference engine and the kernels.

Plain ints only, so numba folds them into compiled code as constants (they never change at run
time; data-dependent values live in the tables, which kernels take as arguments).
"""

RESOURCES = ("wood", "stone", "clay", "ore", "glass", "loom", "papyrus")
N_RES = 7
RAW_MASK = 0b0001111  # wood stone clay ore

COLORS = ("brown", "grey", "blue", "green", "yellow", "red", "purple")
N_COLORS = len(COLORS)
BROWN, GREY, BLUE, GREEN, YELLOW, RED, PURPLE = range(N_COLORS)
POINT_COLORS = (BLUE, YELLOW, PURPLE)  # the colours whose cards' points are scored (civilian, commercial, guild)
STAGE_KIND = N_COLORS  # ent_kind of a wonder stage (cards use their colour index)
N_KINDS = N_COLORS + 1  # the colours and the stage kind

SCIENCE = ("compass", "gear", "tablet", "any")
SCI_ANY = 3
N_SCIENCE = len(SCIENCE)  # the three symbols and the wildcard

# ent_discount bits: which goods are bought for 1 coin from which neighbour.
DISC_RAW_LEFT = 1
DISC_RAW_RIGHT = 2
DISC_MANUF_LEFT = 4
DISC_MANUF_RIGHT = 8

# "in" (scope) field: whose cities are counted.
SCOPE_SELF = 1
SCOPE_LEFT = 2
SCOPE_RIGHT = 4
SCOPES = {"self": SCOPE_SELF, "left": SCOPE_LEFT, "right": SCOPE_RIGHT}

# ent_power: named wonder-stage powers.
POWERS = (
    "none",
    "play_seventh_card",
    "free_build_once_per_age",
    "copy_neighbor_guild",
    "build_from_discard",
    "copy_neighbor_stage",
    "free_build_first_of_color",
    "free_build_first_of_age",
    "free_build_last_of_age",
)
(POW_NONE, POW_SEVENTH, POW_FREE_BUILD, POW_COPY_GUILD, POW_DISCARD_BUILD, POW_COPY_STAGE, POW_FIRST_OF_COLOR,
 POW_FIRST_OF_AGE, POW_LAST_OF_AGE) = range(9)
# The second edition's automatic free builds (Olympia Day and Night, docs/rules.md §13): a build
# of a card these powers make free is listed as a chain's is, with no purchase and no coins.
FREE_BUILD_POWERS = (POW_FIRST_OF_COLOR, POW_FIRST_OF_AGE, POW_LAST_OF_AGE)

# ent_copy_of: which neighbour a copy_neighbor_stage stage copies.
COPY_LEFT, COPY_RIGHT, COPY_CHOICE = 0, 1, 2
COPY_OF = ("left", "right", "left_or_right")

# Fixed rules (docs/rules.md): not card facts, so not in the data file.
START_COINS = 3
TRADE_PRICE = 2
DISCOUNT_PRICE = 1
DISCARD_COINS = 3
HAND_SIZE = 7
TURNS_PER_AGE = 6
N_AGES = 3
COINS_PER_POINT = 3  # treasury: a point per 3 coins
SCIENCE_SET_POINTS = 7  # each set of the three symbols
MIN_PLAYERS = 3
MAX_PLAYERS = 7
MILITARY_WIN = (1, 3, 5)  # by age
MILITARY_LOSS = -1

# Two players: the Free City variant (docs/rules.md §10). The two players are seats 0 and 1,
# the Free City is seat FC_SEAT of a 3-city ring; decks and deal are those of FC_CITIES players
# (the Free City's face-down pile is the third seat's hand, drawn in dealt order). The seat that
# holds the Free City card on turn t of age a is fc_controller(a, t).
FC_PLAYERS = 2
FC_SEAT = 2
FC_CITIES = 3
FC_POLICY = "free_city"  # the `policy` value of the Free City's dataset rows
MIN_SIMULATED_PLAYERS = FC_PLAYERS  # --players accepts 2..MAX_PLAYERS (the first edition's)

# Editions: a data file's top-level `edition` (1 when absent). The second edition (2020) has no
# two-player variant and no Manneken Pis (docs/rules.md §13).
EDITIONS = (1, 2)
EDITION_NAMES = {1: "first edition (2010)", 2: "second edition (2020)"}
EDITION_MIN_PLAYERS = {1: FC_PLAYERS, 2: MIN_PLAYERS}


def fc_controller(age: int, turn: int) -> int:
    """Seat 0 holds the Free City card on turn 1 of Ages I and III, seat 1 on turn 1 of Age II;
    it changes hands after every turn."""
    return (turn - 1 + (1 if age == 2 else 0)) % 2

# Score categories, in the order of docs/interfaces.md §1.
CATEGORIES = ("military", "treasury", "wonder", "civilian", "science", "commercial", "guild")

# How a city played, counted as the game goes (docs/interfaces.md §2): the kernels' F_* and RES_*
# fields of these names, the reference City's, the move log's final entries' and the dataset's
# columns (schema version 3 on)
COUNTERS = ("discards", "chained", "coins_paid", "coins_received")

# Move-log events (wsim.movelog documents the columns) and move actions: the kernels write them.
MOVE, SEVENTH, DISCARD_BUILD, MILITARY = range(4)
KINDS = ("move", "seventh", "discard_build", "military")
ACT_BUILD, ACT_BUILD_FREE, ACT_STAGE, ACT_DISCARD = range(4)
ACTIONS = ("build", "build_free", "stage", "discard")
EVENT_COLUMNS = ("kind", "age", "turn", "seat", "card", "action", "left", "right", "extra")
