"""The write path: a turn in, a few typed, compressed, redacted memory drafts out (no model)."""

from .pipeline import Extraction, TurnInput, UnitDraft, extract_turn

__all__ = ["Extraction", "TurnInput", "UnitDraft", "extract_turn"]
