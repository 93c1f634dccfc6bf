"""The read path: rules -> hybrid search -> freshness/relevance (the three-stage funnel), topic switches."""

from .funnel import RecallRequest, RecallTrace, run_recall
from .outcome import recall_came_back_empty
from .topics import Topic, TopicState

__all__ = [
    "RecallRequest",
    "RecallTrace",
    "Topic",
    "TopicState",
    "recall_came_back_empty",
    "run_recall",
]
