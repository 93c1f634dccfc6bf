"""The read path: rules -> hybrid search -> freshness/relevance (S7)."""

from .fusion import reciprocal_rank_fusion
from .funnel import RecallRequest, run_recall

__all__ = ["RecallRequest", "reciprocal_rank_fusion", "run_recall"]
