"""Optional model extraction: an LLM proposes the facts of a turn, the rules keep it honest.

Off by default. Turn it on with ``JiyiConfig(extract_llm=...)``: a :class:`~jiyi.llm.ChatClient`
or a spec in the one spelling of :mod:`jiyi.llm.registry` (``ollama:MODEL[@URL]``,
``openai:[MODEL@]URL``); ``$JIYI_LLM_EXTRACT`` gives the spec when the config names none. The
model is asked through the ordinary chat clients (bounded retries, clear errors). It gets the
*redacted* turn, so no secret leaves the process, and is asked for JSON that follows a schema
(Ollama ``format``, OpenAI ``response_format``). The answer is validated with pydantic; a
timeout, an HTTP error or a malformed answer falls back to the rule extraction. Every rule
entity the model dropped is put back by keeping the rule unit that holds it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..config import JiyiConfig
from ..errors import ConfigError, LLMError
from ..keyfacts.schema import schema
from ..llm.base import ChatClient
from ..llm.registry import make_client, parse_client_spec
from ..text.entities import extract_entities
from ..text.secrets import redact
from ..units import MAX_CONTENT_CHARS, MemoryType
from .drafts import Extraction, TurnInput, UnitDraft

#: Extra attempts when the model's server cannot be reached (the write path waits at most
#: ``(EXTRACT_RETRIES + 1) x timeout`` before it keeps the rule extraction).
EXTRACT_RETRIES = 1

#: What each memory type means, told to the model; one line per :class:`MemoryType` (a test
#: checks that every type has one, so a new type cannot be left out of the prompt).
TYPE_MEANINGS: dict[MemoryType, str] = {
    MemoryType.USER_PROFILE: "stable facts about the speaker",
    MemoryType.SESSION_STATE: "what is being done now",
    MemoryType.TOOL_RESULT: "what a tool or lookup returned",
    MemoryType.FACT_REFERENCE: "facts about the world",
    MemoryType.BATCH_OPERATION: "task progress",
}


def single_slots() -> tuple[str, ...]:
    """The single-valued slots of the slot schema: the ones a model may name."""
    return tuple(row.name for row in schema() if row.single)


class LLMFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    type: MemoryType
    slot: str | None = None

    @field_validator("slot")
    @classmethod
    def _a_single_valued_slot(cls, value: str | None) -> str | None:
        if value is not None and value not in single_slots():
            raise ValueError(f"slot must be one of {', '.join(single_slots())}")
        return value


class LLMFacts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[LLMFact] = Field(max_length=32)


def _facts_schema() -> dict[str, Any]:
    """The JSON schema the model answers in: the slot named from the schema's single slots."""
    out: dict[str, Any] = LLMFacts.model_json_schema()
    out["$defs"]["LLMFact"]["properties"]["slot"] = {
        "anyOf": [{"type": "string", "enum": list(single_slots())}, {"type": "null"}],
        "default": None}
    return out


FACTS_SCHEMA: dict[str, Any] = _facts_schema()

SYSTEM_PROMPT = (
    "You extract long-term memory facts from one conversation turn. Answer only JSON matching the "
    "schema. Each fact: at most 150 characters, plain text, in the language of the turn; keep "
    "every name, number, id, code, amount, date, negation and condition; drop greetings, thanks "
    "and filler; write relative dates as absolute dates using the turn time; name the speaker "
    "instead of 'I'. type: "
    + ", ".join(f"{t.value} ({m})" for t, m in TYPE_MEANINGS.items())
    + ". slot only for a single-valued fact of the speaker ("
    + ", ".join(single_slots())
    + "). Placeholders like [API_KEY] stay as they are. No facts: {\"facts\": []}."
)


class LLMExtractor:
    """Asks a chat model for facts; never raises on the write path (falls back to the rules).

    ``owns_client``: close the client with the extractor (True when it was built from a spec)."""

    def __init__(self, client: ChatClient, *, owns_client: bool = False) -> None:
        self.client = client
        self.owns_client = owns_client
        self.failures = 0
        self.last_error: str | None = None

    @property
    def name(self) -> str:
        return f"llm:{self.client.name}"

    def close(self) -> None:
        if self.owns_client:
            self.client.close()

    def _messages(self, turn: TurnInput, text: str, rules: Extraction) -> list[dict[str, str]]:
        ents = [{"kind": e.kind, "text": e.text, "value": e.value} for e in rules.entities]
        user = json.dumps({
            "turn_time_utc": turn.at.isoformat(), "role": turn.role, "speaker": turn.speaker,
            "text": text, "entities_found": ents,
        }, ensure_ascii=False, separators=(",", ":"))
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]

    def ask(self, turn: TurnInput, rules: Extraction) -> LLMFacts | None:
        """The model's facts, or None on timeout, HTTP error or an answer off the schema."""
        messages = self._messages(turn, rules.redacted_text, rules)
        try:
            reply = self.client.chat(messages, format=FACTS_SCHEMA, temperature=0.0)
            return LLMFacts.model_validate_json(reply.content)
        except (LLMError, ValidationError, ValueError) as exc:
            self.failures += 1
            self.last_error = f"{type(exc).__name__}: {exc}"[:300]
            return None

    def refine(self, turn: TurnInput, rules: Extraction) -> Extraction:
        """The model's facts as drafts, plus any rule unit holding an entity the model lost."""
        answer = self.ask(turn, rules)
        if answer is None or (not answer.facts and rules.drafts):
            return rules
        drafts: list[UnitDraft] = []
        secrets = dict(rules.secrets)
        for fact in answer.facts:
            red = redact(fact.content)
            secrets.update({k: v for k, v in red.secrets.items() if k not in secrets})
            content = red.text.strip()
            if not content or len(content) > MAX_CONTENT_CHARS:
                continue
            slot: str | None = fact.slot
            if slot and turn.speaker:
                slot = f"{slot}@{turn.speaker.casefold()}"
            drafts.append(UnitDraft(content=content, type=fact.type,
                                    entities=extract_entities(content, turn.at), slot=slot))
        joined = "\n".join(d.content for d in drafts)
        for rule_draft in rules.drafts:
            lost = [e for e in rule_draft.entities if e.kind != "date" and e.text not in joined]
            if (lost or rule_draft.slot) and rule_draft.content not in joined:
                drafts.append(rule_draft)
        return replace(rules, drafts=drafts, secrets=secrets, extractor=self.name)


def extractor_from_config(
    config: JiyiConfig, environ: Mapping[str, str] = os.environ
) -> LLMExtractor | None:
    """The extractor :attr:`JiyiConfig.extract_llm` names (a :class:`ChatClient`, or a spec
    such as ``ollama:qwen2.5:7b@http://127.0.0.1:11434``); when it is unset, the spec in
    ``$JIYI_LLM_EXTRACT``; None (rules only) when neither is set. A spec gets a client of its
    own, with :attr:`JiyiConfig.extract_llm_timeout` (``$JIYI_LLM_EXTRACT_TIMEOUT`` for the
    environment's) and, for an OpenAI-compatible server, the key in ``$JIYI_LLM_API_KEY``."""
    choice = config.extract_llm
    timeout = config.extract_llm_timeout
    if choice is None:
        choice = environ.get("JIYI_LLM_EXTRACT", "").strip() or None
        raw_timeout = environ.get("JIYI_LLM_EXTRACT_TIMEOUT", "").strip()
        if raw_timeout:
            try:
                timeout = float(raw_timeout)
            except ValueError:
                raise ConfigError(
                    f"JIYI_LLM_EXTRACT_TIMEOUT must be a number of seconds, got {raw_timeout!r}"
                ) from None
    if choice is None:
        return None
    if not isinstance(choice, str):
        return LLMExtractor(choice)
    extra: dict[str, Any] = {}
    if parse_client_spec(choice).backend == "openai" and environ.get("JIYI_LLM_API_KEY"):
        extra["api_key"] = environ["JIYI_LLM_API_KEY"]
    client = make_client(choice, timeout=timeout, retries=EXTRACT_RETRIES, **extra)
    return LLMExtractor(client, owns_client=True)
