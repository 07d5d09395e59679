"""The fit: a one-hidden-layer network (scikit-learn's MLPRegressor, ReLU, Adam) from the recorded
inputs to the deciding seat's final margin, folded into the kernels' form (kernels/learned.py).

The inputs are raw counts: the fit standardises them (each column's mean and spread over the
data) and the scaling is folded into the first layer, as the target's scale into the second, so
that the kernel computes b2 + w2 . relu(b1 + x w1) on the raw input. Imported by `wsim learn`
only (the `learn` extra).
"""

from __future__ import annotations

import numpy as np

TARGET_SCALE = 10.0  # points: the fit sees margin / 10, of unit order


def fit(inputs: np.ndarray, margins: np.ndarray, hidden: int, seed: int, epochs: int) -> tuple:
    """(w1, b1, w2, b2, report) of a network fitted to margins (points) from inputs (float32
    rows, standardised in place: the caller's array is spent); report: the fit's epochs, its
    validation R² and the margin's spread."""
    from sklearn.neural_network import MLPRegressor

    z = np.asarray(inputs, np.float32)
    mean = z.mean(axis=0, dtype=np.float64)
    spread = z.std(axis=0, dtype=np.float64)
    spread[spread == 0] = 1.0
    for lo in range(0, len(z), 65536):  # in blocks: no second copy of the data
        z[lo:lo + 65536] -= mean.astype(np.float32)
        z[lo:lo + 65536] /= spread.astype(np.float32)
    y = (np.asarray(margins, np.float64) / TARGET_SCALE).astype(np.float32)
    net = MLPRegressor(hidden_layer_sizes=(hidden,), activation="relu", solver="adam", alpha=1e-4, batch_size=512,
                       learning_rate_init=1e-3, max_iter=epochs, early_stopping=True, validation_fraction=0.1,
                       n_iter_no_change=4, random_state=seed, shuffle=True)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the epoch budget is the caller's choice
        net.fit(z, y)
    c0, c1 = (np.asarray(c, np.float64) for c in net.coefs_)
    i0, i1 = (np.asarray(i, np.float64) for i in net.intercepts_)
    w1 = c0 / spread[:, None]
    b1 = i0 - (mean / spread) @ c0
    w2 = c1[:, 0] * TARGET_SCALE
    b2 = i1[0] * TARGET_SCALE
    report = {"epochs": int(net.n_iter_), "validation_r2": round(float(max(net.validation_scores_)), 4),
              "rows": int(len(z)), "margin_sd": round(float(np.std(margins)), 3)}
    return w1.astype(np.float32), b1.astype(np.float32), w2.astype(np.float32), np.float32(b2), report
