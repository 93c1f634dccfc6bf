"""Stage 3's confidence model names its weights: each feature's weight is a field, a
calibration's list of seven numbers still loads (in feature order), and a wrong count is a
clear error."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from jiyi.config import FeatureWeights, JiyiConfig, RecallWeights
from jiyi.recall.rerank import FEATURES, linear_score


def test_features_are_the_weights_fields() -> None:
    assert FEATURES == ("keyword_rr", "vector_rr", "cosine", "coverage", "speaker", "in_window",
                        "rule")
    assert tuple(FeatureWeights.model_fields) == FEATURES


def test_a_list_in_feature_order_is_the_named_weights() -> None:
    numbers = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]
    named = RecallWeights(model_weights=numbers).model_weights  # type: ignore[arg-type]
    assert named == FeatureWeights(keyword_rr=0.1, vector_rr=0.2, cosine=0.3, coverage=0.4,
                                   speaker=0.5, in_window=0.6, rule=0.7)
    assert named.as_tuple() == tuple(numbers)
    with pytest.raises(ValidationError, match="7 numbers"):
        RecallWeights(model_weights=[1.0, 2.0])  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        FeatureWeights(rules=1.0)  # type: ignore[call-arg]  # a misspelt name is refused


def test_linear_score_weighs_each_feature_by_its_name() -> None:
    weights = RecallWeights(model_bias=-1.0, model_weights=FeatureWeights(
        keyword_rr=0, vector_rr=0, cosine=0, coverage=0, speaker=0, in_window=0, rule=4.0))
    assert linear_score({"rule": 1.0, "cosine": 0.9}, weights) == pytest.approx(3.0)
    default = JiyiConfig().recall
    feats = dict(zip(FEATURES, [1.0, 0.5, 0.8, 0.25, 0.0, 1.0, 0.0], strict=True))
    expected = default.model_bias + sum(
        w * feats[n] for n, w in zip(FEATURES, default.model_weights.as_tuple(), strict=True))
    assert linear_score(feats, default) == pytest.approx(expected)
    assert default.model_weights.as_tuple() == (1.5, 1.5, 0.0, 2.0, 0.5, 1.0, 4.0)
