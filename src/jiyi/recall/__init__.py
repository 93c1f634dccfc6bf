"""The read path: rules -> hybrid search -> freshness/relevance (the three-stage funnel), topic switches."""

from .funnel import RecallRequest, RecallTrace, low_confidence, run_recall
from .fusion import reciprocal_rank_fusion
from .topics import Topic, TopicState

__all__ = [
    "RecallRequest",
    "RecallTrace",
    "Topic",
    "TopicState",
    "low_confidence",
    "reciprocal_rank_fusion",
    "run_recall",
]
