"""batched_v0: N games of 7 Wonders stepped together by the kernels (docs/env.md, "N games at
once").

    from wsim.env import batched_v0
    venv = batched_v0.env(num_games=4096, players=4, seed=0)     # every seat a learner
    obs, info = venv.reset()
    obs, rewards, terminations, truncations, info = venv.step(venv.sample_legal())

`env` is wsim.env.batched.BatchedEnv (every seat's action for every game in one call);
`vector_env` one learner seat per game as a gymnasium.vector.VectorEnv
(wsim.env.vector.LearnerVectorEnv).
"""

from __future__ import annotations

from wsim.env.batched import BatchedEnv


def env(**kwargs) -> BatchedEnv:
    """The batched environment (BatchedEnv's settings)."""
    return BatchedEnv(**kwargs)


def vector_env(**kwargs):
    """One learner seat per game against kernel policies, as a gymnasium.vector.VectorEnv
    (wsim.env.vector.LearnerVectorEnv's settings)."""
    from wsim.env.vector import LearnerVectorEnv

    return LearnerVectorEnv(**kwargs)
