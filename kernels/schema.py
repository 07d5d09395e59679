"""Every field of the compiled tables and of the kernels' state, and every kernel limit: declared
once, here (the entities' effect fields in wsim/effects.py, with their effect kinds). Everything else is derived from these declarations:

- the packed integer rows the kernels index (`ENTITY`, `BOARD`, `SEAT`, ...) and their offset
  constants (`E_COST`, `F_COINS`, ...: prefix + field name in capitals), made by layout.py;
- the `Tables` of wsim/tables.py, which holds the packed `ent` and `board` arrays themselves
  and exposes each field as a read-only view (`t.ent_cost`, `t.card_age`, `t.board_coins`);
- the layout text of the layout.py and tables.py docstrings (`describe()`);
- the checks that a data file fits the limits, made once when tables are compiled;
- the run-time records (`Stop`, `Log`, `Results`, `Book`, `Views`, `Tmp`, `Slots`, `Model`, `Tape`, `ActionSpace`):
  namedtuples of arrays the Python side builds and the kernels read by field name.

Plain Python: no numba, nothing from the Python front but wsim.codes and wsim.effects, whose
table of effect kinds declares ENTITY's effect fields (both are in the kernel cache key).
"""

from __future__ import annotations

from collections import namedtuple

from wsim import codes
from wsim.effects import entity_fields

# -- limits, each with its derivation ------------------------------------------------------------
MAX_SEATS = codes.MAX_PLAYERS  # 7 seats
MAX_STAGES = 4  # stages of a wonder side (the base game has at most 4: Giza B)
MAX_CHAIN = 2  # chain sources of one card (Forum chains from two buildings)
MAX_NAMES = 128  # distinct building names: the seat keeps one "owned" flag per name
MAX_CITY = 32  # cards in one city: 18 turns + 3 7th cards + 6 discard builds, rounded up
MAX_CHOICE = 16  # choice units in a city: one per choice-producing name + 3 stages, rounded up
MAX_OPTIONS = 16  # Pareto purchase options of one cost: a cost of <= MAX_COST_UNITS units pays the
#                   left neighbour 0..2 x 7 coins, one option per left payment at most, rounded up
MAX_COST_UNITS = 7  # resource units of one cost the trading solver takes (left payments 0..14)
MAX_CHOICE_SLOTS = 14  # choice units of one seller the solver packs: two 64-bit words of 7 units
MAX_MOVES = 256  # >= a hand's (card, action, purchase) moves, 7 slots x (2 x MAX_OPTIONS build
#                   and stage purchases + free build + discard) + a decline = 239; also the pile's card
#                   ids (at most C, checked) 
MAX_BUILT = 2 * MAX_SEATS + 2  # stages built in one turn: a move and a 7th card per seat, rounded up
MAX_EVENTS = 192  # log events of one game: at 7 seats 126 moves + 21 military results + the 7th
#                   cards and discard builds of the (at most two) seats with those powers, rounded up
MAX_HAND = codes.HAND_SIZE + 1  # the Free City's controller holds its hand and the drawn pile card
DEAL_POOL = 16  # boards one deal shuffles (every board of the data)
DEAL_DECK = 7 * MAX_SEATS + 16  # cards of one age's deck, or every guild (N + 2 of them are drawn)
N_COPIES = MAX_SEATS + 1  # card copies are indexed by player count 0..7
MAX_CARDS = 128  # card ids of one data file: the state's discard pile keeps a count per id (checked)
MAX_TOOK = 8  # discard builds of one age: at most 3 Halicarnassus stages + 2 Manneken Pis copies, rounded up
MAX_INST = MAX_SEATS * codes.HAND_SIZE + codes.HAND_SIZE  # cards dealt for one age: the hands and a Free City pile
MAX_FC_HIDDEN = codes.TURNS_PER_AGE // 2  # Free City plays of one age a player cannot see: the other player
#                   controls the Free City every other turn (docs/rules.md §10), 3 of an age's 6 turns
MAX_FC_POOL = MAX_INST + DEAL_DECK  # the cards one hidden Free City play may have been: a group's cards, and
#                   in Age III every guild the seat has not seen (kernels/hidden.py)
TIMING_SLOTS = 7  # the profile twin's counters (kernels/timing.py): one per component
# The learned policy's evaluation (kernels/learned.py, which checks the first two against the
# observation encoder's layout for MAX_NAMES names and DEAL_POOL boards)
MAX_INPUT = 1536  # a model's input: the observation (1,472 entries at most) and a city's points each
MAX_BLOCK = 192  # one block of the observation the evaluation re-encodes: a city's (170 at most) or a hand's
MAX_HIDDEN = 128  # a model's hidden units
MAX_DELTA = 4 * MAX_BLOCK + 2 * MAX_SEATS  # input entries one option changes: three cities, the hand, points, pile
PARAMS = 32  # room for a seat's policy parameter row (kernels/policy.P_COUNT, 18 today: a rollout's playouts
#              and base policy id, then its base policy's row, the longest the heuristic's 16 weights); a
#              bound, checked there, so a new policy parameter changes no record (the rest are zeros)


def pack_halves(counts):
    """The trading solver's packed form of per-resource counts (kernels/trade.py: resource r in
    bits 8r..8r+7 of an int64), split into two int32 columns: resources 0-3, then 4-6. counts:
    integers 0..127 of shape (..., N_RES), e.g. a numpy array; returns (low, high)."""
    low = sum(counts[..., r] << (8 * r) for r in range(4))
    high = sum(counts[..., r] << (8 * (r - 4)) for r in range(4, codes.N_RES))
    return low, high


class Row:
    """Named fields packed side by side in one int32 row: (name, width, meaning)."""

    def __init__(self, prefix: str, title: str, fields: list):
        self.prefix = prefix
        self.title = title
        self.fields = fields
        self.offsets = {}
        at = 0
        for name, width, _ in fields:
            self.offsets[name] = at
            at += width
        self.count = at

    def width(self, name: str) -> int:
        return next(w for n, w, _ in self.fields if n == name)

    def constants(self) -> dict:
        """PREFIX_FIELD -> offset, and PREFIX_COUNT -> the row's width."""
        out = {f"{self.prefix}{name.upper()}": at for name, at in self.offsets.items()}
        out[f"{self.prefix}COUNT"] = self.count
        return out

    def describe(self) -> str:
        lines = [f"{self.title} ({self.prefix}* offsets, {self.count} int32 columns)"]
        for name, width, meaning in self.fields:
            w = f"[{width}]" if width > 1 else ""
            lines.append(f"  {self.prefix}{name.upper()}{w:<6} {meaning}")
        return "\n".join(lines)


ENTITY = Row("E_", "Entities: one row per card (ids 0..C-1, data-file order), then per wonder stage", [
    ("kind", 1, "card colour 0..6 (codes.COLORS), codes.STAGE_KIND for a wonder stage"),
    ("coin_cost", 1, "coins paid to the bank"),
    ("cost", codes.N_RES, "resource cost, by codes.RESOURCES"),
    *entity_fields(),  # the effect kinds' fields, in the order of wsim/effects.KINDS
    ("has_cost", 1, "1 if it costs coins or resources (derived)"),
    ("cost_pk", 2, "the resource cost in the trading solver's packed form (derived; pack_halves)"),
    ("prod_pk", 2, "the fixed production units, packed the same way (derived)"),
    ("points_cap", 1, "the most points the entity can give a city at once, its science included (derived: "
                      "wsim.tables.points_caps; bounds the heuristic's denial)"),
    ("name_id", 1, "cards: building name id (one per name: both Looms share one); stages: -1"),
    ("age", 1, "cards: 1..3"),
    ("chain", MAX_CHAIN, "cards: name ids whose ownership makes the card free, -1 = none"),
    ("chains_to", 1, "cards: how many cards of later ages this card's name makes free (derived)"),
    ("copies", N_COPIES, "cards: copies in an N-player deck, indexed by N (0 for guilds)"),
])
CARD_ONLY = ("name_id", "age", "chain", "chains_to", "copies")  # Tables exposes these as card_* (cards only)

BOARD = Row("B_", "Boards: one row per wonder board (side 0 = A, 1 = B)", [
    ("resource", 1, "starting resource, -1 for none (Manneken Pis)"),
    ("coins", 1, "starting coins (3 + extra)"),
    ("promo", 1, "1 for a promo board: out of the random pool unless asked for"),
    ("stages", 2, "number of stages of each side"),
    ("stage_ent", 2 * MAX_STAGES, "entity of stage k of side s at 4s + k, -1 past the last"),
])

CHOSEN = Row("C_", "A seat's choice this round (inside F_CHOSEN)", [
    ("on", 1, "-1 not deciding this round, 0 to decide, 1 decided"),
    ("slot", 1, "hand slot (for the Free City: in its controller's hand)"),
    ("card", 1, "card id"),
    ("action", 1, "movelog ACT_*"),
    ("left", 1, "coins to the left neighbour"),
    ("right", 1, "coins to the right neighbour"),
    ("copy3", 1, "stage-3 neighbour chosen, -1 none yet"),
    ("coin_cost", 1, "coins to the bank"),
    ("needs3", 1, "1 if the move builds Manneken Pis A's stage 3"),
])

SEAT = Row("F_", "Seat state: one row per seat", [
    ("coins", 1, "coins"),
    ("board", 1, "board id"),
    ("side", 1, "0 = A, 1 = B"),
    ("stages", 1, "stages built"),
    ("side_stages", 1, "stages of the city's wonder side (set at the start: count target wonder_complete)"),
    ("copy3", 1, "Manneken Pis A stage 3: -1, or COPY_LEFT / COPY_RIGHT once chosen"),
    ("free_age", 1, "age of Olympia A's last free build (0 never)"),
    ("mil", 1, "sum of the military tokens"),
    ("defeats", 1, "defeat tokens"),
    ("shields", 1, "military strength"),
    ("disc", 1, "codes.DISC_* bits in force"),
    ("powers", 1, "bit p: power p active"),
    ("ncards", 1, "cards in the city"),
    ("nchoice", 1, "choice units of the city"),
    ("nsell_choice", 1, "choice units neighbours may buy"),
    ("hand_n", 1, "cards in hand"),
    ("copy_guild", 1, "guild copies (Olympia B3 and its Manneken Pis copies)"),
    ("ctr", 1, "draws taken from the seat's policy stream"),
    ("prod", codes.N_RES, "own fixed production"),
    ("sell", codes.N_RES, "fixed units neighbours may buy"),
    ("lp", codes.N_RES, "price per resource from the left"),
    ("rp", codes.N_RES, "price per resource from the right"),
    ("pk_prod", 2, "prod, packed (pack_halves): what the trading solver reads"),
    ("pk_reach", 2, "per resource, the choice units that may give it (packed)"),
    ("pk_sell", 2, "sell, packed"),
    ("pk_sell_cap", 2, "per resource, sell plus the sellable choice units that may give it (packed)"),
    ("pk_lp", 2, "lp, packed"),
    ("pk_rp", 2, "rp, packed"),
    ("choice", MAX_CHOICE, "choice units (resource masks)"),
    ("sell_ch", MAX_CHOICE, "choice units neighbours may buy"),
    ("colors", codes.N_KINDS, "cards per colour (and the stage kind, never counted)"),
    ("sci", codes.N_SCIENCE, "compass, gear, tablet, wildcards"),
    ("stage_e", MAX_STAGES, "effective entity of each built stage (-1: a copy of nothing)"),
    ("cards", MAX_CITY, "card ids in build order"),
    ("hand", MAX_HAND, "the hand (a Free City controller's ends with the pile card it drew)"),
    ("hand2", MAX_HAND, "scratch for passing hands"),
    ("owned", MAX_NAMES, "1 per owned building name id"),
    ("chosen", CHOSEN.count, "this round's choice (C_* fields)"),
    # behaviour counters (public facts, read by no policy; kernels/turn.resolve counts them)
    ("discards", 1, "cards discarded for coins by a move or a 7th card (not turn 6's leftovers)"),
    ("chained", 1, "cards with a cost built free by ACT_BUILD through an owned chain predecessor"),
    ("coins_paid", 1, "coins paid to the neighbours for resources (cards and stages)"),
    ("coins_received", 1, "coins received from the neighbours for resources"),
])

MOVE = Row("M_", "One legal option of a decision (kernels/step.legal)", [
    ("slot", 1, "hand slot, the controller's for the Free City (layout.NO_CARD for a neighbour, a pile card or a "
                "decline; layout.EVERY_CARD for a compact listing's template)"),
    ("card", 1, "card id (layout.NO_CARD: none; layout.EVERY_CARD: a template)"),
    ("action", 1, "movelog ACT_* (layout.DECLINE: the row declines a 7th card or a discard build)"),
    ("left", 1, "purchase: coins to the left neighbour (layout.UNPRICED: priced once chosen)"),
    ("right", 1, "purchase: coins to the right neighbour (layout.UNPRICED: priced once chosen)"),
    ("coin_cost", 1, "coins to the bank"),
    ("copy3", 1, "a move: 1 if it needs a stage-3 neighbour; a DEC_COPY3 option: COPY_LEFT/RIGHT"),
    ("default", 1, "1 for its (card, action) pair's first row: the default purchase (docs/rules.md §4) or the one listed"),
])

GAME = Row("G_", "Game header (kernels/step.py)", [
    ("n", 1, "cities in the ring (3 in the Free City variant)"),
    ("fc", 1, "the Free City's seat (docs/rules.md §10), -1 when there is none"),
    ("age", 1, "1..3"),
    ("turn", 1, "1..6"),
    ("phase", 1, "layout.PH_*"),
    ("open", 1, "decisions the round still waits for (a stage-3 neighbour counts with its move)"),
    ("nbuilt", 1, "stages built this turn"),
    ("dbq_n", 1, "discard builds owed this turn"),
    ("dbq_pos", 1, "the next one"),
    ("ncards", 1, "card ids of the data file (the discard pile's used length)"),
    ("ntook", 1, "discard builds recorded in the state's `took` this age"),
    ("built", 2 * MAX_BUILT, "(seat, stage index) of each stage built this turn"),
    ("dbq", MAX_BUILT, "seats owed a discard build, in resolution order"),
])

INSTANCE = Row("I_", "One card dealt this age, followed by kernels/hidden.py from one seat's view", [
    ("card", 1, "card id"),
    ("new", 1, "the card id dealt again in its place"),
    ("lin", 1, "the hand it is in or left (the seat dealt that hand), -1 for the Free City pile"),
    ("loc", 1, "hidden.LOC_*: where it is now"),
    ("group", 1, "0 never seen by the seat this age, else the turn the seat last saw it"),
])

TURN_START = Row("T_", "A city at the start of one turn of this age (STATE's `starts`, kept at 2 players)", [
    ("coins", 1, "coins"),
    ("ncards", 1, "cards in the city (F_CARDS is in build order: its first ncards)"),
    ("stages", 1, "stages built (F_STAGE_E: their entities, first to last)"),
])

RESULT = Row("RES_", "Results: one int16 row per (game, seat)", [
    ("board", 1, "board id"),
    ("side", 1, "0 = A, 1 = B"),
] + [(c, 1, f"{c} points") for c in codes.CATEGORIES] + [
    ("total", 1, "total points"),
    ("coins", 1, "coins at the end"),
    ("shields", 1, "military strength at the end"),
    ("stages", 1, "stages built"),
    ("rank", 1, "1 + players with more points, or equal points and more coins; 0 for the Free City"),
    ("ncards", 1, "cards in the city"),
    ("discards", 1, "cards discarded for coins (F_DISCARDS)"),
    ("chained", 1, "buildings built free through a chain (F_CHAINED)"),
    ("coins_paid", 1, "coins paid to the neighbours for resources (F_COINS_PAID)"),
    ("coins_received", 1, "coins received from the neighbours for resources (F_COINS_RECEIVED)"),
])

ROWS = (ENTITY, BOARD, CHOSEN, SEAT, MOVE, GAME, INSTANCE, TURN_START, RESULT)

# -- a run's settings, one game's state, a game loop's scratch: the fields of one record each -----
# (name, numpy dtype, shape, meaning). layout.py makes each a numpy record type (layout.RUN,
# layout.STATE, layout.SCRATCH), and a kernel takes the record: a new field goes into a row
# above, a new region here, and neither changes a signature.
RUN = (
    ("n", "int64", (), "players (2: the Free City variant, docs/rules.md §10)"),
    ("seed", "uint64", (), "the run's seed"),
    ("n_cards", "int64", (), "card ids of the data file"),
    ("promo", "bool", (), "whether the promo boards are in the deal's pool"),
    ("board_spec", "int8", (MAX_SEATS,), "each city's fixed board, -1: dealt"),
    ("side_spec", "int8", (MAX_SEATS,), "each city's fixed side, -1: dealt"),
    ("policies", "int32", (MAX_SEATS,), "each seat's policy id (kernels/policy.py)"),
    ("params", "int32", (MAX_SEATS, PARAMS), "each seat's policy parameter row (kernels/policy.py)"),
)
STATE = (
    ("seat", "int32", (MAX_SEATS, SEAT.count), "the seats' rows (F_*)"),
    ("keys", "uint64", (MAX_SEATS,), "each seat's policy stream key (kernels/rng.py)"),
    ("pile", "int32", (MAX_CARDS,), "the discard pile: copies of each card id"),
    ("gs", "int32", (GAME.count,), "the game header (G_*)"),
    ("dealt", "int16", (3, MAX_SEATS, codes.HAND_SIZE), "the three ages' hands (later ages are hidden)"),
    ("hist", "int16", (codes.TURNS_PER_AGE + 1, MAX_SEATS, 2),
     "this age's plays, (card, action) or -1: hist[u - 1, s] seat s's move of turn u, hist[6, s] its 7th card"),
    ("took", "int16", (MAX_TOOK, 2), "this age's discard builds, (turn, card): gs[G_NTOOK] of them"),
    ("starts", "int16", (codes.TURNS_PER_AGE, codes.FC_CITIES, TURN_START.count),
     "2 players only (written when gs[G_FC] >= 0): each city's T_* at the start of turn u of this age in "
     "starts[u - 1], what the cities now cannot tell of that turn's position; kernels/hidden_fc.py rebuilds the "
     "Free City's position at its hidden plays from it (docs/rules.md §10)"),
)
SCRATCH = (
    ("moves", "int32", (MAX_MOVES, MOVE.count), "the legal options of one decision (M_*)"),
    ("opts", "int32", (2 * MAX_OPTIONS, 2), "the trading solver's options (cards, then the stage)"),
    ("todo", "int32", (MAX_SEATS, 3), "the pending decisions (seat, kind, decider)"),
    ("deck", "int16", (DEAL_DECK,), "the deal's deck"),
    ("pool", "int8", (DEAL_POOL,), "the deal's board pool"),
    ("bs", "int8", (2, MAX_SEATS), "the dealt boards and sides"),
    ("inst", "int16", (MAX_INST, INSTANCE.count), "the cards of this age as one seat knows them (kernels/hidden.py)"),
    ("play_at", "int16", (codes.TURNS_PER_AGE + 1, MAX_SEATS), "the inst row each play of hist took (kernels/hidden.py)"),
    ("group", "int16", (2, MAX_INST), "one group's inst rows and cards, shuffled (kernels/hidden.py)"),
    ("city", "int32", (MAX_SEATS, SEAT.count), "the cities rebuilt as they stood at a past turn (F_*; "
                                                "kernels/hidden_fc.py, 2 players: 3 rows used; st.seat's shape, "
                                                "so the city functions compile once for both)"),
    ("fc_at", "int16", (3, MAX_FC_HIDDEN), "the hidden Free City plays of a re-deal: inst row, turn, and the "
                                           "candidate drawn for it (kernels/hidden.py, hidden_fc.py)"),
    ("fc_ok", "int8", (MAX_FC_HIDDEN, MAX_FC_POOL), "1 where the Free City could have played candidate j at "
                                                    "hidden play i (kernels/hidden_fc.py)"),
    ("fc_cand", "int16", (MAX_FC_POOL,), "the candidates of one group's hidden Free City plays (kernels/hidden_fc.py)"),
    ("timing", "uint64", (TIMING_SLOTS,), "CPU cycles by component in the profile twin (kernels/timing.py)"),
    ("x", "float32", (MAX_INPUT,), "the learned policy's input at a decision (kernels/learned.py)"),
    ("block", "float32", (MAX_BLOCK,), "one block of that input re-encoded after an option (kernels/learned.py)"),
    ("h0", "float32", (MAX_HIDDEN,), "the model's hidden layer at the decision, before its activation"),
    ("h", "float32", (MAX_HIDDEN,), "the same after one option"),
    ("d_at", "int32", (MAX_DELTA,), "the input entries an option changes ..."),
    ("d_by", "float32", (MAX_DELTA,), "... and by how much"),
    ("after", "int32", (MAX_SEATS, SEAT.count), "the cities after one option (kernels/learned.py; F_*)"),
    ("after_gs", "int32", (GAME.count,), "the game header resolving that option writes (G_*)"),
    ("after_pile", "int32", (MAX_CARDS,), "the pile resolving it writes (reset after each option)"),
    ("points", "int16", (2, RESULT.count), "a city's points now and the scoring's spare row (RES_*)"),
)

# -- the run-time records: arrays that travel together, as namedtuples ----------------------------
# (name, type, meaning). The Python side builds them (wsim/env/batched.py, wsim/run/*.py), the
# kernels read them by field name (`book.pend[g, who, 0]`): numba compiles a namedtuple argument
# as it does a tuple. An argument that may be None (model, tape, clock, search, stop) stays an
# argument of its own: numba prunes a branch on `x is None` for arguments only.
LOG = (
    ("rows", "int16[G, MAX_EVENTS, EVENT_WIDTH]", "each game's events (wsim.movelog columns); zero rows: no log"),
    ("count", "int32[G]", "how many events each game has"),
    ("game", "int64", "the game (the index into rows and count) this loop writes"),
)
BOOK = (
    ("game", "int64[N]", "the game index each slot plays"),
    ("pend", "int32[N, P, 2]", "a learner seat's pending decision (city, kind), city -1: none"),
    ("n_legal", "int16[N, P]", "how many legal action ids it has"),
    ("legal", "int16[N, P, MAX_MOVES]", "those ids, in the listing's order, each once"),
    ("stash", "int32[N, P, 2]", "(id, row) of the option policy_decisions chose (-1: none), so that a shared "
                                "id (two copies of a card) plays the copy the policy picked"),
    ("draws", "uint64[N]", "the draws sample_legal took from the game's STREAM_SAMPLE"),
)
VIEWS = (
    ("obs", "float32[N, P, F]", "each learner seat's observation (kernels/observe.py), zeros for kernel seats"),
    ("mask", "int8[N, P, A]", "the legal action ids as a dense mask (zero rows: none kept)"),
    ("reward", "float32[N, P]", "this step's reward: a finished game's win share or margin (score.outcome), else 0"),
    ("vp", "int16[N, P]", "a finished game's totals (valid where ended)"),
    ("ended", "bool[N]", "whether the slot's game ended in this call (its next game is dealt)"),
    ("final_obs", "float32[N, P, F]", "an ended game's last observation (valid where ended)"),
)
RESULTS = (
    ("res", "int16[G, cities, RES_COUNT]", "each game's results (RES_*; one game's rows in a tape's games)"),
    ("cards", "int16[G, cities, MAX_CITY]", "each game's cities' card ids, in build order"),
    ("log", "Log", "the games' move logs"),
)
TMP = (
    ("res", "int16[cities, RES_COUNT]", "a finished game's results"),
    ("cards", "int16[cities, MAX_CITY]", "and its cities' cards"),
    ("rid", "int32[MAX_MOVES]", "each listed row's action id"),
    ("seen", "int8[A]", "a mark per id, all zero between uses, that lists an id once"),
    ("log", "Log", "a log with no rows (the environment keeps none)"),
)
ACTION_SPACE = (
    ("slots", "int64", "purchases numbered per (card, action) pair"),
    ("per_card", "int64", "actions per card name"),
    ("moves_end", "int64", "the first id past the turn moves: the stage-3 neighbours' (left, right)"),
    ("copy_end", "int64", "the first id past those: a discard build's card names"),
    ("decline", "int64", "the decline of a 7th card or a discard build"),
    ("size", "int64", "how many ids"),
)
SLOTS = (
    ("learner", "int8[P + 1]", "the learner seats' mask, and 1 at [P] to rotate it one seat on per game"),
    ("olay", "int64[]", "the observation layout (kernels/observe.py)"),
    ("alay", "ActionSpace", "the action ids' layout (kernels/actions.py)"),
    ("reward_kind", "int64", "batched.REWARD_WIN or batched.REWARD_MARGIN"),
    ("book", "Book", "the slots' bookkeeping"),
    ("views", "Views", "what each call writes for the caller"),
)
MODEL = (
    ("lay", "int64[L_INPUT + 1]", "the input's offsets (learned.input_layout)"),
    ("w1", "float32[K, L_INPUT, H]", "each of the K models' first layer weights (H <= MAX_HIDDEN: the widest "
                                     "model's units; a narrower one's are padded with zeros)"),
    ("b1", "float32[K, H]", "their biases"),
    ("w2", "float32[K, H]", "the output's weights"),
    ("b2", "float32[K]", "its bias"),
    ("units", "int64[K]", "each model's own hidden units (the loops stop there)"),
)
TAPE = (
    ("lay", "int64[L_INPUT + 1]", "the input's offsets (learned.input_layout)"),
    ("rows", "float32[R, L_INPUT]", "the recorded inputs (zero rows: a run that records nothing)"),
    ("meta", "int32[R, TAPE_META]", "each row's T_* facts"),
    ("count", "int64[1]", "how many rows are written (R + 1 once a row did not fit)"),
    ("sample", "uint64[4]", "the sampling's stream key, threshold, draw counter and exploration threshold"),
)
STOP = (
    ("seat", "int64", "stop before this seat's moves-th turn move from here (a truncated playout); -1: never"),
    ("moves", "int64", "those turn moves"),
    ("learner", "int8[P + 1]", "the learner seats' mask (loop.learns; empty: none), whose decisions the loop "
                               "leaves to its caller"),
    ("game", "int64", "the game's index, which turns a rotating learner mask"),
)
RECORDS = {"Stop": STOP, "Log": LOG, "Results": RESULTS, "Book": BOOK, "Views": VIEWS, "Tmp": TMP, "ActionSpace": ACTION_SPACE, "Slots": SLOTS,
           "Model": MODEL, "Tape": TAPE}
Stop, Log, Results, Book, Views, Tmp, ActionSpace, Slots, Model, Tape = (
    namedtuple(name, [f for f, _, _ in fields]) for name, fields in RECORDS.items())
RECORD_TITLES = {
    "Stop": "where the game loop stops (`stop`; kernels/loop.py: a truncated playout, the batched environment)",
    "Log": "a game loop's move log (`log`; kernels/turn.log_event writes it when it has rows)",
    "Results": "what a block of games writes (`out`; kernels/game.py, kernels/tape.py)",
    "Book": "the batched environment's bookkeeping of its N slots (`book`; kernels/batched.py)",
    "Views": "what the batched environment writes after each call (`views`)",
    "Tmp": "the batched environment's per-thread scratch (`tmp`)",
    "ActionSpace": "the action ids' layout (`alay`; kernels/actions.py, wsim.env.actions.ActionLayout)",
    "Slots": "the batched kernels' context (`slots`): the arrays every call of one environment shares",
    "Model": "the learned policy's model (`model`; kernels/learned.py)",
    "Tape": "a training tape (`tape`; kernels/learned.py, kernels/tape.py)",
}


def describe() -> str:
    """The layout text of every packed row and record (appended to the layout.py and tables.py
    docstrings)."""
    records = [f"{title} record\n" + "\n".join(f"  {name:<6} {dtype}{list(shape)}  {meaning}"
                                                for name, dtype, shape, meaning in regions)
               for title, regions in (("Run (layout.RUN): a run's settings", RUN),
                                      ("State (layout.STATE): one game", STATE),
                                      ("Scratch (layout.SCRATCH): a game loop's", SCRATCH))]
    records += [f"{name}: {RECORD_TITLES[name]}\n" + "\n".join(f"  {field:<11} {kind:<34} {meaning}"
                                                              for field, kind, meaning in fields)
                for name, fields in RECORDS.items()]
    return "\n\n".join([r.describe() for r in ROWS] + records)
