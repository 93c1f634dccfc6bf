"""Fitting stage 3 on LoCoMo candidates: train on conversations 1-5, measure on 6-10.

1. **Ranking model**: logistic regression on every candidate's features, label 1 when the
   candidate's source turns include an evidence turn -> ``model_bias``, ``model_weights``.
2. **Confidence**: per question, the best candidate by the fitted model; label 1 when the top 10
   by the model cover any evidence. Platt scaling of the best ``z`` -> ``confidence_scale``,
   ``confidence_shift``; the confidence threshold 0.7 then reads "at least 70% likely the recall found
   it". Reported on the held-out conversations: log-loss, ECE, precision above 0.7.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from jiyi.errors import ValidationError
from jiyi.recall.calibrate import (
    expected_calibration_error,
    fit_logistic,
    log_loss,
    precision_above,
    predict,
)
from jiyi.recall.rerank import FEATURES

Row = tuple[int, int, list[float], int]


def _per_question(rows: list[Row], bias: float, weights: list[float]
                  ) -> list[tuple[int, float, int]]:
    """(conversation, best z, 1 when the top 10 by z hold evidence) per question."""
    groups: dict[tuple[int, int], list[tuple[list[float], int]]] = defaultdict(list)
    for conv, qn, x, y in rows:
        groups[(conv, qn)].append((x, y))
    out = []
    w = np.asarray(weights)
    for (conv, _), cands in groups.items():
        z = np.asarray([bias + float(np.asarray(x) @ w) for x, _ in cands])
        order = np.argsort(-z)
        found = int(any(cands[i][1] for i in order[:10]))
        out.append((conv, float(z[order[0]]), found))
    return out


def fit_and_describe(rows: list[Row]) -> dict[str, Any]:
    train = [r for r in rows if r[0] < 5]
    test = [r for r in rows if r[0] >= 5] or train
    if not train:
        raise ValidationError("no labelled candidates to calibrate on")
    bias, weights = fit_logistic([r[2] for r in train], [r[3] for r in train])
    q_train = _per_question(train, bias, weights)
    q_test = _per_question(test, bias, weights)
    shift, scale = fit_logistic([[z] for _, z, _ in q_train], [y for _, _, y in q_train])
    p = predict([[z] for _, z, _ in q_test], shift, scale)
    y = [y for _, _, y in q_test]
    prec, share = precision_above(list(p), y, 0.7)
    return {
        "features": list(FEATURES),
        "model_bias": round(bias, 4), "model_weights": [round(v, 4) for v in weights],
        "confidence_scale": round(scale[0], 4), "confidence_shift": round(shift, 4),
        "train_candidates": len(train), "test_candidates": len(test),
        "train_questions": len(q_train), "test_questions": len(q_test),
        "test_found_rate": round(sum(y) / len(y), 4) if y else None,
        "test_log_loss": round(log_loss(list(p), y), 4),
        "test_ece": round(expected_calibration_error(list(p), y), 4),
        "test_precision_at_0.7": round(prec, 4), "test_share_at_0.7": round(share, 4),
        "held_out": "conversations 6-10" if test is not train else "none (fewer than 6 given)",
    }
