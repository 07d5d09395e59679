"""A training example: PPO with action masking, in JAX + optax on CPU, against the batched
environment (one learner seat per game, batched_v0.vector_env). Optional extra `ppo`
(pip install 'wsim[ppo]'); docs/env.md, "Training example", gives the command and the curve.

    python -m wsim.env.ppo --minutes 25 --out ppo.npz        # train, evaluating as it goes
    python -m wsim.env.ppo --evaluate ppo.npz --games 1000   # its share against 3 random/greedy/heuristic

Every argument is checked before the first training step or evaluation game, and a mistake is an
`Error:` line on stderr and exit status 2 (docs/interfaces.md §0); --out is a single output file
as `wsim tune`'s (wsim.dataset.outfile: an existing file only with --overwrite, held and its
room taken before training).

The network: the observation squashed (sign(x) log(1 + |x|)), two tanh layers, a logit per action
id (masked: an illegal id gets -1e9) and a value. Each iteration plays `steps` steps of every game,
computes GAE advantages (the game's reward at its end, gamma 1) and takes `epochs` passes of
clipped-PPO minibatch updates with Adam. The reward trained on is the learner's margin (its points
minus the best other player's, / 10): denser than the win, and a win is what it buys.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import optax

from wsim.analysis.stats import wilson_interval
from wsim.dataset.outfile import out_file
from wsim.env import batched_v0
from wsim.errors import OPTION_STYLE, WsimError, brief, one_of, real_number, whole_number
from wsim.inputfile import read_regular
from wsim.kernels.policy import BATCHABLE
from wsim.run.model import NotAnArchive, npz_arrays

NEG = -1e9
LAYERS = ("h1", "h2", "pi", "v")
MAX_ENVS = 4096  # training games at once: each holds steps x (features + actions) of buffers, about 0.1 MB
MAX_GAMES = 10**6  # evaluation games per opponent
MAX_MINUTES = 10**5
MAX_SEED = 2**63 - 1  # jax.random.PRNGKey takes a C long
MAX_FILE_BYTES = 64 << 20  # a weights file read at most (the documented network's takes about 2 MB)
NPZ_ROOM = 64 << 10  # an .npz's own bytes beside its arrays'


class PPOError(WsimError):
    """An argument or a weights file the example cannot use; the message names it."""


@dataclass(frozen=True)
class Config:
    """PPO's settings (the defaults are the documented run's)."""

    players: int = 4
    opponents: str = "heuristic"
    num_envs: int = 256
    steps: int = 20  # a game takes 18-21 learner steps
    hidden: int = 256
    lr: float = 3e-4
    epochs: int = 3
    minibatches: int = 4
    clip: float = 0.2
    gae_lambda: float = 0.95
    entropy: float = 0.01
    value_coef: float = 0.5
    seed: int = 0


def init_params(key, n_features: int, n_actions: int, hidden: int) -> dict:
    """The network's weights (orthogonal-like scaled normals, zero biases)."""
    k = jax.random.split(key, 4)

    def dense(key, n_in, n_out, scale):
        return {"w": jax.random.normal(key, (n_in, n_out), jnp.float32) * scale / np.sqrt(n_in),
                "b": jnp.zeros(n_out, jnp.float32)}

    return {"h1": dense(k[0], n_features, hidden, 1.0), "h2": dense(k[1], hidden, hidden, 1.0),
            "pi": dense(k[2], hidden, n_actions, 0.01), "v": dense(k[3], hidden, 1, 1.0)}


def forward(params, obs, mask):
    """(masked logits, value) of a batch of observations and masks."""
    x = jnp.sign(obs) * jnp.log1p(jnp.abs(obs))
    x = jnp.tanh(x @ params["h1"]["w"] + params["h1"]["b"])
    x = jnp.tanh(x @ params["h2"]["w"] + params["h2"]["b"])
    logits = x @ params["pi"]["w"] + params["pi"]["b"]
    logits = jnp.where(mask > 0, logits, NEG)
    return logits, (x @ params["v"]["w"] + params["v"]["b"])[:, 0]


@jax.jit
def act(params, obs, mask, key):
    """A sampled action per row, its log-probability and the value."""
    logits, value = forward(params, obs, mask)
    action = jax.random.categorical(key, logits)
    logp = jax.nn.log_softmax(logits)[jnp.arange(action.shape[0]), action]
    return action, logp, value


@jax.jit
def best(params, obs, mask):
    """The most probable legal action per row (evaluation plays it)."""
    return jnp.argmax(forward(params, obs, mask)[0], axis=1)


def _loss(params, batch, cfg: Config):
    obs, mask, action, logp_old, adv, ret = batch
    logits, value = forward(params, obs, mask)
    logp_all = jax.nn.log_softmax(logits)
    logp = logp_all[jnp.arange(action.shape[0]), action]
    ratio = jnp.exp(logp - logp_old)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv).mean()
    probs = jnp.exp(logp_all)
    entropy = -jnp.where(mask > 0, probs * logp_all, 0.0).sum(axis=1).mean()
    v_loss = ((value - ret) ** 2).mean()
    return pg + cfg.value_coef * v_loss - cfg.entropy * entropy


def make_update(cfg: Config, optimizer):
    """The jitted minibatch step: (params, opt_state, batch) -> (params, opt_state)."""

    @jax.jit
    def update(params, opt_state, batch):
        grads = jax.grad(_loss)(params, batch, cfg)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state

    return update


def advantages(rewards, values, dones, last_value, lam: float):
    """GAE with gamma 1 over a (steps, N) rollout: (advantages, returns); dones[t] says the
    game ended at step t (the next value is then the next game's, not counted)."""
    steps = rewards.shape[0]
    adv = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1], np.float32)
    for t in reversed(range(steps)):
        nxt = last_value if t == steps - 1 else values[t + 1]
        live = 1.0 - dones[t]
        delta = rewards[t] + nxt * live - values[t]
        running = delta + lam * live * running
        adv[t] = running
    return adv, adv + values


def evaluate(params, opponents: str, games: int, players: int = 4, seed: int = 10**6, num_envs: int = 250) -> dict:
    """The greedy (argmax) agent's share of the win over `games` games against `opponents` in
    every other seat (the learner's seat rotating): mean, 95% CI and count. A game's share is 1
    for a win, 1/k for a k-way tie, else 0; the interval is Wilson's of the shares' sum over the
    games (within [0, 1]; a share in [0, 1] varies no more than a win or loss of the same mean,
    so it is wide enough). PPOError when the weights do not fit the environment."""
    venv = batched_v0.vector_env(num_envs=min(num_envs, games), players=players, opponents=opponents, seed=seed)
    _check_fits(params, venv.batched)
    obs, _ = venv.reset()
    shares = []
    while len(shares) < games:
        action = np.asarray(best(params, obs["observation"], obs["action_mask"]))
        obs, rewards, ended, _, _ = venv.step(action)
        shares.extend(rewards[ended].tolist())
    shares = np.array(shares[:games])
    lo, hi = wilson_interval(float(shares.sum()), games)
    return {"opponents": opponents, "games": games, "share": float(shares.mean()), "ci95": [lo, hi]}


def _check_fits(params, env):
    """PPOError unless the weights take the environment's observation and actions."""
    inputs, actions = params["h1"]["w"].shape[0], params["pi"]["w"].shape[1]
    if (inputs, actions) != (env.n_features, env.n_actions):
        raise PPOError(f"the weights take {inputs} inputs and {actions} actions; the {env.players}-player "
                       f"environment has {env.n_features} and {env.n_actions} (weights of another data file or wsim)")


def training_env(cfg: Config):
    """The environment train plays: cfg.num_envs games of one learner against cfg.opponents."""
    return batched_v0.vector_env(num_envs=cfg.num_envs, players=cfg.players, opponents=cfg.opponents,
                                 seed=cfg.seed, reward="margin")


def train(cfg: Config, minutes: float, eval_every: float = 0.0, eval_games: int = 500, log=print, venv=None):
    """Train for `minutes`; every eval_every minutes (0: only at the end) the share against
    random, greedy and heuristic seats. venv: training_env(cfg), made here when None. Returns
    (params, curve): curve rows are (minutes, agent steps, {opponents: evaluate's row})."""
    venv = training_env(cfg) if venv is None else venv
    b = venv.batched
    key = jax.random.PRNGKey(cfg.seed)
    key, sub = jax.random.split(key)
    params = init_params(sub, b.n_features, b.n_actions, cfg.hidden)
    optimizer = optax.chain(optax.clip_by_global_norm(0.5), optax.adam(cfg.lr))
    opt_state = optimizer.init(params)
    update = make_update(cfg, optimizer)
    n, f, a = cfg.num_envs, b.n_features, b.n_actions
    obs_buf = np.zeros((cfg.steps, n, f), np.float32)
    mask_buf = np.zeros((cfg.steps, n, a), np.int8)
    act_buf = np.zeros((cfg.steps, n), np.int32)
    logp_buf = np.zeros((cfg.steps, n), np.float32)
    val_buf = np.zeros((cfg.steps, n), np.float32)
    rew_buf = np.zeros((cfg.steps, n), np.float32)
    done_buf = np.zeros((cfg.steps, n), np.float32)
    obs, _ = venv.reset()
    started = time.perf_counter()
    next_eval = eval_every
    curve, agent_steps = [], 0
    rng = np.random.default_rng(cfg.seed)
    while True:
        elapsed = (time.perf_counter() - started) / 60
        if eval_every and elapsed >= next_eval:
            curve.append(_checkpoint(params, elapsed, agent_steps, eval_games, cfg.players, log))
            next_eval += eval_every
        if elapsed >= minutes:
            break
        for t in range(cfg.steps):
            obs_buf[t], mask_buf[t] = obs["observation"], obs["action_mask"]
            key, sub = jax.random.split(key)
            action, logp, value = act(params, obs_buf[t], mask_buf[t], sub)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, rewards, ended, _, _ = venv.step(act_buf[t])
            rew_buf[t] = rewards / 10.0
            done_buf[t] = ended
        agent_steps += cfg.steps * n
        last_value = np.asarray(forward(params, obs["observation"], obs["action_mask"])[1])
        adv, ret = advantages(rew_buf, val_buf, done_buf, last_value, cfg.gae_lambda)
        flat = [x.reshape(cfg.steps * n, *x.shape[2:]) for x in (obs_buf, mask_buf, act_buf, logp_buf, adv, ret)]
        size = cfg.steps * n // cfg.minibatches
        for _ in range(cfg.epochs):
            order = rng.permutation(cfg.steps * n)
            for k in range(cfg.minibatches):
                idx = order[k * size:(k + 1) * size]
                params, opt_state = update(params, opt_state, tuple(x[idx] for x in flat))
    if not curve or curve[-1][1] != agent_steps:
        curve.append(_checkpoint(params, (time.perf_counter() - started) / 60, agent_steps, eval_games, cfg.players,
                                 log))
    return params, curve


def _checkpoint(params, minutes: float, agent_steps: int, games: int, players: int, log) -> tuple:
    rows = {opp: evaluate(params, opp, games, players) for opp in ("random", "greedy", "heuristic")}
    log(f"{minutes:6.1f} min {agent_steps:>10,} steps  " + "  ".join(
        f"{o} {r['share']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]" for o, r in rows.items())
        + f"  ({games:,} games each)")
    return (round(minutes, 2), agent_steps, rows)


def to_bytes(params) -> bytes:
    """The weights as an .npz (keys layer/w, layer/b)."""
    buf = io.BytesIO()
    np.savez(buf, **{f"{layer}/{k}": np.asarray(v) for layer, d in params.items() for k, v in d.items()})
    return buf.getvalue()


def file_room(n_features: int, n_actions: int, hidden: int) -> int:
    """More bytes than to_bytes gives for a network of these sizes (Config.hidden both layers)."""
    return 4 * (n_features * hidden + hidden * hidden + hidden * n_actions + 3 * hidden + n_actions + 1) + NPZ_ROOM


def save(params, path, overwrite: bool = False):
    """Write the weights to file `path` (wsim.dataset.outfile: a new file, or over one with
    overwrite=True; written whole)."""
    data = to_bytes(params)
    with out_file(os.fspath(path), overwrite, len(data), "the weights file") as write:
        write(data)


def load(path) -> dict:
    """save's weights back, from a regular file of at most MAX_FILE_BYTES; PPOError naming the
    file when it is not such weights (a `wsim learn` model included)."""
    where = f"weights file {brief(os.fspath(path))}"
    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except (OSError, ValueError) as e:  # ValueError: a NUL character in the path
        raise PPOError(f"{where}: cannot be read ({getattr(e, 'strerror', None) or e})") from None
    try:
        arrays = npz_arrays(raw, MAX_FILE_BYTES)
    except NotAnArchive as e:
        raise PPOError(f"{where}: not a weights file ({e})") from None
    problem = _form_problem(arrays)
    if problem:
        raise PPOError(f"{where}: not the weights `python -m wsim.env.ppo --out` writes ({problem})")
    return {layer: {k: jnp.asarray(arrays[f"{layer}/{k}"]) for k in ("w", "b")} for layer in LAYERS}


def _form_problem(arrays: dict) -> str | None:
    """Why `arrays` are not the network's (init_params' layers chained), None when they are."""
    names = sorted(arrays)
    if names != sorted(f"{layer}/{k}" for layer in LAYERS for k in ("w", "b")):
        learned = "; a `wsim learn` model plays as --policy-param learned.model=FILE" if "header" in arrays else ""
        return f"its arrays are {', '.join(names)}{learned}"
    w = {layer: arrays[f"{layer}/w"] for layer in LAYERS}
    b = {layer: arrays[f"{layer}/b"] for layer in LAYERS}
    if any(a.ndim != 2 for a in w.values()) or any(a.ndim != 1 for a in b.values()):
        return "a layer's weights are not a matrix and a vector"
    h1, h2 = w["h1"].shape[1], w["h2"].shape[1]
    chained = (w["h2"].shape[0] == h1 and w["pi"].shape[0] == h2 and w["v"].shape == (h2, 1)
               and all(b[layer].shape[0] == w[layer].shape[1] for layer in LAYERS))
    if not chained:
        return "the layers' sizes do not chain"
    if any(a.dtype != np.float32 or not np.isfinite(a).all() for a in arrays.values()):
        return "weights that are not finite float32 numbers"
    return None


class _Parser(argparse.ArgumentParser):
    """argparse, its mistakes ending in the project's `Error:` line (exit status 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"Error: {message}\n")


def _arguments(argv) -> argparse.Namespace:
    p = _Parser(prog="python -m wsim.env.ppo", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=25.0, help="training time")
    p.add_argument("--eval-every", type=float, default=5.0, help="minutes between evaluations (0: at the end)")
    p.add_argument("--eval-games", type=int, default=500, help="games per opponent per evaluation")
    p.add_argument("--num-envs", type=int, default=Config.num_envs, help=f"games played at once, 1..{MAX_ENVS}")
    p.add_argument("--opponents", default=Config.opponents, help="the training opponents' policy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the trained weights here (.npz)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")
    p.add_argument("--evaluate", metavar="NPZ", help="only evaluate these weights")
    p.add_argument("--games", type=int, default=1000, help="games per opponent for --evaluate")
    return p.parse_args(argv)


def _checked(args: argparse.Namespace) -> argparse.Namespace:
    """The arguments, each checked (PPOError naming the option) before anything runs."""
    real_number(args.minutes, "minutes", 0, MAX_MINUTES, PPOError)
    if args.eval_every != 0:
        real_number(args.eval_every, "eval_every", 0, MAX_MINUTES, PPOError)
    whole_number(args.eval_games, "eval_games", 1, MAX_GAMES, PPOError)
    whole_number(args.num_envs, "num_envs", 1, MAX_ENVS, PPOError)
    whole_number(args.seed, "seed", 0, MAX_SEED, PPOError)
    whole_number(args.games, "games", 1, MAX_GAMES, PPOError)
    one_of(args.opponents, "opponents", BATCHABLE, PPOError)
    if args.evaluate is not None and args.out is not None:
        raise PPOError("--out: not with --evaluate, which writes nothing")
    return args


def _run(args: argparse.Namespace):
    if args.evaluate is not None:
        params = load(args.evaluate)
        for opp in ("random", "greedy", "heuristic"):
            r = evaluate(params, opp, args.games)
            print(f"against 3 {opp}: {r['share']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}] over {r['games']} games")
        return
    cfg = Config(num_envs=args.num_envs, opponents=args.opponents, seed=args.seed)
    venv = training_env(cfg)
    if args.out is None:
        train(cfg, args.minutes, args.eval_every, args.eval_games, venv=venv)
        return
    room = file_room(venv.batched.n_features, venv.batched.n_actions, cfg.hidden)
    with out_file(args.out, args.overwrite, room, "the weights file") as write:
        params, _ = train(cfg, args.minutes, args.eval_every, args.eval_games, venv=venv)
        write(to_bytes(params))
    print(f"weights written to {args.out}")


def main(argv=None):
    """The command line (module docstring): a mistake is `Error: ...` on stderr, exit status 2;
    Ctrl-C says `interrupted`, exit status 130, and leaves --out as it was."""
    style = OPTION_STYLE.set("cli")  # messages name the options as typed
    try:
        _run(_checked(_arguments(argv)))
    except WsimError as e:
        print(f"Error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"Error: {where}{e.strerror or e}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        OPTION_STYLE.reset(style)


if __name__ == "__main__":
    main()
