"""Channel 2: a LexRank summary of the last turns, keyword-weighted, short, secret-free.

Pure Python + numpy. The last ``window`` (10) turns are split into sentences (and, when a sentence
is longer than the budget, into clauses). Each sentence becomes a term-frequency vector over
:func:`jiyi.text.tokens` with idf; entity terms (names, order numbers, phone numbers, amounts,
dates, addresses..., found by the one recogniser :mod:`jiyi.text.entities` or passed as
``entity_terms``) weigh ``ENTITY_WEIGHT`` (5.0).
Centrality is LexRank (cosine graph, power iteration) biased towards sentences that carry
entities. Whole sentences are then picked, best first, while they fit in ``max_chars`` (120)
characters: nothing is ever cut in the middle of a word or a number. Sentences that hold
anything shaped like a secret are dropped before scoring.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

import numpy as np

from ..text import detect_language, fold, tokens
from ..text.entities import SUMMARY, extract_entities
from ..text.secrets import has_secret
from ..text.segment import STOPWORDS_EN, STOPWORDS_ZH
from .markers import neutralise_markers

PREFIX_ZH = "【对话摘要】以下为本次会话的关键事实提炼："
PREFIX_EN = "[Conversation summary] Key facts from this session: "
#: Names, order numbers, amounts and dates weigh five times an ordinary word: the summary is
#: for facts the model must not lose.
ENTITY_WEIGHT = 5.0
#: The summary channel is one short line; the prompt budget goes to memories and raw turns.
MAX_CHARS = 120
#: The last turns summarised: older turns are the memories' job.
WINDOW = 10
#: Sentence pairs less similar than this (tf-idf cosine) are not linked in the LexRank graph.
SIMILARITY_THRESHOLD = 0.1
#: Share of each power-iteration round that jumps to a sentence by its entity weight rather than
#: along the similarity graph: sentences with facts rank high even when nothing repeats them.
TELEPORT = 0.3
#: The power iteration stops when the scores move less than this (L1) or after this many rounds.
#: Each round shrinks the error by (1 - TELEPORT) = 0.7, so 1e-10 is reached in about 65 rounds.
CONVERGENCE_L1 = 1e-10
MAX_ITERATIONS = 200
_SEPARATOR = {"zh": "；", "en": "; "}

#: The summary weighs where entities stand, not which day a date means: relative dates are
#: read against this fixed day (no clock is read, the summary stays a pure function).
READ_AT = datetime(2000, 1, 1, tzinfo=UTC)

_SENTENCE_RE = re.compile(r"[^。！？!?；;…\n]+(?:[。！？!?；;…]+|$)|(?<=\n)")
_EN_SPLIT = re.compile(r"(?<=[.])\s+(?=\S)")
_CJK_CLAUSE_RE = re.compile(r"(?<=[，、])")
_CLAUSE_RE = re.compile(r"(?<=[，、：])|(?<=[,:])(?=\s)")
FILLER = frozenset(
    "你好 您好 好的 好 谢谢 謝謝 感谢 感謝 不客气 不客氣 嗯 哦 ok okay hi hello hey thanks thank "  # noqa: SIM905
    "yes yeah sure 您 帮 幫 收到 明白 了解 没问题 沒問題 再见 再見 bye "
    "请问 請問 有什么可以帮您 帮您 幫您".split()
)
_TRIM = "。！？!?；;…，,、：: \t\r\n."


def find_entities(text: str, entity_terms: Iterable[str] = ()) -> list[str]:
    """Entity strings of ``text``: the spans the one recogniser (:mod:`jiyi.text.entities`,
    read as :data:`~jiyi.text.entities.SUMMARY`) finds, plus any ``entity_terms`` present."""
    found = [e.text.strip() for e in extract_entities(text, READ_AT, SUMMARY)]
    folded = fold(text)
    found.extend(t for t in entity_terms if t and fold(t) in folded)
    return list(dict.fromkeys(f for f in found if f))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (at 。！？!?；; newlines, and ". " in English), trimmed."""
    out: list[str] = []
    for raw in _SENTENCE_RE.findall(text):
        for sent in _EN_SPLIT.split(raw):
            sent = sent.strip(_TRIM)
            if sent:
                out.append(sent)
    return out


def split_clauses(sentence: str, max_chars: int = MAX_CHARS) -> list[str]:
    """Clauses of a sentence at Chinese commas (a sentence longer than ``max_chars`` also at
    ``,`` and ``:``); a clause still longer than ``max_chars`` is dropped, never cut."""
    splitter = _CJK_CLAUSE_RE if len(sentence) <= max_chars else _CLAUSE_RE
    out: list[str] = []
    for clause in splitter.split(sentence):
        clause = clause.strip(_TRIM)
        if clause and len(clause) <= max_chars:
            out.append(clause)
    return out


def _terms(sentence: str) -> list[str]:
    return [
        t
        for t in tokens(sentence)
        if t not in STOPWORDS_ZH and t not in STOPWORDS_EN and any(ch.isalnum() for ch in t)
    ]


def lexrank_scores(
    term_lists: Sequence[Sequence[str]],
    entity_sets: Sequence[set[str]],
    *,
    prior: Sequence[float] | None = None,
    entity_weight: float = ENTITY_WEIGHT,
    threshold: float = SIMILARITY_THRESHOLD,
    teleport: float = TELEPORT,
) -> np.ndarray:
    """LexRank centrality with keyword weights: tf-idf cosine graph, power iteration, teleport
    biased by how many entities a sentence carries (times an optional per-sentence ``prior``).
    Sums to 1."""
    n = len(term_lists)
    if n == 0:
        return np.zeros(0)
    vocab = {t: i for i, t in enumerate(dict.fromkeys(t for terms in term_lists for t in terms))}
    df = Counter(t for terms in term_lists for t in set(terms))
    matrix = np.zeros((n, max(len(vocab), 1)))
    for row, terms in enumerate(term_lists):
        for term, tf in Counter(terms).items():
            weight = entity_weight if term in entity_sets[row] else 1.0
            idf = math.log((n + 1) / (df[term] + 1)) + 1.0
            matrix[row, vocab[term]] = tf * idf * weight
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    unit = matrix / norms[:, None]
    sim = unit @ unit.T
    sim[sim < threshold] = 0.0
    rows = sim.sum(axis=1)
    trans = np.where(rows[:, None] > 0, sim / np.where(rows == 0, 1.0, rows)[:, None], 1.0 / n)
    bias = np.array([1.0 + entity_weight * len(e) for e in entity_sets])
    if prior is not None:
        bias = bias * np.asarray(prior, dtype=float)
    bias = bias / bias.sum()
    scores = np.full(n, 1.0 / n)
    for _ in range(MAX_ITERATIONS):
        new = teleport * bias + (1.0 - teleport) * (trans.T @ scores)
        if float(np.abs(new - scores).sum()) < CONVERGENCE_L1:
            scores = new
            break
        scores = new
    result: np.ndarray = scores / scores.sum()
    return result


def cosine_matrix(
    term_lists: Sequence[Sequence[str]],
    entity_sets: Sequence[set[str]],
    entity_weight: float = ENTITY_WEIGHT,
) -> np.ndarray:
    """Keyword-weighted term-frequency cosine between sentences (for redundancy checks): two
    sentences about the same order number are near-duplicates."""
    vocab = {t: i for i, t in enumerate(dict.fromkeys(t for terms in term_lists for t in terms))}
    matrix = np.zeros((len(term_lists), max(len(vocab), 1)))
    for row, terms in enumerate(term_lists):
        for term, tf in Counter(terms).items():
            matrix[row, vocab[term]] = tf * (entity_weight if term in entity_sets[row] else 1.0)
    norms = np.linalg.norm(matrix, axis=1)
    norms[norms == 0] = 1.0
    unit = matrix / norms[:, None]
    result: np.ndarray = unit @ unit.T
    return result


#: How much a sentence's role counts in the teleport bias: users state facts, assistants echo.
ROLE_PRIOR = {"user": 1.0, "assistant": 0.5}
REDUNDANCY = 0.5
#: Sentences without entities must score at least this share of the mean centrality.
FLOOR = 0.0


def _turn_texts(turns: Sequence[tuple[str, str] | str]) -> list[tuple[str, str]]:
    texts: list[tuple[str, str]] = []
    for turn in turns:
        if isinstance(turn, str):
            texts.append(("user", turn))
        elif turn[0] in ROLE_PRIOR:
            texts.append((turn[0], turn[1]))
    return texts


def summarize_turns(
    turns: Sequence[tuple[str, str] | str],
    *,
    language: str | None = None,
    max_chars: int = MAX_CHARS,
    window: int = WINDOW,
    entity_terms: Iterable[str] = (),
) -> str | None:
    """The summary channel for the last ``window`` turns ((role, text) pairs or plain strings;
    tool and system turns are skipped), or ``None`` when there is nothing worth saying.

    The part after the prefix has at most ``max_chars`` characters and is made of whole
    sentences in conversation order. ``language`` ("zh"/"en") picks the prefix; by default it
    is detected from the turns."""
    texts = _turn_texts(list(turns)[-window:] if window > 0 else [])
    lang = language or detect_language(" ".join(t for _, t in texts))
    extra = [t for t in entity_terms if t]
    seen: set[str] = set()
    kept: list[str] = []
    prior: list[float] = []
    term_lists: list[list[str]] = []
    entity_sets: list[set[str]] = []
    units: list[tuple[str, str]] = []
    for role, text in texts:
        for sentence in split_sentences(neutralise_markers(text)):
            if has_secret(sentence):
                continue  # the whole sentence goes: its other clauses may describe the secret
            for clause in split_clauses(sentence, max_chars):
                if clause not in seen:
                    seen.add(clause)
                    units.append((role, clause))
    # an entity named once (我叫张伟) is an entity wherever it appears again (您好张伟)
    known = list(dict.fromkeys([*extra, *(e for _, u in units for e in find_entities(u))]))
    for role, sent in units:
        words = [t for t in _terms(sent) if t not in FILLER]
        entities = {fold(e) for e in find_entities(sent, known)}
        if not words and not entities:
            continue
        kept.append(sent)
        prior.append(ROLE_PRIOR[role])
        term_lists.append(words + sorted(entities))
        entity_sets.append(entities)
    if not kept:
        return None
    scores = lexrank_scores(term_lists, entity_sets, prior=prior)
    sim = cosine_matrix(term_lists, entity_sets)
    floor = FLOOR * float(scores.mean())
    sep = _SEPARATOR.get(lang, _SEPARATOR["en"])
    chosen: list[int] = []
    used = 0
    for idx in sorted(range(len(kept)), key=lambda i: (-scores[i], -i)):
        if not entity_sets[idx] and scores[idx] < floor:
            continue
        cost = len(kept[idx]) + (len(sep) if chosen else 0)
        if used + cost > max_chars:
            continue
        if any(sim[idx, j] >= REDUNDANCY for j in chosen):
            continue
        chosen.append(idx)
        used += cost
    if not chosen:
        return None
    body = sep.join(kept[i] for i in sorted(chosen))
    return (PREFIX_ZH if lang == "zh" else PREFIX_EN) + body
