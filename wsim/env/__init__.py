"""Agent environments over wsim's engine (optional extra `rl`: pip install 'wsim[rl]').

`wonders_v0`: a PettingZoo AEC environment, one agent per player (docs/env.md).
"""
