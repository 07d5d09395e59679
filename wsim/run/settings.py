"""Run settings: every option of a run checked in one place, parsed once.

The same checks serve options a user types and metadata read from a dataset someone sent
(untrusted: types are checked too), so no kernel ever sees a value it cannot take.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from wsim import codes
from wsim.errors import WsimError, brief, flag, is_whole, one_of, text, text_list, whole_number
from wsim.kernels.deal import board_pool
from wsim.kernels.policy import (L_MODEL, P_COUNT, PARAM_KEYS, POLICY_LEARNED, POLICY_NAMES, R_BASE, R_BASE_ID, R_DEPTH,
                                 R_PLAYOUTS)
from wsim.run.weights import MAX_DEPTH, ParamsError, default_params, params_row, read_weights, rollout_row
from wsim.tables import Tables


class SettingsError(WsimError):
    """Run settings that cannot be used; the message names the option and what is allowed."""


MAX_GAMES = 2**63 - 1  # game indices are int64 in the dataset
MAX_CHUNK = 1_000_000  # one chunk's arrays stay well under a gigabyte at 7 players
MAX_SEED = 2**64 - 1
# The bounds of options that more than one front end checks (the command line's click types and
# the Python API's errors.whole_number read these, so the two cannot drift apart)
# wsim ladder, survey and ablate --games: each plays in chunks (the ladder's tallies, the
# others' datasets on disk), so what bounds them is time: 10^9 games take hours, 10^12 years
LONG_RUN_GAMES = (1, 10**9)
TUNE_GENERATIONS = (1, 10_000)  # wsim tune --generations
TUNE_POPULATION = (4, 1_000)  # wsim tune --population
TUNE_GAMES = (1, 10**7)  # wsim tune --games
# wsim rebalance --max-games (the held-out run's games at most; --games is at most --max-games).
# A measurement keeps one bit per seat of the run its levers pair with: at 10^8 games and 7
# players, 88 MB
REBALANCE_MAX_GAMES = (1, 10**8)


@dataclass(frozen=True)
class Settings:
    """Everything that determines a run's games (besides the card data)."""

    players: int
    policies: tuple  # one policy name per player
    params: tuple = ()  # one tuple of P_COUNT ints per player; () = each policy's defaults
    labels: tuple = ()  # one label per player (NAME:LABEL); () = the policy names
    weights_files: tuple = ()  # per player, the sha256 of the weights file it plays ("" none); () = none
    seed: int = 0
    games: int = 100_000
    wonders: tuple = ()  # () random boards, else one (wonder id, "A" | "B" | "" = --sides) per city
    sides: str = "random"  # random | A | B
    manneken_pis: bool = False
    chunk_size: int = 100_000
    model: str = ""  # the model file of a learned seat without its own in `models` ("shipped": wsim/data/learned.npz)
    # per player, the model file its learned play uses (a learned seat's, or a rollout's over a
    # learned base; "" none): () or a learned seat's "" = `model`
    models: tuple = ()

    def __post_init__(self):
        if not self.params:
            rows = tuple(default_params(p) for p in self.policies)
            object.__setattr__(self, "params", rows)
        if not self.labels:
            object.__setattr__(self, "labels", tuple(self.policies))
        if not self.weights_files:
            object.__setattr__(self, "weights_files", ("",) * len(self.policies))
        models = self.models or ("",) * len(self.policies)
        object.__setattr__(self, "models", tuple((m or self.model or "shipped") if self._plays_learned(s) else ""
                                                 for s, m in enumerate(models)))

    def _plays_learned(self, seat: int) -> bool:
        """Whether the seat plays learned or bases a rollout on it."""
        name = self.policies[seat]
        return name == "learned" or (name == "rollout" and self.params[seat][R_BASE_ID] == POLICY_LEARNED)

    @property
    def cities(self) -> int:
        """Cities in play: the players', and the Free City's at 2 players (docs/rules.md §10)."""
        return cities_of(self.players)

    @property
    def free_city(self) -> bool:
        return self.players == codes.FC_PLAYERS

    def board_spec(self, tables: Tables) -> tuple:
        """(board per city or -1, side per city or -1) from --wonders and --sides."""
        default_side = {"random": -1, "A": 0, "B": 1}[self.sides]
        if not self.wonders:
            return (-1,) * self.cities, (default_side,) * self.cities
        boards = tuple(tables.board_id(wid) for wid, _ in self.wonders)
        sides = tuple(default_side if side == "" else "AB".index(side) for _, side in self.wonders)
        return boards, sides

    def boards_in_play(self, tables: Tables) -> dict:
        """{board: the sides (0 A, 1 B) a city of this run may get it with}: the boards --wonders
        fixes, and for the other seats the pool (the promo boards only with --manneken-pis)."""
        pool = [b for b in range(tables.n_boards) if not tables.board_promo[b] or self.promo_in_pool()]
        sides: dict = {}
        for board, side in zip(*self.board_spec(tables)):
            for b in ([board] if board >= 0 else pool):
                sides.setdefault(b, set()).update([side] if side >= 0 else [0, 1])
        return sides

    @property
    def part_count(self) -> int:
        """How many parts (of chunk_size games, the last one the rest) the run's games make."""
        return -(-self.games // self.chunk_size)

    def part(self, index: int) -> tuple:
        """(first game, games) of part `index`: part i holds the chunk_size games from
        i * chunk_size, the last part the rest (games <= 0: past the run's end)."""
        first = index * self.chunk_size
        return first, min(self.chunk_size, self.games - first)

    def promo_in_pool(self) -> bool:
        return self.manneken_pis

    def policy_ids(self) -> np.ndarray:
        return np.array([POLICY_NAMES.index(p) for p in self.policies], dtype=np.int32)

    def policy_params(self) -> np.ndarray:
        """The kernels' parameter rows: the params, and in each row that plays learned the index
        of its model file in the run's model record (kernels/policy.L_MODEL, wsim/run/model.py)."""
        from wsim.run.model import model_sets

        rows = np.array(self.params, dtype=np.int32).reshape(self.players, P_COUNT)
        for s, k in enumerate(model_sets(self.models)[1]):
            if k >= 0:
                rows[s, L_MODEL if self.policies[s] == "learned" else R_BASE + L_MODEL] = k
        return rows


def cities_of(players: int) -> int:
    """Cities of a game of `players` players (3 at 2 players: the Free City's is the third)."""
    return codes.FC_CITIES if players == codes.FC_PLAYERS else players


def parse_wonders(value: str, players: int, tables: Tables) -> tuple:
    """A --wonders value ("random" or "fixed:ID/SIDE,...") as Settings.wonders: () for random,
    else one (wonder id, side) per city, the side "A", "B" or "" (then --sides decides)."""
    if value == "random":
        return ()
    if not value.startswith("fixed:"):
        raise SettingsError(f"--wonders: expected 'random' or 'fixed:ID/SIDE,...', got {brief(value)}")
    entries = [e.strip() for e in value[len("fixed:"):].split(",")]
    cities = cities_of(players)
    if len(entries) != cities:
        what = "seats 0 and 1, then the Free City" if cities != players else "one per seat"
        raise SettingsError(f"--wonders: 'fixed:' needs exactly {cities} entries ({what}), got {len(entries)}")
    out = []
    for entry in entries:
        wid, slash, side = entry.partition("/")
        wid, side = wid.strip().lower(), side.strip().upper()
        if wid not in tables.board_ids:
            raise SettingsError(f"--wonders: unknown wonder {brief(wid)} in the {tables.edition_name} "
                                f"(one of: {' '.join(tables.board_ids)})")
        if any(wid == w for w, _ in out):
            raise SettingsError(f"--wonders: {wid!r} is named twice (entries must be distinct)")
        if slash and side not in ("A", "B"):
            raise SettingsError(f"--wonders: side of {wid!r} must be A or B, got {brief(side)}")
        out.append((wid, side))
    return tuple(out)


def wonders_text(wonders: tuple) -> str:
    """Settings.wonders as the text of --wonders and of the metadata: "random" or
    "fixed:id/S,..." (an entry without a side follows --sides)."""
    if not wonders:
        return "random"
    return "fixed:" + ",".join(wid + (f"/{side}" if side else "") for wid, side in wonders)


_LABEL = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def parse_policies(names, players: int, option: str = "--policies") -> tuple:
    """Check policy entries, one per player, each NAME or NAME:LABEL (docs/interfaces.md §2); returns
    (names, labels), a seat's label being its name when it has none. `option` names the CLI
    option in errors."""
    entries = tuple(n.strip() for n in names)
    if len(entries) != players:
        what = "one per player; the Free City plays its controller's" if players == codes.FC_PLAYERS else "one per seat"
        raise SettingsError(f"{option}: needs exactly {players} names ({what}), got {len(entries)}")
    out_names, labels, label_of = [], [], {}
    for entry in entries:
        name, colon, label = entry.partition(":")
        name, label = name.strip(), label.strip()
        if name not in POLICY_NAMES:
            raise SettingsError(f"{option}: unknown policy {brief(name)} (one of: {' '.join(POLICY_NAMES)})")
        if colon:
            if not _LABEL.match(label):
                raise SettingsError(f"{option}: label {brief(label)} of {name!r} must be 1 to 40 letters, digits, "
                                    "'_' or '-'")
            if label in POLICY_NAMES and label != name:
                raise SettingsError(f"{option}: label {label!r} is the name of another policy")
            if label == codes.FC_POLICY:  # the `policy` value of the Free City's rows, for every reader
                raise SettingsError(f"{option}: label {label!r} is reserved: it marks the Free City's rows "
                                    "at 2 players")
        else:
            label = name
        if label_of.setdefault(label, name) != name:
            raise SettingsError(f"{option}: label {label!r} is given to two policies ({label_of[label]}, {name})")
        out_names.append(name)
        labels.append(label)
    return tuple(out_names), tuple(labels)


MAX_PARAM = 10**6  # a parameter value's bound (weights in hundredths of a point)
MAX_PLAYOUTS = 1024  # rollout's playouts per move: beyond, a game takes minutes


def apply_policy_params(specs, names: tuple, labels: tuple) -> tuple:
    """(parameter rows, weights-file sha256 per seat or "", the unlabeled learned seats' model
    file, each seat's model file) after `--policy-param NAME.KEY=VALUE` or LABEL.KEY=VALUE
    settings (docs/interfaces.md §2): a policy name sets every seat playing it, a label the seats
    with that label, which wins over the name; later settings win over earlier ones. KEY `weights`
    (heuristic) sets every weight from a weights file; KEY `model` (learned) names the model file
    of the seats set ("shipped" unless given; "" for a seat that plays no learned), which a
    rollout over such a seat's label (or over `learned`) plays too."""
    rows = [list(default_params(n)) for n in names]
    files = [""] * len(names)
    model = "shipped" if "learned" in names else ""
    models = [model if n == "learned" else "" for n in names]
    bases, depths = [], []
    parsed = []
    for spec in specs:
        target, dot, rest = str(spec).partition(".")
        key, eq, value = rest.partition("=")
        target, key, value = target.strip(), key.strip(), value.strip()
        if not dot or not eq:
            raise SettingsError(f"--policy-param: expected NAME.KEY=VALUE or LABEL.KEY=VALUE, got {brief(spec)}")
        seats = [s for s in range(len(names)) if labels[s] == target or names[s] == target]
        if not seats:
            raise SettingsError(f"--policy-param: {brief(target)} is neither a policy nor a label of this run "
                                f"(policies: {', '.join(sorted(set(labels)))})")
        keys = PARAM_KEYS[names[seats[0]]]
        by_label = target in labels and target not in names
        if key == "base" and names[seats[0]] == "rollout":  # resolved once every other row is known
            bases.append((by_label, seats, value))
            continue
        if key == "depth" and names[seats[0]] == "rollout":  # it needs the base (kernels/policy.py)
            if not re.fullmatch(r"[0-9]{1,2}", value) or int(value) > MAX_DEPTH:
                raise SettingsError(f"--policy-param: {target}.depth must be a whole number from 0 to {MAX_DEPTH} "
                                    f"(0: playouts to the game's end), got {brief(value)}")
            depths.append((by_label, seats, int(value)))
            continue
        if key == "model" and names[seats[0]] == "learned":
            if not value:
                raise SettingsError(f"--policy-param: {target}.model needs a model file")
            parsed.append((by_label, seats, "model", value))
            if not by_label:
                model = value
            continue
        if key == "weights" and names[seats[0]] == "heuristic":  # a whole row from a weights file
            row, sha = read_weights(value, "heuristic")
            parsed.extend((by_label, seats, k, v) for k, v in enumerate(row[:len(keys)]))
            parsed.append((by_label, seats, "file", sha))
            continue
        if key not in keys:
            allowed = ", ".join(keys) if keys else "none"
            raise SettingsError(f"--policy-param: {names[seats[0]]} has no parameter {brief(key)} "
                                f"(its parameters: {allowed})")
        lo, hi = (1, MAX_PLAYOUTS) if key == "playouts" else (-MAX_PARAM, MAX_PARAM)
        if not re.fullmatch(r"[+-]?[0-9]{1,7}", value) or not lo <= int(value) <= hi:
            raise SettingsError(f"--policy-param: {target}.{key} must be a whole number from {lo:,} to "
                                f"{hi:,}, got {brief(value)}")
        parsed.append((by_label, seats, keys.index(key), int(value)))
    for by_label in (False, True):  # names first, so that a label's setting wins
        for lab, seats, k, v in parsed:
            if lab == by_label:
                for s in seats:
                    if k == "file":
                        files[s] = v
                    elif k == "model":
                        models[s] = v
                    else:
                        rows[s][k] = v
    for by_label in (False, True):
        for lab, seats, value in bases:
            if lab == by_label:
                base, base_row = _rollout_base(value, names, labels, rows)
                base_model = models[labels.index(value)] if value in labels else model
                for s in seats:
                    rows[s] = list(rollout_row(rows[s][R_PLAYOUTS], base, base_row))
                    models[s] = base_model if base == "learned" else ""
    for by_label in (False, True):
        for lab, seats, depth in depths:
            if lab == by_label:
                for s in seats:
                    if rows[s][R_BASE_ID] != POLICY_LEARNED:
                        raise SettingsError(f"--policy-param: rollout.depth ends a playout in the learned model's "
                                            f"value: it needs rollout.base=learned ({labels[s]}'s base is "
                                            f"{POLICY_NAMES[rows[s][R_BASE_ID]]})")
                    rows[s][R_DEPTH] = depth
    return tuple(tuple(r) for r in rows), tuple(files), model, tuple(models)


def _rollout_base(value: str, names: tuple, labels: tuple, rows: list) -> tuple:
    """(policy name, parameter row) of a rollout's base=VALUE: a label of the run (its seat's
    parameters) or a policy name (the parameters given to it, else its defaults); not rollout."""
    if value in labels:
        b = labels.index(value)
        name, row = names[b], rows[b]
    elif value in POLICY_NAMES:
        name = value
        row = next((rows[b] for b in range(len(names)) if names[b] == value and labels[b] == value),
                   default_params(value))
    else:
        name, row = None, None
    if name is None or name == "rollout":
        raise SettingsError(f"--policy-param: rollout.base must be a policy or a label of this run other than "
                            f"rollout, got {brief(value)}")
    return name, row


def _weights_files(value, players: int) -> tuple:
    """Recorded weights-file digests: one sha256 (64 hex digits) or "" per seat."""
    if value is None:
        return ("",) * players
    if (not isinstance(value, list) or len(value) != players
            or not all(isinstance(v, str) and re.fullmatch(r"(|[0-9a-f]{64})", v) for v in value)):
        raise SettingsError(f"policies: weights_sha256 must be a sha256 in hexadecimal, got {brief(value)}")
    return tuple(value)


def check_players(players) -> int:
    """Refuse a player count the engines do not play (2..7; 2 is the Free City variant)."""
    return whole_number(players, "players", codes.MIN_SIMULATED_PLAYERS, codes.MAX_PLAYERS, SettingsError)


def _params(value, players: int) -> tuple:
    """Recorded policy parameters: one list of P_COUNT int32 values per seat."""
    if (not isinstance(value, list) or len(value) != players
            or not all(isinstance(r, list) and len(r) == P_COUNT and all(is_whole(v, -2**31, 2**31 - 1)
                                                                       for v in r) for r in value)):
        raise SettingsError(f"policies: parameters must be {players} lists of {P_COUNT} 32-bit whole numbers")
    return tuple(tuple(r) for r in value)


def build_settings(tables: Tables, *, players, policies, seed=0, games=100_000, wonders="random",
                   sides="random", manneken_pis=False, chunk_size=100_000, params=None,
                   policy_params=(), weights_files=None, model=None, models=()) -> Settings:
    """Check every run setting, as the CLI and dataset metadata give them; returns the Settings.

    The same checks serve options typed by a user and metadata read from a dataset someone
    sent (untrusted: types are checked too), so no kernel ever sees a value it cannot take.
    """
    players = check_players(players)
    if players < tables.min_players:
        raise SettingsError(f"--players: the {tables.edition_name} is played by {tables.min_players} to "
                            f"{codes.MAX_PLAYERS} players (it has no two-player variant), got {players}")
    seed = whole_number(seed, "seed", 0, MAX_SEED, SettingsError)
    games = whole_number(games, "games", 1, MAX_GAMES, SettingsError)
    chunk_size = whole_number(chunk_size, "chunk_size", 1, MAX_CHUNK, SettingsError)
    names, labels = parse_policies(text_list(policies, "policies", "policy names", error=SettingsError), players)
    wonders = parse_wonders(text(wonders, "wonders", "'random' or 'fixed:ID/SIDE,...'", SettingsError), players,
                            tables)
    one_of(sides, "sides", ("random", "A", "B"), SettingsError)
    flag(manneken_pis, "manneken_pis", SettingsError)
    if manneken_pis and not tables.board_promo.any():
        raise SettingsError(f"--manneken-pis: the data file {tables.source} ({tables.edition_name}) has no promo board")
    # naming manneken_pis in a fixed list puts it in play: the metadata says so too
    in_play = manneken_pis or any(wid == "manneken_pis" for wid, _ in wonders)
    if params is not None and policy_params:
        raise SettingsError("--policy-param: not with recorded parameters")
    if params is not None:
        rows, files = _params(params, players), _weights_files(weights_files, players)
        model = ("shipped" if "learned" in names else "") if model is None else text(model, "model", "a model file",
                                                                                    SettingsError)
        models = tuple(text(m, "model", "a model file", SettingsError) for m in models)
    else:
        rows, files, model, models = apply_policy_params(policy_params, names, labels)
    settings = Settings(players=players, seed=seed, games=games, policies=names, wonders=wonders, sides=sides,
                        manneken_pis=in_play, chunk_size=chunk_size, params=rows, labels=labels,
                        weights_files=files, model=model, models=models)
    settings = replace(settings, weights_files=_model_digests(tables, names, files, settings.models))
    boards, _ = settings.board_spec(tables)
    check_board_pool(tables, boards, in_play)
    return settings


def _model_digests(tables: Tables, names: tuple, files: tuple, models: tuple) -> tuple:
    """files with each learned seat's model sha256: each model file is read and checked here (a
    recorded digest that differs from the file's is refused: another model played those games)."""
    if "learned" not in names:
        return files
    from wsim.run.model import ModelError, read_model
    digests = {}
    try:
        for s, name in enumerate(names):
            if name == "learned" and models[s] not in digests:
                digests[models[s]] = read_model(models[s], tables).sha256
    except ModelError as e:
        raise SettingsError(str(e)) from None
    out = list(files)
    for s, name in enumerate(names):
        if name == "learned":
            if out[s] and out[s] != digests[models[s]]:
                raise SettingsError(f"model {brief(models[s])}: its sha256 is not the {out[s][:12]}... these games "
                                    f"were played with")
            out[s] = digests[models[s]]
    return tuple(out)


_RECORDED = ("players", "policies", "seed", "games", "wonders", "sides", "manneken_pis", "chunk_size")


def settings_from_metadata(meta: dict, tables: Tables) -> Settings:
    """The Settings a dataset was written with, checked like CLI options (SettingsError)."""
    missing = [k for k in _RECORDED if k not in meta]
    if missing:
        raise SettingsError(f"missing {', '.join(missing)}")
    policies = meta["policies"]
    if not isinstance(policies, list) or not all(isinstance(p, dict) and {"name", "params"} <= set(p)
                                                 and set(p) <= {"name", "label", "params", "weights_sha256", "model"}
                                                 and all(isinstance(p[k], str) for k in p if k != "params")
                                                 for p in policies):
        raise SettingsError(f"policies: expected a list of {{name, params}} (and optionally label, "
                            f"weights_sha256), got {brief(policies)}")
    entries = [p["name"] + (f":{p['label']}" if "label" in p else "") for p in policies]
    return build_settings(tables, players=meta["players"], policies=entries,
                          seed=meta["seed"], games=meta["games"], wonders=meta["wonders"], sides=meta["sides"],
                          manneken_pis=meta["manneken_pis"], chunk_size=meta["chunk_size"],
                          params=[_recorded_row(p) for p in policies],
                          weights_files=[p.get("weights_sha256", "") for p in policies],
                          model=next((p["model"] for p in policies if "model" in p), None),
                          models=[p.get("model", "") for p in policies])


def _recorded_row(policy: dict):
    """A recorded seat's parameters as a row: a list as written (schema version 1), or, recorded
    by name (version 2), the row it names; the row's form is checked by build_settings."""
    params = policy["params"]
    if not isinstance(params, dict):
        return params
    if policy["name"] not in POLICY_NAMES:  # parse_policies names the unknown policy
        return []
    try:
        return list(params_row(policy["name"], params))
    except ParamsError as e:
        raise SettingsError(f"policies: {e}") from None


def check_board_pool(tables: Tables, boards, promo_in_pool: bool):
    """Refuse seats that want a random board when the pool has too few left (the deal would
    read past the shuffled pool)."""
    wanted, pool = board_pool(tables.board, boards, promo_in_pool)
    if wanted > pool:
        raise SettingsError(f"{tables.source}: {wanted} seats need a random board but the pool holds only {pool} "
                            "(promo boards join it only with --manneken-pis)")
