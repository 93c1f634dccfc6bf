"""Child process of test_topics.py: another worker answering the same questions.

    python recall_child.py STORE QUESTIONS_JSON

``QUESTIONS_JSON`` is a list of ``[query, session_id, user_id, as_of_iso]``; prints one JSON
line: for each question, its hits as ``[unit_id, score, confidence, stage]``.
"""

from __future__ import annotations

import json
import sys

from jiyi import Memory


def main() -> int:
    store, questions = sys.argv[1], json.loads(sys.argv[2])
    out = []
    with Memory.open(store, embedder="fake") as mem:
        for query, sid, uid, as_of in questions:
            hits = mem.recall(query, session_id=sid, user_id=uid, as_of=as_of, k=5)
            out.append([[h.unit.id, h.score, h.confidence, h.stage] for h in hits])
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
