"""Embedders behind one registry (S8)."""

from .base import Embedder, normalise
from .registry import available_embedders, get_embedder, register_embedder

__all__ = ["Embedder", "available_embedders", "get_embedder", "normalise", "register_embedder"]
