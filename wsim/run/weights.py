"""Policy parameters as users give them: each policy's default row, and weights files.

A parameter row holds kernels/policy.P_COUNT int32 values in the order of PARAM_KEYS[name]
(zeros past a policy's own keys). `greedy`'s defaults are kernels/greedy.GREEDY_DEFAULTS;
`heuristic`'s are the shipped weights file wsim/data/heuristic.json. A weights file is JSON:
{"format": "wsim-weights-1", "policy": "heuristic", "weights": {KEY: whole number, ...}}, every
key of the policy present (hundredths of a victory point), except a heuristic feature that
wsim/effects.py gives a default weight: a file written before the feature existed takes it.
A dataset's metadata records a row by name (params_by_name, params_row: docs/interfaces.md §2).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

from wsim.effects import weight_defaults
from wsim.errors import WsimError, brief, is_whole
from wsim.kernels.greedy import GREEDY_DEFAULTS
from wsim.kernels.policy import P_COUNT, PARAM_KEYS, POLICY_NAMES, R_BASE, R_BASE_ID, R_DEPTH, R_PLAYOUTS
from wsim.yamlfile import YamlFileError, read_bytes

FORMAT = "wsim-weights-1"
MAX_WEIGHT = 10**6
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DEFAULT_FILE = DATA_DIR / "heuristic.json"  # the tuned weights (wsim tune)
HANDSET_FILE = DATA_DIR / "heuristic-handset.json"  # where wsim tune starts
ROLLOUT_PLAYOUTS = 16
# a rollout over the learned base: its playouts' depth in the deciding seat's turn moves (kernels/rollout.py)
LEARNED_BASE_DEPTH = 1
MAX_DEPTH = 18  # a game's turn moves: 0 (to the end) .. MAX_DEPTH
# weights files shipped with wsim, by the name `weights=NAME` takes for them
SHIPPED = {"tuned": DEFAULT_FILE, "handset": HANDSET_FILE,
           **{name: DATA_DIR / f"heuristic-{name}.json" for name in ("science", "military", "civilian")}}


class WeightsError(WsimError):
    """A weights file that cannot be used; the message names the file and the problem."""


def read_weights(path, policy: str = "heuristic") -> tuple:
    """(row, sha256 of the file) of a weights file for `policy` (WeightsError if unusable).
    A name of SHIPPED (`science`, ...) is that shipped file: a file of such a bare name in the
    current folder is `./science`."""
    path = SHIPPED.get(str(path), path)
    try:
        raw = read_bytes(path, "weights file")
    except YamlFileError as e:
        raise WeightsError(f"weights={brief(str(path))}: {e}") from None
    where = f"weights file {brief(str(path))}"
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise WeightsError(f"{where}: not valid JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("policy") != policy:
        raise WeightsError(f"{where}: expected {{\"format\": \"{FORMAT}\", \"policy\": \"{policy}\", \"weights\": ...}}")
    weights = doc.get("weights")
    keys = PARAM_KEYS[policy]
    defaults = weight_defaults() if policy == "heuristic" else {}
    if not isinstance(weights, dict) or not set(keys) - set(defaults) <= set(weights) <= set(keys):
        got = sorted(weights) if isinstance(weights, dict) else weights
        raise WeightsError(f"{where}: \"weights\" must give exactly the keys {', '.join(keys)}; got {brief(got)}")
    row = [0] * P_COUNT
    for i, k in enumerate(keys):
        v = weights.get(k, defaults.get(k))
        if type(v) is not int or abs(v) > MAX_WEIGHT:
            raise WeightsError(f"{where}: weight {k!r} must be a whole number from {-MAX_WEIGHT:,} to "
                               f"{MAX_WEIGHT:,}, got {brief(v)}")
        row[i] = v
    return tuple(row), hashlib.sha256(raw).hexdigest()


def rollout_row(playouts: int, base: str, base_row, depth: int = LEARNED_BASE_DEPTH) -> tuple:
    """A rollout parameter row: playouts, the base policy's id, then the base's own row (over
    the learned base: the playouts' depth, kernels/policy.py)."""
    row = [0] * P_COUNT
    row[R_PLAYOUTS] = playouts
    row[R_BASE_ID] = POLICY_NAMES.index(base)
    row[R_BASE:] = list(base_row[:P_COUNT - R_BASE])
    if base == "learned":
        row[R_DEPTH] = depth
    return tuple(row)


@lru_cache(maxsize=None)
def default_params(name: str) -> tuple:
    """The default parameter row of policy `name` (P_COUNT ints)."""
    row = [0] * P_COUNT
    if name == "greedy":
        row[:len(GREEDY_DEFAULTS)] = GREEDY_DEFAULTS
    elif name == "heuristic":
        row = list(read_weights(DEFAULT_FILE)[0])
    elif name == "rollout":  # playouts, its base policy (the shipped heuristic), then the base's row
        row = rollout_row(ROLLOUT_PLAYOUTS, "heuristic", default_params("heuristic"))
    return tuple(row)


def policy_defaults(name: str) -> tuple:
    """(policy id, default parameter row) of policy `name`, one of POLICY_NAMES: what a seat
    asked to play it by name, with nothing set, is given (wsim.Game.policy_move, the batched
    environment's policy_actions)."""
    return POLICY_NAMES.index(name), default_params(name)


class ParamsError(WsimError):
    """A parameter row recorded by name that is not one (the message says what is wrong)."""


def params_by_name(name: str, row) -> dict:
    """Policy `name`'s parameter row as {KEY: value}, the keys `--policy-param` takes
    (docs/interfaces.md §2): a rollout's as {playouts, base, base_params} ({playouts, base, depth}
    over the learned base), base_params its base's own parameters by name. params_row inverts it."""
    if name != "rollout":
        keys = PARAM_KEYS[name]
        return {k: int(v) for k, v in zip(keys, row)}
    base = POLICY_NAMES[row[R_BASE_ID]]
    named = {"playouts": int(row[R_PLAYOUTS]), "base": base}
    if base == "learned":
        named["depth"] = int(row[R_DEPTH])
    else:
        named["base_params"] = params_by_name(base, row[R_BASE:])
    return named


def params_row(name: str, named) -> tuple:
    """The parameter row (P_COUNT ints) of policy `name` recorded by name (params_by_name's form);
    ParamsError when `named` is not that form: every key of the policy, each a 32-bit whole number
    (the kernels' bounds are the settings' checks, as for a recorded row)."""
    if name != "rollout":
        return _plain_row(name, named)
    expected = ("playouts", "base", "base_params")
    if isinstance(named, dict) and named.get("base") == "learned":
        expected = ("playouts", "base", "depth")
    _expect_keys("rollout", named, expected)
    base = named["base"]
    if base not in POLICY_NAMES or base == "rollout":
        raise ParamsError(f"rollout's base must be a policy other than rollout, got {brief(base)}")
    playouts = _int32("rollout", "playouts", named["playouts"])
    if base == "learned":
        return rollout_row(playouts, base, default_params(base), _int32("rollout", "depth", named["depth"]))
    return rollout_row(playouts, base, _plain_row(base, named["base_params"]))


def _plain_row(name: str, named) -> tuple:
    """The row of a policy other than rollout from {KEY: value}, zeros past its keys."""
    keys = PARAM_KEYS[name]
    _expect_keys(name, named, keys)
    row = [0] * P_COUNT
    for i, k in enumerate(keys):
        row[i] = _int32(name, k, named[k])
    return tuple(row)


def _expect_keys(name: str, named, keys):
    if not isinstance(named, dict) or set(named) != set(keys):
        got = sorted(named) if isinstance(named, dict) else named
        raise ParamsError(f"{name}'s parameters must be an object of exactly the keys "
                          f"{', '.join(keys) or '(none)'}, got {brief(got)}")


def _int32(name: str, key: str, value) -> int:
    if not is_whole(value, -2**31, 2**31 - 1):
        raise ParamsError(f"{name}.{key} must be a 32-bit whole number, got {brief(value)}")
    return int(value)
