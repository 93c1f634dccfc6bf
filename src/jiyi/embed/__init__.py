"""Embedders behind one registry; memory types may each use their own (see :mod:`.routing`)."""

from .base import Embedder, normalise
from .registry import available_embedders, get_embedder, register_embedder

__all__ = ["Embedder", "available_embedders", "get_embedder", "normalise", "register_embedder"]
