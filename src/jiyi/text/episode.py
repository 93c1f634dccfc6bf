"""What a raw turn's vector reads (the episodic layer, :mod:`jiyi.recall.episodes`): shared by the
write path, which embeds each stored turn, and the facade's re-index."""

from __future__ import annotations

#: How much of a turn its vector reads (the embedders read ~512 tokens; a longer paste is
#: represented by its beginning, while its units cover the rest).
EPISODE_CHARS = 1000


def episode_text(text: str) -> str:
    """What the turn's vector is computed from: the (redacted) text, stripped, bounded."""
    return text.strip()[:EPISODE_CHARS]
