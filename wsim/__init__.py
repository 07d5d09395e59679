"""wsim: a high-throughput Monte Carlo simulator of 7 Wonders (base game: the first edition, and the
second (2020) with `wsim --edition 2`).

The Python API (docs/api.md): `wsim.simulate`, `wsim.iter_batches`, `wsim.open_dataset`,
`wsim.Game`, the analyses `wsim.balance`, `wsim.ablate`, `wsim.ladder`, `wsim.survey`,
`wsim.rebalance`, `wsim.editions`, `wsim.tune`, the card data and scenario positions
`wsim.cards`, `wsim.score`, `wsim.trade`, a written dataset's `wsim.check` and `wsim.replay`,
and `wsim.WsimError`, the base of every error a user or the environment causes.
The names load lazily (PEP 562): `import wsim` imports neither numba nor pyarrow nor any
optional extra.
"""

__version__ = "0.1.0"

# Bumped whenever any game outcome for the same (data, seed, settings) can change.
RULES_VERSION = 6  # 6: at 2 players the re-deal keeps the Free City's hidden plays legal (docs/rules.md §10)

# public name -> the module that defines it
_LAZY = {
    "WsimError": "wsim.errors",
    "simulate": "wsim.api.runs", "iter_batches": "wsim.api.runs", "open_dataset": "wsim.api.runs",
    "Dataset": "wsim.api.runs",
    "Game": "wsim.api.game", "Move": "wsim.api.game", "Decision": "wsim.api.game",
    "balance": "wsim.api.analysis", "ablate": "wsim.api.analysis", "ladder": "wsim.api.analysis",
    "survey": "wsim.api.analysis", "rebalance": "wsim.api.analysis",
    "cards": "wsim.api.facts", "score": "wsim.api.facts", "trade": "wsim.api.facts",
    "check": "wsim.api.datasets", "replay": "wsim.api.datasets", "tune": "wsim.api.tuning",
    "learn": "wsim.api.learning", "atlas": "wsim.api.atlas", "editions": "wsim.api.editions",
}

__all__ = ["RULES_VERSION", "__version__", *_LAZY]


def __getattr__(name: str):
    from importlib import import_module  # at first use only: this file imports nothing (tests/test_layout.py)

    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'wsim' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
