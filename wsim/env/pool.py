"""The batched environment's opponent pool (docs/env.md, "Opponent pools"): several seatings,
game i playing seating i mod k, each seat of a seating a kernel policy (NAME, or NAME:LABEL: a
learned label plays the model file `LABEL.model` names) or a learner.

Each seating is a run's Settings, checked as wsim.simulate checks its options; the kernels take
one run record per seating and one model record holding every seating's model files
(kernels/learned.py), each learned row naming its file's index in it (kernels/policy.L_MODEL).
"""

from __future__ import annotations

import numpy as np

from wsim.env.actions import EnvError
from wsim.errors import brief


def _targets(seating: list) -> set:
    """The policy names and labels a seating's entries give (a learner's None gives none)."""
    entries = [p for p in seating if p is not None]
    return {p.partition(":")[0] for p in entries} | {p.partition(":")[2] for p in entries if ":" in p}


def seating_settings(seatings: list, policy_params, **common) -> tuple:
    """(tables, one Settings per seating): a seating's learners play random there (their
    decisions are the caller's); each policy_params setting goes to the seatings whose names or
    labels it targets, and one that targets none is refused (EnvError)."""
    from wsim.api.runs import param_specs, run_settings

    specs = param_specs(policy_params)
    every = set().union(*(_targets(s) for s in seatings))
    for spec in specs:
        if spec.partition(".")[0].strip() not in every:
            raise EnvError(f"policy_params: {brief(spec)} names neither a policy nor a label of any seating "
                           f"(they give: {', '.join(sorted(every))})")
    tables, out = None, []
    for seating in seatings:
        own = [spec for spec in specs if spec.partition(".")[0].strip() in _targets(seating)]
        tables, settings = run_settings(games=1, policies=[p or "random" for p in seating], policy_params=own,
                                        **common)
        out.append(settings)
    return tables, out


def pool_records(tables, seatings: list) -> tuple:
    """(run records, one per Settings of `seatings`; the model record of every learned seat of
    them, None when none plays learned): wsim.run.model.seats_model over the seatings' seats, its
    model order the rows' L_MODEL indices (model_sets of the seats' files, seating by seating)."""
    from wsim.kernels.policy import L_MODEL, R_BASE
    from wsim.run.model import ModelError, model_sets, seats_model
    from wsim.run.runner import Runner

    index = iter(model_sets([f for s in seatings for f in s.models])[1])
    runs = []
    for settings in seatings:
        run = Runner(tables, settings).run.copy()
        for seat, name in enumerate(settings.policies):
            k = next(index)
            if k >= 0:
                run[0]["params"][seat, L_MODEL if name == "learned" else R_BASE + L_MODEL] = k
        runs.append(run)
    try:
        model = seats_model(tables, [f for s in seatings for f in s.models],
                            np.concatenate([s.policy_ids() for s in seatings]),
                            np.concatenate([s.policy_params() for s in seatings]),
                            [d for s in seatings for d in s.weights_files])
    except ModelError as e:
        raise EnvError(str(e)) from None
    return np.concatenate(runs), model
