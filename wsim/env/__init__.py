"""Agent environments over wsim's engine (optional extra `rl`: pip install 'wsim[rl]'; docs/env.md).

One core, the batched kernels (`batched.BatchedEnv`), and its fronts, every one a view of it with
its observation (kernels/observe.py) and action ids: `batched_v0`: N games stepped by one numba
call (`env`), and one learner seat per game as a gymnasium.vector.VectorEnv (`vector_env`);
`wonders_v1`: PettingZoo's AEC (`env`) and Parallel (`parallel_env`) APIs over one game, one agent
per player; `single.single_learner`: one seat of one game as a gymnasium.Env. `ppo`: a training
example (extra `ppo`: JAX + optax).
"""
