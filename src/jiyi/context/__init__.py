"""Prompt context: the execution channel, the summary channel, markers, tokens, assembly."""

from .execution import ExecutionContext, ExecutionState, render_execution
from .markers import neutralise_markers
from .modelfile import render_modelfile
from .prompt import Prompt, assemble_prompt
from .summary import summarize_turns
from .tokens import CharEstimateCounter, QwenTokenCounter, TokenCounter, get_counter

__all__ = [
    "CharEstimateCounter",
    "ExecutionContext",
    "ExecutionState",
    "Prompt",
    "QwenTokenCounter",
    "TokenCounter",
    "assemble_prompt",
    "get_counter",
    "neutralise_markers",
    "render_execution",
    "render_modelfile",
    "summarize_turns",
]
