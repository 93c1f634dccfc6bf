"""Fitting stage 3's logistic model (``RecallWeights.model_bias/model_weights``) on labelled
candidates, and measuring how well calibrated a confidence is.

A row is a candidate's feature vector (:data:`jiyi.recall.rerank.FEATURES`) and a label: 1 when
the unit is evidence for the question. :func:`fit_logistic` is plain L2-regularised logistic
regression by Newton's method (numpy only). :func:`expected_calibration_error` bins predicted
probabilities and compares them with the observed rate.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def fit_logistic(x: Sequence[Sequence[float]], y: Sequence[int], l2: float = 1e-2,
                 iterations: int = 50) -> tuple[float, list[float]]:
    """``(bias, weights)`` minimising log-loss + ``l2 * |w|^2 / 2`` (bias not regularised)."""
    xm = np.asarray(x, dtype=np.float64)
    ym = np.asarray(y, dtype=np.float64)
    if xm.ndim != 2 or xm.shape[0] != ym.shape[0] or xm.shape[0] == 0:
        raise ValueError("x must be a non-empty matrix with one row per label")
    a = np.hstack([np.ones((xm.shape[0], 1)), xm])
    w = np.zeros(a.shape[1])
    reg = np.full(a.shape[1], l2)
    reg[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(a @ w)))
        grad = a.T @ (p - ym) / len(ym) + reg * w
        hess = (a.T * (p * (1 - p))) @ a / len(ym) + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return float(w[0]), [float(v) for v in w[1:]]


def predict(x: Sequence[Sequence[float]], bias: float, weights: Sequence[float]) -> F64:
    xm = np.asarray(x, dtype=np.float64)
    z = bias + xm @ np.asarray(weights, dtype=np.float64)
    out: F64 = 1.0 / (1.0 + np.exp(-z))
    return out


def log_loss(p: Sequence[float], y: Sequence[int]) -> float:
    pm = np.clip(np.asarray(p, dtype=np.float64), 1e-9, 1 - 1e-9)
    ym = np.asarray(y, dtype=np.float64)
    return float(-np.mean(ym * np.log(pm) + (1 - ym) * np.log(1 - pm)))


def expected_calibration_error(p: Sequence[float], y: Sequence[int], bins: int = 10) -> float:
    """Mean |predicted - observed| over equal-width probability bins, weighted by bin size."""
    pm = np.asarray(p, dtype=np.float64)
    ym = np.asarray(y, dtype=np.float64)
    if pm.size == 0:
        return 0.0
    idx = np.minimum((pm * bins).astype(int), bins - 1)
    err = 0.0
    for b in range(bins):
        mask = idx == b
        if mask.any():
            err += float(mask.sum()) / pm.size * abs(float(pm[mask].mean() - ym[mask].mean()))
    return err


def precision_above(p: Sequence[float], y: Sequence[int], threshold: float) -> tuple[float, float]:
    """``(precision, share)`` of the rows whose probability is at least ``threshold``."""
    pm = np.asarray(p, dtype=np.float64)
    ym = np.asarray(y, dtype=np.float64)
    mask = pm >= threshold
    if not mask.any():
        return 0.0, 0.0
    return float(ym[mask].mean()), float(mask.mean())
