"""Optional model extraction: an LLM proposes the facts of a turn, the rules keep it honest.

Off by default. Configure with a spec ``ollama:MODEL@URL`` or ``openai:MODEL@URL/v1`` (or the
``JIYI_LLM_EXTRACT`` environment variable). The model gets the *redacted* turn, so no secret
leaves the process, and is asked for JSON that follows a schema (Ollama ``format`` with the
schema, OpenAI ``response_format`` ``json_schema``). The answer is validated with pydantic;
a timeout, an HTTP error or a malformed answer falls back to the rule extraction. Every rule
entity the model dropped is put back by keeping the rule unit that holds it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..units import MAX_CONTENT_CHARS, MemoryType
from .entities import extract_entities
from .pipeline import Extraction, TurnInput, UnitDraft
from .redact import redact

SlotName = Literal["phone", "email", "name", "address", "city", "membership", "birthday"]


class LLMFact(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    type: Literal["user_profile", "session_state", "fact_reference", "batch_operation"]
    slot: SlotName | None = None


class LLMFacts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[LLMFact] = Field(max_length=32)


FACTS_SCHEMA: dict[str, Any] = LLMFacts.model_json_schema()

SYSTEM_PROMPT = (
    "You extract long-term memory facts from one conversation turn. Answer only JSON matching the "
    "schema. Each fact: at most 150 characters, plain text, in the language of the turn; keep "
    "every name, number, id, code, amount, date, negation and condition; drop greetings, thanks "
    "and filler; write relative dates as absolute dates using the turn time; name the speaker "
    "instead of 'I'. type: user_profile (stable facts about the speaker), session_state (what is "
    "being done now), fact_reference (facts about the world), batch_operation (task progress). "
    "slot only for a single-valued fact of the speaker (phone, email, name, address, city, "
    "membership, birthday). Placeholders like [API_KEY] stay as they are. No facts: {\"facts\": []}."
)


@dataclass(frozen=True)
class LLMConfig:
    provider: Literal["ollama", "openai"]
    model: str
    base_url: str
    timeout: float = 20.0
    api_key: str | None = None


def parse_spec(spec: str, timeout: float = 20.0) -> LLMConfig:
    """``ollama:qwen2.5:7b@http://127.0.0.1:11434`` or ``openai:MODEL@http://host:port/v1``."""
    provider, _, rest = spec.partition(":")
    model, _, url = rest.rpartition("@") if "@" in rest else (rest, "", "")
    if provider not in ("ollama", "openai") or not model:
        raise ConfigError(f"LLM extractor spec must be ollama:MODEL[@URL] or openai:MODEL@URL, got {spec!r}")
    if provider == "openai" and not url:
        raise ConfigError("openai extractor needs a base URL: openai:MODEL@http://host:port/v1")
    return LLMConfig(provider, model, (url or "http://127.0.0.1:11434").rstrip("/"), timeout,  # type: ignore[arg-type]
                     os.environ.get("JIYI_LLM_API_KEY"))


class LLMExtractor:
    """Asks a model for facts; never raises on the write path (falls back to the rules)."""

    def __init__(self, config: LLMConfig, client: httpx.Client | None = None) -> None:
        self.config = config
        self._client = client or httpx.Client(timeout=config.timeout)
        self.failures = 0
        self.last_error: str | None = None

    @property
    def name(self) -> str:
        return f"llm:{self.config.model}"

    def close(self) -> None:
        self._client.close()

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
        cfg = self.config
        try:
            if cfg.provider == "ollama":
                resp = self._client.post(f"{cfg.base_url}/api/chat", json={
                    "model": cfg.model, "messages": messages, "stream": False,
                    "format": FACTS_SCHEMA, "options": {"temperature": 0}})
                resp.raise_for_status()
                raw = resp.json()["message"]["content"]
            else:
                headers = {"Authorization": f"Bearer {cfg.api_key}"} if cfg.api_key else {}
                resp = self._client.post(f"{cfg.base_url}/chat/completions", headers=headers, json={
                    "model": cfg.model, "messages": messages, "temperature": 0,
                    "response_format": {"type": "json_schema", "json_schema": {
                        "name": "facts", "schema": FACTS_SCHEMA, "strict": True}}})
                resp.raise_for_status()
                raw = resp.json()["choices"][0]["message"]["content"]
            return LLMFacts.model_validate_json(raw)
        except (httpx.HTTPError, ValidationError, KeyError, IndexError, TypeError,
                ValueError) as exc:
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
            drafts.append(UnitDraft(content=content, type=MemoryType(fact.type),
                                    entities=extract_entities(content, turn.at), slot=slot))
        joined = "\n".join(d.content for d in drafts)
        for rule_draft in rules.drafts:
            lost = [e for e in rule_draft.entities if e.kind != "date" and e.text not in joined]
            if (lost or rule_draft.slot) and rule_draft.content not in joined:
                drafts.append(rule_draft)
        return replace(rules, drafts=drafts, secrets=secrets, extractor=self.name)


_FROM_ENV: dict[str, LLMExtractor] = {}


def llm_extractor_from_env() -> LLMExtractor | None:
    """The extractor named by ``JIYI_LLM_EXTRACT`` (None, the default, means rules only)."""
    spec = os.environ.get("JIYI_LLM_EXTRACT", "").strip()
    if not spec:
        return None
    if spec not in _FROM_ENV:
        timeout = float(os.environ.get("JIYI_LLM_EXTRACT_TIMEOUT", "20"))
        _FROM_ENV[spec] = LLMExtractor(parse_spec(spec, timeout))
    return _FROM_ENV[spec]
