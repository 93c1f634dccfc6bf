"""Text utilities shared by the write and read paths: folding, segmentation, language."""

from .segment import content_words, detect_language, fold, is_cjk, keyword_terms, tokens

__all__ = ["content_words", "detect_language", "fold", "is_cjk", "keyword_terms", "tokens"]
