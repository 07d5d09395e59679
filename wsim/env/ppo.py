"""A training example: PPO with action masking, in JAX + optax on CPU, against the batched
environment (one learner seat per game, batched_v0.vector_env). Optional extra `ppo`
(pip install 'wsim[ppo]'); docs/env.md, "Training example", gives the command and the curve.

    python -m wsim.env.ppo --minutes 25 --out ppo.npz        # train, evaluating as it goes
    python -m wsim.env.ppo --evaluate ppo.npz --games 1000   # its share against 3 random/greedy/heuristic

The network: the observation squashed (sign(x) log(1 + |x|)), two tanh layers, a logit per action
id (masked: an illegal id gets -1e9) and a value. Each iteration plays `steps` steps of every game,
computes GAE advantages (the game's reward at its end, gamma 1) and takes `epochs` passes of
clipped-PPO minibatch updates with Adam. The reward trained on is the learner's margin (its points
minus the best other player's, / 10): denser than the win, and a win is what it buys.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import optax

from wsim.env import batched_v0

NEG = -1e9


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
    every other seat (the learner's seat rotating): mean, 95% CI and count."""
    venv = batched_v0.vector_env(num_envs=min(num_envs, games), players=players, opponents=opponents, seed=seed)
    obs, _ = venv.reset()
    shares = []
    while len(shares) < games:
        action = np.asarray(best(params, obs["observation"], obs["action_mask"]))
        obs, rewards, ended, _, _ = venv.step(action)
        shares.extend(rewards[ended].tolist())
    shares = np.array(shares[:games])
    half = 1.96 * shares.std(ddof=1) / np.sqrt(games)
    return {"opponents": opponents, "games": games, "share": float(shares.mean()),
            "ci95": [float(shares.mean() - half), float(shares.mean() + half)]}


def train(cfg: Config, minutes: float, eval_every: float = 0.0, eval_games: int = 500, log=print):
    """Train for `minutes`; every eval_every minutes (0: only at the end) the share against
    random, greedy and heuristic seats. Returns (params, curve): curve rows are (minutes,
    agent steps, {opponents: evaluate's row})."""
    venv = batched_v0.vector_env(num_envs=cfg.num_envs, players=cfg.players, opponents=cfg.opponents,
                                 seed=cfg.seed, reward="margin")
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
        f"{o} {r['share']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}]" for o, r in rows.items()))
    return (round(minutes, 2), agent_steps, rows)


def save(params, path: str):
    """The weights as an .npz (keys layer/w, layer/b)."""
    np.savez(path, **{f"{layer}/{k}": np.asarray(v) for layer, d in params.items() for k, v in d.items()})


def load(path: str) -> dict:
    """save's weights back."""
    with np.load(path) as z:
        out: dict = {}
        for name in z.files:
            layer, k = name.split("/")
            out.setdefault(layer, {})[k] = jnp.asarray(z[name])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m wsim.env.ppo", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=25.0, help="training time")
    p.add_argument("--eval-every", type=float, default=5.0, help="minutes between evaluations (0: at the end)")
    p.add_argument("--eval-games", type=int, default=500, help="games per opponent per evaluation")
    p.add_argument("--num-envs", type=int, default=Config.num_envs)
    p.add_argument("--opponents", default=Config.opponents, help="the training opponents' policy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the trained weights here (.npz)")
    p.add_argument("--evaluate", metavar="NPZ", help="only evaluate these weights")
    p.add_argument("--games", type=int, default=1000, help="games per opponent for --evaluate")
    args = p.parse_args(argv)
    if args.evaluate:
        params = load(args.evaluate)
        for opp in ("random", "greedy", "heuristic"):
            r = evaluate(params, opp, args.games)
            print(f"against 3 {opp}: {r['share']:.1%} [{r['ci95'][0]:.1%}, {r['ci95'][1]:.1%}] over {r['games']} games")
        return
    cfg = Config(num_envs=args.num_envs, opponents=args.opponents, seed=args.seed)
    params, _ = train(cfg, args.minutes, args.eval_every, args.eval_games)
    if args.out:
        save(params, args.out)
        print(f"weights written to {args.out}")


if __name__ == "__main__":
    main()
