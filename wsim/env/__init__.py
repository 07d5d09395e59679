"""Agent environments over wsim's engine (optional extra `rl`: pip install 'wsim[rl]'; docs/env.md).

`wonders_v0`: PettingZoo's AEC (`env`) and Parallel (`parallel_env`) APIs, one agent per player;
`single.single_learner`: one seat as a gymnasium.Env. `batched_v0`: N games stepped by one numba
call (`env`), and one learner seat per game as a gymnasium.vector.VectorEnv (`vector_env`).
`ppo`: a training example (extra `ppo`: JAX + optax).
"""
