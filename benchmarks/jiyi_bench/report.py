"""What every Markdown report of ``jiyi bench`` starts with, written once."""

from __future__ import annotations

from typing import Any


def report_head(title: str, result: dict[str, Any]) -> list[str]:
    """The title, then the command that produced the report and its date (Markdown line breaks),
    so any figure can be re-run from the report itself."""
    return [f"# {title}", "", f"Command: `{result['command']}`  ", f"Date: {result['date']}  "]
